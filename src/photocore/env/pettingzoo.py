"""PettingZoo adapter: an AEC environment over photocore.Game.

>>> from photocore.env.pettingzoo import env
>>> e = env(players=3)
>>> e.reset(seed=0)
>>> e.agent_selection, int(e.last()[0]["action_mask"].sum())
('player_0', 18)

A turn is several moves in a row: `agent_selection` stays on the player to move until its
`end`. Rewards are 0 until the game ends, then every agent gets Game.returns()
and every agent terminates. docs/engine.md, "PettingZoo", has the details.
"""

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from photocore._game import OBSERVATION_SIZE, Game
from photocore.notation import NUM_ACTIONS

# The observation is in [0, 1] but for token points / 100: at most the 24 tokens of
# docs/rules.md §6, 366 points, for one player.
_OBS_HIGH = np.ones(OBSERVATION_SIZE, np.float32)
_OBS_HIGH[740 + 9:780:10] = 3.66


def env(players=2, fourth_revolution=False, shade_blocks=False, render_mode=None):
    """The environment wrapped as PettingZoo's classic games are: an illegal move ends the
    game with -1 for its player, actions are range-checked and the call order enforced."""
    wrapped = raw_env(players=players, fourth_revolution=fourth_revolution,
                      shade_blocks=shade_blocks, render_mode=render_mode)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):
    """Photosynthesis for 2-4 agents `player_0` ...: Discrete(NUM_ACTIONS) actions (photocore
    action ids) and {"observation", "action_mask"} observations."""

    metadata = {"render_modes": ["human", "ansi"], "name": "photosynthesis_v0",
                "is_parallelizable": False}

    def __init__(self, players=2, fourth_revolution=False, shade_blocks=False,
                 render_mode=None):
        super().__init__()
        if players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, got {players}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, "
                             f"got {render_mode!r}")
        self.options = dict(players=players, fourth_revolution=fourth_revolution,
                            shade_blocks=shade_blocks)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self._seat = {agent: p for p, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(0.0, _OBS_HIGH, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS)
                              for agent in self.possible_agents}
        self.game = Game(**self.options)

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        if agent == self.agent_selection and not self.game.is_over:
            mask = self.game.legal_moves().mask().view(np.int8)
        else:
            mask = np.zeros(NUM_ACTIONS, np.int8)
        return {"observation": self.game.observation(self._seat[agent]), "action_mask": mask}

    def reset(self, seed=None, options=None):
        # the game has no chance: `seed` has nothing to seed
        self.game = Game(**self.options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.game.play(int(action))
        if self.game.is_over:
            self.rewards = dict(zip(self.possible_agents, self.game.returns()))
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        """The position notation, then the scores; printed in "human" mode."""
        if self.render_mode is None:
            return None
        text = f"{self.game.position()}\nscores {self.game.scores()}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass
