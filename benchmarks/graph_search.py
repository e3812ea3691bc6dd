"""Searching positions instead of orders of moves (docs/searching.md, "Transpositions" and
"The C agent over positions"), measured in one process on the same positions:

    python benchmarks/graph_search.py                       # both parts
    python benchmarks/graph_search.py --positions 100 --simulations 1000 --network-games 8

1. The C agent, `mcts:N?graph=1` against the tree (`mcts:N`): seconds per simulation of
   `search_root` on mid-game positions of 2-player greedy games, both searches on the same
   positions in alternating order (the ratio is taken position by position, so a busy
   machine slows both alike); the nodes each search made and the bytes they took.
2. photocore.Search with the shipped 2-player network (examples/alphazero, needs the
   alphazero extra): the AlphaZero agent's games at `--network-simulations`, each position
   searched three ways, in an order that rotates move by move: the tree with
   `transpositions` (the default), the tree without, and the graph (`graph=True`); the
   network rows per move, the evaluations saved, the seconds per move (the graph's ratio
   to the tree taken move by move), and the nodes and bytes of each search. The two trees
   give the same visits (the same network values a position the same by any path), which
   the run checks.

Strength is measured by matches, not here: docs/searching.md gives the commands and results.

A study beside the registry of benchmarks/bench.py (docs/speed.md): distributions over
positions of the graph's cost, nodes and memory: figures of its own, not one figure beside a
baseline as a workload of the registry gives.
"""

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import photocore
from photocore.play import search_root

ROOT = Path(__file__).resolve().parent.parent


def midgame_positions(count, seed):
    """`count` positions of 2-player games between greedy agents, 20-150 moves in."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        game = photocore.Game(2)
        agents = [photocore.Agent("greedy", seed=rng.randrange(1 << 30)) for _ in range(2)]
        stop = rng.randrange(20, 150)
        while not game.is_over and len(game.history) < stop:
            game.play(agents[game.current_player].select(game))
        if not game.is_over and len(game.legal_moves()) > 1:
            positions.append(game)
    return positions


def c_agent(positions, simulations):
    ratios, graph_nodes, tree_nodes, graph_memory, tree_memory = [], [], [], [], []
    for i, game in enumerate(positions):
        timed = {}
        for graph in ((True, False) if i % 2 else (False, True)):
            start = time.process_time()
            stats = search_root(game, simulations, seed=i, graph=graph)
            timed[graph] = (time.process_time() - start, stats)
        ratios.append(timed[True][0] / timed[False][0])
        graph_nodes.append(timed[True][1].nodes)
        tree_nodes.append(timed[False][1].nodes)
        graph_memory.append(timed[True][1].memory)
        tree_memory.append(timed[False][1].memory)
    print(f"C agent, {len(positions)} mid-game 2-player positions, {simulations} simulations, "
          "one thread:")
    print(f"  seconds per simulation, graph / tree: median {statistics.median(ratios):.2f} "
          f"(quartiles {np.percentile(ratios, 25):.2f} .. {np.percentile(ratios, 75):.2f})")
    print(f"  nodes per search: graph {statistics.median(graph_nodes):,.0f} positions, "
          f"tree {statistics.median(tree_nodes):,.0f} nodes (medians)")
    print(f"  memory per search: graph {statistics.median(graph_memory) / 1024:,.0f} KiB, "
          f"tree {statistics.median(tree_memory) / 1024:,.0f} KiB (medians)")


# the searches part 2 compares, by name: Search's keyword arguments
WAYS = {"tree": {"transpositions": True}, "tree without transpositions": {"transpositions": False},
        "graph": {"graph": True}}


def network(games, simulations, seed):
    sys.path.insert(0, str(ROOT / "examples" / "alphazero"))
    import torch
    from net import Evaluator, load

    torch.set_num_threads(1)
    net, _ = load(ROOT / "examples" / "alphazero" / "checkpoint.pt")
    names = list(WAYS)
    rows = dict.fromkeys(names, 0)
    saved = dict.fromkeys(names, 0)
    seconds = dict.fromkeys(names, 0.0)
    nodes = {name: [] for name in names}
    memory = {name: [] for name in names}
    ratios = []
    moves = 0
    for g in range(games):
        game = photocore.Game(2)
        rng = np.random.default_rng(seed + g)
        while not game.is_over:
            if len(game.legal_moves()) == 1:
                game.play(game.legal_moves()[0])
                continue
            visits, timed = {}, {}
            for name in names[moves % 3:] + names[:moves % 3]:
                evaluate = Evaluator(net)
                counted = [0]

                def count(obs, mask, evaluate=evaluate, counted=counted):
                    counted[0] += len(obs)
                    return evaluate(obs, mask)

                search = photocore.Search([game], simulations, seed=moves,
                                          dirichlet_fraction=0.0, **WAYS[name])
                start = time.perf_counter()
                visits[name] = search.run(count)[0]
                timed[name] = time.perf_counter() - start
                seconds[name] += timed[name]
                rows[name] += counted[0]
                saved[name] += int(search.saved[0])
                nodes[name].append(int(search.nodes[0]))
                memory[name].append(int(search.memory[0]))
            if not np.array_equal(visits["tree"], visits["tree without transpositions"]):
                raise SystemExit(f"game {g}, move {len(game.history)}: the trees differ")
            ratios.append(timed["graph"] / timed["tree"])
            moves += 1
            # the game goes on by the tree's visits (temperature 1 for variety, its own stream)
            p = visits["tree"] / visits["tree"].sum()
            game.play(int(rng.choice(len(p), p=p)))
    print(f"photocore.Search, the shipped 2-player network, {simulations} simulations, "
          f"{games} games, {moves} searched moves, one thread:")
    for name in names:
        print(f"  {name}: {rows[name] / moves:.1f} network rows a move, saved "
              f"{saved[name] / moves:.2f} a move; {seconds[name] / moves * 1e3:.2f} ms a move; "
              f"{statistics.median(nodes[name]):,.0f} nodes and "
              f"{statistics.median(memory[name]) / 1024:,.0f} KiB a search (medians)")
    print(f"  seconds per simulation, graph / tree: median {statistics.median(ratios):.2f} "
          f"(quartiles {np.percentile(ratios, 25):.2f} .. {np.percentile(ratios, 75):.2f})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--network-games", type=int, default=4)
    parser.add_argument("--network-simulations", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-network", action="store_true")
    args = parser.parse_args()
    c_agent(midgame_positions(args.positions, args.seed), args.simulations)
    if not args.skip_network:
        network(args.network_games, args.network_simulations, args.seed)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
