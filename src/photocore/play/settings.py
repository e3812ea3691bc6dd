"""What a search over a network takes, written once: the network's type (`Evaluate`) and the
search's settings (`SearchSettings`). photocore.Search, play.search.SearchAgent, the
training data (run/train_data.py) and examples/alphazero take their defaults from here.

>>> settings = SearchSettings(c_puct=2.0)
>>> settings.c_puct, settings.dirichlet_fraction
(2.0, 0.25)
>>> sorted(settings.keywords()) == sorted(f.name for f in dataclasses.fields(SearchSettings))
True
"""

import dataclasses
from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

# the network: evaluate(obs, mask) -> (logits, values), as Search.run() calls it
# (docs/searching.md)
Evaluate: TypeAlias = Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]],
                               tuple[npt.ArrayLike, npt.ArrayLike]]


@dataclasses.dataclass(frozen=True)
class SearchSettings:
    """How photocore.Search searches (docs/searching.md): the exploration constant `c_puct`,
    root noise Dirichlet(`dirichlet_alpha`) mixed in at `dirichlet_fraction` (AlphaZero's
    values, for self-play: an agent turns it off), `in_flight` leaves per game a batch,
    at most `max_nodes` nodes a tree, `rollout_weight`, the share of a random game's
    result in a leaf's value, `transpositions`: a position the tree evaluated by
    another path is valued from there, not sent to the network again, and `graph`: search
    positions, one node per position whatever the order of moves. The fields are
    Search's keyword arguments of the same names; Search checks them."""

    c_puct: float = 1.25
    dirichlet_alpha: float = 0.3
    dirichlet_fraction: float = 0.25
    in_flight: int = 1
    max_nodes: int = 65536
    rollout_weight: float = 0.0
    transpositions: bool = True
    graph: bool = False

    def keywords(self) -> dict[str, Any]:
        """The settings as Search's keyword arguments: `Search(games, n, seed, **keywords())`."""
        return dataclasses.asdict(self)
