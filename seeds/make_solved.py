"""Writes seeds/solved.jsonl: 2-player positions of real games with their exact values, a
ground truth to measure players against (photocore.play.ground_truth, `photocore solve --agent`).

Games of two agents drawn from AGENTS (seeded), their positions from the end back solved
within NODES positions each (a node budget, not a time one, so the set is the same on any
machine) until one is not; a position is kept when its moves are not all as good, in
result and margin (where they are, there is nothing to get wrong). At most PER_GAME a game,
drawn with the game's seed, until COUNT. Rerun when the rules change:
python seeds/make_solved.py
"""

import pathlib
import random

import photocore
from photocore.play import ground_truth, specs

AGENTS = ("random", "greedy", "mcts:100", "mcts:1000")
COUNT = 2000
PER_GAME = 8
NODES = 1_000_000
OUT = pathlib.Path(__file__).resolve().parent / "solved.jsonl"


def positions_of(seed):
    """The solved positions of the game of `seed` that matter, at most PER_GAME."""
    rng = random.Random(seed)
    names = [rng.choice(AGENTS) for _ in range(2)]
    agents = [specs.load(name) for name in names]
    for k, agent in enumerate(agents):
        agent.reset(seed * 2 + k)
    game = photocore.Game(2)
    positions = []
    while not game.is_over:
        positions.append(game.copy())
        game.play(agents[game.current_player].select(game))
    found = []
    for ply in range(len(positions) - 1, 0, -1):
        position = positions[ply]
        solution = photocore.solve(position, nodes=NODES)
        if not solution.solved:
            break
        if len(set(solution.moves.values())) == 1:
            continue
        optimal = tuple(m for m in solution.best if solution.moves[m][1] == solution.margin)
        found.append(ground_truth.SolvedPosition(
            position.position(), int(solution.result), solution.margin, tuple(solution.best),
            optimal, len(solution.moves), f"{names[0]} v {names[1]}, seed {seed}, ply {ply}"))
    return rng.sample(found, min(PER_GAME, len(found)))


def main():
    positions, seed = [], 0
    while len(positions) < COUNT:
        positions += positions_of(seed)[:COUNT - len(positions)]
        seed += 1
    ground_truth.write(OUT, positions)
    print(f"{len(positions)} positions of {seed} games -> {OUT}")


if __name__ == "__main__":
    main()
