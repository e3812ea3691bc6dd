"""This build against another commit's, side by side: random playouts, MCTS, legal moves.

    python benchmarks/compare_build.py      # against 5ae7a7d (the kernel before issue 11)
    python benchmarks/compare_build.py --against main --rounds 9 --json out.json

A tool of its own kind beside the registry of benchmarks/bench.py: it interleaves two
builds in subprocesses, where the registry times one build in its own process. Its
workloads are the registry's playouts/2p, 3p, 4p, mcts and legal_moves, by those names,
written again against the public API every build has had (and `legal_actions` from C,
kernel_calls.pyx): the other build may predate the registry (photocore.run.speed), and an
old commit's build cannot import this tree's.

Builds the other commit (`git archive` of it, `setup.py build_ext --inplace`, in
build/compare/COMMIT, kept for the next run) with this environment's compiler, Cython and
numpy, then times both builds in alternating subprocesses, the same work each round:
`random_playouts` for 2, 3 and 4 players (default options), `Agent("mcts").select` at
mid-game positions, the kernel's `legal_actions` at mid-game positions (called from C:
kernel_calls.pyx, compiled against each build's _kernel.pxd) and `Game.legal_moves()`
there (from Python: the object it returns costs most of the time). Each figure is the
median over rounds of each subprocess's best repetition, and the ratio is taken round by
round (this build over the other) so that a machine busy for a while slows both sides
alike; and both run on the same CPU (--cpu), so that a core busier than another (a shared
core's other thread, a neighbour's virtual machine) does not slow one side alone: on a
shared 2-core machine, unpinned rounds of the same two builds fell in two groups 10% apart.
Both builds must play the same games: the playout totals and the moves MCTS chooses
are compared and any difference fails the run.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# One round of one build, in its own interpreter: prints a JSON line of figures.
TIMER = r"""
import json, random, sys, time
import photocore
# CPU time of this thread: what a busy machine's other jobs take away from it is not counted
from photocore import _kernel
games, sims, positions, reps = (int(a) for a in sys.argv[1:5])

def best(work, reps):
    times = []
    for _ in range(reps):
        start = time.thread_time()
        result = work()
        times.append(time.thread_time() - start)
    return min(times), result

def new_game(players, flags):
    # options= where the build has it (photocore 0.2 on), the flags of the builds before
    if hasattr(photocore, "Options"):
        return photocore.Game(players, options=photocore.Options(*flags))
    return photocore.Game(players, *flags)

def mid_game(count, seed, players=(2, 3, 4)):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        g = new_game(rng.choice(players), (rng.random() < 0.5, rng.random() < 0.5))
        for _ in range(rng.randrange(10, 120)):
            if g.is_over:
                break
            g.play(rng.choice(g.legal_moves()))
        if not g.is_over and len(g.legal_moves()) >= 2:
            out.append(g)
    return out

figures = {"code_path": getattr(_kernel, "CODE_PATH", _kernel.BUILD), "file": _kernel.__file__}
for players in (2, 3, 4):
    seconds, r = best(lambda: photocore.random_playouts(games, players=players, seed=1), reps)
    figures[f"playouts/{players}p"] = r["moves"] / seconds
    figures[f"playouts/{players}p/check"] = [r["moves"], list(r["score_sums"])]
# photocore.playouts: 16 from each of 64 two-player positions, one thread
starts = mid_game(64, 7, players=(2,))
seconds, r = best(lambda: photocore.playouts(starts, 16, seed=3, threads=1), reps)
figures["playouts/positions"] = r.shape[0] * r.shape[1] / seconds
figures["playouts/positions/check"] = [float(r.sum()), float((r * r).sum())]
games_at = mid_game(positions, 5)
agent_seconds = []
chosen = None
for _ in range(reps):
    agent = photocore.Agent("mcts", seed=5, simulations=sims)
    start = time.thread_time()
    chosen = [int(agent.select(g)) for g in games_at]
    agent_seconds.append(time.thread_time() - start)
figures["mcts"] = sims * positions / min(agent_seconds)
figures["mcts/check"] = chosen
many = mid_game(200, 11)
calls = 50

def listing():
    for _ in range(calls):
        for g in many:
            g.legal_moves()

seconds, _ = best(listing, reps)
figures["legal_moves"] = seconds / (calls * len(many)) * 1e9
import kernel_calls
figures["legal_actions"], listed = min(kernel_calls.legal_actions_ns(many, 500)
                                       for _ in range(reps))
figures["legal_actions/check"] = listed
print(json.dumps(figures))
"""

MEASURES = [("playouts/2p", "M moves/s", 1e-6, True), ("playouts/3p", "M moves/s", 1e-6, True),
            ("playouts/4p", "M moves/s", 1e-6, True),
            ("playouts/positions", "k playouts/s", 1e-3, True),
            ("mcts", "k simulations/s", 1e-3, True),
            ("legal_actions", "ns/call (C)", 1, False),
            ("legal_moves", "ns/call (Python)", 1, False)]


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout.strip()


def build(ref):
    """The source folder of `ref`, built in place (reused when already built)."""
    commit = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    folder = ROOT / "build" / "compare" / commit[:12]
    marker = folder / ".built"
    if marker.exists():
        return commit, folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    with tempfile.TemporaryFile() as archive:
        subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, stdout=archive)
        archive.seek(0)
        with tarfile.open(fileobj=archive) as tar:
            tar.extractall(folder, filter="data")
    print(f"building {ref} ({commit[:12]}) in {folder} ...", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=folder,
                   check=True, stdout=subprocess.DEVNULL)
    marker.touch()
    return commit, folder


def build_calls(src, folder):
    """kernel_calls.pyx compiled against the _kernel.pxd of the build in `src`, in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(Path(__file__).with_name("kernel_calls.pyx"), folder / "kernel_calls.pyx")
    setup = ("from Cython.Build import cythonize; from setuptools import setup; "
             f"setup(ext_modules=cythonize('kernel_calls.pyx', include_path=[{str(src)!r}]))")
    subprocess.run([sys.executable, "-c", setup, "-q", "build_ext", "--inplace"], cwd=folder,
                   check=True, stdout=subprocess.DEVNULL)
    return folder


def measure(src, calls, args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(src), str(calls)]),
               OPENBLAS_NUM_THREADS="1")
    pin = None if args.cpu < 0 else (lambda: os.sched_setaffinity(0, {args.cpu}))
    out = subprocess.run([sys.executable, "-c", TIMER, str(args.games), str(args.simulations),
                          str(args.positions), str(args.reps)], env=env, cwd=src.parent,
                         check=True, capture_output=True, text=True, preexec_fn=pin).stdout
    figures = json.loads(out.splitlines()[-1])
    if not figures["file"].startswith(str(src)):
        sys.exit(f"{src} imported photocore from {figures['file']}")
    return figures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--against", default="5ae7a7d",
                    help="git ref to compare with (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="alternating pairs of runs (default: %(default)s)")
    ap.add_argument("--games", type=int, default=20_000,
                    help="random_playouts games per player count")
    ap.add_argument("--simulations", type=int, default=1000, help="MCTS simulations per move")
    ap.add_argument("--positions", type=int, default=20, help="MCTS positions")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per run; the best counts")
    ap.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    ap.add_argument("--cpu", type=int, default=cpus[-1] if cpus else -1,
                    help="the CPU both builds run on (default: %(default)s; -1: wherever "
                         "the system puts each run)")
    args = ap.parse_args()
    if args.cpu >= 0 and args.cpu not in cpus:
        ap.error(f"--cpu {args.cpu}: this process may run on CPUs {cpus} only")
    commit, other = build(args.against)
    here = git("rev-parse", "--short=12", "HEAD") + (
        "+" if git("status", "--porcelain", "-uno") else "")
    sides = {"this": ROOT / "src", "other": other / "src"}
    scratch = tempfile.TemporaryDirectory()
    calls = {"this": build_calls(sides["this"], Path(scratch.name) / "this"),
             "other": build_calls(sides["other"], Path(scratch.name) / "other")}
    runs = {"this": [], "other": []}
    for r in range(args.rounds):
        for side in (("other", "this") if r % 2 == 0 else ("this", "other")):
            runs[side].append(measure(sides[side], calls[side], args))
        for key in ("playouts/2p/check", "playouts/3p/check", "playouts/4p/check",
                    "playouts/positions/check", "mcts/check",
                    "legal_actions/check"):
            if runs["this"][-1][key] != runs["other"][-1][key]:
                sys.exit(f"the builds play different games: {key} {runs['this'][-1][key]} "
                         f"!= {runs['other'][-1][key]}")
        print(f"round {r + 1}/{args.rounds}: " + ", ".join(
            f"{name} {runs['this'][-1][name] / runs['other'][-1][name]:.2f}x"
            for name, *_ in MEASURES), file=sys.stderr, flush=True)
    print(f"this build: {here} ({runs['this'][0]['code_path']} code); "
          f"against: {args.against} = {commit[:12]} ({runs['other'][0]['code_path']} code); "
          f"{args.rounds} rounds, medians; " + ("unpinned" if args.cpu < 0 else f"CPU {args.cpu}"))
    report = {"this": here, "against": commit, "rounds": args.rounds,
              "cpu": None if args.cpu < 0 else args.cpu, "figures": {}}
    print(f"{'workload':14} {'this':>12} {'against':>12}  unit               speed-up")
    for name, unit, scale, higher in MEASURES:
        this = statistics.median(run[name] for run in runs["this"])
        that = statistics.median(run[name] for run in runs["other"])
        ratios = [(a[name] / b[name]) if higher else (b[name] / a[name])
                  for a, b in zip(runs["this"], runs["other"])]
        ratio = statistics.median(ratios)
        report["figures"][name] = {"this": this, "against": that, "speedup": ratio,
                                   "speedups": ratios}
        print(f"{name:14} {this * scale:12.2f} {that * scale:12.2f}  {unit:18} {ratio:6.2f} x")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
