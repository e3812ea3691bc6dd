"""The kernels against the plain-Python reference (python/photoref.py), move by move."""

import itertools
import random

import pytest

import photocore
from photoref import ReferenceGame, win_share

CONFIGS = [
    (players, fourth, shade)
    for players in (2, 3, 4)
    for fourth, shade in itertools.product((False, True), repeat=2)
]
GAMES_PER_CONFIG = 100


@pytest.fixture(autouse=True)
def invariants_checked():
    """Every move of these games also checks the kernel's state invariants."""
    previous = photocore.check_invariants(True)
    yield
    photocore.check_invariants(previous)


def observe(game):
    """Everything both engines expose, as plain values."""
    players = range(game.players)
    return {
        "phase": game.phase,
        "round": game.round,
        "sun": game.sun,
        "first": game.first_player,
        "current": game.current_player,
        "light": tuple(game.light),
        "available": [tuple(game.available(p)) for p in players],
        "player_board": [tuple(game.player_board(p)) for p in players],
        "tokens": [tuple(game.tokens(p)) for p in players],
        "stacks": tuple(game.stacks),
        "board": dict(game.board()),
        "activated": tuple(game.activated()),
        "shaded": tuple(game.shaded()),
        "scores": tuple(game.scores()),
        "winners": tuple(game.winners()),
    }


def choose(rng, moves):
    # half the decisions avoid `end` when they can, so games reach full columns, empty
    # stacks and crowded boards that a uniform policy rarely sees
    if len(moves) > 1 and rng.random() < 0.5:
        return rng.choice(moves[:-1] if moves[-1] == "end" else moves)
    return rng.choice(moves)


@pytest.mark.parametrize("players,fourth,shade", CONFIGS)
def test_random_games_match_reference(players, fourth, shade):
    options = dict(players=players, fourth_revolution=fourth, shade_blocks=shade)
    for seed in range(GAMES_PER_CONFIG):
        rng = random.Random(seed)
        game, ref = photocore.Game(**options), ReferenceGame(**options)
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
