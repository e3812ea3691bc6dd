"""What the solver adds to an analysis (docs/analysis.md, "Exact moves"):

    python benchmarks/analysis_exact.py                  # 10 games of mcts:1000 against itself
    python benchmarks/analysis_exact.py --games 20 --agents greedy,mcts:1000 --seed 21

2-player self-play games (photocore.run.selfplay, one core) are analysed one at a time on
one core by --engine, once without the solver and once with it at each budget of --budgets
(positions a solved position may visit): seconds a game, exact moves a game, the solver's
share of the time, and the exact moves whose class the engine had wrong.
"""

import argparse
import json
import statistics
import time

from photocore import analysis
from photocore.run.selfplay import Series


def timed(rec, engine, solve):
    start = time.perf_counter()
    result = analysis.analyze(rec, engine, seed=0, solve=solve)
    return result, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--agents", default="mcts:1000,mcts:1000")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--engine", default=analysis.DEFAULT_ENGINE)
    parser.add_argument("--budgets", default=f"100000,{analysis.DEFAULT_SOLVE_NODES},3000000",
                        help="comma-separated positions a solve may visit")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    lines, _ = Series(args.games, agents=args.agents.split(","), seed=args.seed).batch(
        0, args.games)
    recs = [json.loads(line) for line in lines]
    plies = sum(len(r["moves"]) for r in recs)
    print(f"{args.games} games of {args.agents} (seed {args.seed}), {plies / args.games:.0f} "
          f"moves a game, analysed by {args.engine}, one core")
    engine = analysis.judge(args.engine)
    # each game analysed every way in turn, so that a machine's changing load falls on all
    runs: dict[int | None, list] = {solve: [] for solve in (None, *budgets)}
    for rec in recs:
        for solve, done in runs.items():
            done.append(timed(rec, engine, solve))
    alone = [s for _, s in runs[None]]
    print(f"  without the solver: {statistics.mean(alone):.3f} s a game "
          f"(median {statistics.median(alone):.3f})")
    # the engine's class of each move, to compare with the solver's
    engine_class = {(g, p.ply): p.label for g, (result, _) in enumerate(runs[None])
                    for p in result.plies}
    for budget in budgets:
        seconds = [s for _, s in runs[budget]]
        exact = [(g, p) for g, (result, _) in enumerate(runs[budget]) for p in result.plies
                 if p.exact]
        changed = sum(engine_class[g, p.ply] != p.label for g, p in exact)
        print(f"  solve {budget:>9,}: {statistics.mean(seconds):.3f} s a game "
              f"(median {statistics.median(seconds):.3f}, "
              f"{statistics.mean(seconds) - statistics.mean(alone):+.3f} s), "
              f"{len(exact) / args.games:.1f} exact moves a game "
              f"({len(exact) / plies:.1%} of the moves), {changed} of them classed otherwise "
              "than by the engine")

if __name__ == "__main__":
    main()
