"""The `photocore` command."""

import argparse
import sys
import time

import photocore


def playouts(args):
    start = time.perf_counter()
    result = photocore.random_playouts(args.games, players=args.players, seed=args.seed,
                                       fourth_revolution=args.fourth_revolution,
                                       shade_blocks=args.shade_blocks)
    seconds = time.perf_counter() - start
    games, moves = result["games"], result["moves"]
    print(f"{games} random games, {args.players} players, seed {args.seed}: "
          f"{moves} moves in {seconds:.2f} s "
          f"({games / seconds:,.0f} games/s, {moves / seconds:,.0f} moves/s)")
    for seat in range(args.players):
        print(f"  seat {seat}: mean score {result['score_sums'][seat] / max(games, 1):.2f}, "
              f"wins {result['wins'][seat] / max(games, 1):.1%}")
    return 0


def parser():
    top = argparse.ArgumentParser(prog="photocore", description=(
        "A fast, exact engine for the board game Photosynthesis. "
        "Run `photocore COMMAND --help` for each command's options."))
    top.add_argument("--version", action="version",
                     version=f"photocore (rules version {photocore.RULES_VERSION})")
    commands = top.add_subparsers(dest="command", required=True)
    p = commands.add_parser("playouts", help="play random games in the compiled kernels",
                            description="Plays whole games of uniformly random legal moves "
                                        "in C (one thread) and prints totals and speed.")
    p.add_argument("--games", type=int, default=100_000, help="games to play (default 100000)")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    p.add_argument("--seed", type=int, default=0, help="the same seed plays the same games")
    p.add_argument("--fourth-revolution", action="store_true", help="play 24 rounds")
    p.add_argument("--shade-blocks", action="store_true",
                   help="no planting into or growing in shadow")
    p.set_defaults(run=playouts)
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    if getattr(args, "games", 0) < 0:
        parser().error(f"--games must be >= 0, got {args.games}")
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
