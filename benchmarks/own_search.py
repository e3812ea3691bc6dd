"""The parts of a search of one's own (docs/searching.md, "Your own search"), timed side by side
in one process, in rounds that take turns, each side's best round counting (a busy machine
slows a round, never speeds one up):

    python benchmarks/own_search.py [--games 20000] [--positions 64] [--playouts 200]
                                    [--simulations 300] [--rounds 5]

1. Playouts from a position against random_playouts: Game(2).playouts(games) from the
   start and random_playouts(games) play the same seeded games (checked: the same
   winners), so their games a second compare the call from a position with the bulk one.
2. photocore.playouts over `positions` mid-game positions (2 players, 40-80 random moves
   in), `playouts` from each, on 1 thread and on 2: the throughput of 2 over 1's (the same
   returns, checked). The machine's load is printed with it: on shared cores the second
   thread may find no core free.
3. The plain-Python UCT of examples/own_search at `simulations` a move with Game.playout
   and with its playouts in Python, at 20 mid-game positions (examples/own_search/compare.py;
   benchmarks/bench.py's row own_uct).
"""

import argparse
import os
import pathlib
import sys
import time

import numpy as np

import photocore

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "examples"
                       / "own_search"))
import compare as own_search  # noqa: E402  (found through the path above)


def best_of(rounds, calls, clock=time.process_time):
    """{name: the least seconds of its call over `rounds` rounds}, the calls in turn (the
    first one first in even rounds, last in odd ones), and the last value of each. The
    clock is this process's CPU time, which other processes on the cores do not inflate,
    unless it is given (threads are timed by the wall clock)."""
    best, values = dict.fromkeys(calls, float("inf")), {}
    for k in range(rounds):
        for name in (list(calls) if k % 2 == 0 else list(calls)[::-1]):
            start = clock()
            values[name] = calls[name]()
            best[name] = min(best[name], clock() - start)
    return best, values


def load():
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def from_the_start(games, rounds):
    seconds, values = best_of(rounds, {
        "Game.playouts": lambda: photocore.Game(2).playouts(games, seed=1),
        "random_playouts": lambda: photocore.random_playouts(games, 2, seed=1)})
    rows = values["Game.playouts"]
    wins = tuple(np.sum(rows == rows.max(axis=1, keepdims=True), axis=0).tolist())
    assert wins == values["random_playouts"]["wins"], "other games than random_playouts'"
    rate = {name: games / s for name, s in seconds.items()}
    print(f"1. from the start, {games:,} 2-player games (best of {rounds}; {load()})")
    for name, r in rate.items():
        print(f"   {name:<16} {r:>12,.0f} games/s")
    print(f"   ratio {rate['Game.playouts'] / rate['random_playouts']:.3f} (the same games)")


def on_threads(positions, playouts, rounds):
    games = own_search.positions(positions, seed=64)
    print(f"2. photocore.playouts, {positions} positions x {playouts} playouts "
          f"({os.cpu_count()} cores; before: {load()})")
    seconds, values = best_of(rounds, {
        threads: (lambda t=threads: photocore.playouts(games, playouts, seed=2, threads=t))
        for threads in (1, 2)}, clock=time.perf_counter)
    assert np.array_equal(values[1], values[2]), "other returns on 2 threads"
    total = positions * playouts
    for threads, s in seconds.items():
        print(f"   {threads} thread{'s' * (threads > 1)}: {total / s:>12,.0f} playouts/s")
    print(f"   2 threads / 1: {seconds[1] / seconds[2]:.2f} x (best of {rounds}; after: "
          f"{load()})")
    # the CPU time a 2-thread call takes per second of wall clock: 2 when both threads
    # always had a core, 1 when they had one between them (the other programs' share)
    wall, cpu = time.perf_counter(), time.process_time()
    photocore.playouts(games, playouts, seed=2, threads=2)
    print(f"   CPU seconds per wall second of a 2-thread call: "
          f"{(time.process_time() - cpu) / (time.perf_counter() - wall):.2f}")


def own_uct(simulations, rounds):
    best = own_search.compare(20, simulations, rounds)
    print(f"3. examples/own_search's UCT, 20 positions x {simulations} simulations "
          f"(best of {rounds}; {load()})")
    for playout, rate in best.items():
        print(f"   {playout + ' playouts':<16} {rate:>12,.0f} simulations/s")
    print(f"   Game.playout / Python playouts: {best['engine'] / best['python']:.2f} x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--positions", type=int, default=64)
    parser.add_argument("--playouts", type=int, default=200)
    parser.add_argument("--simulations", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"photocore {photocore.__version__}, {photocore._kernel.CODE_PATH} kernel")
    from_the_start(args.games, args.rounds)
    on_threads(args.positions, args.playouts, args.rounds)
    own_uct(args.simulations, max(1, args.rounds // 2))


if __name__ == "__main__":
    main()
