# Types of the compiled module _vec.pyx.
from typing import SupportsIndex

import numpy as np
import numpy.typing as npt

from photocore._game import Game

class VecGame:
    @property
    def num_games(self) -> int: ...
    @property
    def players(self) -> int: ...
    @property
    def episodes(self) -> int: ...
    def __new__(cls, n: SupportsIndex, players: SupportsIndex = 2,
                fourth_revolution: bool = False, shade_blocks: bool = False) -> VecGame: ...
    def reset(self, seed: int | None = None, obs: npt.NDArray[np.float32] | None = None,
              mask: npt.NDArray[np.bool_] | None = None,
              ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]: ...
    def step(self, actions: npt.ArrayLike, obs: npt.NDArray[np.float32] | None = None,
             mask: npt.NDArray[np.bool_] | None = None,
             rewards: npt.NDArray[np.float32] | None = None,
             done: npt.NDArray[np.bool_] | None = None,
             ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_],
                        npt.NDArray[np.float32], npt.NDArray[np.bool_]]: ...
    def random_actions(self, out: npt.NDArray[np.int64] | None = None) -> npt.NDArray[np.int64]: ...
    def game(self, i: int) -> Game: ...
    @property
    def current_player(self) -> npt.NDArray[np.int8]: ...
