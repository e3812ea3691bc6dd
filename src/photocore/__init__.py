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
from typing import TYPE_CHECKING

from photocore._game import Game, LegalMoves, Move, check_invariants, playouts, random_playouts
from photocore.errors import (
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvariantError,
    RecordError,
)
from photocore.facts import CELLS, NUM_ACTIONS, OBSERVATION_SIZE, RULES_VERSION, VERSION, Options

if TYPE_CHECKING:       # the lazy names (_LAZY) as type checkers see them
    from photocore import analysis as analysis
    from photocore import budget as budget
    from photocore import notation as notation
    from photocore import npz as npz
    from photocore import plots as plots
    from photocore import records as records
    from photocore import render as render
    from photocore import svg as svg
    from photocore import viewer as viewer
    from photocore.analysis import analyze
    from photocore.budget import Limit
    from photocore.env._vec import VecGame
    from photocore.play._agents import Agent
    from photocore.play._search import Search
    from photocore.play._solver import solve
    from photocore.records import RecordWriter, read_games, write_games

__version__: str = VERSION

# public names defined outside the core, loaded on first use
_LAZY = {
    "Agent": "photocore.play._agents",
    "Limit": "photocore.budget",
    "VecGame": "photocore.env._vec",
    "analyze": "photocore.analysis",
    "RecordWriter": "photocore.records",
    "Search": "photocore.play._search",
    "solve": "photocore.play._solver",
    "read_games": "photocore.records",
    "write_games": "photocore.records",
}
# satellite modules, imported on first use as attributes (photocore.svg.board(game))
_SUBMODULES = ("svg", "render", "records", "notation", "npz", "viewer", "plots", "analysis",
               "budget")

__all__ = [
    "Agent", "CELLS", "Game", "IllegalMoveError", "InvalidMoveError", "InvalidPositionError",
    "InvariantError", "LegalMoves", "Limit", "Move", "NUM_ACTIONS", "OBSERVATION_SIZE", "Options",
    "RULES_VERSION", "RecordError", "RecordWriter", "Search", "VecGame", "__version__",
    "analyze", "check_invariants", "playouts", "random_playouts", "read_games", "solve",
    "write_games",
]


def __getattr__(name: str) -> object:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"photocore.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    # the public names and modules, not what this module imports to work (sys, importlib)
    return sorted({*__all__, *_SUBMODULES, "errors", "facts"})
