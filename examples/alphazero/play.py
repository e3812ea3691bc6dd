"""A checkpoint plays built-in agents, one game at a time, through AlphaZeroAgent.

    python examples/alphazero/play.py --opponent mcts:100 --games 10 --out games.jsonl

Seats rotate (in game i the network sits in seat i % players). --out writes the games as
records (`photocore replay games.jsonl` shows one, `photocore verify games.jsonl` checks
them). For hundreds of games, evaluate.py plays them all at once, much faster.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from agent import CHECKPOINTS, AlphaZeroAgent  # noqa: E402
from arena import parse_opponent  # noqa: E402
from net import CheckpointError  # noqa: E402
from options import HelpFormatter, builtin_agent, whole  # noqa: E402

import photocore  # noqa: E402
import photocore.records  # noqa: E402
from photocore.play.search import MIN_SIMULATIONS  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=HelpFormatter)
    parser.add_argument("--checkpoint", default=None,
                        help="the network to play (default: the shipped one for --players)")
    parser.add_argument("--players", type=int, choices=sorted(CHECKPOINTS), default=None,
                        help="players of the games; a --checkpoint must play them (default: "
                             "the checkpoint's, 2 without one)")
    parser.add_argument("--opponent", type=builtin_agent, default="greedy",
                        help="random, greedy, mcts or mcts:N")
    parser.add_argument("--games", type=whole(1), default=10, help="games to play")
    parser.add_argument("--simulations", type=whole(MIN_SIMULATIONS), default=64,
                        help="the checkpoint's search, per move")
    parser.add_argument("--seed", type=int, default=0, help="of the agents")
    parser.add_argument("--out", default=None, help="records of the games (.jsonl or .jsonl.gz)")
    args = parser.parse_args(argv)
    args.checkpoint = args.checkpoint or CHECKPOINTS[args.players or 2]

    try:
        agent = AlphaZeroAgent(checkpoint=args.checkpoint, simulations=args.simulations,
                               seed=args.seed)
        if args.players is not None:
            agent.check(photocore.Game(args.players))
    except CheckpointError as e:
        parser.error(str(e))
    kind, budget = parse_opponent(args.opponent)
    players = agent.players
    wins = 0.0
    played = []
    for i in range(args.games):
        seat = i % players
        others = photocore.Agent(kind, seed=args.seed * 1_000_003 + i, simulations=budget)
        game = photocore.Game(players)
        agent.reset()
        while not game.is_over:
            game.play((agent if game.current_player == seat else others).select(game))
        winners = game.winners()
        share = 1 / len(winners) if seat in winners else 0.0
        wins += share
        names = [others.name] * players
        names[seat] = agent.name
        played.append(photocore.records.to_record(game, {"agents": names, "seed": args.seed,
                                                         "game": i}))
        print(f"game {i}: {agent.name} in seat {seat}, scores {game.scores()}, "
              f"{'won' if share == 1 else 'shared the win' if share else 'lost'}", flush=True)
    print(f"{agent.name} against {others.name}: {wins / max(args.games, 1):.1%} of the wins "
          f"in {args.games} games")
    if args.out:
        photocore.write_games(args.out, played)


if __name__ == "__main__":
    main()
