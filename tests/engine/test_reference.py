"""The kernels against the plain-Python reference (python/photoref.py), move by move."""

import random

import pytest
from observe import observe
from photoref import ReferenceGame, win_share

import photocore
from photocore.facts import OPTIONS, PLAYERS

CONFIGS = [(players, options) for players in PLAYERS for options in OPTIONS]
GAMES_PER_CONFIG = 60      # 720 games, every player count and option: a minute


@pytest.fixture(autouse=True)
def invariants_checked():
    """Every move of these games also checks the kernel's state invariants."""
    previous = photocore.check_invariants(True)
    yield
    photocore.check_invariants(previous)


def choose(rng, moves):
    # half the decisions avoid `end` when they can, so games reach full columns, empty
    # stacks and crowded boards that a uniform policy rarely sees
    if len(moves) > 1 and rng.random() < 0.5:
        return rng.choice(moves[:-1] if moves[-1] == "end" else moves)
    return rng.choice(moves)


@pytest.mark.parametrize("players,options", CONFIGS, ids=str)
@pytest.mark.slow
def test_random_games_match_reference(players, options):
    for seed in range(GAMES_PER_CONFIG):
        rng = random.Random(seed)
        # the reference takes a flag per rule
        game = photocore.Game(players, options=options)
        ref = ReferenceGame(players, **options._asdict())
        while True:
            texts = [str(m) for m in game.legal_moves()]
            assert texts == ref.legal_moves(), f"seed {seed}, after {ref.history}"
            assert observe(game) == observe(ref), f"seed {seed}, after {ref.history}"
            if not texts:
                break
            move = choose(rng, texts)
            game.play(move)
            ref.play(move)
        assert game.is_over and len(game.history) == len(ref.history)
        assert game.returns() == pytest.approx(win_share(players, ref.winners()))


def test_invariant_checks_are_on_in_these_games():
    # the autouse fixture turned them on for every game of this module: check_invariants
    # returns the setting it replaces
    assert photocore.check_invariants(True) is True
    assert photocore.check_invariants(False) is True
    assert photocore.check_invariants(True) is False


@pytest.mark.slow
def test_the_environment_switch_turns_invariant_checks_on():
    import os
    import subprocess
    import sys

    code = "import photocore; print(photocore.check_invariants(True))"
    for value, expected in (("1", "True"), ("0", "False")):
        env = {**os.environ, "PHOTOCORE_CHECK_INVARIANTS": value}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True).stdout.strip()
        assert out == expected


@pytest.mark.parametrize("players,options", CONFIGS, ids=str)
def test_random_games_through_game_keep_every_invariant(players, options):
    # uniformly random games played move by move through Game.play, each move followed by
    # the kernel's invariant checks (InvariantError would say which broke, and where)
    assert photocore.check_invariants(True) is True
    histories = set()
    for seed in range(500):
        rng = random.Random(seed)
        game = photocore.Game(players, options=options)
        while not game.is_over:
            game.play(rng.choice(game.legal_moves()))
        assert game.round == game.last_round and game.winners()
        histories.add(tuple(int(m) for m in game.history))
    assert len(histories) == 500           # 500 different games, not one over and over
