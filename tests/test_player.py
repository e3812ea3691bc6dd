"""Every kind of player (built-in, Python, engine, search) is a photocore.play.Player: the
harness plays a game with each, and the same seeds replay the same game."""

import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

import photocore
from photocore.play import Player, harness, specs
from photocore.play.protocol import Engine
from photocore.play.search import SearchAgent

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def uniform(obs, mask):
    return np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32)


KINDS = {
    "built-in": lambda: specs.load("mcts:20"),
    "python": lambda: specs.load(f"py:{EXAMPLES / 'agents' / 'noisy_greedy.py'}:NoisyGreedy"
                                 "?epsilon=0.3"),
    "engine": lambda: specs.load("cmd:" + repr(shlex.join(
        [sys.executable, str(EXAMPLES / "engines" / "simple_engine.py")]))),
    "search": lambda: SearchAgent(uniform, simulations=8, seed=1),
}


def test_the_kinds_of_player_are_declared_players():
    for cls in (specs.BuiltinPlayer, specs.PythonPlayer, Engine, SearchAgent):
        assert Player in cls.__mro__         # declared, not only alike (mypy checks them)


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_is_a_player_and_plays_through_the_harness(kind):
    player = KINDS[kind]()
    other = specs.load("greedy")
    assert isinstance(player, Player) and isinstance(player.name, str)
    try:
        games = []
        for _ in range(2):
            game = photocore.Game()
            played = harness.play_game(game, [player, other], seeds=[5, 6])
            assert game.is_over and played.forfeit is None
            games.append(game.history)
        assert games[0] == games[1]          # reset(seed) starts the player over
    finally:
        player.close()


def test_a_search_agent_resets_with_or_without_a_seed():
    agent = SearchAgent(uniform, simulations=8, seed=1)
    game = photocore.Game()
    for move in ("place a4", "place g1"):
        game.play(move)
    first = agent.select(game)
    agent.reset()                             # the move stream goes on
    agent.reset(seed=1)                       # ... or starts again from a seed
    assert agent.select(game) == first
    agent.close()
