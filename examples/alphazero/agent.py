"""A trained checkpoint as an agent (a photocore Player): `select(game) -> Move`,
`reset(seed=None)`, `close()`, `name`.

    from agent import AlphaZeroAgent
    agent = AlphaZeroAgent(checkpoint="examples/alphazero/checkpoint.pt", simulations=64)
    move = agent.select(game)

Built from keyword arguments with defaults, so an agent spec such as
`py:examples/alphazero/agent.py:AlphaZeroAgent` (with `simulations=...`, `seed=...`)
constructs it. Without a `checkpoint` it plays the shipped network of the game's number of
players (CHECKPOINTS: 2, 3 or 4), loaded when it first sees such a game.

A checkpoint given plays its own number of players only: `check(game)` (which photocore
match and selfplay ask before the first game) and `select` refuse another with a
CheckpointError naming it and both numbers; net.load refuses a missing or damaged file.

The checkpoint's subnormal weights are set to zero as it loads and the network runs with
denormals flushed (net.py): a checkpoint trained before train.py used AdamW is as fast.
"""

import dataclasses
import os
import sys

import torch

from photocore.play.search import SearchAgent
from photocore.play.settings import SearchSettings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # net.py, when loaded by path
from net import Evaluator, check_players, load  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# the shipped networks, by number of players
CHECKPOINTS = {2: os.path.join(HERE, "checkpoint.pt"),
               3: os.path.join(HERE, "checkpoint-3p.pt"),
               4: os.path.join(HERE, "checkpoint-4p.pt")}
CHECKPOINT = CHECKPOINTS[2]


class AlphaZeroAgent(SearchAgent):
    """The network of `checkpoint` (default: the shipped one for the game's players)
    guiding photocore.Search, `simulations` visits a move; the most visited move is played
    (temperature 0, no root noise). `rollout_weight`: the share of a random game's result
    in each leaf's value (default: the checkpoint's, as it was trained). `prove`: in the
    last round, a move proven to keep a win is played without a search (SearchAgent).
    `graph`: search positions, not orders of moves (photocore.Search, docs/searching.md)."""

    def __init__(self, checkpoint: str | None = None, simulations: int = 64, seed: int = 0,
                 c_puct: float = SearchSettings.c_puct, temperature: float = 0.0, threads: int = 1,
                 rollout_weight: float | None = None, prove: bool = False,
                 graph: bool = SearchSettings.graph) -> None:
        torch.set_num_threads(threads)
        self.fixed = checkpoint is not None
        self.path = checkpoint or CHECKPOINT
        self.evaluators = {}
        net, self.checkpoint = load(self.path)
        self.rollout_weight = rollout_weight
        super().__init__(Evaluator(net), simulations=simulations, seed=seed, c_puct=c_puct,
                         temperature=temperature, name="alphazero",
                         rollout_weight=self._weight(self.checkpoint), prove=prove,
                         graph=graph)
        self.players = net.players
        self.evaluators[net.players] = (self.evaluate, self.checkpoint)

    def _weight(self, checkpoint):
        # the checkpoint says how its search mixes random games into leaf values, unless told
        if self.rollout_weight is None:
            return checkpoint.get("rollout_weight", 0.0)
        return self.rollout_weight

    def check(self, game):
        """CheckpointError (a ValueError) if this agent cannot play games such as `game`: a
        checkpoint given plays its own number of players only (the shipped ones: 2 to 4)."""
        if self.fixed:
            check_players(self.path, self.players, game.players)

    def select(self, game, limit=None):
        if game.players != self.players:
            self.check(game)
            if game.players not in self.evaluators:
                net, checkpoint = load(CHECKPOINTS[game.players])
                self.evaluators[game.players] = (Evaluator(net), checkpoint)
            self.evaluate, self.checkpoint = self.evaluators[game.players]
            self.players, self.path = game.players, CHECKPOINTS[game.players]
            self.settings = dataclasses.replace(self.settings,
                                                rollout_weight=self._weight(self.checkpoint))
            self.reset()
        return super().select(game, limit)
