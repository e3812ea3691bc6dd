"""The forward pass of the AlphaZero example's network on a batch of positions: the shipped
checkpoint against an untrained network of the same shape, in the same process.

    nice python benchmarks/alphazero_forward.py                  # 64 positions, 7 rounds
    nice python benchmarks/alphazero_forward.py --old none --json out.json

A network with subnormal weights is several times slower on Intel's x86 CPUs (the old
checkpoint was 6.7x slower on an Intel Xeon, issue 23; on AMD Zen 4 nothing measurable:
examples/alphazero/README.md); the shipped checkpoint has none, so its ratio to the untrained
network should be about 1 on any CPU.
The sides, each on one PyTorch thread, denormals not flushed unless said:

- `untrained`: a fresh net.Net of the checkpoint's shape (seeded);
- `shipped`: examples/alphazero/checkpoint.pt, its weights as they are in the file;
- `old`: the checkpoint as git revision --old shipped it (before it was flushed), its
  subnormal weights as they are;
- `old, denormals flushed`: the same, run inside net.denormals_flushed().

The sides alternate within each round, so that a machine busy for a while slows them alike;
each figure is the median over rounds of the milliseconds a forward pass, and each ratio to
`untrained` is the median of the round-by-round ratios.
"""

import argparse
import contextlib
import io
import json
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "alphazero"))

from agent import CHECKPOINT  # noqa: E402
from flush import positions  # noqa: E402
from net import Net, denormals_flushed, load, subnormals  # noqa: E402

OLD = "0c1f319"    # the commit that shipped the checkpoint trained with Adam's coupled decay


def old_checkpoint(revision: str) -> bytes | None:
    """The bytes of examples/alphazero/checkpoint.pt at a git revision, or None (no git,
    no such revision)."""
    try:
        return subprocess.run(["git", "show", f"{revision}:examples/alphazero/checkpoint.pt"],
                              cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def per_forward(net: Net, obs: torch.Tensor, passes: int, flushed: bool = False) -> float:
    """Seconds a forward pass of `obs`, over `passes` passes."""
    with torch.inference_mode(), denormals_flushed() if flushed else contextlib.nullcontext():
        start = time.perf_counter()
        for _ in range(passes):
            net(obs)
        return (time.perf_counter() - start) / passes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=64, help="rows of a forward pass")
    parser.add_argument("--passes", type=int, default=50, help="forward passes a side a round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--old", default=OLD,
                        help="git revision of the unflushed checkpoint ('none': leave it out)")
    parser.add_argument("--json", default=None, help="also write the figures here")
    args = parser.parse_args(argv)

    torch.set_num_threads(1)
    shipped, _ = load(CHECKPOINT, flush=False)
    torch.manual_seed(0)
    sides = {"untrained": (Net(shipped.players, shipped.hidden, shipped.margin_weight).eval(),
                           False),
             "shipped": (shipped, False)}
    old = old_checkpoint(args.old) if args.old != "none" else None
    if old is not None:
        net, _ = load(io.BytesIO(old), flush=False)
        sides.update({"old": (net, False), "old, denormals flushed": (net, True)})
    boards = positions(shipped.players, 1 + args.positions // 50, 0)
    rows = np.random.default_rng(0).choice(len(boards), args.positions, replace=False)
    obs = torch.from_numpy(np.stack([boards[i].observation() for i in rows]))

    times: dict[str, list[float]] = {side: [] for side in sides}
    for _ in range(args.rounds + 1):       # the first round warms up and is not counted
        for side, (net, flushed) in sides.items():
            times[side].append(per_forward(net, obs, args.passes, flushed))
    figures: dict[str, dict[str, float]] = {}
    for side, (net, _) in sides.items():
        ratios = [t / u for t, u in zip(times[side][1:], times["untrained"][1:])]
        figures[side] = {"ms": round(statistics.median(times[side][1:]) * 1e3, 3),
                         "ratio": round(statistics.median(ratios), 2),
                         "subnormal_weights": subnormals(net)}
        print(f"{side:>24}: {figures[side]['ms']:6.3f} ms a forward pass of {args.positions} "
              f"positions, {figures[side]['ratio']:5.2f} x untrained, "
              f"{figures[side]['subnormal_weights']:,} subnormal weights", flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"positions": args.positions, "passes": args.passes,
                       "rounds": args.rounds, "old": args.old if old is not None else None,
                       "weights": sum(p.numel() for p in shipped.state_dict().values()),
                       "torch": torch.__version__, "sides": figures}, out, indent=1)


if __name__ == "__main__":
    main()
