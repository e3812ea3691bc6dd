# Types of the compiled module _agents.pyx (the C API is _agents.pxd).
from typing import SupportsIndex

import numpy as np
import numpy.typing as npt

from photocore._game import Game, Move
from photocore.play.player import Player
from photocore.play.results import BuiltinAgent as BuiltinAgent
from photocore.play.results import RootStats as RootStats

BUILTIN_AGENTS: dict[str, BuiltinAgent]
DEFAULT_SIMULATIONS: int
DEFAULT_GRAPH: bool
DEFAULT_SOLVE: bool
SOLVE_BUDGET: int
MAX_SIMULATIONS: int

class Agent(Player):
    @property
    def kind(self) -> str: ...
    def __init__(self, kind: str = "random", seed: SupportsIndex = 0,
                 simulations: SupportsIndex = ..., exploration: float = 1.0,
                 graph: bool = ..., solve: bool = ...) -> None: ...
    @property
    def graph(self) -> bool: ...
    @property
    def solve(self) -> bool: ...
    @property
    def name(self) -> str: ...
    def select(self, game: Game) -> Move: ...
    def reset(self, seed: SupportsIndex | None = None) -> None: ...
    def close(self) -> None: ...

def search_root(game: Game, simulations: SupportsIndex = ..., seed: SupportsIndex = 0,
                exploration: float = 1.0, graph: bool = ...) -> RootStats: ...

def option_suffix(agent: BuiltinAgent, options: dict[str, object]) -> str: ...

def play_games(agents: list[tuple[str, int]] | list[tuple[str, int, bool]]
               | list[tuple[str, int, bool, bool]], players: int,
               options: int, seed: int, start: int,
               count: int) -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.int64]]: ...
