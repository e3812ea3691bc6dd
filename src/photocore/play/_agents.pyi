# Types of the compiled module _agents.pyx (the C API is _agents.pxd).
from collections.abc import Iterable, Sequence
from typing import SupportsIndex

import numpy as np
import numpy.typing as npt

from photocore._game import Game, Move
from photocore.budget import Limit
from photocore.facts import Options
from photocore.play.player import Player
from photocore.play.results import AgentKind as AgentKind
from photocore.play.results import AgentParams
from photocore.play.results import RootStats as RootStats

BUILTIN_AGENTS: dict[str, AgentKind]
DEFAULT_SIMULATIONS: int
DEFAULT_GRAPH: bool
DEFAULT_PROVE: bool
SOLVE_NODES: int
MAX_SIMULATIONS: int

class Agent(Player):
    @property
    def kind(self) -> str: ...
    def __init__(self, kind: str = "random", seed: SupportsIndex = 0,
                 simulations: SupportsIndex | None = ..., exploration: float = 1.0,
                 graph: bool = ..., prove: bool = ...) -> None: ...
    @property
    def params(self) -> AgentParams: ...
    @property
    def graph(self) -> bool: ...
    @property
    def prove(self) -> bool: ...
    @property
    def name(self) -> str: ...
    def select(self, game: Game, limit: Limit | None = None) -> Move: ...
    def reset(self, seed: SupportsIndex | None = None) -> None: ...
    def close(self) -> None: ...

def search_root(game: Game, simulations: SupportsIndex = ..., seed: SupportsIndex = 0,
                exploration: float = 1.0, graph: bool = ...) -> RootStats: ...

def option_suffix(defaults: Iterable[tuple[str, object]], options: dict[str, object]) -> str: ...

def play_games(agents: Sequence[AgentParams | tuple[str, int | None]
                               | tuple[str, int | None, bool]
                               | tuple[str, int | None, bool, bool]], players: int,
               options: Options | str | None, seed: int, start: int,
               count: int) -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.int64]]: ...

def interrupt_searches(on: bool) -> bool: ...
def searches_interrupted() -> bool: ...
