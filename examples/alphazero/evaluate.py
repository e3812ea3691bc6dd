"""A checkpoint against the built-in agents, hundreds of games at once (arena.py).

    python examples/alphazero/evaluate.py --games 400 --opponents random,greedy,mcts:100

Prints each win rate (ties shared) with its 95% interval, seats rotated.
"""

import argparse
import json
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from agent import CHECKPOINT  # noqa: E402
from arena import play_matches  # noqa: E402
from net import Evaluator, load  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default=CHECKPOINT)
    parser.add_argument("--opponents", default="random,greedy,mcts:100")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--json", default=None, help="also write the results here")
    args = parser.parse_args(argv)

    torch.set_num_threads(1)
    net, _ = load(args.checkpoint)
    results = {}
    for opponent in args.opponents.split(","):
        start = time.perf_counter()
        result = play_matches(Evaluator(net), opponent, games=args.games,
                              simulations=args.simulations, players=net.players,
                              seed=args.seed)
        rate = result["win_rate"]
        half = 1.96 * math.sqrt(max(rate * (1 - rate), 1e-9) / args.games)
        result.update(seconds=round(time.perf_counter() - start, 1),
                      interval=[round(rate - half, 3), round(rate + half, 3)])
        results[opponent] = result
        print(f"against {opponent}: {rate:.1%} (95% interval {rate - half:.1%} .. "
              f"{rate + half:.1%}) of {args.games} games, mean score {result['score']:.1f} "
              f"vs {result['opponent_score']:.1f}, {result['seconds']:.0f} s", flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"checkpoint": args.checkpoint, "simulations": args.simulations,
                       "games": args.games, "results": results}, out, indent=1)


if __name__ == "__main__":
    main()
