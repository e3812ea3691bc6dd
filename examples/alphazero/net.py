"""The network: a small multilayer perceptron over photocore's observation, with a policy
head (a logit per action id), a value head (a value per player, from the player to move
on, as photocore.Search expects) and, optionally, a score-margin head. Small enough to
evaluate quickly on a CPU.
"""

import io

import numpy as np
import torch
from torch import nn

import photocore


class Net(nn.Module):
    """obs (B, OBSERVATION_SIZE) -> (logits (B, NUM_ACTIONS), values (B, players)).

    With `margin_weight` > 0 a third head predicts each player's final score margin
    (tanh of its score minus the mean of the others', over a scale), and the values handed
    to the search are (1 - margin_weight) * win value + margin_weight * margin: a player
    ahead then still prefers to score more, where win/loss values alone are all +1.
    """

    def __init__(self, players=2, hidden=256, margin_weight=0.0):
        super().__init__()
        self.players = players
        self.hidden = hidden
        self.margin_weight = margin_weight
        self.body = nn.Sequential(
            nn.Linear(photocore.OBSERVATION_SIZE, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.policy = nn.Linear(hidden, photocore.NUM_ACTIONS)
        self.value = nn.Linear(hidden, players)
        self.margin = nn.Linear(hidden, players) if margin_weight > 0 else None

    def heads(self, obs):
        """(logits, win values, margins or None), for training."""
        h = self.body(obs)
        margin = torch.tanh(self.margin(h)) if self.margin is not None else None
        return self.policy(h), torch.tanh(self.value(h)), margin

    def forward(self, obs):
        logits, value, margin = self.heads(obs)
        if margin is not None:
            value = (1 - self.margin_weight) * value + self.margin_weight * margin
        return logits, value


def _config(net):
    return {"players": net.players, "hidden": net.hidden, "margin_weight": net.margin_weight}


def _build(checkpoint):
    net = Net(checkpoint["players"], checkpoint["hidden"], checkpoint.get("margin_weight", 0.0))
    net.load_state_dict(checkpoint["state"])
    net.eval()
    return net


def save(net, path, **extra):
    """A checkpoint: the weights and what is needed to rebuild the network."""
    torch.save({**_config(net), "state": net.state_dict(), **extra}, path)


def load(path):
    """(Net, the checkpoint dict) from a file written by save()."""
    checkpoint = torch.load(path, map_location="cpu", weights_only=False)
    return _build(checkpoint), checkpoint


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
        torch.save({**_config(self.net), "state": self.net.state_dict()}, buffer)
        return {"weights": buffer.getvalue()}

    def __setstate__(self, state):
        torch.set_num_threads(1)
        self.net = _build(torch.load(io.BytesIO(state["weights"]), map_location="cpu",
                                     weights_only=False))
        self.seconds = 0.0
        self.rows = 0
