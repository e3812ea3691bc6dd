"""Adapter overhead and the Cython example searcher's speed.

    pytest benchmarks/test_adapters.py --benchmark-enable

Every adapter figure is the cost per move of whole random 2-player games (uniform over the
legal moves, drawn with Python's random) against the native Game loop timed in the same
test; the flat Monte Carlo example is built from examples/ and timed in playouts per second.
"""

import importlib.util
import pathlib
import random
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import photocore

GAMES = 20
ROOT = pathlib.Path(__file__).resolve().parent.parent


def native_loop(seed=0):
    """legal_moves() + random.choice + play(): the baseline every adapter adds to."""
    rng = random.Random(seed)
    moves = 0
    for _ in range(GAMES):
        game = photocore.Game(players=2)
        while not game.is_over:
            game.play(rng.choice(game.legal_moves()))
            moves += 1
    return moves


def native_loop_observed(seed=0):
    """The native loop plus observation() and the legal mask each move, as an RL agent sees it."""
    rng = random.Random(seed)
    moves = 0
    for _ in range(GAMES):
        game = photocore.Game(players=2)
        while not game.is_over:
            game.observation()
            game.play(rng.choice(np.flatnonzero(game.legal_moves().mask())))
            moves += 1
    return moves


def ns_per_move(play, rounds=5):
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        moves = play()
        best = min(best, (time.perf_counter() - start) / moves)
    return best * 1e9


def compare(benchmark, timed, report, label, play, baselines):
    seconds, _, moves = timed(play, rounds=5, warmup=True)
    # the same seed and the same ascending legal actions play the very games of the native loop
    assert moves == native_loop()
    ns = seconds / moves * 1e9
    benchmark.extra_info.update(ns_per_move=ns)
    against = ", ".join(f"{ns / base:.1f} x {name} ({base:,.0f} ns)"
                        for name, base in baselines.items())
    report(f"{label}, {GAMES} random 2-player games ({moves} moves): {ns:,.0f} ns/move = "
           f"{against}")


@pytest.mark.benchmark(group="adapters")
def test_native_game_loop(timed, report):
    seconds, _, moves = timed(native_loop, rounds=5, warmup=True)
    assert moves == native_loop_observed()   # the same games, whichever way moves are listed
    report(f"native Game loop (legal_moves + random.choice + play), {GAMES} random 2-player "
           f"games: {seconds / moves * 1e9:,.0f} ns/move; with observation() "
           f"+ legal_moves().mask() each move: {ns_per_move(native_loop_observed):,.0f} ns/move")


@pytest.mark.benchmark(group="adapters")
def test_openspiel_adapter(benchmark, timed, report):
    pyspiel = pytest.importorskip("pyspiel")
    import photocore.env.openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_photosynthesis", {"players": 2})

    def play(seed=0):
        rng = random.Random(seed)
        moves = 0
        for _ in range(GAMES):
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
                moves += 1
        return moves

    compare(benchmark, timed, report,
            "OpenSpiel state (legal_actions + random.choice + apply_action)", play,
            {"native loop": ns_per_move(native_loop)})


@pytest.mark.benchmark(group="adapters")
@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
def test_pettingzoo_adapter(benchmark, timed, report, wrapped):
    pytest.importorskip("pettingzoo")
    from photocore.env.pettingzoo import env, raw_env

    environment = env(players=2) if wrapped else raw_env(players=2)

    def play(seed=0):
        rng = random.Random(seed)
        moves = 0
        for _ in range(GAMES):
            environment.reset()
            for _agent in environment.agent_iter():
                obs, _, terminated, _, _ = environment.last()
                if terminated:
                    environment.step(None)
                    continue
                environment.step(rng.choice(np.flatnonzero(obs["action_mask"])))
                moves += 1
        return moves

    compare(benchmark, timed, report,
            f"PettingZoo {'env() (standard wrappers)' if wrapped else 'raw_env'} (last + "
            f"random.choice over the mask + step)", play,
            {"native loop": ns_per_move(native_loop),
             "native loop with observation + mask": ns_per_move(native_loop_observed)})


@pytest.fixture(scope="module")
def flat_mc(tmp_path_factory):
    pytest.importorskip("Cython")
    build = tmp_path_factory.mktemp("flat_mc")
    for name in ("flat_mc.pyx", "setup.py"):
        shutil.copy(ROOT / "examples" / "flat_mc" / name, build)
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=build,
                   check=True, capture_output=True)
    (library,) = build.glob("flat_mc.*.so")
    spec = importlib.util.spec_from_file_location("flat_mc", library)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.benchmark(group="adapters")
def test_flat_mc_searcher(benchmark, timed, report, flat_mc):
    rng = random.Random(1)
    positions = []
    while len(positions) < 20:
        game = photocore.Game(players=2)
        for _ in range(rng.randrange(10, 100)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over and len(game.legal_moves()) > 1:
            positions.append(game)
    playouts = 32
    simulations = playouts * sum(len(g.legal_moves()) for g in positions)

    def search():
        return [flat_mc.choose(game, playouts, seed=k) for k, game in enumerate(positions)]

    seconds, first, chosen = timed(search, rounds=3, warmup=True)
    assert chosen == first and all(g.is_legal(m) for g, m in zip(positions, chosen))
    rate = simulations / seconds
    benchmark.extra_info.update(simulations_per_s=rate)
    report(f"examples/flat_mc choose(), {playouts} playouts per legal move at {len(positions)} "
           f"random 2-player mid-game positions, 1 thread: {rate:,.0f} simulations/s "
           f"({simulations} playouts to the end of the game)")
