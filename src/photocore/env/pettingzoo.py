"""PettingZoo adapter: an AEC environment over photocore.Game.

>>> from photocore.env.pettingzoo import env
>>> e = env(players=3, options="s")
>>> e.reset(seed=0)
>>> e.agent_selection, int(e.last()[0]["action_mask"].sum())
('player_0', 18)

A turn is several moves in a row: `agent_selection` stays on the player to move until its
`end`. Rewards are 0 until the game ends, then every agent gets Game.returns()
and every agent terminates. docs/rl.md, "PettingZoo", has the details.
"""

from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from photocore.errors import missing_extra

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as e:     # the `pettingzoo` extra
    raise missing_extra(__name__, "pettingzoo", e) from None


from photocore._game import Game
from photocore._kernel import check_players
from photocore.env.contract import FORFEIT_REWARD, agent_names, returns
from photocore.facts import NUM_ACTIONS, OBSERVATION_HIGH, Options, check_seed

__all__ = ["RenderMode", "env", "raw_env"]

_OBS_HIGH = np.array(OBSERVATION_HIGH, np.float32)

RenderMode = Literal["human", "ansi"]
"""The render modes the environment takes: "human" prints the position, "ansi" returns it as
text."""


def env(players: int = 2, options: Options | str | None = None,
        render_mode: RenderMode | None = None) -> Any:
    """The environment wrapped as PettingZoo's classic games are: an illegal move ends the
    game with FORFEIT_REWARD (-1) for its player (the environments' contract,
    env/contract.py), actions are range-checked and the call order enforced.
    `options`: the advanced rules, an Options or its text ("fs")."""
    wrapped = raw_env(players=players, options=options,
                      render_mode=render_mode)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=FORFEIT_REWARD)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):  # type: ignore[misc]   # pettingzoo has no type information
    """Photosynthesis for 2-4 agents `player_0` ...: Discrete(NUM_ACTIONS) actions (photocore
    action ids) and {"observation", "action_mask"} observations."""

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "name": "photosynthesis_v0",
                                "is_parallelizable": False}
    """PettingZoo's: the render modes (render), the environment's name, and not
    parallelizable (a turn is several moves of one agent)."""

    def __init__(self, players: int = 2, options: Options | str | None = None,
                 render_mode: RenderMode | None = None) -> None:
        super().__init__()
        self.players = check_players(players)
        self.options = Options.coerce(options)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, "
                             f"got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = agent_names(self.players)
        self._seat = {agent: p for p, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(0.0, _OBS_HIGH, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS)
                              for agent in self.possible_agents}
        self.game = Game(self.players, options=self.options)

    def observation_space(self, agent: str) -> spaces.Dict:
        """The agent's observation space: a Dict of "observation" (float32
        (OBSERVATION_SIZE,)) and "action_mask" (int8 (NUM_ACTIONS,))."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """The agent's action space: Discrete(NUM_ACTIONS), photocore's action ids."""
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        """The agent's observation (Game.observation from its seat) and action mask: its
        legal actions when it is to move, all zeros otherwise."""
        mask: npt.NDArray[np.int8]
        if agent == self.agent_selection and not self.game.is_over:
            mask = self.game.legal_moves().mask().view(np.int8)
        else:
            mask = np.zeros(NUM_ACTIONS, np.int8)
        return {"observation": self.game.observation(self._seat[agent]), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Starts a new game, all agents alive with zero rewards, `player_0` to move.
        `seed` is checked (any integer) but seeds nothing: the game has no chance; the
        advanced rules are the environment's `options`, not reset's."""
        if seed is not None:
            check_seed(seed)
        self.game = Game(self.players, options=self.options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        """Each agent's info dict (empty)."""
        self.agent_selection = self._agent_to_move()

    def _agent_to_move(self) -> str:
        mover = self.game.current_player
        if mover is None:
            raise ValueError("the game is over: no agent is to move")
        return self.possible_agents[mover]

    def step(self, action: int | None) -> None:
        """Plays `action` (an action id) for the agent to move (None for an agent that is
        done). When the game ends, every agent gets its Game.returns() as reward and
        terminates.

        Raises:
            IllegalMoveError: the action is not legal now.
            InvalidMoveError: the action is not an action id.
            TypeError: the action is a bool.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if isinstance(action, (bool, np.bool_)):
            raise TypeError(f"an action id is an integer, not a bool ({action!r})")
        self._cumulative_rewards[agent] = 0.0
        assert action is not None       # None is a finished agent's action only
        self.game.play(int(action))
        if self.game.is_over:
            self.rewards = dict(zip(self.possible_agents, returns(self.game)))
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self._agent_to_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The position notation, then the scores; printed in "human" mode."""
        if self.render_mode is None:
            return None
        text = f"{self.game.position()}\nscores {self.game.scores()}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the game is a plain object."""
