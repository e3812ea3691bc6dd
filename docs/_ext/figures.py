"""The site's figures, drawn each time it is built (docs/conf.py loads this extension): the
board, the sun's corners and the shadows of docs/rules.md and the README tour's position,
by photocore.svg; the action-id table of docs/engine.md, from photocore.facts; the chart of
docs/speed.md's speed-ups, from that page's own table. They go to docs/_generated/ (which
git ignores) before any page is read, so a page shows what the code draws today and never a
copy that could go stale."""

import pathlib
import re
import textwrap

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402  (after the backend is chosen)

import photocore  # noqa: E402
import photocore.svg  # noqa: E402
from photocore.facts import ACTION_RANGES, MOVE_KINDS, PLANT_PAIRS, REACH  # noqa: E402

DOCS = pathlib.Path(__file__).resolve().parent.parent
FOLDER = "_generated"         # under docs/, as the pages name it
WIDTH = 460                   # px: a figure's width on the page

# docs/rules.md §5.1: a small, a medium and a large tree of one player under the sun at E
SHADOWS = "2 - 1 0 0 0 - b7:0:3,d7:0:2,f5:0:1 0/2200/4421/- 2/2410/4432/- 0579"

# what the number added to each kind's first id stands for (a cell: its index, docs/engine.md)
OFFSET = {"place": ("cell", ""),
          "buy": ("column", "seed 0, small 1, medium 2, large 3"),
          "plant": ("k", f"the rank of `(source, target)` among the {len(PLANT_PAIRS)} ordered "
                         f"pairs of cells 1 to {max(REACH)} apart, by source then target index"),
          "grow": ("cell", ""),
          "collect": ("cell", ""),
          "end": None}


def tour_position(readme: pathlib.Path) -> str:
    """The position the README's tour prints (`>>> g.position()`)."""
    found = re.search(r">>> g\.position\(\).*\n'([^']+)'", readme.read_text(encoding="utf-8"))
    if found is None:
        raise ValueError(f"{readme}: no `>>> g.position()` and its answer in the tour")
    return found[1]


def action_table() -> str:
    """The action ids by kind, as a Markdown table: each kind's ids, what the number inside
    the range is, its first and last move."""
    rows = ["| ids | count | move | id | first ... last |", "|---|---:|---|---|---|"]
    for kind in MOVE_KINDS:
        ids = ACTION_RANGES[kind]
        first, last = photocore.Move(ids[0]), photocore.Move(ids[-1])
        span = f"{ids[0]} .. {ids[-1]}" if len(ids) > 1 else f"{ids[0]}"
        if OFFSET[kind] is None:
            offset = f"`{ids[0]}`"
        else:
            name, meaning = OFFSET[kind]
            offset = (f"`{ids[0]} + {name}`" if ids[0] else f"`{name}`") + (
                f": {meaning}" if meaning else "")
        ends = f"`{first}` ... `{last}`" if len(ids) > 1 else f"`{first}`"
        rows.append(f"| {span} | {len(ids)} | `{kind}` | {offset} | {ends} |")
    return "\n".join(rows) + "\n"


def speed_ups(page: pathlib.Path) -> list[tuple[str, float]]:
    """(workload, speed-up) of each row of the page's first table that has a speed-up, in
    the page's words ("the same, 3 players" named after the row it repeats)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| workload"))
    column = [cell.strip() for cell in lines[start].strip("|").split("|")].index("speed-up")
    rows, lead = [], ""
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        workload = cells[0].replace("`", "")
        if workload.startswith("the same"):
            workload = lead + workload.removeprefix("the same")
        else:
            lead = workload.split(",")[0]
        ratio = re.fullmatch(r"([\d,.]+) x", cells[column])
        if ratio:
            rows.append((workload, float(ratio[1].replace(",", ""))))
    return rows


def speed_chart(rows: list[tuple[str, float]], path: pathlib.Path) -> None:
    """The speed-ups as bars on a log scale, the largest on top, each labelled, as SVG."""
    figure = speed_figure(rows)
    # text as text (searchable, and the site test reads it); no date: the same bytes each build
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "photocore"}):
        figure.savefig(path, format="svg", metadata={"Date": None})


def speed_figure(rows: list[tuple[str, float]]) -> Figure:
    """speed_chart's figure, every text inside it."""
    rows = sorted(rows, key=lambda row: row[1])
    figure = Figure(figsize=(8, 0.42 * len(rows) + 0.9))
    axes = figure.add_subplot()
    labels = [textwrap.shorten(workload, 70, placeholder=" ...") for workload, _ in rows]
    bars = axes.barh(range(len(rows)), [ratio for _, ratio in rows], color="#5b8c3a")
    axes.bar_label(bars, [f"{ratio:,.0f} x" for _, ratio in rows], padding=3, fontsize=9)
    axes.set_yticks(range(len(rows)), labels, fontsize=9)
    axes.set_xscale("log")
    axes.set_xlim(1, max(ratio for _, ratio in rows) * 10)     # room for the top bar's label
    # at the axes' right end: centred under them (the workloads' long labels take the left
    # of the figure), it ran past the figure's right edge and was cut at "(time"
    axes.set_xlabel("photocore's speed over the plain-Python reference (times, log scale)",
                    loc="right")
    axes.spines[["top", "right"]].set_visible(False)
    figure.tight_layout()
    return figure


def draw(folder: pathlib.Path) -> None:
    """Writes every figure into `folder`."""
    folder.mkdir(exist_ok=True)
    pictures = {
        "board.svg": photocore.svg.cells(WIDTH),
        "sun.svg": photocore.svg.suns(WIDTH),
        "shadows.svg": photocore.svg.board(photocore.Game.from_position(SHADOWS), WIDTH,
                                           names=True, panel=False),
        "tour.svg": photocore.svg.board(
            photocore.Game.from_position(tour_position(DOCS.parent / "README.md")),
            WIDTH + 200, names=True),
        "action-ids.md": action_table(),
    }
    for name, text in pictures.items():
        (folder / name).write_text(text, encoding="utf-8")
    speed_chart(speed_ups(DOCS / "speed.md"), folder / "speed.svg")


def setup(app):
    app.connect("builder-inited", lambda app: draw(pathlib.Path(app.srcdir) / FOLDER))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
