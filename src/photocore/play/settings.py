"""What a search over a network takes, written once: the network's type (`Network`) and the
search's settings (`SearchSettings`), one value passed whole (KataGo's SearchParams):
photocore.Search, play.search.SearchAgent and the training data (run/train_data.py) each
take a `settings=` and give theirs as `.settings`; their keyword arguments of the fields'
names are a shorthand for a SearchSettings with those fields changed.

>>> settings = SearchSettings(c_puct=2.0)
>>> settings.c_puct, settings.dirichlet_fraction
(2.0, 0.25)
>>> sorted(settings.keywords()) == sorted(f.name for f in dataclasses.fields(SearchSettings))
True
>>> SearchSettings.of(settings, {"graph": True}, "Search") == SearchSettings(c_puct=2.0,
...                                                                          graph=True)
True
"""

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = ["Network", "SearchSettings"]

Network: TypeAlias = Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]],
                              tuple[npt.ArrayLike, npt.ArrayLike]]
"""A network, as Search.run() calls it (docs/searching.md): evaluate(obs, mask) -> (logits,
values), for a batch of observations and their legal-move masks."""


@dataclasses.dataclass(frozen=True)
class SearchSettings:
    """How photocore.Search searches (docs/searching.md). Search checks the fields: a value
    out of its range is a ValueError naming it."""

    c_puct: float = 1.25
    """The exploration constant of PUCT, >= 0."""
    dirichlet_alpha: float = 0.3
    """The root noise is Dirichlet(dirichlet_alpha), > 0 (AlphaZero's value)."""
    dirichlet_fraction: float = 0.25
    """The share of root noise mixed into the root's priors, 0 to 1 (AlphaZero's value, for
    self-play: an agent turns it off with 0)."""
    in_flight: int = 1
    """Leaves per game a batch, 1 to 256."""
    max_nodes: int = 65536
    """Nodes a tree holds at most, 2 to 2**26."""
    rollout_weight: float = 0.0
    """The share of a random game's result in a leaf's value, 0 to 1 (the network's value
    the rest)."""
    transpositions: bool = True
    """Whether a position the tree evaluated by another path is valued from there, not
    sent to the network again."""
    graph: bool = False
    """Whether the search is over positions: one node per position whatever the order of
    moves."""

    def keywords(self) -> dict[str, Any]:
        """The settings as a dict of their fields (Search's keyword arguments)."""
        return dataclasses.asdict(self)

    @classmethod
    def of(cls, settings: "SearchSettings | None", keywords: Mapping[str, Any], where: str,
           default: "SearchSettings | None" = None) -> "SearchSettings":
        """The settings a call to `where` was given: `settings` whole (None: `default`, else
        SearchSettings()) with the fields named by its keyword arguments `keywords`
        changed. TypeError for a settings that is no SearchSettings or a keyword that is no
        field, as Python says it; the values are checked by Search."""
        if settings is None:
            settings = cls() if default is None else default
        elif not isinstance(settings, SearchSettings):
            raise TypeError(f"{where}(): settings must be a photocore.play.settings."
                            f"SearchSettings, got {type(settings).__name__}")
        unknown = sorted(set(keywords) - {field.name for field in dataclasses.fields(cls)})
        if unknown:
            raise TypeError(f"{where}() got an unexpected keyword argument {unknown[0]!r}")
        return dataclasses.replace(settings, **keywords) if keywords else settings
