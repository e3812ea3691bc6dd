"""Every kind of player (built-in, Python, engine, search) is a photocore.play.Player: the
harness plays a game with each, and the same seeds replay the same game."""

import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

import photocore
import photocore.play._agents
from photocore.play import Player, harness, specs
from photocore.play.protocol import Engine
from photocore.play.search import SearchAgent

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


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
    for cls in (specs.PythonAgentPlayer, Engine, SearchAgent):
        assert Player in cls.__mro__         # declared, not only alike (mypy checks them)
    # the built-in agents' class is compiled: its stub declares it a Player for mypy
    stub = Path(photocore.play._agents.__file__).with_name("_agents.pyi").read_text()
    assert "class Agent(Player):" in stub


def test_a_built_in_spec_loads_the_agent_itself():
    for text in ("random", "greedy", "mcts:20"):
        player = specs.load(text)
        assert type(player) is photocore.Agent and isinstance(player, Player)
        assert player.name == specs.parse(text).label


def test_an_agent_resets_with_or_without_a_seed():
    def moves(agent, count=12):
        game, played = photocore.Game(), []
        for _ in range(count):
            played.append(agent.select(game))
            game.play(played[-1])
        return played

    agent = photocore.Agent("random", seed=3)
    first = moves(agent)
    agent.reset(seed=5)                       # starts again from a seed ...
    assert moves(agent) == moves(photocore.Agent("random", seed=5))
    agent.reset()                             # ... or from the one it was made with
    assert moves(agent) == first
    agent.close()


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
