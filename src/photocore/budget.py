"""What a player may spend on a move: one `Limit`, each field named by its unit, as
python-chess's `engine.Limit`.

Every player's `select(game, limit=None)` takes one (docs/matches.md, "One budget"): a
field that is set replaces the player's own budget of that unit for the move, and a
player uses the fields it has a meaning for: `simulations` the searches (mcts:N, a
SearchAgent), `seconds` every searching player (the searches stop at it, an engine
program is given it as its move time), `nodes` and `memory` the solver. The analysis and
the solver take one too.

>>> Limit(seconds=0.5)
Limit(seconds=0.5)
>>> Limit(simulations=200, seconds=1).seconds
1.0
>>> Limit(nodes=-1)
Traceback (most recent call last):
...
ValueError: Limit nodes must be a whole number >= 1, got -1
"""

import math
import operator
from dataclasses import dataclass, fields
from numbers import Real

__all__ = ["Limit", "check_limit"]


@dataclass(frozen=True, repr=False)
class Limit:
    """A budget for a move (or a solve, or an analysis's positions); None: not bounded
    in that unit.

    A negative, zero, NaN or bool value raises a ValueError naming the field; the upper
    bounds are each player's (mcts takes up to MAX_SIMULATIONS simulations).
    """

    simulations: int | None = None
    """Playouts (mcts) or visits (a SearchAgent) per move, a whole number >= 1."""
    nodes: int | None = None
    """Positions the solver may search, a whole number >= 1."""
    seconds: float | None = None
    """Wall-clock time, a finite number > 0."""
    memory: int | None = None
    """Bytes of the solver's table, a whole number >= 1."""

    def __post_init__(self) -> None:
        for name in ("simulations", "nodes", "memory"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _whole(value, name))
        if self.seconds is not None:
            object.__setattr__(self, "seconds", _seconds(self.seconds))

    def __repr__(self) -> str:
        given = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                          if getattr(self, f.name) is not None)
        return f"Limit({given})"


def check_limit(limit: object) -> Limit | None:
    """`limit` checked to be a Limit or None (TypeError else), as `select` takes it.

    >>> check_limit(None), check_limit(Limit(simulations=5))
    (None, Limit(simulations=5))
    """
    if limit is None or isinstance(limit, Limit):
        return limit
    raise TypeError(f"limit must be a photocore.Limit or None, got {limit!r}")


def _whole(value: object, name: str) -> int:
    if not isinstance(value, bool):
        try:
            number = operator.index(value)         # type: ignore[arg-type]
        except TypeError:
            pass
        else:
            if number >= 1:
                return number
    raise ValueError(f"Limit {name} must be a whole number >= 1, got {value!r}")


def _seconds(value: object) -> float:
    if isinstance(value, Real) and not isinstance(value, bool):
        try:
            seconds = float(value)
        except OverflowError:
            seconds = math.inf
        if seconds > 0 and math.isfinite(seconds):
            return seconds
    raise ValueError(f"Limit seconds must be a finite number > 0, got {value!r}")
