# Types of the compiled module _solver.pyx.
from typing import NamedTuple

from photocore._game import Game, Move

DEFAULT_SECONDS: float
DEFAULT_NODES: int
DEFAULT_MEMORY: int
MAX_NODES: int
MACHINE_MEMORY: int | None

class Solution(NamedTuple):
    solved: bool
    player: int
    result: float | None
    margin: int | None
    returns: tuple[float, ...] | None
    moves: dict[Move, tuple[float, int]]
    best: list[Move]
    principal: list[Move]
    nodes: int
    seconds: float
    table_hit_rate: float

def solve(game: Game, seconds: float = ..., nodes: int = ...,
          memory: int = ...) -> Solution: ...
def proven_move(game: Game, nodes: int) -> Move | None: ...
