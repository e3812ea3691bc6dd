"""What the solver adds to an analysis (docs/analysis.md, "Exact moves"):

    python benchmarks/analysis_exact.py                  # 10 games of mcts:1000 against itself
    python benchmarks/analysis_exact.py --games 20 --agents greedy,mcts:1000 --seed 21

2-player self-play games (photocore.run.selfplay, one core) are analysed one at a time on
one core by --judge, once without the solver and once with it at each budget of --budgets
(positions a solved position may visit): seconds a game, exact moves a game, the solver's
share of the time, and the exact moves whose class the judge had wrong.

A study beside the registry of benchmarks/bench.py (docs/speed.md): what the solver adds to
an analysis: exact moves and seconds a game: figures of its own, not one figure beside a
baseline as a workload of the registry gives.
"""

import argparse
import json
import statistics
import time

from photocore import analysis
from photocore.run.selfplay import Series


def timed(rec, judge, solve):
    start = time.perf_counter()
    result = analysis.analyze(rec, judge, seed=0, solve_nodes=solve)
    return result, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--agents", default="mcts:1000,mcts:1000")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--judge", default=analysis.DEFAULT_JUDGE)
    parser.add_argument("--budgets", default=f"100000,{analysis.DEFAULT_SOLVE_NODES},3000000",
                        help="comma-separated positions a solve may visit")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    lines, _ = Series(args.games, agents=args.agents.split(","), seed=args.seed).batch(
        0, args.games)
    recs = [json.loads(line) for line in lines]
    plies = sum(len(r["moves"]) for r in recs)
    print(f"{args.games} games of {args.agents} (seed {args.seed}), {plies / args.games:.0f} "
          f"moves a game, analysed by {args.judge}, one core")
    judge = analysis.judge(args.judge)
    # each game analysed every way in turn, so that a machine's changing load falls on all
    runs: dict[int | None, list] = {solve: [] for solve in (None, *budgets)}
    for rec in recs:
        for solve, done in runs.items():
            done.append(timed(rec, judge, solve))
    alone = [s for _, s in runs[None]]
    print(f"  without the solver: {statistics.mean(alone):.3f} s a game "
          f"(median {statistics.median(alone):.3f})")
    # the judge's class of each move, to compare with the solver's
    judge_class = {(g, p.ply): p.label for g, (result, _) in enumerate(runs[None])
                    for p in result.plies}
    for budget in budgets:
        seconds = [s for _, s in runs[budget]]
        exact = [(g, p) for g, (result, _) in enumerate(runs[budget]) for p in result.plies
                 if p.exact]
        changed = sum(judge_class[g, p.ply] != p.label for g, p in exact)
        print(f"  solve {budget:>9,}: {statistics.mean(seconds):.3f} s a game "
              f"(median {statistics.median(seconds):.3f}, "
              f"{statistics.mean(seconds) - statistics.mean(alone):+.3f} s), "
              f"{len(exact) / args.games:.1f} exact moves a game "
              f"({len(exact) / plies:.1%} of the moves), {changed} of them classed otherwise "
              "than by the judge")

if __name__ == "__main__":
    main()
