"""Position keys (docs/engine.md, "Position keys"): Game.key and VecGame.key, a 64-bit
Zobrist-style key of the whole position, kept move by move by the kernel.

Equal positions have equal keys whatever the moves that reached them; different positions
have different keys (checked on over ten million positions of random games); key equality
agrees with ==, which compares positions, the order in which a player took their tokens
aside (it is history, not position)."""

import itertools
import pickle
import random

import numpy as np
import pytest

import photocore
from photocore import Game
from photocore.env._vec import VecGame
from photocore.facts import OPTIONS, PLAYERS
from support import TURN, TURN_MOVES, compiled, legal_orders, random_game

# where every order of TURN_MOVES goes: the two tokens listed in the order taken
AFTER_TURN = ("2 - 5 4 0 0 a4,c4,c5,d4,f2 c4:0:2,c5:0:0,f2:0:2,g4:1:1 6/1100/4422/{} "
              "0/2310/4432/- 0478")


def test_a_key_is_a_64_bit_int_fixed_by_the_position():
    keys = {Game(players, options=options).key for players in PLAYERS for options in OPTIONS}
    assert len(keys) == len(PLAYERS) * len(OPTIONS)       # players and options are hashed
    assert all(isinstance(k, int) and 0 <= k < 1 << 64 for k in keys)
    # the key words are drawn from a fixed seed: the same keys on every machine and build
    assert Game(2).key == 0xBA222905C927C49C
    assert Game(4, options="fs").key == 0xDB8D62F0E021568E
    assert Game.from_position(TURN).key == 0x9ECD89AE44FCBAB0


def test_every_order_of_a_turn_reaches_one_key():
    start = Game.from_position(TURN)
    ends = legal_orders(start, TURN_MOVES)
    # "grow f2" needs the medium tree "buy medium" brings: half the 120 orders
    assert len(ends) == 60
    assert {game.key for _, game in ends} == {ends[0][1].key}
    assert all(game == ends[0][1] for _, game in ends)
    # the tokens' order is history: the texts list them as taken, the positions are equal
    assert {game.position() for _, game in ends} == {AFTER_TURN.format("14.19"),
                                                     AFTER_TURN.format("19.14")}
    for order, game in ends:
        assert game.key == Game.from_position(game.position()).key     # from scratch
        assert game.key != start.key
        for _ in order:                               # and back, move by move
            game.undo()
        assert game.key == start.key and game == start


def test_the_order_tokens_were_taken_in_is_not_part_of_the_position():
    one = Game.from_position(AFTER_TURN.format("14.19"))
    other = Game.from_position(AFTER_TURN.format("19.14"))
    assert one.position() != other.position()
    assert one == other and one.key == other.key
    # but who holds a token is
    swapped = AFTER_TURN.replace("6/1100/4422/{} 0/2310/4432/-", "6/1100/4422/19 0/2310/4432/14")
    assert Game.from_position(swapped) != one and Game.from_position(swapped).key != one.key


def test_undo_gives_back_the_key():
    rng = random.Random(1)
    for players in PLAYERS:
        for options in OPTIONS:
            game = Game(players, options=options)
            keys = [game.key]
            while not game.is_over:
                game.play(rng.choice(game.legal_moves()))
                keys.append(game.key)
            assert len(set(keys)) == len(keys)        # no position repeats in a game
            while game.history:
                keys.pop()
                game.undo()
                assert game.key == keys[-1]


def test_copies_pickles_and_position_texts_keep_the_key():
    rng = random.Random(2)
    for _ in range(60):
        game = random_game(rng, moves=rng.randrange(0, 300))
        for other in (game.copy(), game.copy(history=False), pickle.loads(pickle.dumps(game)),
                      Game.from_position(game.position()), Game.from_position(str(game))):
            assert other.key == game.key and other == game
        assert game.root().key == Game(game.players, options=game.options).key


def test_key_equality_agrees_with_equality():
    rng = random.Random(3)
    games = []
    for _ in range(40):
        game = random_game(rng)
        for _ in range(rng.randrange(1, 12)):     # positions from all along the game
            games.append(game.copy(history=False))
            for _ in range(rng.randrange(1, 40)):
                if game.history:
                    game.undo()
    # positions reached again: the same setups, the turn's orders, texts read back
    setups = [random_game(random.Random(k), players=2, options="-", moves=2) for k in range(30)]
    turns = []
    for order in itertools.permutations(TURN_MOVES[:3]):
        game = Game.from_position(TURN)
        for move in order:
            game.play(move)
        turns.append(game)
    games += setups + turns + [Game.from_position(g.position()) for g in games[::7]]
    equal = 0
    for a, b in itertools.combinations(games, 2):
        assert (a.key == b.key) == (a == b), (a.position(), b.position())
        equal += a == b
    assert equal > 100


def test_every_kept_key_is_the_key_from_scratch():
    # the invariant check after every move includes the key (Broken B_KEY)
    rng = random.Random(4)
    previous = photocore.check_invariants(True)
    try:
        for players in PLAYERS:
            for options in OPTIONS:
                for _ in range(3):
                    game = random_game(rng, players, options)
                    assert game.key == Game.from_position(game.position()).key
    finally:
        photocore.check_invariants(previous)


def test_vecgame_gives_its_games_keys():
    env = VecGame(8, players=3, options="fs")
    env.reset(seed=5)
    keys = env.key
    assert keys.dtype == np.uint64 and keys.shape == (8,)
    assert set(keys.tolist()) == {Game(3, options="fs").key}
    for _ in range(150):
        env.step(env.random_actions())
        keys = env.key
        assert keys.tolist() == [env.game(i).key for i in range(8)]
        assert keys.tolist() == [Game.from_position(env.game(i).position()).key
                                 for i in range(8)]


@pytest.fixture(scope="module")
def key_census(tmp_path_factory):
    """The census of tests/key_census.pyx, compiled for these tests."""
    pytest.importorskip("Cython")
    return compiled("key_census", tmp_path_factory.mktemp("key_census")).key_census


@pytest.mark.slow
def test_the_census_counts_positions_and_finds_no_collision(key_census):
    r = key_census([(players, options.flags, 30, 7) for players in PLAYERS
                    for options in OPTIONS])
    assert r["collisions"] == 0 and r["examples"] == [] and r["mismatches"] == 0
    assert r["positions"] > r["distinct"] > 0
    # the setups repeat across games: found again by key, confirmed the same position
    assert r["repeated"] > 0
    assert key_census([])["positions"] == 0
    with pytest.raises(ValueError):
        key_census([(2, 4, 1, 0)])
    with pytest.raises(ValueError):
        key_census([(5, 0, 1, 0)])


@pytest.mark.slow
def test_no_two_of_ten_million_positions_share_a_key(key_census):
    # random games of 2, 3 and 4 players with every combination of options: every position
    # of every game, the repeated keys confirmed as the same position by the whole state
    runs = [(players, options.flags, 4200, 2024) for players in PLAYERS for options in OPTIONS]
    r = key_census(runs)
    assert r["distinct"] >= 10_000_000, r
    assert r["collisions"] == 0, r["examples"]
    assert r["mismatches"] == 0                # every kept key is the key from scratch
    print(f"key census: {r['positions']:,} positions, {r['distinct']:,} distinct, "
          f"{r['repeated']:,} keys met again, no collision, {r['seconds']:.1f} s")

