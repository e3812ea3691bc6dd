"""How a move is scored against the judge (docs/analysis.md, "Values, losses, classes").

A move's loss is the best move's value minus the played move's, for the mover, never below
0: in value units, and as a win chance (`win_chance`). A move the judge barely looked at
(under MIN_VISITS visits) is valued by the position it leads to instead. Losses from
THRESHOLDS up are inaccuracies, mistakes and blunders (LABELS); a forced move loses nothing.
A player's accuracy is the mean `move_accuracy` of their unforced moves.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from photocore.analysis.judges import Evaluation

__all__ = ["MIN_VISITS", "LABELS", "Thresholds", "THRESHOLDS", "win_chance", "move_accuracy",
           "PlyAnalysis", "scored", "accuracies"]

MIN_VISITS = 50
"""Visits of a root move below which it is valued by the position it leads to rather than by its
own mean."""
LABELS = ("inaccuracy", "mistake", "blunder")
"""The classes of a move that loses win chance, mildest first, as Thresholds.label() names them."""


@dataclass(frozen=True)
class Thresholds:
    """The win chance (0..1) a move must lose to be an inaccuracy, a mistake, a blunder.

    The defaults were measured (docs/analysis.md): mcts:1000 judging 200 games of greedy
    against mcts:1000 (seed 21), they are about the 97.5th, 99.7th and 99.9th percentiles
    of the losses it finds in mcts:1000's own moves (its noise, and its own slips), which
    greedy's moves reach 5, 9 and 7 times as often.
    """

    inaccuracy: float = 0.10
    """The least win chance an inaccuracy loses."""
    mistake: float = 0.15
    """The least win chance a mistake loses."""
    blunder: float = 0.20
    """The least win chance a blunder loses."""

    def label(self, win_loss: float) -> str | None:
        """The class of a move that loses `win_loss` (None: a good move).

        >>> Thresholds().label(0.16), Thresholds().label(0.05)
        ('mistake', None)
        """
        for name, bound in zip(reversed(LABELS), (self.blunder, self.mistake,
                                                  self.inaccuracy)):
            if win_loss >= bound:
                return name
        return None


THRESHOLDS = Thresholds()
"""The default Thresholds, measured as its own text says: what an analysis labels moves by unless
given others."""


def win_chance(value: float, players: int) -> float:
    """The win probability a value on the returns' scale stands for.

    >>> win_chance(0.0, 2), win_chance(1.0, 3), win_chance(-0.5, 3)
    (0.5, 1.0, 0.0)
    """
    return (value * (players - 1) + 1) / players


def move_accuracy(win_loss: float) -> float:
    """lichess's accuracy of a move that loses `win_loss` (0..1) of a win, 0..100.

    >>> round(move_accuracy(0.0)), round(move_accuracy(0.1)), round(move_accuracy(0.5))
    (100, 64, 9)
    """
    return min(100.0, max(0.0, 103.1668 * math.exp(-4.354 * win_loss) - 3.1669))


@dataclass(frozen=True)
class PlyAnalysis:
    """A move of a game as the judge saw it (values on the returns' scale)."""

    ply: int
    """Its number, 1 the first."""
    player: int
    """The player who made it."""
    move: str
    """The move played, as text."""
    values: tuple[float, ...]
    """The position's values by player before it."""
    best: str
    """The judge's best move there."""
    best_value: float
    """The best move's value for the mover."""
    played_value: float
    """The played move's value for the mover."""
    loss: float
    """What the move lost for the mover: best_value - played_value, in value units."""
    win_loss: float
    """The same loss as a win chance, 0 to 1 (win_chance)."""
    label: str | None
    """Its class by the thresholds: None, or one of LABELS."""
    forced: bool
    """Whether it was the only legal move."""
    exact: bool = False
    """Whether the solver valued it: its values are exact."""
    best_margin: int | None = None
    """An exact move's: the mover's final score margin under best play after the best
    move (None else)."""
    played_margin: int | None = None
    """An exact move's: the same after the move played (None else)."""


def scored(ply: int, player: int, move: str, values: tuple[float, ...], after: float,
           evaluation: Evaluation | None, players: int,
           thresholds: Thresholds = THRESHOLDS) -> PlyAnalysis:
    """Move `move` (text), number `ply`, of `player` from a position worth `values`,
    scored against the judge's `evaluation` of that position (None: the move was forced)
    in a game of `players`; `after` is the value for the mover of the position the move
    leads to, which stands for the move's own where the judge barely looked at it."""
    if evaluation is None:
        return PlyAnalysis(ply, player, move, values, move, after, after, 0.0, 0.0, None, True)
    counted = evaluation.visits.get(move, MIN_VISITS) >= MIN_VISITS
    played = evaluation.moves[move] if counted and move in evaluation.moves else after
    best, best_value = evaluation.best, evaluation.best_value
    loss = 0.0 if move == best else max(0.0, best_value - played)
    win_loss = loss * (players - 1) / players
    return PlyAnalysis(ply, player, move, values, best, best_value, played, loss, win_loss,
                       thresholds.label(win_loss), False, evaluation.exact,
                       evaluation.margins.get(best), evaluation.margins.get(move))


def accuracies(plies: Sequence[PlyAnalysis], players: int) -> tuple[float | None, ...]:
    """Each of `players`' accuracy over the moves `plies`: the mean move_accuracy of their
    unforced moves (None for a player who made none)."""
    def mean(losses: Sequence[float]) -> float | None:
        return sum(map(move_accuracy, losses)) / len(losses) if losses else None

    return tuple(mean([p.win_loss for p in plies if p.player == q and not p.forced])
                 for q in range(players))
