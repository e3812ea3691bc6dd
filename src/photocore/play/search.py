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
import time
from typing import Any

import numpy as np

from photocore._game import Game, Move
from photocore._kernel import check_seed, stream_seed
from photocore.budget import Limit, check_limit
from photocore.play._agents import DEFAULT_PROVE, SOLVE_NODES, option_suffix, searches_interrupted
from photocore.play._search import Search
from photocore.play._solver import proven_move
from photocore.play.player import Player
from photocore.play.settings import Network, SearchSettings

__all__ = ["AGENT_SETTINGS", "MIN_SIMULATIONS", "choosing", "SearchAgent"]

AGENT_SETTINGS = SearchSettings(dirichlet_fraction=0.0)
"""An agent's settings unless told otherwise: the defaults without root noise (it plays its best;
self-play's data adds the noise)."""

# the options an agent's name shows where they differ from these (as mcts:N?graph=1)
_NAMED = (("graph", SearchSettings.graph), ("prove", DEFAULT_PROVE))

MIN_SIMULATIONS = 2
"""The fewest simulations a move can be chosen from: the first only evaluates the position, the
moves get visits from the second on (2: the move of the highest prior)."""


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
    """Plays the most visited move of a PUCT search guided by a network (docs/searching.md).

    The tree of the last search is kept: when the next position follows from it by the
    moves played since (the agent's own and the others'), their subtree is searched on
    instead of a fresh one.

    Args:
        evaluate: the network, `evaluate(obs, mask) -> (logits, values)` (play.settings.Network).
        simulations: visits a move, at least 2 (MIN_SIMULATIONS: 2 plays the move of the
            highest prior).
        seed: any integer, taken modulo 2**64: the same seed and calls give the same moves.
        settings: the search's play.settings.SearchSettings, passed whole (None:
            AGENT_SETTINGS, the defaults without root noise: an agent plays its best).
        temperature: 0 plays the most visited move; > 0 draws the move in proportion to
            visits ** (1 / temperature).
        name: what reports call it, before `:simulations`.
        prove: in the last round, a move the solver proves keeps a win or a shared win
            (within SOLVE_NODES positions) is played without a search, as by
            mcts:N?prove=1.
        **keywords: fields of SearchSettings (`c_puct`, `dirichlet_fraction`,
            `rollout_weight`, `transpositions`, `graph`, `max_nodes`, ...) that change
            `settings`.
    """

    def __init__(self, evaluate: Network, simulations: int = 64, seed: int = 0,
                 settings: SearchSettings | None = None, *, temperature: float = 0.0,
                 name: str = "search", prove: bool = DEFAULT_PROVE, **keywords: Any) -> None:
        if not isinstance(prove, bool):
            raise TypeError(f"prove must be True or False, got {prove!r}")
        self.evaluate = evaluate
        self.prove = prove
        self.seed = check_seed(seed)
        self.temperature = temperature
        self._name = name
        self.simulations = choosing(simulations)
        self.settings = SearchSettings.of(settings, keywords, "SearchAgent", AGENT_SETTINGS)
        self._searches = 0
        self._search: Search | None = None
        self._history: list[int] = []
        self._new_search(Game(), seed)                       # checks the settings now

    @property
    def name(self) -> str:
        """The agent as reports name it, e.g. search:64, with the options that are not their
        defaults, as a built-in agent's (play._agents.option_suffix):
        search:64?graph=1&prove=1."""
        return f"{self._name}:{self.simulations}" + option_suffix(
            _NAMED, {"graph": self.settings.graph, "prove": self.prove})

    def reset(self, seed: int | None = None) -> None:
        """Forgets the tree (a new game starts); the move stream goes on from the seed, or
        starts again from `seed` when one is given (a seeded game, as the harness plays)."""
        self._search = None
        self._history = []
        if seed is not None:
            self.seed, self._searches = check_seed(seed), 0

    def close(self) -> None:
        """Holds nothing to free: the kept tree goes with the agent."""

    def select(self, game: Game, limit: Limit | None = None) -> Move:
        """The move this agent plays in `game` (which it does not change). A
        photocore.Limit's `simulations` replace the agent's own for this move, and the
        search stops at its `seconds` (after the batch under way, and MIN_SIMULATIONS
        visits at least)."""
        limit = check_limit(limit)
        if not isinstance(game, Game):
            raise TypeError(f"game must be a photocore.Game, got {type(game).__name__}")
        if game.is_over:
            raise ValueError("the game is over: there is no move to select")
        legal = game.legal_moves()
        if len(legal) == 1:
            return legal[0]
        if self.prove and game.round == game.last_round:
            proven = proven_move(game, SOLVE_NODES)
            if proven is not None:
                return proven               # the kept tree follows it on the next search
        search = self._reused(game)
        if search is None:
            search = self._new_search(game, self._next_seed())
        simulations = self.simulations
        if limit is not None and limit.simulations is not None:
            simulations = choosing(limit.simulations)
        search.simulations = simulations
        if limit is None or limit.seconds is None:
            search.run(self.evaluate)
        else:
            self._run_until(search, time.monotonic() + limit.seconds)
        action = int(search.choose(self.temperature)[0])
        search.advance(np.array([action]))
        self._search = search
        self._history = [int(m) for m in game.history] + [action]
        return Move(action)

    def _run_until(self, search: Search, deadline: float) -> None:
        """search.run() (Ctrl-C included), stopping at `deadline` once the root has
        MIN_SIMULATIONS visits (its first only evaluates the position)."""
        while not searches_interrupted() and (batch := search.ask()) is not None:
            try:
                search.tell(*self.evaluate(*batch))
            except BaseException:
                search.cancel()
                raise
            if time.monotonic() > deadline and search.visits().sum() >= MIN_SIMULATIONS - 1:
                return
        if searches_interrupted():
            raise KeyboardInterrupt

    def _new_search(self, game: Game, seed: int) -> Search:
        return Search([game], self.simulations, seed, settings=self.settings)

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
        return stream_seed(self.seed, self._searches)

    def __repr__(self) -> str:
        return f"SearchAgent({self.name!r})"
