"""Several Python threads, sharing nothing, give what one thread gives (docs/hardening.md).

The kernels release the GIL (random_playouts, Game.playouts, photocore.playouts,
Agent.select, perft, VecGame.step), so these threads really run photocore side by side;
each owns its Games, its Agents (an Agent holds its random state), its VecGame and its
random.Random.
"""

import random
import threading

import numpy as np
import pytest

import photocore
from photocore.facts import OPTIONS, PLAYERS

CONFIGS = [(players, options) for players in PLAYERS for options in OPTIONS]


def game_of_random_moves(k):
    """A whole game of uniformly random legal moves from a seeded random.Random."""
    rng = random.Random(k)
    players, options = CONFIGS[k % len(CONFIGS)]
    game = photocore.Game(players, options=options)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    return ("moves", [int(m) for m in game.history], game.scores(), game.position())


def playouts(k):
    players, options = CONFIGS[k % len(CONFIGS)]
    return ("playouts", photocore.random_playouts(2000, players=players, seed=k, options=options))


def agents_match(k):
    """Agents of this thread alone play a game: greedy against a small MCTS."""
    seats = [photocore.Agent("greedy", seed=k), photocore.Agent("mcts", seed=k, simulations=8)]
    game = photocore.Game(2)
    while not game.is_over:
        game.play(seats[game.current_player].select(game))
    return ("agents", [int(m) for m in game.history], game.winners())


def vector_steps(k):
    env = photocore.VecGame(4, players=2 + k % 3)
    obs, mask = env.reset(seed=k)
    total = np.zeros_like(obs, dtype=np.float64)
    for _ in range(300):
        obs, mask, rewards, done = env.step(env.random_actions())
        total += obs
    return ("vec", float(total.sum()), env.episodes, [env.game(i).position() for i in range(4)])


def perfts(k):
    game = photocore.Game(2 + k % 3)
    return ("perft", game.perft(3))


def position_playouts(k):
    """Playouts from a position of this thread's own game, and from it and a copy on
    threads of their own."""
    game = photocore.Game(2 + k % 3)
    for ply in range(30):
        moves = game.legal_moves()
        game.play(moves[(k + ply) % len(moves)])
    return ("position playouts", game.playouts(300, seed=k).tolist(),
            photocore.playouts([game, game.copy()], 20, seed=k, threads=2).tolist())


WORK = [game_of_random_moves, playouts, agents_match, vector_steps, perfts, position_playouts]


def jobs():
    return [(fn, k) for k in range(16) for fn in WORK]


@pytest.mark.slow
def test_threads_sharing_nothing_give_the_single_thread_results():
    todo = jobs()
    alone = [fn(k) for fn, k in todo]

    threads = 4
    results = [None] * len(todo)
    start = threading.Barrier(threads)
    errors = []

    def worker(t):
        try:
            start.wait()
            for i in range(t, len(todo), threads):      # each thread its own share
                fn, k = todo[i]
                results[i] = fn(k)
        except BaseException as e:  # noqa: BLE001 (the main thread reports it)
            errors.append(e)

    pool = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join(timeout=300)
    assert not errors, errors
    assert not any(thread.is_alive() for thread in pool)
    assert results == alone


def test_many_threads_reading_one_unchanging_game_agree():
    # reading is safe to share: perft and legal moves of one Game from several threads
    # at once (perft runs without the GIL), while nobody plays on it
    game = photocore.Game(3)
    for text in ("place a4", "place g1", "place d1"):
        game.play(text)
    expected = (game.perft(3), game.legal_moves().ids())
    moves = game.legal_moves()          # LegalMoves and Moves are immutable: shared too
    seen = []

    def read():
        for _ in range(5):
            seen.append((game.perft(3), game.legal_moves().ids()))
            assert [int(m) for m in moves] == expected[1]

    pool = [threading.Thread(target=read) for _ in range(4)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join(timeout=300)
    assert seen == [expected] * 20
