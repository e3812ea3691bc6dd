# Types of the compiled module _solver.pyx.
from photocore._game import Game, Move
from photocore.budget import Limit
from photocore.play.results import Solution as Solution

DEFAULT_SECONDS: float
DEFAULT_NODES: int
DEFAULT_MEMORY: int
MAX_NODES: int
MACHINE_MEMORY: int | None

def solve(game: Game, limit: Limit | None = None) -> Solution: ...
def proven_move(game: Game, nodes: int) -> Move | None: ...
