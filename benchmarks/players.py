"""The players' workloads of the registry (benchmarks/bench.py): what the match harness
costs a move, beside the same games without it in the same run, and the Cython example
searcher (examples/flat_mc).

- match/python_agent: play/harness.play_game with a Python agent (uniform over the legal
  moves, Python's random); baseline: the same agent called in a bare loop
  (`game.play(agent.select(game))`) on the same games. The difference a move is the
  harness's own cost beyond `select` (the copy of the game the agent gets, turning its
  answer into a Move, the checks). Target: at most 5 us.
- match/c_engine: the C example engine (examples/engines/random_engine.c, compiled here)
  in both seats; baseline: replaying the very same moves with `game.play`. The difference a
  move is the round trip: position and legal list written, the engine's answer read and
  parsed. Target: at most 50 us.
"""

import importlib.util
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile
import time

from engine import best

import photocore
from photocore.play import harness
from photocore.play.protocol import Engine
from photocore.play.specs import PythonAgentPlayer
from photocore.run import speed
from photocore.run.speed import expect

ROOT = pathlib.Path(__file__).resolve().parent.parent


class Uniform:
    """A Python agent: uniform over the legal moves, seeded per game."""

    def __init__(self):
        self.rng = random.Random(0)

    def reset(self, seed=None):
        self.rng = random.Random(seed)

    def select(self, game):
        return self.rng.choice(game.legal_moves().ids())


class PythonAgentMatch(speed.Workload):
    name = "match/python_agent"

    def __init__(self, games):
        self.games, self.agent = games, Uniform()
        self.describe = (f"harness.play_game, a Python agent (uniform random) in both seats, "
                         f"{games} 2-player games")

    def run(self):
        player = PythonAgentPlayer(self.agent)
        histories = []
        for g in range(self.games):
            game = photocore.Game()
            # one player object for both seats: reset once a game with the loop's seed
            harness.play_game(game, [player, player], seeds=[g, g])
            histories.append([int(m) for m in game.history])
        return histories

    def bare_loop(self):
        histories = []
        for g in range(self.games):
            self.agent.reset(seed=g)
            game = photocore.Game()
            while not game.is_over:
                game.play(self.agent.select(game))
            histories.append([int(m) for m in game.history])
        return histories

    def check(self, value):
        self.moves = sum(map(len, value))
        expect(value == self.bare_loop(), "other games than the bare loop's")
        return {"moves": self.moves}, "the very games of the bare loop"

    def reference(self):
        seconds, _ = best(self.bare_loop)
        ours, _ = best(self.run)
        cost = (ours - seconds) / self.moves * 1e6
        return ({"moves": self.moves}, seconds, "baseline: the same agent in a bare loop "
                f"(game.play(agent.select(game))); the harness's own cost {cost:.2f} us/move "
                "(target <= 5)")


def pipe_floor(count):
    """Microseconds per round trip of ~2.5 KB out and a short line back through `cat`."""
    process = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    message = b"x" * 2500 + b"\n"
    try:
        fastest = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            for _ in range(count):
                os.write(process.stdin.fileno(), message)
                got = b""
                while not got.endswith(b"\n"):
                    got += os.read(process.stdout.fileno(), 65536)
            fastest = min(fastest, time.perf_counter() - start)
    finally:
        process.kill()
        process.wait()
    return fastest / count * 1e6


def compiler():
    return shutil.which("cc") or shutil.which("gcc")


class EngineMatch(speed.Workload):
    name = "match/c_engine"

    def __init__(self, games):
        self.games = games
        self.describe = (f"harness.play_game, the C example engine in both seats over pipes, "
                         f"{games} 2-player games")

    def missing(self):
        return None if compiler() else "needs a C compiler"

    def prepare(self):
        self.folder = tempfile.TemporaryDirectory(prefix="photocore-bench-")
        program = os.path.join(self.folder.name, "random_engine")
        subprocess.run([compiler(), "-O2", "-o", program,
                        str(ROOT / "examples" / "engines" / "random_engine.c")], check=True)
        self.engines = [Engine([program]), Engine([program])]

    def close(self):
        for engine in self.engines:
            engine.close()
        self.folder.cleanup()

    def run(self):
        histories = []
        for g in range(self.games):
            game = photocore.Game()
            harness.play_game(game, self.engines, seeds=[g, g + 1000])
            histories.append([int(m) for m in game.history])
        return histories

    def check(self, value):
        self.histories, self.moves = value, sum(map(len, value))
        for history in value:
            game = photocore.Game()
            for action in history:
                game.play(action)   # raises on an illegal move
            expect(game.is_over, "a game of the engines did not end")
        return {"moves": self.moves}, "every game replays, legal to its end; the same seeds play it"

    def replay(self, positions=False):
        for history in self.histories:
            game = photocore.Game()
            for action in history:
                if positions:
                    game.position()   # the part of the round trip that is Game.position()
                game.play(action)
        return self.moves

    def reference(self):
        seconds, _ = best(self.replay)
        ours, _ = best(self.run)
        notation, _ = best(lambda: self.replay(positions=True))
        return ({"moves": self.moves}, seconds, "baseline: replaying the moves with game.play; "
                f"round trip {(ours - seconds) / self.moves * 1e6:.1f} us/move (target <= 50),"
                f" of which Game.position() {(notation - seconds) / self.moves * 1e6:.1f} us; "
                f"a bare pipe ping-pong of the same bytes through cat "
                f"{pipe_floor(self.moves):.1f} us")


class FlatMC(speed.Workload):
    name = "flat_mc"

    def __init__(self, count, playouts=32):
        self.count, self.playouts = count, playouts
        self.describe = (f"examples/flat_mc choose() (Cython), {playouts} playouts per legal "
                         f"move at {count} random 2-player mid-game positions, 1 thread")

    def missing(self):
        if importlib.util.find_spec("Cython") is None:
            return "needs Cython"
        return None if compiler() else "needs a C compiler"

    def prepare(self):
        self.folder = tempfile.TemporaryDirectory(prefix="photocore-bench-")
        build = pathlib.Path(self.folder.name)
        for name in ("flat_mc.pyx", "setup.py"):
            shutil.copy(ROOT / "examples" / "flat_mc" / name, build)
        subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=build,
                       check=True, capture_output=True)
        (library,) = build.glob("flat_mc.*.so")
        spec = importlib.util.spec_from_file_location("flat_mc", library)
        self.module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.module)
        rng = random.Random(1)
        self.positions = []
        while len(self.positions) < self.count:
            game = photocore.Game(players=2)
            for _ in range(rng.randrange(10, 100)):
                if game.is_over:
                    break
                game.play(rng.choice(game.legal_moves()))
            if not game.is_over and len(game.legal_moves()) > 1:
                self.positions.append(game)

    def close(self):
        self.folder.cleanup()

    def run(self):
        return [self.module.choose(game, self.playouts, seed=k)
                for k, game in enumerate(self.positions)]

    def check(self, value):
        expect(all(g.is_legal(m) for g, m in zip(self.positions, value)), "an illegal move")
        simulations = self.playouts * sum(len(g.legal_moves()) for g in self.positions)
        return ({"simulations": simulations, "moves": len(value)},
                "every move chosen is legal; the same seeds choose the same moves every run")


def workloads(quick):
    games = 5 if quick else 20
    return [PythonAgentMatch(games), EngineMatch(games), FlatMC(5 if quick else 20)]
