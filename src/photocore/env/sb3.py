"""Stable-Baselines3 on VecGame: a learner's n games as one SB3 `VecEnv`, the opponents
played in C inside the step, and a callback that stops learning after some minutes.

>>> from sb3_contrib import MaskablePPO
>>> from photocore.env.sb3 import Deadline, VecEnv
>>> env = VecEnv(64, players=2, opponents="greedy", seat="random")
>>> model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=256, seed=0)
>>> model = model.learn(total_timesteps=1024, callback=Deadline(minutes=5))
>>> model.num_timesteps
1024

MaskablePPO reads the legal actions through `env_method("action_masks")`, as
sb3-contrib's `get_action_masks` asks of any VecEnv. docs/rl.md has the details.
"""

import math
import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from photocore.errors import missing_extra

try:
    import gymnasium
    from stable_baselines3.common import vec_env
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices
except ImportError as e:     # the `rl` extra
    raise missing_extra(__name__, "rl", e) from None


from photocore.env._vec import VecGame
from photocore.env.contract import step_learners
from photocore.env.gym import OBSERVATION_SPACE
from photocore.facts import NUM_ACTIONS, OBSERVATION_SIZE, Options

__all__ = ["Deadline", "VecEnv"]


class VecEnv(vec_env.VecEnv):
    """`n` games of one learner against built-in opponents, as Stable-Baselines3's VecEnv.

    players: 2, 3 or 4. opponents: a built-in agent spec (`random`, `greedy`, `mcts:N`) or
    a list of players - 1 of them (the k-th plays the k-th player after the learner),
    played in C inside each step. seat: the learner's player, or "random" for one drawn as
    each game starts. options: the advanced rules (an Options or its text, "fs").
    threads: VecGame's threads.

    Each step plays one learner action per game, as `PhotosynthesisEnv` does (same
    observations, rewards and seeding): a game that ends restarts in the same step, its
    last observation in `infos[i]["terminal_observation"]`, as SB3's DummyVecEnv does.
    An illegal action forfeits the game (reward -1, `infos[i]["illegal_action"]`: the
    environments' contract, env/contract.py).
    `infos[i]["seat"]` is the learner's seat in the step's game.

    >>> env = VecEnv(4, opponents="random")
    >>> env.seed(0)
    [0, 1, 2, 3]
    >>> obs = env.reset()
    >>> obs.shape, obs.dtype
    ((4, 798), dtype('float32'))
    >>> masks = env.action_masks()
    >>> obs, rewards, dones, infos = env.step(masks.argmax(axis=1))
    >>> rewards.dtype, dones.shape, sorted(infos[0])
    (dtype('float32'), (4,), ['TimeLimit.truncated', 'seat'])
    """

    render_mode = None
    """SB3's: no rendering."""

    def __init__(self, n: int, players: int = 2, opponents: str | Sequence[str] = "greedy",
                 seat: int | Literal["random"] = "random", options: Options | str | None = None,
                 threads: int = 1) -> None:
        self.options = Options.coerce(options)
        if isinstance(opponents, (list, tuple)):
            opponents = list(opponents)
        self.vec = VecGame(n, players, options=self.options, opponents=opponents, seat=seat,
                           threads=threads)
        self.players: int = self.vec.players
        """The number of players of each game, 2 to 4."""
        self.opponents: tuple[str, ...] = self.vec.opponents
        """The opponents' specs, by seat after the learner's (VecGame.opponents)."""
        count = self.vec.num_games
        self._mask = np.zeros((count, NUM_ACTIONS), bool)
        self._rewards = np.zeros((count, self.players), np.float32)
        self._done = np.zeros(count, bool)
        self._forfeited = np.zeros(count, bool)
        self._final = np.zeros((count, OBSERVATION_SIZE), np.float32)
        self._seat = np.zeros(count, np.int64)
        self._actions: npt.NDArray[np.int64] = np.zeros(count, np.int64)
        self._seeded = False
        super().__init__(count, OBSERVATION_SPACE, gymnasium.spaces.Discrete(NUM_ACTIONS))

    def reset(self) -> npt.NDArray[np.float32]:
        """Starts every game; returns the observations (float32 (n, 798)). Seeds set by
        `seed(s)` seed game i as `PhotosynthesisEnv.reset(seed=s + i)`; without them the
        games go on from the last seeding (the first reset draws one, as `seed()` does)."""
        if any(self._options):
            raise ValueError(f"reset takes no options, got {self._options!r}")
        if not self._seeded and all(s is None for s in self._seeds):
            self.seed()
        obs = np.empty((self.num_envs, OBSERVATION_SIZE), np.float32)
        self.vec.reset(obs=obs, mask=self._mask, seeds=self._seeds, player=self._seat)
        self._seeded = True
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{"seat": s} for s in self._seat.tolist()]
        return obs

    def step_async(self, actions: npt.NDArray[Any]) -> None:
        """Takes each game's action for its learner (action ids, (n,)), played by
        step_wait."""
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32],
                                 npt.NDArray[np.bool_], list[dict[str, Any]]]:
        """Plays the actions given to step_async; returns (obs, rewards, dones, infos)."""
        if not self._seeded:
            raise ValueError("the games have not started: call reset() first")
        seats = self._seat.tolist()
        obs = np.empty((self.num_envs, OBSERVATION_SIZE), np.float32)   # SB3 keeps each
        step_learners(self.vec, self._actions, obs, self._mask, self._rewards, self._done,
                      final_obs=self._final, player=self._seat, forfeited=self._forfeited)
        infos: list[dict[str, Any]] = [{"seat": s, "TimeLimit.truncated": False} for s in seats]
        for i in np.flatnonzero(self._done).tolist():
            infos[i]["terminal_observation"] = self._final[i].copy()
            if self._forfeited[i]:
                infos[i]["illegal_action"] = True
            self.reset_infos[i] = {"seat": int(self._seat[i])}
        return obs, self._rewards[:, 0].copy(), self._done.copy(), infos

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Each game's legal actions for its learner now (a copy, bool (n, 890))."""
        return self._mask.copy()

    def close(self) -> None:
        """Nothing to close: the games' memory goes with the VecGame."""

    # The per-game side of SB3's VecEnv API: the games are rows of one VecGame, so "env i"
    # is game i, whose attributes are its learner's seat, its legal actions (action_masks,
    # what MaskablePPO asks for) and its Game; other attributes are the VecEnv's own.

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None,
                 ) -> list[Any]:
        """Attribute `attr_name` of each game: `seat`, `game` (a Game holding a copy of its
        position), `action_masks` (a function of none); else the VecEnv's own."""
        rows = self._get_indices(indices)
        if attr_name == "seat":
            return [int(self._seat[i]) for i in rows]
        if attr_name == "game":
            return [self.vec.game(i) for i in rows]
        if attr_name == "action_masks":
            return [self._row_mask(i) for i in rows]
        if attr_name.startswith("_") or not hasattr(self, attr_name):
            raise AttributeError(f"photocore.env.sb3.VecEnv has no attribute {attr_name!r}")
        return [getattr(self, attr_name)] * len(rows)

    def set_attr(self, attr_name: str, value: Any,
                 indices: VecEnvIndices = None) -> None:
        """Sets a VecEnv attribute: the games share their settings, so only for all."""
        if sorted(set(self._get_indices(indices))) != list(range(self.num_envs)):
            raise ValueError(f"set_attr({attr_name!r}): the games share one VecGame, so an "
                             "attribute is set for all of them (indices=None)")
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any,
                   indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        """Calls a method of each game: `action_masks()` gives each one's bool (890,)."""
        if method_name != "action_masks":
            raise AttributeError(f"the games of photocore.env.sb3.VecEnv have no method "
                                 f"{method_name!r} (only action_masks)")
        if method_args or method_kwargs:
            raise TypeError("action_masks() takes no arguments")
        if indices is None:
            return list(self._mask.copy())
        return list(self._mask[self._get_indices(indices)])

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper[Any, Any, Any, Any]],
                       indices: VecEnvIndices = None) -> list[bool]:
        """False for every game: they are rows of a VecGame, not wrapped environments."""
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices: VecEnvIndices) -> list[int]:
        rows = [int(i) for i in super()._get_indices(indices)]
        for i in rows:
            if not 0 <= i < self.num_envs:
                raise IndexError(f"game index {i} out of range for {self.num_envs} games")
        return rows

    def _row_mask(self, i: int) -> Callable[[], npt.NDArray[np.bool_]]:
        def action_masks() -> npt.NDArray[np.bool_]:
            row: npt.NDArray[np.bool_] = self._mask[i].copy()
            return row
        return action_masks


class Deadline(BaseCallback):
    """Stops `learn()` once `minutes` of wall time have passed since learning started
    (`learn(total_timesteps=10**9, callback=Deadline(15))` trains for a quarter of an hour).
    `stopped` tells whether it stopped learning."""

    def __init__(self, minutes: float, verbose: int = 0) -> None:
        super().__init__(verbose)
        if not minutes > 0:
            raise ValueError(f"minutes must be a number above 0, got {minutes!r}")
        self.seconds = float(minutes) * 60
        self.end = math.inf
        self.stopped = False

    def _on_training_start(self) -> None:
        self.end = time.monotonic() + self.seconds

    def _on_step(self) -> bool:
        self.stopped = time.monotonic() >= self.end
        return not self.stopped
