"""A searched network as an agent: photocore.Search over one game, move after move.

>>> import numpy as np, photocore
>>> def uniform(obs, mask):
...     return np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32)
>>> agent = SearchAgent(uniform, simulations=16, seed=1)
>>> game = photocore.Game()
>>> agent.select(game) in game.legal_moves()
True
"""

import operator
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from photocore._game import Game, Move
from photocore.play._search import Search
from photocore.play.player import Player

# evaluate(obs, mask) -> (logits, values), as photocore.Search.run() calls it
Evaluate = Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]],
                    tuple[npt.ArrayLike, npt.ArrayLike]]

# the fewest simulations a move can be chosen from: the first only evaluates the position,
# the moves get visits from the second on (2: the move of the highest prior)
MIN_SIMULATIONS = 2


def choosing(simulations: int) -> int:
    """`simulations`, checked to be enough to choose a move from (ValueError else).

    >>> choosing(1)
    Traceback (most recent call last):
    ...
    ValueError: simulations must be at least 2 to choose a move (the first only evaluates ...
    """
    if operator.index(simulations) < MIN_SIMULATIONS:
        raise ValueError(f"simulations must be at least {MIN_SIMULATIONS} to choose a move (the "
                         "first only evaluates the position; 2 plays the move of the highest "
                         f"prior), got {simulations}")
    return simulations


class SearchAgent(Player):
    """Plays the most visited move of a PUCT search guided by `evaluate(obs, mask) ->
    (logits, values)` (docs/search.md), `simulations` visits a move.

    The tree of the last search is kept: when the next position follows from it by the
    moves played since (the agent's own and the others'), their subtree is searched on
    instead of a fresh one. `temperature` > 0 draws the move in proportion to
    visits ** (1 / temperature); `dirichlet_fraction` > 0 adds root noise (both off by
    default: an agent plays its best); `rollout_weight` > 0 mixes a random game's result
    into each leaf's value (Search). The same seed and calls give the same moves.
    `simulations` is at least 2 (MIN_SIMULATIONS): 2 plays the move of the highest prior.
    """

    def __init__(self, evaluate: Evaluate, simulations: int = 64, seed: int = 0,
                 c_puct: float = 1.25, temperature: float = 0.0, dirichlet_alpha: float = 0.3,
                 dirichlet_fraction: float = 0.0, in_flight: int = 1,
                 name: str = "search", rollout_weight: float = 0.0) -> None:
        self.evaluate = evaluate
        self.seed = seed
        self.temperature = temperature
        self._name = name
        self.simulations = choosing(simulations)
        self._c_puct, self._in_flight, self._rollout = c_puct, in_flight, rollout_weight
        self._dirichlet = (dirichlet_alpha, dirichlet_fraction)
        self._searches = 0
        self._search: Search | None = None
        self._history: list[int] = []
        self._new_search(Game(), seed)                       # checks the settings now

    @property
    def name(self) -> str:
        """The agent as reports name it, e.g. search:64."""
        return f"{self._name}:{self.simulations}"

    def reset(self, seed: int | None = None) -> None:
        """Forgets the tree (a new game starts); the move stream goes on from the seed, or
        starts again from `seed` when one is given (a seeded game, as the harness plays)."""
        self._search = None
        self._history = []
        if seed is not None:
            self.seed, self._searches = seed, 0

    def close(self) -> None:
        """Holds nothing to free: the kept tree goes with the agent."""

    def select(self, game: Game) -> Move:
        """The move this agent plays in `game` (which it does not change)."""
        if not isinstance(game, Game):
            raise TypeError(f"game must be a photocore.Game, got {type(game).__name__}")
        if game.is_over:
            raise ValueError("the game is over: there is no move to select")
        legal = game.legal_moves()
        if len(legal) == 1:
            return legal[0]
        search = self._reused(game)
        if search is None:
            search = self._new_search(game, self._next_seed())
        search.run(self.evaluate)
        action = int(search.choose(self.temperature)[0])
        search.advance(np.array([action]))
        self._search = search
        self._history = [int(m) for m in game.history] + [action]
        return Move(action)

    def _new_search(self, game: Game, seed: int) -> Search:
        alpha, fraction = self._dirichlet
        return Search([game], simulations=self.simulations, seed=seed, c_puct=self._c_puct,
                      dirichlet_alpha=alpha, dirichlet_fraction=fraction,
                      in_flight=self._in_flight, rollout_weight=self._rollout)

    def _reused(self, game: Game) -> Search | None:
        """The kept search moved on to `game`'s position, or None if it does not lead there."""
        if self._search is None:
            return None
        history = [int(m) for m in game.history]
        if history[:len(self._history)] != self._history:
            return None
        search = self._search
        try:
            for action in history[len(self._history):]:
                search.advance(np.array([action]))
        except ValueError:
            return None
        if search.game(0).position() != game.position():    # same moves from another start
            return None
        return search

    def _next_seed(self) -> int:
        self._searches += 1
        return (self.seed * 0x9E3779B1 + self._searches) & 0xFFFFFFFFFFFFFFFF

    def __repr__(self) -> str:
        return f"SearchAgent({self.name!r})"
