"""The AlphaZero example's network (examples/alphazero) in the registry of
benchmarks/bench.py: the forward pass of a batch of positions, each side beside an
untrained network of the same shape in the same run, one PyTorch thread.

A network with subnormal weights is several times slower on Intel's x86 CPUs (the old
checkpoint was 6.7x slower on an Intel Xeon, issue 23; on AMD Zen 4 nothing measurable:
examples/alphazero/README.md); the shipped checkpoint has none, so its speed-up over the
untrained network should be about 1 on any CPU. The sides, denormals not flushed unless
said:

- alphazero/shipped: examples/alphazero/checkpoint.pt, its weights as they are in the file;
- alphazero/old: the checkpoint as git revision OLD shipped it (before it was flushed), its
  subnormal weights as they are (skipped without git or that revision);
- alphazero/old_flushed: the same, run inside net.denormals_flushed().
"""

import contextlib
import io
import pathlib
import subprocess
import sys

import numpy as np
from engine import best
from frameworks import missing

from photocore.run import speed
from photocore.run.speed import expect

ROOT = pathlib.Path(__file__).resolve().parent.parent
OLD = "0c1f319"    # the commit that shipped the checkpoint trained with Adam's coupled decay


def old_checkpoint(revision):
    """The bytes of examples/alphazero/checkpoint.pt at a git revision, or None (no git,
    no such revision)."""
    try:
        return subprocess.run(["git", "show", f"{revision}:examples/alphazero/checkpoint.pt"],
                              cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


class Forward(speed.Workload):
    def __init__(self, positions, passes, old=False, flushed=False):
        self.count, self.passes, self.old, self.flushed = positions, passes, old, flushed
        self.name = "alphazero/" + ("old" if old else "shipped") + ("_flushed" if flushed else "")
        which = (f"the unflushed checkpoint of {OLD}" if old else "the shipped checkpoint")
        self.describe = (f"{passes} forward passes of {positions} positions, {which}"
                         + (", denormals flushed" if flushed else "") + ", one PyTorch thread")

    def missing(self):
        if missing("torch"):
            return missing("torch")
        return "needs git and revision " + OLD if self.old and not old_checkpoint(OLD) else None

    def prepare(self):
        import torch
        sys.path.insert(0, str(ROOT / "examples" / "alphazero"))
        from agent import CHECKPOINT
        from flush import positions
        from net import Net, denormals_flushed, load, subnormals

        self.torch, self.threads = torch, torch.get_num_threads()
        torch.set_num_threads(1)
        shipped, _ = load(CHECKPOINT, flush=False)
        self.net = load(io.BytesIO(old_checkpoint(OLD)), flush=False)[0] if self.old else shipped
        self.subnormals = subnormals(self.net)
        torch.manual_seed(0)
        self.untrained = Net(shipped.players, shipped.hidden, shipped.margin_weight).eval()
        self.denormals_flushed = denormals_flushed
        boards = positions(shipped.players, 1 + self.count // 50, 0)
        rows = np.random.default_rng(0).choice(len(boards), self.count, replace=False)
        self.obs = torch.from_numpy(np.stack([boards[i].observation() for i in rows]))

    def close(self):
        self.torch.set_num_threads(self.threads)

    def forward(self, net, flushed=False):
        """The passes; the last output's sum, the same at every call."""
        torch = self.torch
        with torch.inference_mode(), (self.denormals_flushed() if flushed
                                      else contextlib.nullcontext()):
            for _ in range(self.passes):
                out = net(self.obs)
        return float(sum(part.sum() for part in out))

    def run(self):
        return self.forward(self.net, self.flushed)

    def check(self, value):
        expect(np.isfinite(value), "the network gave a value that is not finite")
        expect(self.old or self.subnormals == 0, "the shipped checkpoint has subnormal weights")
        return {"passes": self.passes}, (f"finite outputs, the same every pass; "
                                         f"{self.subnormals:,} subnormal weights")

    def reference(self):
        seconds, _ = best(lambda: self.forward(self.untrained))
        return ({"passes": self.passes}, seconds,
                f"baseline: an untrained network of its shape, {seconds / self.passes * 1e3:.3f}"
                " ms a pass")


def workloads(quick):
    passes = 5 if quick else 50
    return [Forward(64, passes), Forward(64, passes, old=True),
            Forward(64, passes, old=True, flushed=True)]
