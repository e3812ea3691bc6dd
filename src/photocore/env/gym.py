"""Gymnasium environments: a learner takes a seat, opponents play the others.

>>> import gymnasium
>>> import photocore.env.gym     # registers photocore/Photosynthesis-v0
>>> env = gymnasium.make("photocore/Photosynthesis-v0", players=2, opponents="greedy",
...                      seat="random", options="s")
>>> obs, info = env.reset(seed=0)
>>> obs.shape, info["seat"], int(info["action_mask"].sum())   # player 0 placed a tree first
((798,), 1, 17)
>>> obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))
>>> reward, terminated, truncated
(0.0, False, False)

`PhotosynthesisEnv` is the single environment; `PhotosynthesisVectorEnv` plays n games in
VecGame's C array with the opponents' moves inside the step (`gymnasium.make_vec`).
docs/rl.md has the details: observations, masks, rewards, shaping, seeding, autoreset.
"""

from collections.abc import Sequence
from typing import Any, Literal, SupportsInt

import numpy as np
import numpy.typing as npt

from photocore.errors import missing_extra

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space
except ImportError as e:     # the `rl` extra
    raise missing_extra(__name__, "rl", e) from None

from photocore._game import Game
from photocore.env._vec import VecGame, draw_below, stream_seed
from photocore.env.contract import FORFEIT_REWARD, LeadShaping, check_seat, returns, step_learners
from photocore.facts import NUM_ACTIONS, OBSERVATION_HIGH, OBSERVATION_SIZE, Options, check_seed
from photocore.play import specs
from photocore.play._agents import Agent
from photocore.play.player import Player
from photocore.play.specs import PythonAgent

__all__ = [
    "ENV_ID", "OBSERVATION_SPACE", "Observation", "opponent_seed",
    "PhotosynthesisEnv", "PhotosynthesisVectorEnv"
]

ENV_ID = "photocore/Photosynthesis-v0"
"""The id this module registers the environment under with gymnasium (`gymnasium.make(ENV_ID)`)."""

OBSERVATION_SPACE = spaces.Box(0.0, np.array(OBSERVATION_HIGH, np.float32), dtype=np.float32)
"""The environment's observation space: a float32 Box of OBSERVATION_SIZE entries, each from 0 to
its bound in OBSERVATION_HIGH (docs/engine.md, Observation tensor)."""

Observation = npt.NDArray[np.float32]
"""An observation, as reset() and step() give it: a float32 array of OBSERVATION_SPACE's shape."""


def opponent_seed(seed: int, k: int) -> int:
    """The seed of opponent k's `photocore.Agent` in an environment reset with `seed`."""
    return stream_seed(seed, k + 1)


def _agent(spec: str, seed: int) -> Player:
    """The player an opponent's spec loads into (photocore.play.specs: a C
    `photocore.Agent` for a built-in spec), reset with `seed`."""
    player = specs.load(spec)
    player.reset(seed)
    return player


class PhotosynthesisEnv(gymnasium.Env[Observation, np.int64]):
    """Photosynthesis for one learner against opponents (docs/rl.md).

    players: 2, 3 or 4. opponents: `random`, `greedy`, `mcts:N` (built-in agents in C,
    seeded by reset), any other agent spec (`py:...`, `cmd:...`, docs/matches.md), any
    object with `select(game)` returning a move (a `photocore.Agent`, your own agent;
    played as given, with its own seeding), or a list of players - 1 of these for the seats
    after the learner's. seat: the learner's player, or "random" for one drawn each
    episode. options: the advanced rules, an Options or its text ("fs"). shaping: the
    weight of the score-lead shaping (0: off; env.contract.LeadShaping). illegal:
    "forfeit" (an illegal action ends the episode with FORFEIT_REWARD, -1: the
    environments' contract, env/contract.py) or "raise" (IllegalMoveError).
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}
    """Gymnasium's: the render modes, "ansi" (render returns the board as text) and
    "human" (render prints it)."""

    def __init__(self, players: int = 2,
                 opponents: str | PythonAgent | Sequence[str | PythonAgent] = "greedy",
                 seat: int | Literal["random"] = "random",
                 options: Options | str | None = None, shaping: float = 0.0,
                 illegal: Literal["forfeit", "raise"] = "forfeit",
                 render_mode: Literal["ansi", "human"] | None = None) -> None:
        self.options = Options.coerce(options)
        self.config = Game(players, options=self.options)       # checks the player count
        self.players: int = self.config.players
        """The number of players, 2 to 4."""
        self.opponents = specs.per_seat(opponents, self.players)
        for spec in self.opponents:
            if isinstance(spec, str):
                _agent(spec, 0)                # checks the spec
            elif not callable(getattr(spec, "select", None)):
                raise ValueError(f"opponents: {spec!r} is neither an agent spec nor an object "
                                 "with select(game)")
        self.seat_choice = check_seat(seat, self.players)
        if illegal not in ("forfeit", "raise"):
            raise ValueError(f"illegal must be 'forfeit' or 'raise', got {illegal!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, "
                             f"got {render_mode!r}")
        self.shaping = float(shaping)
        self._shaping = LeadShaping(self.shaping)
        self.illegal = illegal
        self.render_mode = render_mode
        self.observation_space = OBSERVATION_SPACE
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        # who plays each opponent slot, from the first reset
        self.agents: list[PythonAgent] | None = None
        """The players of the opponents' seats after the learner's, in order (None before
        the first reset and after close)."""
        self.game = self.config.copy(history=False)     # a game from the first reset on
        self.seat: int | None = None
        """The learner's player in the episode (None before the first reset)."""
        self._seat_stream = 0
        self._mask = np.zeros(NUM_ACTIONS, bool)
        self._over = True

    def _seed(self, seed: int) -> None:
        self._seat_stream = stream_seed(seed, 0)
        self._close_made()
        self.agents = [_agent(spec, opponent_seed(seed, k)) if isinstance(spec, str) else spec
                       for k, spec in enumerate(self.opponents)]

    def _close_made(self) -> None:
        """Closes the opponents this environment made from specs (an engine's process)."""
        for agent, spec in zip(self.agents or (), self.opponents):
            close = getattr(agent, "close", None)
            if isinstance(spec, str) and callable(close):
                close()

    def close(self) -> None:
        """Closes the opponents it made from specs (an engine's process); an opponent
        given as an object is the caller's to close."""
        self._close_made()
        self.agents = None
        super().close()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None,
              ) -> tuple[Observation, dict[str, Any]]:
        """Starts an episode; returns (observation, info). `seed` seeds the built-in
        opponents and the seat draws; without it they go on from the last seeding. (The
        advanced rules are the environment's `options`: reset takes none.) A seed is any
        integer, taken modulo 2**64 (photocore.facts.check_seed)."""
        seed = None if seed is None else check_seed(seed)
        super().reset(seed=seed)
        if options:
            raise ValueError(f"reset takes no options, got {options!r}")
        if seed is None and self.agents is None:
            seed = int(self.np_random.integers(2**63))
        if seed is not None:
            self._seed(seed)
        assert self.agents is not None
        for agent in {id(a): a for a in self.agents}.values():
            reset = getattr(agent, "reset", None)
            if not isinstance(agent, Agent) and callable(reset):
                reset()
        self.game = self.config.copy(history=False)
        if self.seat_choice == "random":
            self.seat, self._seat_stream = draw_below(self._seat_stream, self.players)
        else:
            self.seat = self.seat_choice
        self._opponents_play()
        self._over = False
        self._shaping.reset()
        self._mask = self.game.legal_moves().mask()
        return self.game.observation(self.seat), self._info()

    def step(self, action: SupportsInt) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Plays the learner's action, then the opponents until the learner is to move
        again or the game is over; returns (obs, reward, terminated, truncated, info)."""
        if self._over or self.seat is None:
            raise ValueError("the episode is over: call reset() first")
        if isinstance(action, (bool, np.bool_)):
            raise TypeError(f"an action id is an integer, not a bool ({action!r})")
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action must be in range({NUM_ACTIONS}), got {action}")
        info: dict[str, Any] = {}
        reward: float
        if self.game.is_legal(action):
            self.game.play(action)
            self._opponents_play()
            terminated = self.game.is_over
            reward = returns(self.game)[self.seat]
        elif self.illegal == "raise":
            self.game.play(action)          # raises IllegalMoveError, naming the move
        else:
            terminated = True
            reward = FORFEIT_REWARD
            info["illegal_action"] = True
        if self.shaping:
            reward += self._shaping.bonus([self.game.scores()], [self.seat], [terminated])[0]
        self._over = terminated
        self._mask = np.zeros(NUM_ACTIONS, bool) if terminated else self.game.legal_moves().mask()
        if self.render_mode == "human":
            self.render()
        return (self.game.observation(self.seat), float(reward), terminated, False,
                self._info() | info)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The learner's legal actions now (bool, NUM_ACTIONS), as MaskablePPO asks."""
        return self._mask

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask, "seat": self.seat}

    def _opponents_play(self) -> None:
        game, seat, agents = self.game, self.seat, self.agents
        assert seat is not None and agents is not None
        while (mover := game.current_player) is not None and mover != seat:
            game.play(agents[(mover - seat - 1) % self.players].select(game))

    def render(self) -> str | None:
        """The board and the players as text ("ansi"), or printed ("human")."""
        if self.render_mode is None or self.seat is None:
            return None
        text = f"{self.game}\nlearner: player {self.seat}"
        if self.render_mode == "human":
            print(text)
            return None
        return text


class PhotosynthesisVectorEnv(
        VectorEnv[npt.NDArray[np.float32], npt.NDArray[np.int64], npt.NDArray[Any]]):
    """`num_envs` games of PhotosynthesisEnv in one VecGame: the built-in opponents play
    inside the step in C. Same-step autoreset (docs/rl.md). With `copy` (the default) each
    step writes into new arrays, so what a step returned is never overwritten; without it
    the same observation and mask arrays are refilled.

    >>> envs = PhotosynthesisVectorEnv(4, opponents="random")
    >>> obs, info = envs.reset(seed=0)
    >>> obs, rewards, terminated, truncated, info = envs.step(envs.sample_actions())
    >>> obs.shape, rewards.shape, info["action_mask"].shape
    ((4, 798), (4,), (4, 890))
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}
    """Gymnasium's: same-step autoreset, and no rendering."""

    def __init__(self, num_envs: int = 1, players: int = 2,
                 opponents: str | Sequence[str] = "greedy",
                 seat: int | Literal["random"] = "random", options: Options | str | None = None,
                 shaping: float = 0.0, copy: bool = True, threads: int = 1) -> None:
        self.options = Options.coerce(options)
        opponent_specs = specs.per_seat(opponents, Game(players).players)
        for spec in opponent_specs:
            if not isinstance(spec, str):
                raise ValueError(
                    f"opponents: the vector environment plays the built-in agents "
                    f"({', '.join(specs.BUILTIN_FORMS)}) in C and takes their specs, "
                    f"got {spec!r}; for agents played in Python use "
                    "gymnasium.make_vec(..., vectorization_mode='sync')")
        self.vec = VecGame(num_envs, players, options=self.options, opponents=opponent_specs,
                           seat=seat, threads=threads)
        n = self.num_envs = self.vec.num_games
        self.players = self.vec.players
        self.shaping = float(shaping)
        self._shaping = LeadShaping(self.shaping, n)
        self.copy = bool(copy)
        self.single_observation_space = OBSERVATION_SPACE
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self._obs = np.zeros((n, OBSERVATION_SIZE), np.float32)
        self._final = np.zeros((n, OBSERVATION_SIZE), np.float32)
        self._mask = np.zeros((n, NUM_ACTIONS), bool)
        self._rewards = np.zeros((n, self.players), np.float32)
        self._forfeited = np.zeros(n, bool)
        self._seat = np.zeros(n, np.int64)
        self._all = np.ones(n, bool)
        self._no_mask = np.zeros((n, NUM_ACTIONS), bool)
        self._no_mask.flags.writeable = False
        self._seeded = False

    def reset(self, *, seed: int | list[int | None] | tuple[int | None, ...] | None = None,
              options: dict[str, Any] | None = None,
              ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Starts every game; returns (obs, info). An int `seed` seeds game i as
        PhotosynthesisEnv.reset(seed=seed + i); a list gives each game's (None: go on)."""
        if options:
            raise ValueError(f"reset takes no options, got {options!r}")
        seeds: list[int | None] | tuple[int | None, ...] | None = None
        if isinstance(seed, (list, tuple)):
            seeds, seed = seed, None
        else:
            seed = None if seed is None else check_seed(seed)
            super().reset(seed=seed)
            if seed is None and not self._seeded:
                seed = int(self.np_random.integers(2**63))
        self._seeded = True
        obs, mask = self._outputs()
        self.vec.reset(seed, obs, mask, seeds=seeds, player=self._seat)
        self._mask = mask
        self._shaping.reset()
        return obs, self._info()

    def step(self, actions: npt.ArrayLike,
             ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float64], npt.NDArray[np.bool_],
                        npt.NDArray[np.bool_], dict[str, Any]]:
        """Plays each game's learner action (any integer array of shape (n,) or (n, 1)),
        then its opponents; returns (obs, rewards, terminated, truncated, info)."""
        seats = self._seat.copy()
        obs, mask = self._outputs()
        done = np.empty(self.num_envs, bool)
        step_learners(self.vec, actions, obs, mask, self._rewards, done, final_obs=self._final,
                      player=self._seat, forfeited=self._forfeited)
        self._mask = mask
        rewards = self._rewards[:, 0].astype(np.float64)
        if self.shaping:
            rewards += self._shaping.bonus(self.vec.scores(), self._seat, done)
        info = self._info()
        if done.any():
            ended = np.flatnonzero(done)
            final_obs = np.full(self.num_envs, None, object)
            for i, row in zip(ended.tolist(), self._final[ended]):
                final_obs[i] = row
            final_info: dict[str, Any] = {"action_mask": self._no_mask, "_action_mask": done,
                                          "seat": np.where(done, seats, 0), "_seat": done}
            if self._forfeited.any():
                final_info["illegal_action"] = final_info["_illegal_action"] = (
                    self._forfeited.copy())
            info.update(final_obs=final_obs, _final_obs=done, final_info=final_info,
                        _final_info=done)
        return obs, rewards, done, np.zeros(self.num_envs, bool), info

    def _outputs(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """The arrays that the next observations and masks are written to: new ones with
        `copy` (those returned before stay as they were), else the same ones each time."""
        if not self.copy:
            return self._obs, self._mask
        return (np.empty((self.num_envs, OBSERVATION_SIZE), np.float32),
                np.empty((self.num_envs, NUM_ACTIONS), bool))

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask, "_action_mask": self._all,
                "seat": self._seat.copy(), "_seat": self._all}

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Each game's legal actions for its learner now (bool (n, NUM_ACTIONS))."""
        return self._mask

    def sample_actions(self, logits: npt.ArrayLike | None = None) -> npt.NDArray[np.int64]:
        """A legal action per game: uniform, or drawn from the softmax of `logits`
        (float (n, NUM_ACTIONS), numpy or torch) over the legal actions (VecGame)."""
        if logits is None:
            return self.vec.random_actions()
        return self.vec.sample_actions(logits)


if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point="photocore.env.gym:PhotosynthesisEnv",
                       vector_entry_point="photocore.env.gym:PhotosynthesisVectorEnv")

