"""How fast the plain-Python UCT of uct.py searches with each kind of playout, side by side:
simulations a second (of this process's CPU time, which other programs on the cores do
not inflate) at the same mid-game positions, in rounds that take turns, each kind's best
round counting (the machine's noise slows a round, never speeds one up).

    python examples/own_search/compare.py [--positions 20] [--simulations 300] [--rounds 3]

benchmarks/bench.py times the same comparison as its row `own_uct`.
"""

import argparse
import pathlib
import random
import sys
import time

import photocore

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from uct import UCT  # noqa: E402  (found through the path above)


def positions(count, seed):
    """Mid-game positions: 2-player games 40 to 80 random moves in (a random game lasts
    about 125), each with 2 or more legal moves."""
    rng = random.Random(seed)
    games = []
    while len(games) < count:
        game = photocore.Game(players=2)
        for _ in range(rng.randrange(40, 81)):
            if not game.is_over:
                game.play(rng.choice(game.legal_moves()))
        if not game.is_over and len(game.legal_moves()) >= 2:
            games.append(game)
    return games


def rate(playout, games, simulations, seed):
    """Simulations a second of one search at each of `games`; the moves it chose."""
    agent = UCT(simulations, playout=playout)
    agent.reset(seed)
    start = time.process_time()
    moves = [agent.select(game) for game in games]
    return len(games) * simulations / (time.process_time() - start), moves


def compare(count=20, simulations=300, rounds=3, seed=39):
    """{playout kind: its best rate}, the rounds alternating the kinds."""
    games = positions(count, seed)
    best = {"engine": 0.0, "python": 0.0}
    for _ in range(rounds):
        for playout in best:
            speed, moves = rate(playout, games, simulations, seed)
            assert all(move in game.legal_moves() for move, game in zip(moves, games))
            best[playout] = max(best[playout], speed)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--simulations", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=39)
    args = parser.parse_args()
    best = compare(args.positions, args.simulations, args.rounds, args.seed)
    for playout, speed in best.items():
        print(f"UCT with {playout} playouts: {speed:,.0f} simulations/s")
    print(f"Game.playout is {best['engine'] / best['python']:.2f} x the Python playouts "
          f"({args.positions} positions, {args.simulations} simulations, best of "
          f"{args.rounds} rounds)")


if __name__ == "__main__":
    main()
