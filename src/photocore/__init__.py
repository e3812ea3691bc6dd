"""photocore: a fast, exact engine for the board game Photosynthesis.

>>> import photocore
>>> g = photocore.Game(players=2)
>>> len(g.legal_moves())
18
"""

from photocore._agents import Agent
from photocore._game import OBSERVATION_SIZE, Game, LegalMoves, Move, check_invariants
from photocore._kernel import random_playouts
from photocore._vec import VecGame
from photocore.errors import (IllegalMoveError, InvalidMoveError, InvalidPositionError,
                              InvariantError, RecordError)
from photocore.notation import CELLS, NUM_ACTIONS
from photocore.records import RecordWriter, read_games, write_games
from photocore.svg import svg  # photocore.svg(game): the function shadows its module's name

# Bumped whenever any game plays differently: records, perft counts and golden games
# in seeds/ are tied to it.
RULES_VERSION = "1"

__all__ = [
    "Agent", "CELLS", "Game", "IllegalMoveError", "InvalidMoveError", "InvalidPositionError",
    "InvariantError", "LegalMoves", "Move", "NUM_ACTIONS", "OBSERVATION_SIZE", "RULES_VERSION",
    "RecordError", "RecordWriter", "VecGame", "check_invariants", "random_playouts", "read_games",
    "svg", "write_games",
]
