"""A Python agent for `py:` specs: one-ply lookahead.

It plays each legal move on the copy of the game the harness hands it, values the
position for itself (score, trees on the board, light) and keeps the best, ties broken by
its seeded random generator:

    photocore match greedy "py:examples/agents/lookahead.py:Lookahead?trees=1.5" --games 40
"""

import random


class Lookahead:
    name = "lookahead"

    def __init__(self, trees=1.0, light=1 / 3):
        self.trees, self.light = trees, light
        self.rng = random.Random(0)

    def reset(self, seed=None):
        """Before each game; the harness passes a seed of its own for every game."""
        self.rng = random.Random(seed)

    def select(self, game):
        me, best, top = game.current_player, [], float("-inf")
        for move in game.legal_moves():
            game.play(move)
            value = self.value(game, me)
            game.undo()
            if value > top:
                best, top = [move], value
            elif value == top:
                best.append(move)
        return self.rng.choice(best)

    def value(self, game, me):
        trees = sum(size for owner, size in game.board().values() if owner == me)
        return game.scores()[me] + self.trees * trees + self.light * game.light[me]
