"""Playouts from any position (docs/engine.md, "Playouts"): Game.playout, Game.playouts and
photocore.playouts play the kernel's random games from a game's position, leave the game as
it was, repeat for a seed whatever the threads, and end with the returns of every seat."""

import multiprocessing
import random

import numpy as np
import pytest

import photocore
from photocore import Game
from photocore._kernel import stream_seed
from photocore.env._vec import draw_below


def mid_game(players=2, options="-", plies=60, seed=0):
    """A game `plies` random moves in, stopped in the middle of a turn (a cell activated)
    where one is near."""
    rng = random.Random(seed)
    game = Game(players, options=options)
    while len(game.history) < plies or (not game.activated() and len(game.history) < plies + 30):
        game.play(rng.choice(game.legal_moves()))
    assert not game.is_over
    return game


def python_playout(game, stream):
    """The game played out in Python as the kernel plays it: from stream state `stream`,
    the k-th legal move of each position, k drawn below their number as the C code draws."""
    game = game.copy()
    while not game.is_over:
        legal = game.legal_moves()
        k, stream = draw_below(stream, len(legal))
        game.play(legal[k])
    return game


def state(game):
    return game.position(), game.key, game.history, game.root().position()


def finished():
    game = Game(players=2)
    rng = random.Random(1)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    return game


# ---- what a playout gives ----------------------------------------------------------------

@pytest.mark.parametrize("players, options", [(2, "-"), (3, "s"), (4, "fs")])
def test_every_seat_gets_the_return_of_the_game_played_out(players, options):
    game = mid_game(players, options, seed=players)
    for seed in range(4):
        end = python_playout(game, stream_seed(seed, 0))
        assert game.playout(seed=seed) == end.returns()
        rows = game.playouts(3, seed=seed)
        for j in range(3):
            end = python_playout(game, stream_seed(seed, j))
            assert rows[j].tolist() == list(np.float32(end.returns()))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playouts_from_the_start_are_the_games_of_random_playouts(players):
    rows = Game(players).playouts(300, seed=5)
    totals = photocore.random_playouts(300, players, seed=5)
    # the winners (co-winners too) are the seats of the best return, sharing a tie's win
    best = rows == rows.max(axis=1, keepdims=True)
    assert tuple(np.sum(best, axis=0).tolist()) == totals["wins"]
    shares = np.sum(best / best.sum(axis=1, keepdims=True), axis=0)
    assert np.allclose(shares, totals["win_shares"])
    assert rows.dtype == np.float32 and np.allclose(rows.sum(axis=1), 0, atol=1e-6)


def test_the_moves_are_uniformly_random():
    # win shares against a Python loop of random.choice from the same position
    game = mid_game(3, "-", plies=50, seed=11)
    n = 1500
    ours = game.playouts(n, seed=3)
    rng = random.Random(3)
    theirs = []
    for _ in range(n):
        g = game.copy(history=False)
        while not g.is_over:
            g.play(rng.choice(g.legal_moves()))
        theirs.append(g.returns())
    theirs = np.array(theirs)
    for seat in range(3):
        p = np.mean(ours[:, seat] > 0)
        q = np.mean(theirs[:, seat] > 0)
        error = np.sqrt((p * (1 - p) + q * (1 - q)) / n)
        assert abs(p - q) <= 4 * error, (seat, p, q)


def test_a_playout_leaves_the_game_as_it_was():
    game = mid_game(3, "s", seed=2)
    assert game.activated()
    before = state(game)
    game.playout(seed=1)
    game.playout()
    game.playouts(20, seed=1)
    game.playouts(5)
    photocore.playouts([game, game], n=3, seed=1, threads=2)
    assert state(game) == before
    game.play(game.legal_moves()[0])      # still playable from where it was
    game.undo()
    assert state(game) == before


# ---- seeds and threads -------------------------------------------------------------------

def test_a_seed_repeats_its_games_and_none_draws_new_ones():
    game = mid_game(2, "-", plies=30, seed=4)
    assert game.playout(seed=9) == game.playout(seed=9)
    assert np.array_equal(game.playouts(50, seed=9), game.playouts(50, seed=9))
    assert game.playout(seed=9) == tuple(game.playouts(1, seed=9)[0].tolist())
    assert np.array_equal(game.playouts(50, seed=-1), game.playouts(50, seed=2**64 - 1))
    assert not np.array_equal(game.playouts(50, seed=9), game.playouts(50, seed=10))
    assert not np.array_equal(game.playouts(50), game.playouts(50))


def _unseeded(queue):
    queue.put(Game().playouts(60).tolist())


def test_forked_processes_draw_other_games():
    # seed=None's stream is seeded again in a forked child: two workers forked from one
    # process would otherwise play the same games
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    workers = [context.Process(target=_unseeded, args=(queue,)) for _ in range(2)]
    for worker in workers:
        worker.start()
    first, second = queue.get(timeout=60), queue.get(timeout=60)
    for worker in workers:
        worker.join(timeout=60)
    assert first != second


def test_many_positions_give_the_same_returns_on_any_threads():
    # 350 playouts: threads take 64 at a time, across the positions' bounds (up to 6 threads)
    games = [mid_game(2, "f", plies=20 + 7 * i, seed=i) for i in range(7)]
    one = photocore.playouts(games, n=50, seed=8, threads=1)
    assert one.shape == (7, 50, 2) and one.dtype == np.float32
    for threads in (2, 3, 5, 64, None):
        assert np.array_equal(photocore.playouts(games, n=50, seed=8, threads=threads), one)
    for i, game in enumerate(games):
        assert np.array_equal(one[i], game.playouts(50, seed=stream_seed(8, i)))
    assert np.array_equal(photocore.playouts(games, n=3, seed=8, threads=2), one[:, :3])
    assert photocore.playouts(iter(games), n=0, seed=8).shape == (7, 0, 2)
    assert not np.array_equal(photocore.playouts(games, n=50, seed=9), one)


# ---- errors: one line, nothing changed ----------------------------------------------------

def one_line(error):
    assert "\n" not in str(error.value)


def test_a_finished_game_has_nothing_to_play_out():
    game = finished()
    before = state(game)
    for call in (game.playout, lambda: game.playouts(3), lambda: game.playouts(3, seed=1)):
        with pytest.raises(ValueError, match="the game is over") as error:
            call()
        one_line(error)
    with pytest.raises(ValueError, match=r"games\[1\]: the game is over") as error:
        photocore.playouts([Game(), game])
    one_line(error)
    assert state(game) == before


@pytest.mark.parametrize("call, kind, words", [
    (lambda g: g.playouts(-1), ValueError, "n must be"),
    (lambda g: g.playouts(1.5), TypeError, "n must be an int"),
    (lambda g: g.playouts("3"), TypeError, "n must be an int"),
    (lambda g: g.playout(seed=1.5), TypeError, "seed must be an int"),
    (lambda g: g.playouts(2, seed="7"), TypeError, "seed must be an int"),
    (lambda g: photocore.playouts([g], n=-2), ValueError, "n must be"),
    (lambda g: photocore.playouts([g], seed=0.5), TypeError, "seed must be an int"),
    (lambda g: photocore.playouts([g], threads=0), ValueError, "threads must be from 1 to 256"),
    (lambda g: photocore.playouts([g], threads=257), ValueError, "threads must be from 1"),
    (lambda g: photocore.playouts([g], threads=True), ValueError, "threads must be from 1"),
    (lambda g: photocore.playouts([g], threads=2.0), TypeError, "threads must be an int"),
    (lambda g: photocore.playouts([]), ValueError, "games is empty"),
    (lambda g: photocore.playouts(g), TypeError, "one Game"),
    (lambda g: photocore.playouts(3), TypeError, "sequence of Game, got int"),
    (lambda g: photocore.playouts([g, "place a4"]), TypeError, r"games\[1\] must be a Game"),
    (lambda g: photocore.playouts([g, Game(3)]), ValueError, r"games\[1\] has 3 players"),
])
def test_bad_arguments_are_refused(call, kind, words):
    game = mid_game(2, "-", plies=25, seed=6)
    before = state(game)
    with pytest.raises(kind, match=words) as error:
        call(game)
    one_line(error)
    assert state(game) == before
