"""The network: a small multilayer perceptron over photocore's observation, with a policy
head (a logit per action id), a value head (a value per player, from the player to move
on, as photocore.Search expects) and, optionally, a score-margin head. Small enough to
evaluate quickly on a CPU.

Subnormal floats (nonzero, below 1.2e-38 in float32) are kept out of it: on Intel's x86
CPUs a multiply with one takes a slow microcode path, and a checkpoint trained by Adam with
coupled weight decay had a quarter of its weights subnormal, which made a forward pass 6.7x
slower on an Intel Xeon (nothing measurable on AMD Zen 4: benchmarks/networks.py).
Loading flushes them to zero (an old checkpoint is as fast as a new one), and the network
runs with subnormal results flushed to zero (denormals_flushed).
"""

import contextlib
import io
import os
import sys
import time
from collections.abc import Iterator
from typing import IO, Any

import numpy as np
import numpy.typing as npt
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

    def __init__(self, players: int = 2, hidden: int = 256, margin_weight: float = 0.0) -> None:
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

    def heads(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """(logits, win values, margins or None), for training."""
        h = self.body(obs)
        margin = torch.tanh(self.margin(h)) if self.margin is not None else None
        return self.policy(h), torch.tanh(self.value(h)), margin

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value, margin = self.heads(obs)
        if margin is not None:
            value = (1 - self.margin_weight) * value + self.margin_weight * margin
        return logits, value


def subnormals(net: nn.Module) -> int:
    """How many of the network's weights are subnormal floats."""
    return sum(int(_subnormal(p).sum()) for p in net.state_dict().values()
               if p.is_floating_point())


def flush_subnormals(net: nn.Module) -> int:
    """Sets the network's subnormal weights to zero, in place; returns how many there were.
    A difference of at most 1.2e-38 a weight: the network plays the same moves
    (flush.py checks it on a checkpoint), without the slow path."""
    flushed = 0
    with torch.no_grad():
        for p in net.state_dict().values():
            if p.is_floating_point():
                tiny = _subnormal(p)
                flushed += int(tiny.sum())
                p.masked_fill_(tiny, 0.0)
    return flushed


def _subnormal(weights: torch.Tensor) -> torch.Tensor:
    size = weights.abs()
    return (size > 0) & (size < torch.finfo(weights.dtype).tiny)


@contextlib.contextmanager
def denormals_flushed() -> Iterator[None]:
    """Within the block, floats too small to be normal are read and written as zero on this
    thread (x86's flush-to-zero and denormals-are-zero, torch.set_flush_denormal), so an
    activation or an optimiser moment that decays towards zero never takes the slow path.
    The setting covers every float operation of the thread (Python's, numpy's, photocore's),
    so the thread's previous setting is restored after: importing the example changes
    nothing for its caller.
    """
    was = sys.float_info.min / 2 == 0.0      # half the least normal float is 0 only if flushing
    torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_flush_denormal(was)


def _config(net: Net) -> dict[str, float]:
    return {"players": net.players, "hidden": net.hidden, "margin_weight": net.margin_weight}


def _build(checkpoint: dict[str, Any], flush: bool = True) -> Net:
    net = Net(checkpoint["players"], checkpoint["hidden"], checkpoint.get("margin_weight", 0.0))
    net.load_state_dict(checkpoint["state"])
    net.eval()
    if flush:
        flush_subnormals(net)
    return net


def save(net: Net, path: str | os.PathLike[str], **extra: object) -> None:
    """A checkpoint: the weights and what is needed to rebuild the network."""
    torch.save({**_config(net), "state": net.state_dict(), **extra}, path)


class CheckpointError(ValueError):
    """A checkpoint that cannot be played: the message names the file and says why."""


class MissingCheckpoint(CheckpointError, FileNotFoundError):
    """No checkpoint file at the path given."""


def load(path: str | os.PathLike[str] | IO[bytes], flush: bool = True,
         players: int | None = None) -> tuple[Net, dict[str, Any]]:
    """(Net, the checkpoint dict) from a file written by save(), its subnormal weights set
    to zero (unless `flush` is false: flush.py compares the two). Every script and the
    agent load through here: CheckpointError naming the file if it is missing, cannot be
    read, is not a whole checkpoint (cut short, another file) or, given `players`, plays
    another number of players."""
    name = os.fspath(path) if isinstance(path, (str, os.PathLike)) else repr(path)
    if isinstance(path, (str, os.PathLike)) and not os.path.isfile(path):
        raise MissingCheckpoint(f"checkpoint {name}: no such file (train.py writes latest.pt "
                                "and final.pt in its --out folder)")
    try:
        checkpoint = torch.load(path, map_location="cpu", weights_only=False)
        net = _build(checkpoint, flush)
    except Exception as e:  # noqa: BLE001 (torch and pickle raise many kinds)
        why = (str(e).strip().splitlines() or [""])[0]
        raise CheckpointError(f"checkpoint {name}: not a whole checkpoint of net.py (cut short, "
                              f"unreadable or another file?): {type(e).__name__}: {why}"
                              ) from None
    if players is not None:
        check_players(name, net.players, players)
    return net, checkpoint


def check_players(path: str, plays: int, players: int) -> None:
    """CheckpointError unless the network of checkpoint `path`, which plays games of `plays`
    players (its value head's size), can play a game of `players`."""
    if plays != players:
        raise CheckpointError(f"the checkpoint {path} plays {plays} players, the game has "
                              f"{players}")


class Evaluator:
    """The network as photocore.Search's evaluate(obs, mask) -> (logits, values).

    Pickles as its weights (for self-play in worker processes or Ray tasks) and evaluates
    on one thread: the same batch gives the same numbers whatever the machine's load, which
    keeps self-play deterministic for a seed. Evaluates with denormals flushed, on the
    thread that calls it (the search's).
    """

    def __init__(self, net: Net) -> None:
        self.net = net
        self.seconds = 0.0       # time spent in the network, for the benchmark
        self.rows = 0

    def __call__(self, obs: npt.NDArray[np.float32],
                 mask: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.float32],
                                                       npt.NDArray[np.float32]]:
        start = time.perf_counter()
        with torch.inference_mode(), denormals_flushed():
            logits, values = self.net(torch.from_numpy(obs))
        self.seconds += time.perf_counter() - start
        self.rows += len(obs)
        return logits.numpy(), values.numpy()

    def __getstate__(self) -> dict[str, bytes]:
        buffer = io.BytesIO()
        torch.save({**_config(self.net), "state": self.net.state_dict()}, buffer)
        return {"weights": buffer.getvalue()}

    def __setstate__(self, state: dict[str, bytes]) -> None:
        torch.set_num_threads(1)
        self.net = _build(torch.load(io.BytesIO(state["weights"]), map_location="cpu",
                                     weights_only=False))
        self.seconds = 0.0
        self.rows = 0
