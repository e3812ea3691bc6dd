"""What the match harness costs per move, beside baselines timed in the same test.

    pytest benchmarks/test_match.py --benchmark-enable -s

- Python agent: play/harness.play_game with a Python agent (uniform over the legal moves,
  Python's random) against the same agent called in a bare loop (`game.play(agent.select
  (game))`) on the same games; the difference per move is the harness's own cost beyond
  `select` (the copy of the game the agent gets, turning its answer into a Move, the
  checks). Target: at most 5 us.
- Engine: the C example engine (examples/engines/random_engine.c, compiled here) in both
  seats, against replaying the very same moves with `game.play`; the difference per move
  is the round trip: position and legal list written, the engine's answer read and parsed.
  Target: at most 50 us.
"""

import pathlib
import random
import shutil
import subprocess
import time

import pytest

import photocore
from photocore.play import harness
from photocore.play.protocol import Engine
from photocore.play.specs import PythonAgentPlayer

ROOT = pathlib.Path(__file__).resolve().parent.parent
GAMES = 20


class Uniform:
    """A Python agent: uniform over the legal moves, seeded per game."""

    def __init__(self):
        self.rng = random.Random(0)

    def reset(self, seed=None):
        self.rng = random.Random(seed)

    def select(self, game):
        return self.rng.choice(game.legal_moves().ids())


def bare_loop(agent):
    moves = 0
    for g in range(GAMES):
        agent.reset(seed=g)
        game = photocore.Game()
        while not game.is_over:
            game.play(agent.select(game))
        moves += len(game.history)
    return moves


def through_harness(agent):
    player = PythonAgentPlayer(agent)
    moves = 0
    for g in range(GAMES):
        game = photocore.Game()
        # one player object for both seats: reset once a game with the loop's seed
        harness.play_game(game, [player, player], seeds=[g, g])
        moves += len(game.history)
    return moves


def best_of(call, rounds=5):
    best, value = float("inf"), None
    for _ in range(rounds):
        start = time.perf_counter()
        value = call()
        best = min(best, time.perf_counter() - start)
    return best, value


@pytest.mark.benchmark(group="match")
def test_harness_cost_per_move_with_a_python_agent(timed, report):
    agent = Uniform()
    base, moves = best_of(lambda: bare_loop(agent))
    seconds, _, harnessed = timed(lambda: through_harness(agent), rounds=5, warmup=True)
    assert harnessed == moves                       # the very same games
    cost = (seconds - base) / moves * 1e6
    report(f"match harness, Python agent (uniform random, 2 players, {GAMES} games, {moves} "
           f"moves): {seconds / moves * 1e6:.2f} us/move through play_game vs "
           f"{base / moves * 1e6:.2f} us/move in a bare loop = {cost:.2f} us/move of harness "
           "(target <= 5)")


@pytest.fixture(scope="module")
def c_engine(tmp_path_factory):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("engine") / "random_engine"
    subprocess.run([compiler, "-O2", "-o", str(out),
                    str(ROOT / "examples" / "engines" / "random_engine.c")], check=True)
    return out


@pytest.mark.benchmark(group="match")
def test_pipe_round_trip_with_the_c_engine(timed, report, c_engine):
    engines = [Engine([c_engine]), Engine([c_engine])]
    histories = []

    def match():
        histories.clear()
        for g in range(GAMES):
            game = photocore.Game()
            harness.play_game(game, engines, seeds=[g, g + 1000])
            histories.append([int(m) for m in game.history])
        return sum(map(len, histories))

    def replay():
        for history in histories:
            game = photocore.Game()
            for action in history:
                game.play(action)

    def positions():
        # the part of the round trip that is Game.position() (photocore/position.py)
        for history in histories:
            game = photocore.Game()
            for action in history:
                game.position()
                game.play(action)

    try:
        seconds, _, moves = timed(match, rounds=3, warmup=True)
        base, _ = best_of(replay)
        notation, _ = best_of(positions)
        floor = pipe_floor(moves)
    finally:
        for engine in engines:
            engine.close()
    trip = (seconds - base) / moves * 1e6
    notation = (notation - base) / moves * 1e6
    report(f"match harness, C example engine in both seats over pipes (2 players, {GAMES} "
           f"games, {moves} moves): {seconds / moves * 1e6:.1f} us/move vs replaying the "
           f"moves {base / moves * 1e6:.2f} us/move = {trip:.1f} us round trip per move "
           f"(target <= 50), of which Game.position() {notation:.1f} us; a bare pipe "
           f"ping-pong of the same bytes through cat: {floor:.1f} us")


def pipe_floor(count):
    """Microseconds per round trip of ~2.5 KB out and a short line back through `cat`."""
    import os
    process = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    message = b"x" * 2500 + b"\n"
    try:
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            for _ in range(count):
                os.write(process.stdin.fileno(), message)
                got = b""
                while not got.endswith(b"\n"):
                    got += os.read(process.stdout.fileno(), 65536)
            best = min(best, time.perf_counter() - start)
    finally:
        process.kill()
        process.wait()
    return best / count * 1e6
