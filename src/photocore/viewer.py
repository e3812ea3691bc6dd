"""A recorded game as one self-contained HTML page that steps through every position.

Everything is computed here and embedded: the SVG board of each position (photocore.svg),
the numbers shown beside it as JSON, and the charts; the page's script only switches between
them, so the file opens offline from file:// with no network access.

A record that holds an analysis (photocore analyze, docs/analysis.md) adds an evaluation
chart under the board (each player's win chance by ply; a click jumps there), its
inaccuracies, mistakes and blunders marked on the chart and the move list, the judge's
better move outlined on the board beside the move played, and each player's accuracy; the
moves the solver valued exactly are marked `exact` in the list and on the chart, as a chess
viewer marks a tablebase's.
"""

import html
import importlib.resources
import json
import string
from collections.abc import Sequence
from typing import NotRequired, TypedDict

from photocore import analysis, records
from photocore._game import Game
from photocore.facts import LIGHT_CAP, Options
from photocore.files import FilePath, atomic
from photocore.records import Record
from photocore.render import winners_text
from photocore.svg import HIGHLIGHT, PLAYER_COLOURS, board

__all__ = [
    "BOARD_PX", "CHART_H", "CHART_PAD", "CHART_W", "EVAL_H", "MARKS", "BETTER", "EXACT",
    "OUTCOMES", "PAGE", "STYLE", "SCRIPT", "write_html", "page"
]

BOARD_PX = 560
"""The width of the board on the page and of the evaluation chart under it, in CSS pixels."""
CHART_W, CHART_H, CHART_PAD = 360, 120, 26
"""The width and height of a per-player chart over the plies (one polyline per player), and
the padding inside every chart, in CSS pixels."""
EVAL_H = 150
"""The height of the evaluation chart under the board (each player's win chance by ply), in
CSS pixels."""
MARKS = {"inaccuracy": ("#d4a000", "?!"), "mistake": ("#f07000", "?"),
         "blunder": ("#d00000", "??")}
"""The classes of moves (analysis.LABELS): colour on the chart and the board, mark in the move
list."""
BETTER = "#00995c"
"""The colour of the judge's better move, outlined on the board."""
EXACT = "#2a6fdb"
"""The colour of a move the solver valued: its mark in the list and on the chart."""
OUTCOMES = {1.0: "wins", 0.0: "shares the win", -1.0: "loses"}
"""A result of two players in words, by Game.returns() for the mover."""

# the page, its style (the classes' colours left to fill in) and its script: package files
# (photocore/pages/), as the served page's are (photocore/serve/static/), embedded whole in
# every page written
_PAGES = importlib.resources.files("photocore").joinpath("pages")
PAGE, STYLE = (string.Template(_PAGES.joinpath(f"replay.{kind}").read_text(encoding="utf-8"))
               for kind in ("html", "css"))
"""The page and its style, templates of the package files photocore/pages/replay.html and .css (the
classes' colours left to fill in), embedded whole in every page written."""
SCRIPT = _PAGES.joinpath("replay.js").read_text(encoding="utf-8")
"""The page's script, photocore/pages/replay.js, embedded whole in every page written."""


class _Frame(TypedDict):
    """What the page shows of one position (the board's SVG as numbers of distinct lines)."""

    board: list[int]
    scores: list[int]
    light: list[int]
    status: str
    note: NotRequired[str]       # the analysis of the move that led here


def write_html(rec: Record, path: FilePath) -> None:
    """Writes the viewer of record `rec` to `path` (replaced only once complete).

    Replays the record first: RecordError if a move is illegal or the result is wrong.
    """
    text = page(rec)
    with atomic(path) as f:
        f.write(text.encode())


def page(rec: Record) -> str:
    """The viewer of record `rec` as HTML text."""
    games = list(records.positions(rec))
    players = rec["players"]
    judged = analysis.of_record(rec)
    # successive boards share most of their SVG lines: each distinct line is stored once
    lines: dict[str, int] = {}
    frames: list[_Frame] = [{
        "board": [lines.setdefault(line, len(lines))
                  for line in _board(games, ply, judged).split("\n")],
        "scores": list(game.scores()),
        "light": list(game.light),
        "status": _status(game, ply, len(games) - 1),
    } for ply, game in enumerate(games)]
    if judged is not None:
        for frame, ply in zip(frames[1:], judged.plies):
            frame["note"] = _note(ply, players)
    data = json.dumps({"lines": list(lines), "frames": frames}, separators=(",", ":"))
    data = data.replace("<", "\\u003c")     # no "</script>" inside the script element
    agents = rec["metadata"]["agents"]
    return PAGE.substitute(
        title=html.escape(_title(rec)),
        last=len(games) - 1,
        accuracy=_accuracy(judged, agents),
        evaluation=_evaluation(judged, players),
        moves=_moves(rec, games, judged),
        scores=_scores_table(players, agents, frames[0]),
        score_chart=_chart("score", [f["scores"] for f in frames], players),
        light_chart=_chart("light", [f["light"] for f in frames], players, top=LIGHT_CAP),
        result=_result(games[-1], agents),
        data=data,
        style=STYLE.substitute(exact=EXACT, **{label: colour
                                               for label, (colour, _) in MARKS.items()}),
        script=SCRIPT,
    )


def _title(rec: Record) -> str:
    options = Options(**rec["options"])
    return (f"photocore replay: {rec['players']} players, {len(rec['moves'])} moves"
            + (f" ({options.name})" if options.flags else ""))


def _status(game: Game, ply: int, last: int) -> str:
    where = "setup" if game.phase == "setup" else f"round {game.round} of {game.last_round}"
    who = "game over" if game.is_over else f"player {game.current_player} to move"
    return f"ply {ply} of {last} \u00b7 {where} \u00b7 {who}"


def _board(games: Sequence[Game], ply: int, judged: analysis.GameAnalysis | None) -> str:
    """The board at `ply`; after a move the analysis classed, with the judge's better move
    outlined beside the move played (its outline as the board draws a last move, in
    BETTER's colour, dashed)."""
    picture = str(board(games[ply], size=BOARD_PX))
    move = judged.plies[ply - 1] if judged is not None and ply else None
    if move is None or move.label is None or move.best == move.move:
        return picture
    instead = games[ply - 1].copy()
    instead.play(move.best)
    drawn = str(board(instead, size=BOARD_PX)).split("\n")
    if '<g class="last-move">' not in drawn:
        return picture                  # a buy or an end: no cell to show
    first = drawn.index('<g class="last-move">')
    outline = drawn[first:drawn.index("</g>", first) + 1]
    outline[0] = (f'<g class="better-move" data-move="{html.escape(move.best)}" '
                  'stroke-dasharray="6 4" opacity="0.9">')
    outline = [line.replace(HIGHLIGHT, BETTER) for line in outline]
    head, end = picture.rsplit("\n", 1)
    return "\n".join([head, *outline, end])


def _note(ply: analysis.PlyAnalysis, players: int) -> str:
    """What the analysis says of move `ply`, for the line under the board."""
    if ply.forced:
        return f"{ply.ply}. {ply.move}: forced"
    said = f"{ply.ply}. {ply.move}: {ply.label or 'good'}"
    if ply.exact:
        said += (f", exact: {_outcome(ply.played_value, ply.played_margin, players)} under "
                 "best play")
        if ply.move != ply.best:
            said += f"; {ply.best} {_outcome(ply.best_value, ply.best_margin, players)}"
        return said + (f" (loses {ply.win_loss:.0%} of a win)" if ply.loss else "")
    if ply.move == ply.best:
        return f"{said} (the judge's choice)"
    return (f"{said}, loses {ply.win_loss:.1%} of a win; the judge prefers {ply.best} "
            f"(win chance {analysis.win_chance(ply.best_value, players):.0%})")


def _outcome(value: float, margin: int | None, players: int) -> str:
    """What the mover gets under best play (a solved move's value and score margin)."""
    if players != 2:
        return f"returns {value:+.2f}" + ("" if margin is None else f", margin {margin:+d}")
    return OUTCOMES[value] + (f" by {abs(margin)} points" if margin else "")


def _accuracy(judged: analysis.GameAnalysis | None, agents: Sequence[str]) -> str:
    """Each player's accuracy, for the header (nothing without an analysis)."""
    if judged is None:
        return ""
    parts = [f'<span data-player="{p}"><span class="dot" style="background:'
             f'{PLAYER_COLOURS[p]}"></span>{html.escape(str(agents[p]))}: '
             f'<span class="accuracy">{"-" if a is None else f"{a:.1f}"}</span></span>'
             for p, a in enumerate(judged.accuracy)]
    return (f'<div id="accuracy">accuracy ({html.escape(judged.judge)}): '
            + " \u00b7 ".join(parts) + "</div>")


def _evaluation(judged: analysis.GameAnalysis | None, players: int) -> str:
    """Under the board: each player's win chance by ply, the classed moves marked on their
    mover's line, a cursor; and the line telling the current move's analysis."""
    if judged is None:
        return ""
    chances = [[analysis.win_chance(v, players) for v in values] for values in judged.values]
    last = len(chances) - 1
    pad, width, height = CHART_PAD, BOARD_PX - 2 * CHART_PAD, EVAL_H - 2 * CHART_PAD

    def x(ply: int) -> float:
        return pad + width * ply / max(last, 1)

    def y(chance: float) -> float:
        return pad + height * (1 - min(1.0, max(0.0, chance)))

    lines = [f'<polyline data-player="{p}" fill="none" stroke="{PLAYER_COLOURS[p]}" '
             'stroke-width="1.8" points="'
             + " ".join(f"{x(k):.1f},{y(c[p]):.1f}" for k, c in enumerate(chances)) + '"/>'
             for p in range(players)]
    marks = [f'<circle class="mark {p.label}" data-ply="{p.ply}" data-player="{p.player}" '
             f'cx="{x(p.ply):.1f}" cy="{y(chances[p.ply][p.player]):.1f}" r="4.5" '
             f'fill="{MARKS[p.label][0]}" stroke="#fff"><title>{p.ply}. {html.escape(p.move)}: '
             f'{p.label}{", exact" if p.exact else ""}, better {html.escape(p.best)}</title>'
             '</circle>'
             for p in judged.plies if p.label is not None]
    # the solver's moves: a strip along the bottom, a tick each, and a legend
    step = width / max(last, 1)
    exact = [f'<rect class="exact" data-ply="{p.ply}" x="{x(p.ply) - step / 2:.1f}" '
             f'y="{pad + height - 5}" width="{step:.1f}" height="5" fill="{EXACT}">'
             f'<title>{p.ply}. {html.escape(p.move)}: exact (solved)</title></rect>'
             for p in judged.plies if p.exact]
    if exact:
        exact.append(f'<text x="{pad + width}" y="15" text-anchor="end" fill="{EXACT}">'
                     '\u25ae exact: solved</text>')
    middle = y(0.5)
    return (f'<div id="evaluation"><svg xmlns="http://www.w3.org/2000/svg" id="eval-chart" '
            f'class="chart" viewBox="0 0 {BOARD_PX} {EVAL_H}" width="{BOARD_PX}" '
            f'height="{EVAL_H}" font-size="11" font-family="sans-serif">'
            f'<text x="{pad}" y="15" font-weight="bold">win chance by ply '
            f'({html.escape(judged.judge)})</text>'
            f'<rect x="{pad}" y="{pad}" width="{width}" height="{height}" fill="#fff" '
            'stroke="#bbb"/>'
            f'<line x1="{pad}" x2="{pad + width}" y1="{middle:.1f}" y2="{middle:.1f}" '
            'stroke="#ddd"/>'
            f'<text x="{pad - 4}" y="{pad + 4}" text-anchor="end">1</text>'
            f'<text x="{pad - 4}" y="{pad + height + 4}" text-anchor="end">0</text>'
            f'<text x="{pad + width}" y="{EVAL_H - 8}" text-anchor="end">{last}</text>'
            + "".join(lines) + "".join(marks) + "".join(exact)
            + f'<line class="cursor" x1="{x(0):.1f}" x2="{x(0):.1f}" y1="{pad}" '
            f'y2="{pad + height}" stroke="#e6007e" stroke-width="1.5" '
            f'data-x0="{pad}" data-step="{width / max(last, 1):.4f}"/></svg>'
            '<div id="verdict"></div></div>')


def _moves(rec: Record, games: Sequence[Game],
           judged: analysis.GameAnalysis | None = None) -> str:
    """The move list, a heading before each round; item k is the move that leads to ply k
    (with its class and mark when the analysis classed it)."""
    items = ['<li data-ply="0" class="move">start position</li>']
    shown_round = 0
    for ply, move in enumerate(rec["moves"], 1):
        before = games[ply - 1]
        if before.round != shown_round:
            shown_round = before.round
            items.append(f'<li class="round">round {shown_round}</li>')
        player = before.current_player
        assert player is not None       # a move was played there, so a player was to move
        label = judged.plies[ply - 1].label if judged is not None else None
        kind, mark = (f"move {label}", f' <span class="mark">{MARKS[label][1]}</span>'
                      ) if label else ("move", "")
        if judged is not None and judged.plies[ply - 1].exact:
            mark += ' <span class="exact" title="valued exactly by the solver">exact</span>'
        items.append(f'<li data-ply="{ply}" class="{kind}"><span class="dot" '
                     f'style="background:{PLAYER_COLOURS[player]}"></span>{ply}. '
                     f'{html.escape(move)}{mark}</li>')
    return "\n".join(items)


def _scores_table(players: int, agents: Sequence[str], frame: _Frame) -> str:
    rows = [f'<tr data-player="{p}"><td><span class="dot" style="background:'
            f'{PLAYER_COLOURS[p]}"></span>player {p}</td><td>{html.escape(str(agents[p]))}</td>'
            f'<td class="score">{frame["scores"][p]}</td><td class="light">{frame["light"][p]}'
            "</td></tr>" for p in range(players)]
    return ("<table><tr><th>player</th><th>agent</th><th>score</th><th>light</th></tr>"
            + "".join(rows) + "</table>")


def _chart(name: str, values: Sequence[Sequence[int]], players: int,
           top: int | None = None) -> str:
    """One polyline per player over the plies, and a cursor line the script moves."""
    last = len(values) - 1
    top = top or max(1, max(max(v) for v in values))
    width, height = CHART_W - 2 * CHART_PAD, CHART_H - 2 * CHART_PAD

    def x(ply: int) -> float:
        return CHART_PAD + width * ply / max(last, 1)

    def y(value: int) -> float:
        return CHART_PAD + height * (1 - value / top)

    lines = [f'<polyline data-player="{p}" fill="none" stroke="{PLAYER_COLOURS[p]}" '
             'stroke-width="1.8" points="'
             + " ".join(f"{x(k):.1f},{y(v[p]):.1f}" for k, v in enumerate(values)) + '"/>'
             for p in range(players)]
    return (f'<svg xmlns="http://www.w3.org/2000/svg" id="{name}-chart" class="chart" '
            f'viewBox="0 0 {CHART_W} {CHART_H}" width="{CHART_W}" height="{CHART_H}" '
            'font-size="11" font-family="sans-serif">'
            f'<text x="{CHART_PAD}" y="15" font-weight="bold">{name} by ply</text>'
            f'<rect x="{CHART_PAD}" y="{CHART_PAD}" width="{width}" height="{height}" '
            'fill="#fff" stroke="#bbb"/>'
            f'<text x="{CHART_PAD - 4}" y="{CHART_PAD + 4}" text-anchor="end">{top}</text>'
            f'<text x="{CHART_PAD - 4}" y="{CHART_PAD + height + 4}" text-anchor="end">0</text>'
            f'<text x="{CHART_PAD + width}" y="{CHART_H - 8}" text-anchor="end">{last}</text>'
            + "".join(lines)
            + f'<line class="cursor" x1="{x(0):.1f}" x2="{x(0):.1f}" y1="{CHART_PAD}" '
            f'y2="{CHART_PAD + height}" stroke="#e6007e" stroke-width="1.5" '
            f'data-x0="{CHART_PAD}" data-step="{width / max(last, 1):.4f}"/></svg>')


def _result(final: Game, agents: Sequence[str]) -> str:
    if not final.is_over:
        return "Unfinished game: no result."
    scores, winners = final.scores(), final.winners()
    star = {p: " \u2605" for p in winners}
    rows = "".join(
        f'<li><span class="dot" style="background:{PLAYER_COLOURS[p]}"></span>player {p} '
        f'({html.escape(str(agents[p]))}): {scores[p]} points, tokens '
        f'{" + ".join(map(str, final.tokens(p))) or "none"}, light {final.light[p]}'
        f'{star.get(p, "")}</li>'
        for p in range(final.players))
    return f"<strong>Final result: {winners_text(winners)}</strong><ul>{rows}</ul>"
