"""The parts of a search of one's own (docs/searching.md, "Your own search"): workloads of
the registry (benchmarks/bench.py), each beside its baseline in the same run.

- own_uct: the plain-Python UCT of examples/own_search with Game.playout; its baseline is
  the same search with its playouts in Python (random.choice and Game.play to the end), as
  a search had to play them without Game.playout, so the speed-up is what Game.playout
  gives a search written in Python (examples/own_search/compare.py compares the same).
- playouts/from_start: Game(2).playouts(games) from the start; its baseline
  random_playouts(games), which plays the same seeded games (checked: the same winners),
  so the ratio compares the call from a position with the bulk one.
- playouts/2_threads: photocore.playouts over mid-game positions (2 players, 40-80 random
  moves in) on 2 threads; its baseline the same on 1 thread (the same returns, checked).
  On shared cores the second thread may find no core free.
"""

import pathlib
import sys

import numpy as np
from engine import best, once

import photocore
from photocore.run import speed
from photocore.run.speed import expect

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "examples"
                       / "own_search"))
import compare as example  # noqa: E402  (examples/own_search, found through the path above)


class OwnUCT(speed.Workload):
    name = "own_uct"

    def __init__(self, positions, simulations, seed=39):
        self.count, self.simulations, self.seed = positions, simulations, seed
        self.describe = (f"examples/own_search: UCT in plain Python, {simulations} "
                         f"simulations a move with Game.playout, at {positions} mid-game "
                         "2-player positions")

    def prepare(self):
        self.games = example.positions(self.count, self.seed)

    def search(self, playout):
        agent = example.UCT(self.simulations, playout=playout)
        agent.reset(self.seed)
        return [agent.select(game).id for game in self.games]

    def run(self):
        return self.search("engine")

    def check(self, value):
        expect(all(map(photocore.Game.is_legal, self.games, value)), "an illegal move chosen")
        return ({"simulations": len(value) * self.simulations, "moves": len(value)},
                "every move chosen is legal; the same seed chooses the same moves every run")

    def reference(self):
        seconds, moves = once(lambda: self.search("python"))
        expect(all(map(photocore.Game.is_legal, self.games, moves)),
               "the Python playouts' search chose an illegal move")
        return ({"simulations": len(moves) * self.simulations}, seconds,
                "not photoref: the same UCT with its playouts in Python (random.choice and "
                "Game.play to the end) at the same positions")


def winners(rows):
    """Wins per seat of playouts' returns (tied winners each counted)."""
    return tuple(np.sum(rows == rows.max(axis=1, keepdims=True), axis=0).tolist())


class FromStart(speed.Workload):
    name = "playouts/from_start"

    def __init__(self, games):
        self.games = games
        self.describe = (f"Game(2).playouts({games:,}) from the start, uniform random policy, "
                         "1 thread")

    def run(self):
        return winners(photocore.Game(2).playouts(self.games, seed=1))

    def check(self, value):
        expect(value == tuple(photocore.random_playouts(self.games, 2, seed=1)["wins"]),
               "other games than random_playouts' of the same seed")
        return {"games": self.games}, "the same games (wins by seat) as random_playouts'"

    def reference(self):
        seconds, _ = best(lambda: photocore.random_playouts(self.games, 2, seed=1))
        return ({"games": self.games}, seconds, "baseline: random_playouts of the same "
                "games, the bulk call")


class Threads(speed.Workload):
    name = "playouts/2_threads"

    def __init__(self, positions, playouts):
        self.count, self.playouts = positions, playouts
        self.describe = (f"photocore.playouts, {positions} mid-game 2-player positions x "
                         f"{playouts} playouts, 2 threads")

    def prepare(self):
        self.games = example.positions(self.count, seed=64)

    def play(self, threads):
        return photocore.playouts(self.games, self.playouts, seed=2, threads=threads)

    def run(self):
        self.returns = self.play(2)   # for check(); their sum compared run to run
        return float(self.returns.sum())

    def check(self, value):
        expect(np.array_equal(self.returns, self.play(1)), "other returns on 2 threads")
        return ({"playouts": self.count * self.playouts},
                "the same returns as on 1 thread")

    def reference(self):
        seconds, _ = best(lambda: self.play(1))
        return ({"playouts": self.count * self.playouts}, seconds,
                "baseline: the same playouts on 1 thread")


def workloads(sizes, everything):
    """own_uct (CI's floor), then, if `everything`, the playouts' parts."""
    works = [OwnUCT(sizes.uct_positions, sizes.uct_simulations)]
    if everything:
        works += [FromStart(2_000 if sizes.quick else 20_000),
                  Threads(16 if sizes.quick else 64, 50 if sizes.quick else 200)]
    return works
