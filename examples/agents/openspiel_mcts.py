"""OpenSpiel's MCTS bot as a photocore agent for `py:` specs (pip install "photocore[openspiel]").

The bot searches the OpenSpiel game `python_photosynthesis` (photocore.env.openspiel),
whose states wrap a photocore Game; each move it rebuilds the state from the game's
history and asks the bot for a step:

    photocore match --agents "py:examples/agents/openspiel_mcts.py:OpenSpielMCTS?simulations=50,random"
"""

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import photocore.env.openspiel  # noqa: F401  (registers python_photosynthesis)


class OpenSpielMCTS:
    name = "openspiel-mcts"

    def __init__(self, simulations=100, uct_c=2.0, rollouts=1):
        self.simulations, self.uct_c, self.rollouts = simulations, uct_c, rollouts
        self.rng = np.random.RandomState(0)
        self.games = {}

    def reset(self, seed=None):
        self.rng = np.random.RandomState(None if seed is None else seed % 2**32)

    def select(self, game):
        key = (game.players, game.options)
        if key not in self.games:     # the game's parameters: players and each option rule
            self.games[key] = pyspiel.load_game("python_photosynthesis", dict(
                players=game.players, **game.options._asdict()))
        spiel_game = self.games[key]
        state = spiel_game.new_initial_state()
        for move in game.history:
            state.apply_action(int(move))
        bot = mcts.MCTSBot(spiel_game, self.uct_c, self.simulations,
                           mcts.RandomRolloutEvaluator(self.rollouts, self.rng),
                           random_state=self.rng, solve=False)
        return bot.step(state)      # an action id
