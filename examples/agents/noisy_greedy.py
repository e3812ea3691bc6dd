"""A Python agent for `py:` specs: photocore's greedy agent, but a random move now and then.

It shows the parts of an agent: options from the spec (`?epsilon=0.2`), a seeded
`reset(seed=...)` the harness calls before every game (so a match plays the same games
whatever its workers), a `name`, and `select(game)` returning a Move:

    photocore match --agents "greedy,py:examples/agents/noisy_greedy.py:NoisyGreedy?epsilon=0.2" --games 40
"""

import random

from photocore import Agent


class NoisyGreedy:
    name = "noisy-greedy"

    def __init__(self, epsilon=0.1):
        if not 0 <= epsilon <= 1:
            raise ValueError(f"epsilon must be from 0 to 1, got {epsilon}")
        self.epsilon = epsilon
        self.reset(seed=0)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.greedy = Agent("greedy", seed=self.rng.getrandbits(64))

    def select(self, game):
        if self.rng.random() < self.epsilon:
            return self.rng.choice(game.legal_moves())
        return self.greedy.select(game)
