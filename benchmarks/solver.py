"""How far and how fast photocore.solve reaches (docs/searching.md, "Exact endgames"):

    python benchmarks/solver.py                     # 1,000 last-round positions, 20 games back
    python benchmarks/solver.py --players 3 4 --positions 200 --games 10 --seconds 60

For each player count of --players, in games of real agents (greedy, mcts:100 and random,
drawn for each seat, seeds from --seed):

1. The last round: every position at the start of a player's final turn, solved one at a
   time on one core within --last-round-seconds each: how many were solved (by the turns
   left in the game), the median and worst time, positions per second and the table's
   hit rate.
2. Rounds back: for --games games, the position at the start of each round from the last
   one back, solved within --seconds each, until one is not; how many rounds back each
   game reached (the median over the games).
3. The searches' proofs: every position of the last round where more than one move is
   legal (any move of a turn), solved within ?prove=1's budget of positions
   (SOLVE_NODES): how many the proof finishes, what `mcts:N?prove=1` can play from.

    python benchmarks/solver.py --players 2 3 4 --parts proofs --positions 200

A study beside the registry of benchmarks/bench.py (docs/speed.md): how far the solver
reaches: counts of solved positions and times: figures of its own, not one figure beside a
baseline as a workload of the registry gives.
"""

import argparse
import random
import statistics

import photocore
from photocore.play import specs
from photocore.play._agents import SOLVE_NODES

AGENTS = ("greedy", "mcts:100", "random")


def played(seed, players):
    """A game of agents drawn from AGENTS, as a list of the Games after each move (the
    positions of the game)."""
    rng = random.Random(seed)
    agents = [specs.load(rng.choice(AGENTS)) for _ in range(players)]
    for k, agent in enumerate(agents):
        agent.reset(seed * players + k)
    game = photocore.Game(players)
    positions = [game.copy()]
    while not game.is_over:
        game.play(agents[game.current_player].select(game))
        positions.append(game.copy())
    return positions


def turn_starts(positions):
    """The positions where a player starts a turn of the play (the move before: an end)."""
    end = photocore.Move.parse("end")
    return [game for game in positions[1:]
            if not game.is_over and game.history[-1] == end]


def last_round(players, count, seed, budget):
    times, nodes, rates, unsolved = [], 0, [], 0
    by_turns_left = {}          # turns left: [positions, solved]
    game_seed = seed
    while len(times) < count:
        positions = played(game_seed, players)
        game_seed += 1
        finals = [game for game in turn_starts(positions) if game.round == game.last_round]
        for k, game in enumerate(finals[:count - len(times)]):
            solution = photocore.solve(game, photocore.Limit(seconds=budget))
            unsolved += not solution.solved
            tally = by_turns_left.setdefault(len(finals) - k, [0, 0])
            tally[0] += 1
            tally[1] += solution.solved
            times.append(solution.seconds)
            nodes += solution.nodes
            rates.append(solution.table_hit_rate)
    print(f"last round, {players} players: {count} positions at the start of a final turn, "
          f"{game_seed - seed} games, {budget:g} s each at most")
    print("  solved by turns left in the game: " + ", ".join(
        f"{left}: {solved}/{total}" for left, (total, solved) in sorted(by_turns_left.items())))
    print(f"  solved {count - unsolved} ({(count - unsolved) / count:.1%}); seconds: median "
          f"{statistics.median(times):.4f}, mean {statistics.mean(times):.4f}, 99th "
          f"percentile {sorted(times)[int(0.99 * (count - 1))]:.3f}, worst {max(times):.3f}")
    print(f"  {nodes / sum(times):,.0f} positions a second, table hits "
          f"{statistics.mean(rates):.0%} (mean over positions)")


def rounds_back(players, games, seconds, seed):
    reached = []
    for g in range(games):
        positions = played(seed + 10_000 + g, players)
        starts = {}
        for game in turn_starts(positions):
            starts.setdefault(game.round, game)        # each round's first turn
        last = max(starts)
        back = 0
        for r in range(last, 0, -1):
            if r not in starts:
                break
            solution = photocore.solve(starts[r], photocore.Limit(seconds=seconds))
            if not solution.solved:
                break
            back += 1
        reached.append(back)
    print(f"rounds back within {seconds:g} s a position, {players} players, {games} games: median "
          f"{statistics.median(reached)} (each game: {reached}; 1 is the last round)")


def proofs(players, count, seed):
    solved = total = 0
    game_seed = seed
    while total < count:
        positions = played(game_seed, players)
        game_seed += 1
        for game in positions[:-1]:
            if total < count and game.round == game.last_round and len(game.legal_moves()) > 1:
                total += 1
                solved += photocore.solve(game, photocore.Limit(nodes=SOLVE_NODES,
                                                             seconds=1e6)).solved
    print(f"the searches' proofs, {players} players: {solved} of {total} last-round positions "
          f"({solved / total:.1%}, {game_seed - seed} games) solved within {SOLVE_NODES:,} "
          "positions")


PARTS = {"last-round": lambda players, args: last_round(players, args.positions, args.seed,
                                                         args.last_round_seconds),
         "rounds-back": lambda players, args: rounds_back(players, args.games, args.seconds,
                                                          args.seed),
         "proofs": lambda players, args: proofs(players, args.positions, args.seed)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2], choices=(2, 3, 4))
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="the budget of a position, rounds back")
    parser.add_argument("--last-round-seconds", type=float, default=1.0,
                        help="the budget of a last-round position")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    args = parser.parse_args()
    for players in args.players:
        for part in args.parts:
            PARTS[part](players, args)


if __name__ == "__main__":
    main()
