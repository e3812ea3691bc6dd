"""The C agents: legal, seeded, and as strong as their names promise."""

import random

import numpy as np
import pytest

import photocore
from photocore import Agent
from photocore.facts import PLAYERS
from photocore.play._agents import BUILTIN_AGENTS, DEFAULT_SIMULATIONS, play_games


def random_positions(count, seed=0):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        game = photocore.Game(players=rng.choice(PLAYERS),
                              options="s" if rng.random() < 0.5 else "-")
        for _ in range(rng.randrange(0, 150)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over:
            out.append(game)
    return out


@pytest.mark.parametrize("kind,budget", [(agent.name, 30 if agent.budget else 1)
                                         for agent in BUILTIN_AGENTS.values()])
def test_agents_choose_legal_moves_and_leave_the_game_alone(kind, budget):
    agent = Agent(kind, seed=3, simulations=budget)
    for game in random_positions(40):
        before = game.position()
        move = agent.select(game)
        assert move in game.legal_moves()
        assert game.position() == before


@pytest.mark.parametrize("kind", list(BUILTIN_AGENTS))
def test_same_seed_same_choices(kind):
    positions = random_positions(15, seed=5)
    first = [Agent(kind, seed=9, simulations=40).select(g) for g in positions]
    again = [Agent(kind, seed=9, simulations=40).select(g) for g in positions]
    assert first == again


def test_agent_refuses_finished_games_and_bad_specs():
    game = photocore.Game()
    while not game.is_over:
        game.play(game.legal_moves()[-1])
    with pytest.raises(ValueError, match="over"):
        Agent("greedy").select(game)
    with pytest.raises(ValueError, match="unknown agent"):
        Agent("alphazero")
    with pytest.raises(ValueError, match="simulations"):
        Agent("mcts", simulations=0)


def test_the_registry_names_each_c_agent_once():
    assert len({agent.kind for agent in BUILTIN_AGENTS.values()}) == len(BUILTIN_AGENTS)
    for name, agent in BUILTIN_AGENTS.items():
        assert agent.name == name == Agent(name).kind and agent.help
        assert Agent(name).name == (f"{name}:{DEFAULT_SIMULATIONS}" if agent.budget else name)
    assert BUILTIN_AGENTS["mcts"].budget and BUILTIN_AGENTS["mcts"].searches
    assert not BUILTIN_AGENTS["greedy"].searches


def win_share(first, second, games, players=2, seed=0):
    """The first agent's share of wins (ties shared) with seats rotated."""
    moves, offsets = play_games([first, second], players, None, seed, 0, games)
    won = 0.0
    for i in range(games):
        game = photocore.Game(players=players)
        for action in moves[offsets[i]:offsets[i + 1]].tolist():
            game.play(action)
        winners = game.winners()
        if i % players in winners:          # the first agent sits in seat i % players
            won += 1 / len(winners)
    return won / games


def test_greedy_beats_random():
    assert win_share(("greedy", 1), ("random", 1), 300) > 0.65


@pytest.mark.slow
def test_mcts_beats_greedy():
    assert win_share(("mcts", 100), ("greedy", 1), 40) > 0.7


def test_play_games_depends_only_on_seed_and_index():
    agents = [("greedy", 1), ("mcts", 20)]
    moves, offsets = play_games(agents, 2, "s", 11, 0, 6)
    head_moves, head_offsets = play_games(agents, 2, "s", 11, 0, 2)
    tail_moves, tail_offsets = play_games(agents, 2, "s", 11, 2, 4)
    assert np.array_equal(moves, np.concatenate([head_moves, tail_moves]))
    assert offsets[2] == head_offsets[-1]
    other, _ = play_games(agents, 2, "s", 12, 0, 6)
    assert not np.array_equal(moves, other)


def test_play_games_takes_the_options_as_an_options_or_its_text():
    # one Options value, as every options= takes it: "s" was "an integer is required"
    agents = [("greedy", 1), ("random", 1)]
    by_text = play_games(agents, 2, "s", 5, 0, 4)
    by_value = play_games(agents, 2, photocore.Options.parse("s"), 5, 0, 4)
    assert all(np.array_equal(a, b) for a, b in zip(by_text, by_value))
    assert not np.array_equal(by_text[0], play_games(agents, 2, None, 5, 0, 4)[0])
    with pytest.raises(TypeError, match="options must be an Options or its text"):
        play_games(agents, 2, photocore.Options.parse("s").flags, 5, 0, 4)   # the kernel's
    with pytest.raises(ValueError, match="options 'x'"):
        play_games(agents, 2, "x", 5, 0, 4)


def test_an_agent_without_a_budget_takes_0_or_none_for_it():
    # ("greedy", 0) was refused for a budget greedy does not take
    for budget in (0, None):
        assert Agent("greedy", simulations=budget).name == "greedy"
        assert Agent("random", 3, budget).select(photocore.Game()) == Agent("random", 3).select(
            photocore.Game())
    moves, _ = play_games([("greedy", 0), ("random", None)], 2, None, 3, 0, 2)
    again, _ = play_games([("greedy", 1), ("random", 1)], 2, None, 3, 0, 2)
    assert np.array_equal(moves, again)
    for budget in (0, None):                # a search's budget is still one
        with pytest.raises((ValueError, TypeError), match="simulations|integer"):
            Agent("mcts", simulations=budget)


def test_play_games_replays_as_legal_complete_games():
    options = photocore.Options.parse("fs")
    moves, offsets = play_games([("random", 1)] * 3, 3, options, 4, 0, 5)
    for i in range(5):
        game = photocore.Game(players=3, options=options)
        for action in moves[offsets[i]:offsets[i + 1]].tolist():
            game.play(action)
        assert game.is_over and game.round == 24
