"""The network: a small multilayer perceptron over photocore's observation, with a policy
head (a logit per action id) and a value head (a value per player, from the player to move
on, as photocore.Search expects). Small enough to evaluate quickly on a CPU.
"""

import io

import numpy as np
import torch
from torch import nn

import photocore


class Net(nn.Module):
    """obs (B, OBSERVATION_SIZE) -> (logits (B, NUM_ACTIONS), values (B, players))."""

    def __init__(self, players=2, hidden=256):
        super().__init__()
        self.players = players
        self.hidden = hidden
        self.body = nn.Sequential(
            nn.Linear(photocore.OBSERVATION_SIZE, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.policy = nn.Linear(hidden, photocore.NUM_ACTIONS)
        self.value = nn.Linear(hidden, players)

    def forward(self, obs):
        h = self.body(obs)
        return self.policy(h), torch.tanh(self.value(h))


def save(net, path, **extra):
    """A checkpoint: the weights and what is needed to rebuild the network."""
    torch.save({"players": net.players, "hidden": net.hidden, "state": net.state_dict(),
                **extra}, path)


def load(path):
    """(Net, the checkpoint dict) from a file written by save()."""
    checkpoint = torch.load(path, map_location="cpu", weights_only=False)
    net = Net(checkpoint["players"], checkpoint["hidden"])
    net.load_state_dict(checkpoint["state"])
    net.eval()
    return net, checkpoint


class Evaluator:
    """The network as photocore.Search's evaluate(obs, mask) -> (logits, values).

    Pickles as its weights (for self-play in worker processes or Ray tasks) and evaluates
    on one thread: the same batch gives the same numbers whatever the machine's load, which
    keeps self-play deterministic for a seed.
    """

    def __init__(self, net):
        self.net = net
        self.seconds = 0.0       # time spent in the network, for the benchmark
        self.rows = 0

    def __call__(self, obs, mask):
        import time
        start = time.perf_counter()
        with torch.inference_mode():
            logits, values = self.net(torch.from_numpy(obs))
        self.seconds += time.perf_counter() - start
        self.rows += len(obs)
        return logits.numpy(), values.numpy()

    def __getstate__(self):
        buffer = io.BytesIO()
        torch.save({"players": self.net.players, "hidden": self.net.hidden,
                    "state": self.net.state_dict()}, buffer)
        return {"weights": buffer.getvalue()}

    def __setstate__(self, state):
        torch.set_num_threads(1)
        checkpoint = torch.load(io.BytesIO(state["weights"]), map_location="cpu",
                                weights_only=False)
        self.net = Net(checkpoint["players"], checkpoint["hidden"])
        self.net.load_state_dict(checkpoint["state"])
        self.net.eval()
        self.seconds = 0.0
        self.rows = 0
