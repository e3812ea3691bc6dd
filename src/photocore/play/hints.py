"""Hints for a person: the best moves of a position by flat Monte Carlo.

Every legal move is played, then the game is finished many times by an agent playing
every seat (the C `random` agent by default), one simulation each; a move's value is the
mean return (Game.returns(), from -1 to +1) of the player who made it. The budget of
simulations is spent in rounds of successive halving: the weaker half of the moves is
dropped after each round, so the best moves get the most playouts.

>>> from photocore import Game, Limit
>>> game = Game(players=2)
>>> best = hint(game, top=2, limit=Limit(simulations=200), seed=1)
>>> len(best), all(-1 <= h.value <= 1 and h.playouts > 0 for h in best)
(2, True)
>>> best[0].move in game.legal_moves()
True
"""

import math
import time
from typing import NamedTuple

from photocore._game import Game, Move
from photocore.budget import Limit, check_limit
from photocore.play._agents import Agent

__all__ = ["DEFAULT_SIMULATIONS", "MAX_SIMULATIONS", "DEFAULT_TOP", "ROLLOUT", "Hint", "hint"]

DEFAULT_SIMULATIONS = 1000
"""The simulations (playouts, all moves together) of a hint whose limit names none."""
MAX_SIMULATIONS = 100_000
"""The most simulations a hint may be asked for: a bound on the work one request can cost."""
DEFAULT_TOP = 3
"""The moves a hint gives when not told how many."""
ROLLOUT = "random"
"""The built-in agent that finishes the games of a hint, playing every seat."""


class Hint(NamedTuple):
    """A move that `hint` ranks, with its value and what measured it."""

    move: Move
    value: float
    playouts: int


Hint.move.__doc__ = "The move."
Hint.value.__doc__ = ("Its value for the player to move: the mean return of its playouts, -1 "
                      "to +1, to 3 decimals.")
Hint.playouts.__doc__ = "The playouts that measured it."


def hint(game: Game, top: int = DEFAULT_TOP, limit: Limit | None = None,
         seed: int = 0) -> list[Hint]:
    """The `top` best moves of `game` for the player to move, best first.

    The `simulations` of `limit` (a photocore.Limit; DEFAULT_SIMULATIONS without, at most
    MAX_SIMULATIONS) bound the work; its `seconds`, when given, cut it short (each round
    that has begun still ends). ValueError when the game is over or the numbers are out of
    range.
    """
    limit = check_limit(limit) or Limit()
    playouts = DEFAULT_SIMULATIONS if limit.simulations is None else limit.simulations
    if game.is_over:
        raise ValueError("the game is over: there is no move to hint")
    if top < 1:
        raise ValueError(f"top must be at least 1, got {top}")
    if playouts > MAX_SIMULATIONS:
        raise ValueError(f"limit simulations must be from 1 to {MAX_SIMULATIONS:,} for a "
                         f"hint, got {playouts:,}")
    deadline = None if limit.seconds is None else time.monotonic() + limit.seconds
    mover = game.current_player
    assert mover is not None
    rollout = Agent(ROLLOUT, seed)
    totals = {move: [0.0, 0] for move in game.legal_moves()}
    alive = list(totals)
    rounds = max(1, math.ceil(math.log2(len(alive))))
    for _ in range(rounds):
        each = max(1, playouts // (rounds * len(alive)))
        for move in alive:
            start = game.copy(history=False)
            start.play(move)
            total = totals[move]
            for _ in range(each):
                total[0] += _playout(start, rollout)[mover]
                total[1] += 1
        alive.sort(key=lambda m: _mean(totals[m]), reverse=True)
        if len(alive) <= top or (deadline is not None and time.monotonic() > deadline):
            break
        alive = alive[:max(top, (len(alive) + 1) // 2)]
    ranked = sorted(totals, key=lambda m: (totals[m][1], _mean(totals[m])), reverse=True)
    return [Hint(m, round(_mean(totals[m]), 3), int(totals[m][1])) for m in ranked[:top]]


def _playout(start: Game, rollout: Agent) -> tuple[float, ...]:
    game = start.copy(history=False)
    while not game.is_over:
        game.play(rollout.select(game))
    return game.returns()


def _mean(total: list[float]) -> float:
    return total[0] / total[1] if total[1] else -math.inf
