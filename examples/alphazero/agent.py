"""A trained checkpoint as an agent (a photocore Player): `select(game) -> Move`,
`reset(seed=None)`, `close()`, `name`.

    from agent import AlphaZeroAgent
    agent = AlphaZeroAgent(checkpoint="examples/alphazero/checkpoint.pt", simulations=64)
    move = agent.select(game)

Built from keyword arguments with defaults, so an agent spec such as
`py:examples/alphazero/agent.py:AlphaZeroAgent` (with `simulations=...`, `seed=...`)
constructs it.
"""

import os
import sys

import torch

from photocore.play.search import SearchAgent

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # net.py, when loaded by path
from net import Evaluator, load  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKPOINT = os.path.join(HERE, "checkpoint.pt")


class AlphaZeroAgent(SearchAgent):
    """The network of `checkpoint` guiding photocore.Search, `simulations` visits a move;
    the most visited move is played (temperature 0, no root noise)."""

    def __init__(self, checkpoint=CHECKPOINT, simulations=64, seed=0, c_puct=1.25,
                 temperature=0.0, threads=1):
        if not os.path.isfile(checkpoint):
            raise FileNotFoundError(f"checkpoint {checkpoint!r}: no such file (train.py "
                                    "writes final.pt and best.pt in its --out folder)")
        torch.set_num_threads(threads)
        net, self.checkpoint = load(checkpoint)
        super().__init__(Evaluator(net), simulations=simulations, seed=seed, c_puct=c_puct,
                         temperature=temperature, name="alphazero")
        self.players = net.players
