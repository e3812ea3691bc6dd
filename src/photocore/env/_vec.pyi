# Types of the compiled module _vec.pyx.
from collections.abc import Iterable, Sequence
from typing import Any, Literal, SupportsIndex, TypeVar, overload

import numpy as np
import numpy.typing as npt
from typing_extensions import deprecated

from photocore._game import Game
from photocore.facts import Options

# an output buffer: a numpy array, or any object with DLPack or the array interface (a torch
# tensor ...), returned as given
_Obs = TypeVar("_Obs", default=npt.NDArray[np.float32])
_Mask = TypeVar("_Mask", default=npt.NDArray[np.bool_])
_Rewards = TypeVar("_Rewards", default=npt.NDArray[np.float32])
_Done = TypeVar("_Done", default=npt.NDArray[np.bool_])
_Out = TypeVar("_Out", default=npt.NDArray[np.int64])

class VecGame:
    @property
    def num_games(self) -> int: ...
    @property
    def players(self) -> int: ...
    @property
    def episodes(self) -> int: ...
    @property
    def opponents(self) -> tuple[str, ...]: ...
    @property
    def threads(self) -> int: ...
    @overload
    def __new__(cls, n: SupportsIndex, players: SupportsIndex = 2, *,
                options: Options | str | None = None,
                opponents: str | Sequence[str] | None = None,
                seat: SupportsIndex | Literal["random"] = 0,
                threads: SupportsIndex = 1) -> VecGame: ...
    @overload
    @deprecated("the options' flags: use options= (an Options or its text)")
    def __new__(cls, n: SupportsIndex, players: SupportsIndex = 2, *flags: bool,
                options: None = None, opponents: str | Sequence[str] | None = None,
                seat: SupportsIndex | Literal["random"] = 0, threads: SupportsIndex = 1,
                **keywords: bool) -> VecGame: ...
    def reset(self, seed: int | None = None, obs: _Obs | None = None, mask: _Mask | None = None,
              *, seeds: Sequence[int | None] | None = None, player: Any = None,
              ) -> tuple[_Obs, _Mask]: ...
    def step(self, actions: Any, obs: _Obs | None = None, mask: _Mask | None = None,
             rewards: _Rewards | None = None, done: _Done | None = None, *,
             final_obs: Any = None, player: Any = None, relative: bool = False,
             forfeit: bool = False, forfeited: Any = None,
             ) -> tuple[_Obs, _Mask, _Rewards, _Done]: ...
    def observe(self, obs: _Obs | None = None, mask: _Mask | None = None, *,
                player: Any = None) -> tuple[_Obs, _Mask]: ...
    @classmethod
    def from_games(cls, games: Iterable[Game], *, threads: SupportsIndex = 1) -> VecGame: ...
    def set_game(self, i: SupportsIndex, game: Game) -> None: ...
    def random_actions(self, out: _Out | None = None) -> _Out: ...
    def sample_actions(self, logits: Any, out: _Out | None = None, *,
                       log_prob: Any = None) -> _Out: ...
    def scores(self, out: _Out | None = None) -> _Out: ...
    def game(self, i: int) -> Game: ...
    @property
    def current_player(self) -> npt.NDArray[np.int8]: ...
    @property
    def key(self) -> npt.NDArray[np.uint64]: ...

MAX_GAMES: int

def stream_seed(seed: int, k: int) -> int: ...
def draw_below(stream: int, n: int) -> tuple[int, int]: ...
