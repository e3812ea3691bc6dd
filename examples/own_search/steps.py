"""The steps of docs/own-search.md, timed side by side at the same mid-game positions (2
players, 40 to 80 random moves in): random games to the end in Python and by Game.playout,
then a move chosen by each search at `simulations` a move (UCT in Python with either kind of
playout, uct.py; PUCT over photocore.Search with each evaluator of puct.py, one position at
a time and all at once; the built-in mcts:N). CPU time of this process, which other
programs on the cores do not inflate; in rounds that take turns, each step's best round
counting.

    python examples/own_search/steps.py [--positions 20] [--simulations 300] [--games 50]
                                        [--rounds 5]
"""

import argparse
import pathlib
import random
import sys
import time

import photocore

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import puct  # noqa: E402  (found through the path above)
from compare import positions  # noqa: E402
from uct import UCT, python_playout  # noqa: E402


def games_to_the_end(games, seed, playout, each):
    """Plays `each` random games to the end from each position; the games played."""
    rng = random.Random(seed)
    for game in games:
        for _ in range(each):
            if playout == "python":
                python_playout(game.copy(history=False), rng)
            else:
                game.playout(seed=rng.getrandbits(64))
    return len(games) * each


def searched(make, games, seed):
    """Chooses a move at each position with a fresh player of make(); the simulations run."""
    for game in games:
        player = make()
        player.reset(seed=seed)
        assert player.select(game) in game.legal_moves()
    return len(games)


def batched(games, seed, simulations):
    """One Search over every position at once, ScoreLead valuing a leaf of each in each
    call, without root noise (as a player searches); the simulations run."""
    search = photocore.Search(games, simulations, seed, dirichlet_fraction=0.0)
    search.run(puct.ScoreLead(2))
    return len(games) * simulations


# the step each step's speed is a ratio to, as the page's table has it ("against")
BASES = {
    "random games, Game.playout": "random games, Python loop",
    "UCT in Python, Game.playout": "UCT in Python, Python playouts",
    "Search, playouts as values": "UCT in Python, Game.playout",
    "Search, ScoreLead": "UCT in Python, Game.playout",
    "Search, ScoreLead, in_flight=8": "Search, ScoreLead",
    "Search, ScoreLead, every game at once": "Search, ScoreLead, in_flight=8",
    "mcts:N, all in C": "UCT in Python, Game.playout",
}


def steps(simulations, each):
    """{step: (unit, work(games, seed) -> count of that unit)}, in the page's order."""
    def search(make):
        return "simulations", lambda games, seed: searched(make, games, seed) * simulations
    return {
        "random games, Python loop": (
            "games", lambda games, seed: games_to_the_end(games, seed, "python", each)),
        "random games, Game.playout": (
            "games", lambda games, seed: games_to_the_end(games, seed, "engine", each)),
        "UCT in Python, Python playouts": search(lambda: UCT(simulations, playout="python")),
        "UCT in Python, Game.playout": search(lambda: UCT(simulations)),
        "Search, playouts as values": search(lambda: puct.PUCT(simulations, "playouts")),
        "Search, ScoreLead": search(lambda: puct.PUCT(simulations, "score")),
        "Search, ScoreLead, in_flight=8": search(
            lambda: puct.PUCT(simulations, "score", in_flight=8)),
        "Search, ScoreLead, every game at once": (
            "simulations", lambda games, seed: batched(games, seed, simulations)),
        "mcts:N, all in C": search(lambda: photocore.Agent("mcts", simulations=simulations)),
    }


def measure(count=20, simulations=300, each=50, rounds=5, seed=39):
    """{step: (unit, its best rate)}, the rounds alternating the steps."""
    games = positions(count, seed)
    work = steps(simulations, each)
    best = dict.fromkeys(work, 0.0)
    for _ in range(rounds):
        for step, (_, run) in work.items():
            start = time.process_time()
            done = run(games, seed)
            best[step] = max(best[step], done / (time.process_time() - start))
    return {step: (work[step][0], rate) for step, rate in best.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--simulations", type=int, default=300)
    parser.add_argument("--games", type=int, default=50, help="random games from each position")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=39)
    args = parser.parse_args()
    print(f"photocore {photocore.__version__}: {args.positions} positions, {args.games} random "
          f"games from each, {args.simulations} simulations a move, best of {args.rounds} "
          "rounds, CPU time")
    rates = measure(args.positions, args.simulations, args.games, args.rounds, args.seed)
    for step, (unit, rate) in rates.items():
        base = BASES.get(step)
        ratio = f"{rate / rates[base][1]:6.2f} x {base}" if base else ""
        print(f"{step:<38} {rate:>10,.0f} {unit}/s  {ratio}")


if __name__ == "__main__":
    main()
