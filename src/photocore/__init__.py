"""photocore: a fast, exact engine for the board game Photosynthesis.

>>> import photocore
>>> g = photocore.Game(players=2)
>>> len(g.legal_moves())
18

Importing photocore loads the core only (the kernel, Game, the facts and the notation);
the names of the satellites (`Agent`, `VecGame`, `read_games`, ...) load their module on
first use.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

from photocore._game import Game, LegalMoves, Move, check_invariants
from photocore._kernel import random_playouts
from photocore.errors import (IllegalMoveError, InvalidMoveError, InvalidPositionError,
                              InvariantError, RecordError)
from photocore.facts import CELLS, NUM_ACTIONS, OBSERVATION_SIZE, Options

# Bumped whenever any game plays differently: records, perft counts and golden games
# in seeds/ are tied to it.
RULES_VERSION = "1"

# public names defined outside the core, loaded on first use
_LAZY = {
    "Agent": "photocore.play._agents",
    "VecGame": "photocore.env._vec",
    "RecordWriter": "photocore.records",
    "Search": "photocore.play._search",
    "read_games": "photocore.records",
    "write_games": "photocore.records",
}

__all__ = [
    "Agent", "CELLS", "Game", "IllegalMoveError", "InvalidMoveError", "InvalidPositionError",
    "InvariantError", "LegalMoves", "Move", "NUM_ACTIONS", "OBSERVATION_SIZE", "Options",
    "RULES_VERSION", "RecordError", "RecordWriter", "Search", "VecGame", "check_invariants",
    "random_playouts", "read_games", "write_games",
]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'photocore' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


# Modules that moved in 0.2, importable by their old names (with a warning) until 0.3.
_MOVED = {
    "photocore._agents": "photocore.play._agents",
    "photocore._vec": "photocore.env._vec",
    "photocore.openspiel": "photocore.env.openspiel",
    "photocore.pettingzoo": "photocore.env.pettingzoo",
    "photocore.selfplay": "photocore.run.selfplay",
    "photocore.ray_backend": "photocore.run.ray_backend",
    "photocore.position": "photocore.notation",     # the position notation is the core's
}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports a moved module by its old name: the new module, under both names."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in _MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        # the import system takes the module back from sys.modules: the new one, not a copy
        warnings.warn(f"{module.__name__} moved to {_MOVED[module.__name__]}; the old name "
                      "goes in photocore 0.3", DeprecationWarning, stacklevel=2)
        sys.modules[module.__name__] = importlib.import_module(_MOVED[module.__name__])


sys.meta_path.append(_MovedModules())
