"""A checkpoint against the built-in agents, hundreds of games at once (arena.py).

    python examples/alphazero/evaluate.py --games 400 --opponents random,greedy,mcts:100

Prints each win rate (ties shared) with its 95% interval, seats rotated; with --baseline
(mcts:1000, say), also the win rate of that built-in agent in the same seats against the
same opponents.
"""

import argparse
import json
import os
import sys
import time

import torch

from photocore.env import evaluation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from agent import CHECKPOINTS  # noqa: E402
from arena import builtin_matches, play_matches  # noqa: E402
from net import CheckpointError, Evaluator, load  # noqa: E402
from options import HelpFormatter, builtin_agent, listing, share, whole  # noqa: E402

from photocore.play.search import MIN_SIMULATIONS  # noqa: E402


def wilson(rate, games):
    """The 95% Wilson score interval of a win rate (ties shared, so wins may be fractional):
    photocore.env.evaluation.wilson's, inside [0, 1] even at 0% or 100%.

    >>> [round(x, 3) for x in wilson(1.0, 400)]
    [0.99, 1.0]
    """
    return evaluation.wilson(rate * games, games)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=HelpFormatter)
    parser.add_argument("--checkpoint", default=None,
                        help="the network to evaluate (default: the shipped one for --players)")
    parser.add_argument("--players", type=int, choices=sorted(CHECKPOINTS), default=None,
                        help="players of the games; a --checkpoint must play them (default: "
                             "the checkpoint's, 2 without one)")
    parser.add_argument("--opponents", type=listing(builtin_agent),
                        default="random,greedy,mcts:100",
                        help="built-in agents to play, in the other seats, comma separated")
    parser.add_argument("--games", type=whole(1), default=400, help="games against each")
    parser.add_argument("--simulations", type=whole(MIN_SIMULATIONS), default=64,
                        help="the checkpoint's search, per move")
    parser.add_argument("--rollout-weight", type=share, default=None,
                        help="share of a random game's result in each leaf's value "
                             "(default: the checkpoint's)")
    parser.add_argument("--graph", action="store_true",
                        help="search positions, not orders of moves (docs/searching.md)")
    parser.add_argument("--seed", type=int, default=12345, help="of the games")
    parser.add_argument("--baseline", type=builtin_agent, default=None,
                        help="a built-in agent to play in the checkpoint's seats too")
    parser.add_argument("--json", default=None, help="also write the results here")
    args = parser.parse_args(argv)
    args.checkpoint = args.checkpoint or CHECKPOINTS[args.players or 2]

    torch.set_num_threads(1)
    try:
        net, checkpoint = load(args.checkpoint, players=args.players)
    except CheckpointError as e:
        parser.error(str(e))
    if args.rollout_weight is None:
        args.rollout_weight = checkpoint.get("rollout_weight", 0.0)
    results = {}
    for opponent in args.opponents:
        start = time.perf_counter()
        result = play_matches(Evaluator(net), opponent, games=args.games,
                              simulations=args.simulations, players=net.players,
                              seed=args.seed, rollout_weight=args.rollout_weight,
                              graph=args.graph)
        rate = result["win_rate"]
        low, high = wilson(rate, args.games)
        result.update(seconds=round(time.perf_counter() - start, 1),
                      interval=[round(low, 3), round(high, 3)])
        results[opponent] = result
        print(f"against {opponent}: {rate:.1%} (95% interval {low:.1%} .. "
              f"{high:.1%}) of {args.games} games, mean score {result['score']:.1f} "
              f"vs {result['opponent_score']:.1f}, {result['seconds']:.0f} s", flush=True)
        if args.baseline:
            base = builtin_matches(args.baseline, opponent, args.games, net.players, args.seed)
            low, high = wilson(base["win_rate"], args.games)
            base["interval"] = [round(low, 3), round(high, 3)]
            result["baseline"] = {args.baseline: base}
            print(f"  {args.baseline} in the same seats: {base['win_rate']:.1%} (95% interval "
                  f"{low:.1%} .. {high:.1%})", flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"checkpoint": args.checkpoint, "players": net.players,
                       "simulations": args.simulations,
                       "rollout_weight": args.rollout_weight, "graph": args.graph,
                       "seed": args.seed,
                       "games": args.games, "results": results}, out, indent=1)


if __name__ == "__main__":
    main()
