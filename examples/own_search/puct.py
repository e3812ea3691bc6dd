"""The search of uct.py with its tree in C: photocore.Search (PUCT: selection, expansion and
backup in C, without the GIL) guided by an evaluator of your own, a function of a batch of
positions, `evaluate(obs, mask) -> (logits, values)`, here in numpy (docs/own-search.md).

    photocore match --agents "py:examples/own_search/puct.py:PUCT?simulations=300,mcts:300" --games 40

`evaluator="playouts"` values each new leaf by one random game played from it in C (Search's
`rollout_weight=1` with an evaluator of uniform priors and no value of its own), as UCT
does; `evaluator="score"` by ScoreLead below, no game played.
"""

import numpy as np

from photocore.facts import (
    CELLS,
    LIGHT_CAP,
    LIGHT_PER_POINT,
    NUM_ACTIONS,
    OBSERVATION,
    PLAYER_SLOT,
    SIZES,
)
from photocore.play.search import SearchAgent
from photocore.run.train_data import Uniform  # uniform priors, zero values

POINTS_SCALE = 100      # a player's token points in the observation are divided by this


class ScoreLead:
    """Uniform priors; each player's value from what they would have if the game ended now
    and a point for each size of tree they have on the board (the light to come), as a lead
    over the best of the others, squashed into -1 .. +1 by tanh.

    The observation sees the position from the player to move: slot k is the player k seats
    after them, and the values come back in that order, as Search wants them.
    """

    def __init__(self, players=2, scale=10.0):
        self.players, self.scale = players, scale

    def __call__(self, obs, mask):
        n = len(obs)
        size = PLAYER_SLOT["size"]
        start = OBSERVATION["players"]
        slots = obs[:, start:start + self.players * size].reshape(n, self.players, size)
        points = slots[:, :, PLAYER_SLOT["points"]] * POINTS_SCALE
        light = slots[:, :, PLAYER_SLOT["light"]] * LIGHT_CAP
        # the pieces: a plane of cells for each player and size, seed first
        planes = obs[:, :self.players * len(SIZES) * len(CELLS)].reshape(
            n, self.players, len(SIZES), len(CELLS))
        trees = (planes.sum(axis=3) * np.arange(len(SIZES))).sum(axis=2)   # small 1 .. large 3
        worth = points + np.floor(light / LIGHT_PER_POINT) + trees
        others = np.stack([np.delete(worth, k, axis=1).max(axis=1)
                           for k in range(self.players)], axis=1)
        values = np.tanh((worth - others) / self.scale).astype(np.float32)
        return np.zeros((n, NUM_ACTIONS), np.float32), values


def PUCT(simulations=300, evaluator="score", players=2, in_flight=1, seed=0):
    """A player (photocore.play.search.SearchAgent) searching `simulations` a move with the
    evaluator named, for games of `players`; `in_flight` leaves go out to it in each batch."""
    if evaluator not in ("score", "playouts"):
        raise ValueError(f"evaluator must be score or playouts, got {evaluator!r}")
    evaluate = ScoreLead(players) if evaluator == "score" else Uniform(players)
    return SearchAgent(evaluate, simulations, seed=seed, in_flight=in_flight,
                       rollout_weight=1.0 if evaluator == "playouts" else 0.0,
                       name=f"puct-{evaluator}")
