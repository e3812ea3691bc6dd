"""A trained checkpoint as an agent (a photocore Player): `select(game) -> Move`,
`reset(seed=None)`, `close()`, `name`.

    from agent import AlphaZeroAgent
    agent = AlphaZeroAgent(checkpoint="examples/alphazero/checkpoint.pt", simulations=64)
    move = agent.select(game)

Built from keyword arguments with defaults, so an agent spec such as
`py:examples/alphazero/agent.py:AlphaZeroAgent` (with `simulations=...`, `seed=...`)
constructs it.

The checkpoint's subnormal weights are set to zero as it loads and the network runs with
denormals flushed (net.py): a checkpoint trained before train.py used AdamW is as fast.
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

    def __init__(self, checkpoint: str = CHECKPOINT, simulations: int = 64, seed: int = 0,
                 c_puct: float = 1.25, temperature: float = 0.0, threads: int = 1) -> None:
        if not os.path.isfile(checkpoint):
            raise FileNotFoundError(f"checkpoint {checkpoint!r}: no such file (train.py "
                                    "writes final.pt and best.pt in its --out folder)")
        torch.set_num_threads(threads)
        net, self.checkpoint = load(checkpoint)
        super().__init__(Evaluator(net), simulations=simulations, seed=seed, c_puct=c_puct,
                         temperature=temperature, name="alphazero")
        self.players = net.players
