"""Solved positions: a ground truth to measure players against (docs/searching.md, "A
ground truth").

A set of solved positions is a JSON Lines file, one position a line, as seeds/make_solved.py
writes seeds/solved.jsonl: the position in notation, its exact `result` and `margin` for
the player to move (photocore.solve), `best` every move that keeps the result, `optimal`
those that keep the margin too, `legal` the number of legal moves, and where it comes
from. `score(spec, positions)` asks a player for its move in each and counts the moves
that keep the result (over the positions where some move loses it) and those that keep
the margin too (over all), as "On the Road to Perfection?" (ACG 2021) measured Leela
Chess Zero against endgame tables.

>>> position = SolvedPosition.from_json({"position": "2 - 18 5 1 0 - a4:1:2,b4:0:1,d4:0:3 "
...     "4/1110/2220/- 20/2400/4432/- 0579", "result": 1, "margin": 13,
...     "best": ["collect d4"], "optimal": ["collect d4"], "legal": 45, "source": "example"})
>>> result = score("greedy", [position])
>>> result.kept, result.contested, result.optimal, result.positions
(1, 1, 1, 1)
"""

import math
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from photocore._game import Game, Move
from photocore.errors import RecordError
from photocore.facts import check_seed
from photocore.files import atomic
from photocore.limits import SOLVED_LINE_CAP
from photocore.play import specs
from photocore.play.player import Forfeit
from photocore.records import capped_lines, too_long
from photocore.stats import wilson
from photocore.strictjson import dumps, loads

__all__ = ["FIELDS", "SolvedPosition", "read", "write", "Score", "score"]

FIELDS = ("position", "result", "margin", "best", "optimal", "legal", "source")
"""The fields of a line of a ground-truth file (docs/solving.md), in the order they are written."""


@dataclass(frozen=True)
class SolvedPosition:
    """A position with its exact value under best play for the player to move."""

    position: str
    """The position, in position notation (Game.position())."""
    result: int
    """Its result under best play for the player to move: +1 a win, 0 a shared win, -1 a
    loss (photocore.solve)."""
    margin: int
    """The mover's final score margin under best play: their score minus the best of the
    others'."""
    best: tuple[Move, ...]
    """Every move that keeps the result."""
    optimal: tuple[Move, ...]
    """Every move that keeps the result and the margin (some of `best`)."""
    legal: int
    """The number of legal moves."""
    source: str
    """Where the position comes from, in words ("mcts:1000 v mcts:1000, seed 0, ply 125")."""

    def game(self) -> Game:
        """The position as a Game, to play from (its history empty)."""
        return Game.from_position(self.position)

    def to_json(self) -> dict[str, object]:
        """Its JSON object, a line of a set (moves as text): from_json reads it back."""
        return {"position": self.position, "result": self.result, "margin": self.margin,
                "best": [str(m) for m in self.best], "optimal": [str(m) for m in self.optimal],
                "legal": self.legal, "source": self.source}

    @classmethod
    def from_json(cls, data: object) -> "SolvedPosition":
        """A solved position from its JSON object (RecordError naming what is wrong)."""
        if not isinstance(data, dict) or sorted(data) != sorted(FIELDS):
            raise RecordError(f"a solved position is an object with exactly the fields "
                              f"{', '.join(FIELDS)}")
        try:
            legal = set(Game.from_position(data["position"]).legal_moves())
            best = tuple(Move.parse(m) for m in data["best"])
            optimal = tuple(Move.parse(m) for m in data["optimal"])
        except (TypeError, ValueError) as e:
            raise RecordError(f"a solved position: {e}") from None
        problem = ("result must be -1, 0 or 1" if data["result"] not in (-1, 0, 1) else
                   "margin must be an integer" if not isinstance(data["margin"], int) else
                   f"legal must be {len(legal)}, the number of legal moves"
                   if data["legal"] != len(legal) else
                   "a best move is not legal" if not set(best) <= legal else
                   "optimal must be some of the best moves"
                   if not optimal or not set(optimal) <= set(best) else None)
        if problem:
            raise RecordError(f"a solved position: {problem}")
        return cls(data["position"], data["result"], data["margin"], best, optimal,
                   data["legal"], str(data["source"]))


def read(path: str | os.PathLike[str]) -> list[SolvedPosition]:
    """The positions of a set (RecordError naming the line that is wrong)."""
    positions = []
    with open(path, "rb") as f:
        for number, line in enumerate(capped_lines(f, SOLVED_LINE_CAP), 1):
            try:
                if line is None:
                    raise RecordError(too_long(SOLVED_LINE_CAP, "line"))
                positions.append(SolvedPosition.from_json(loads(line)))
            except (ValueError, RecordError) as e:
                raise RecordError(f"{os.fspath(path)}, line {number}: {e}") from None
    return positions


def write(path: str | os.PathLike[str], positions: Iterable[SolvedPosition]) -> None:
    """Writes a set whole or not at all (files.atomic)."""
    with atomic(path) as f:
        for position in positions:
            f.write((dumps(position.to_json(), separators=(",", ":")) + "\n").encode())


@dataclass(frozen=True)
class Score:
    """How often a player kept the result, and the margin too, of solved positions."""

    player: str
    """The player's name (Player.name)."""
    positions: int
    """The positions it was asked."""
    contested: int
    """Positions where some move loses the result."""
    kept: int
    """Of the contested positions, those where the player's move kept the result."""
    optimal: int
    """Positions where its move kept the result and the margin."""
    seconds: float
    """The player's seconds in select, all positions together."""

    def accuracy(self) -> tuple[float, float, float]:
        """The share of contested positions whose result the player kept, with its 95%
        Wilson interval (nan without contested positions)."""
        return (self.kept / self.contested, *wilson(self.kept, self.contested)) \
            if self.contested else (math.nan, math.nan, math.nan)

    def optimal_accuracy(self) -> tuple[float, float, float]:
        """The share of positions where the player kept result and margin, with its 95%
        Wilson interval."""
        return self.optimal / self.positions, *wilson(self.optimal, self.positions)

    def __str__(self) -> str:
        share, low, high = self.accuracy()
        best, best_low, best_high = self.optimal_accuracy()
        return (f"{self.player}: kept the result in {self.kept} of {self.contested} positions "
                f"where a move loses it, {share:.1%} (95% {low:.1%} .. {high:.1%}); result "
                f"and margin in {self.optimal} of {self.positions}, {best:.1%} "
                f"({best_low:.1%} .. {best_high:.1%}); "
                f"{1000 * self.seconds / self.positions:.3g} ms a move")


def score(spec: str | specs.Spec, positions: Sequence[SolvedPosition],
          seed: int = 0) -> Score:
    """The moves a player (an agent spec) chooses in `positions`, scored against their
    best moves; the player is reset with `seed + k` before the k-th position (any integer,
    taken modulo 2**64: facts.check_seed)."""
    check_seed(seed)
    if not positions:
        raise ValueError("no positions to score")
    player = specs.load(spec)
    contested = kept = optimal = 0
    spent = 0.0
    try:
        for k, position in enumerate(positions):
            game = position.game()
            player.reset(check_seed(seed + k))
            start = time.perf_counter()
            try:
                move = player.select(game)
            except Forfeit as e:
                raise ValueError(f"{player.name} forfeited in position {k + 1} "
                                 f"({position.source}): {e}") from None
            spent += time.perf_counter() - start
            if len(position.best) < position.legal:
                contested += 1
                kept += move in position.best
            optimal += move in position.optimal
    finally:
        player.close()
    return Score(player.name, len(positions), contested, kept, optimal, spent)
