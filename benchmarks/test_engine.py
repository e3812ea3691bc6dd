"""Engine speed: random playouts, the Python move loop, copy/play/undo/legal_moves.

    pytest benchmarks/ --benchmark-enable

Each figure is printed with its workload, and playouts as a ratio to the reference
implementation (python/photoref.py) timed in the same process.
"""

import random
import time

import pytest

import photocore
import photoref

PLAYOUT_GAMES = 20_000
REFERENCE_GAMES = 10


def reference_random_games(players, games, seed=0):
    """Moves per second of the reference playing uniformly random legal moves."""
    rng = random.Random(seed)
    moves = 0
    start = time.perf_counter()
    for _ in range(games):
        game = photoref.ReferenceGame(players=players)
        while True:
            legal = game.legal_moves()
            if not legal:
                break
            game.play(rng.choice(legal))
            moves += 1
    return moves / (time.perf_counter() - start)


def mid_game_positions(count=200, seed=1):
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        game = photocore.Game(players=rng.choice((2, 3, 4)))
        for _ in range(rng.randrange(10, 120)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over:
            positions.append(game)
    return positions


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_playouts(benchmark, report, players):
    result = benchmark.pedantic(photocore.random_playouts, args=(PLAYOUT_GAMES,),
                                kwargs={"players": players, "seed": 1}, rounds=3, iterations=1)
    seconds = benchmark.stats.stats.min
    moves_per_s = result["moves"] / seconds
    reference = reference_random_games(players, REFERENCE_GAMES)
    benchmark.extra_info.update(moves_per_s=moves_per_s, reference_moves_per_s=reference)
    report(f"random_playouts, {players} players, no options, uniform policy, {PLAYOUT_GAMES} "
           f"games, 1 thread: {PLAYOUT_GAMES / seconds:,.0f} games/s, {moves_per_s / 1e6:.1f} M "
           f"moves/s = {moves_per_s / reference:,.0f} x the reference ({reference:,.0f} moves/s)")


def test_python_move_loop(benchmark, report):
    rng = random.Random(2)

    def loop(moves=100_000):
        game = photocore.Game(players=2)
        for _ in range(moves):
            if game.is_over:
                game = photocore.Game(players=2)
            game.play(rng.choice(game.legal_moves()))

    benchmark.pedantic(loop, rounds=3, iterations=1)
    report(f"Python loop legal_moves() + random.choice + play(), 2 players: "
           f"{100_000 / benchmark.stats.stats.min / 1e6:.2f} M moves/s")


def per_call_ns(benchmark, report, label, call, positions):
    def run():
        for game in positions:
            call(game)

    benchmark.pedantic(run, rounds=20, iterations=1, warmup_rounds=2)
    ns = benchmark.stats.stats.min / len(positions) * 1e9
    report(f"{label} at {len(positions)} random mid-game positions: {ns:,.0f} ns per call")


def test_copy(benchmark, report):
    per_call_ns(benchmark, report, "copy(history=False)", lambda g: g.copy(history=False),
                mid_game_positions())


def test_copy_with_history(benchmark, report):
    per_call_ns(benchmark, report, "copy() (history included)", lambda g: g.copy(),
                mid_game_positions())


def test_legal_moves(benchmark, report):
    per_call_ns(benchmark, report, "legal_moves()", lambda g: g.legal_moves(),
                mid_game_positions())


def test_play_undo(benchmark, report):
    positions = mid_game_positions()
    firsts = [g.legal_moves()[0] for g in positions]
    pairs = list(zip(positions, firsts))

    def run():
        for game, move in pairs:
            game.play(move)
            game.undo()

    benchmark.pedantic(run, rounds=20, iterations=1, warmup_rounds=2)
    report(f"play() + undo() at {len(pairs)} random mid-game positions: "
           f"{benchmark.stats.stats.min / len(pairs) * 1e9:,.0f} ns per pair")
