# Types of the compiled module _agents.pyx (the C API is _agents.pxd).
import numpy as np
import numpy.typing as npt

from photocore._game import Game, Move

class Agent:
    @property
    def kind(self) -> str: ...
    def __init__(self, kind: str = "random", seed: int = 0, simulations: int = 200,
                 exploration: float = 1.0) -> None: ...
    @property
    def name(self) -> str: ...
    def select(self, game: Game) -> Move: ...

def play_games(agents: list[tuple[str, int]], players: int, options: int, seed: int,
               start: int, count: int) -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.int64]]: ...
