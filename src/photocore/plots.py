"""Charts of many recorded games for `photocore stats --plot`: scores and light at a glance;
and the evaluation chart of an analysed game (evaluations).

Needs matplotlib (pip install 'photocore[plot]'); draws with the Agg backend, no display.
"""

import collections

from photocore.errors import missing_extra

try:
    from matplotlib.axes import Axes
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator
except ImportError as e:     # the `plot` extra
    raise missing_extra(__name__, "plot", e) from None


from photocore import analysis, records
from photocore._game import Game
from photocore.facts import Options
from photocore.files import FilePath, atomic
from photocore.records import Record
from photocore.svg import PLAYER_COLOURS

__all__ = [
    "LINE_STYLES", "light_by_round", "Charts", "MARK_COLOURS", "EXACT_COLOUR", "exact_spans",
    "evaluations"
]

LINE_STYLES = {2: "-", 3: "--", 4: ":"}
"""The matplotlib line style of a curve by its games' player count, so that curves of different
counts stay apart."""


def light_by_round(rec: Record) -> list[tuple[int, ...]]:
    """Each player's light at the start of each round's life cycle, round 1 first.

    That is just after the round's photosynthesis, when the round number changes.
    """
    actions = records.check_record(rec)     # first: it makes a players of 2.0 the int 2
    game = Game(rec["players"], options=Options(**rec["options"]))
    light: list[tuple[int, ...]] = []
    for action in actions:
        game.play(action)
        if game.round > len(light):
            light.append(game.light)
    return light


class Charts:
    """Collects what the charts show, game by game (add), then draws them (save)."""

    def __init__(self) -> None:
        self.games = 0
        self.seat_scores: collections.defaultdict[tuple[int, int], list[int]] = (
            collections.defaultdict(list))
        """(players, seat) -> the final scores of that seat, game by game."""
        self.agent_scores: collections.defaultdict[str, list[int]] = collections.defaultdict(list)
        """Agent label -> its final scores, game by game."""
        self.light: collections.defaultdict[tuple[int, int, int], list[int]] = (
            collections.defaultdict(list))
        """(players, seat, round) -> that seat's light at the start of the round's life
        cycle (light_by_round), game by game."""

    def add(self, rec: Record) -> None:
        """Adds one record; its moves must be legal (read it with verify=True)."""
        self.games += 1
        players, result = rec["players"], rec["result"]
        for round_, light in enumerate(light_by_round(rec), 1):
            for seat, value in enumerate(light):
                self.light[players, seat, round_].append(value)
        if result is None:
            return
        for seat, agent in enumerate(rec["metadata"]["agents"]):
            self.seat_scores[players, seat].append(result["scores"][seat])
            self.agent_scores[agent].append(result["scores"][seat])

    def save(self, path: FilePath, title: str = "") -> None:
        """Draws the three charts into a PNG file at `path` (replaced once complete)."""
        figure = Figure(figsize=(16, 5), dpi=100, layout="constrained")
        FigureCanvasAgg(figure)
        seats, agents, light = figure.subplots(1, 3, width_ratios=(3, 2, 3))
        self._seats(seats)
        self._agents(agents)
        self._light(light)
        figure.suptitle(title or f"{self.games} games")
        with atomic(path) as f:
            figure.savefig(f, format="png")

    def _seats(self, axes: Axes) -> None:
        keys = sorted(self.seat_scores)
        boxes = axes.boxplot([self.seat_scores[k] for k in keys], patch_artist=True)
        axes.set_xticks(range(1, len(keys) + 1), [f"{p}p\nseat {s}" for p, s in keys])
        for box, (_, seat) in zip(boxes["boxes"], keys):
            box.set_facecolor(PLAYER_COLOURS[seat])
            box.set_alpha(0.6)
        _finish(axes, "final score by seat (finished games)", "score")

    def _agents(self, axes: Axes) -> None:
        names = sorted(self.agent_scores)
        axes.boxplot([self.agent_scores[a] for a in names])
        axes.set_xticks(range(1, len(names) + 1),
                        [f"{a}\n{len(self.agent_scores[a])} seats" for a in names])
        _finish(axes, "final score by agent (finished games)", "score")

    def _light(self, axes: Axes) -> None:
        lines = sorted({(players, seat) for players, seat, _ in self.light})
        for players, seat in lines:
            rounds = sorted(r for p, s, r in self.light if (p, s) == (players, seat))
            means = [sum(v) / len(v) for v in (self.light[players, seat, r] for r in rounds)]
            axes.plot(rounds, means, LINE_STYLES[players], color=PLAYER_COLOURS[seat],
                      label=f"{players}p seat {seat}")
        axes.set_xlabel("round")
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))   # rounds are whole
        axes.legend(fontsize="small", ncol=3)
        _finish(axes, "mean light at the start of each round's turns", "light")


def _finish(axes: Axes, title: str, ylabel: str) -> None:
    axes.set_title(title)
    axes.set_ylabel(ylabel)
    axes.grid(axis="y", alpha=0.3)


MARK_COLOURS = {"inaccuracy": "#d4a000", "mistake": "#f07000", "blunder": "#d00000"}
"""The colour of a move's mark on a plot by its class (analysis.LABELS), the same as the
viewer's."""
EXACT_COLOUR = "#2060c0"
"""The colour of a move the solver valued, on a plot."""


def exact_spans(result: "analysis.GameAnalysis") -> list[tuple[int, int]]:
    """The runs of consecutive plies the solver valued (`exact`), as (first, last) plies:
    the shaded spans of the evaluation chart.

    >>> from types import SimpleNamespace as Ply
    >>> exact_spans(Ply(plies=[Ply(ply=k, exact=k in (3, 4, 5, 7)) for k in range(9)]))
    [(3, 5), (7, 7)]
    """
    spans: list[tuple[int, int]] = []
    for ply in result.plies:
        if not ply.exact:
            continue
        if spans and spans[-1][1] == ply.ply - 1:
            spans[-1] = (spans[-1][0], ply.ply)
        else:
            spans.append((ply.ply, ply.ply))
    return spans


def evaluations(result: "analysis.GameAnalysis", path: FilePath | None = None) -> Figure:
    """The evaluation chart of an analysed game (photocore.analyze): each player's win
    chance by ply, its inaccuracies, mistakes and blunders marked on the mover's line, and
    the plies the solver valued exactly shaded (`exact_spans`). Written as a PNG to `path`
    when given; returned as a matplotlib Figure (which a notebook shows)."""
    figure = Figure(figsize=(10, 3.2), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    players = result.players
    chances = [[analysis.win_chance(v, players) for v in values] for values in result.values]
    for p in range(players):
        axes.plot(range(len(chances)), [c[p] for c in chances], color=PLAYER_COLOURS[p],
                  label=f"player {p}" + (f" (accuracy {result.accuracy[p]:.1f})"
                                         if result.accuracy[p] is not None else ""))
    for label, colour in MARK_COLOURS.items():
        marked = [ply for ply in result.plies if ply.label == label]
        axes.scatter([ply.ply for ply in marked],
                     [chances[ply.ply][ply.player] for ply in marked], color=colour, s=22,
                     zorder=3, label=f"{label} ({len(marked)})")
    exact = sum(ply.exact for ply in result.plies)
    for k, (first, last) in enumerate(exact_spans(result)):
        # the values there are the solver's, not an estimate (as a tablebase hit is marked)
        axes.axvspan(first - 0.5, last + 0.5, color=EXACT_COLOUR, alpha=0.15, lw=0,
                     label=None if k else f"exact ({exact})")
    axes.set_xlabel("ply")
    axes.set_ylim(0, 1)
    axes.legend(fontsize="small", ncol=3)
    _finish(axes, f"win chance by ply ({result.judge})", "win chance")
    if path is not None:
        with atomic(path) as f:
            figure.savefig(f, format="png")
    return figure
