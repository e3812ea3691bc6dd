"""The environments' rules written once (photocore.env.contract) and a built-in agent's
parameters as one value (AgentParams): every adapter keeps the same ones."""

import dataclasses

import numpy as np
import pytest

import photocore
from photocore.env._vec import VecGame
from photocore.env.contract import (
    FORFEIT_REWARD,
    LeadShaping,
    agent_names,
    check_seat,
    returns,
)
from photocore.play import AgentParams, play_games, specs
from photocore.play._agents import Agent


def test_the_seat_is_checked_once_for_every_environment():
    assert check_seat("random", 3) == "random" and check_seat(np.int64(2), 3) == 2
    for bad in (3, -1, True, np.bool_(False)):
        with pytest.raises(ValueError, match="seat must be a player from 0 to 2"):
            check_seat(bad, 3)
        with pytest.raises(ValueError, match="seat must be a player from 0 to 2"):
            VecGame(2, players=3, opponents="random", seat=bad)
    assert agent_names(2) == ["player_0", "player_1"]


def test_the_forfeit_and_the_returns_are_the_contracts():
    env = VecGame(2, players=3)
    env.reset(seed=0)
    illegal = np.array([889, env.random_actions()[1]])
    _, _, rewards, done = env.step(illegal, forfeit=True, relative=True)
    assert done.tolist() == [True, False]
    assert rewards[0].tolist() == [FORFEIT_REWARD, 0.0, 0.0] and rewards[1].tolist() == [0] * 3
    game = photocore.Game(players=3)
    assert returns(game) == [0.0, 0.0, 0.0]
    agent = Agent("random", seed=1)
    while not game.is_over:
        game.play(agent.select(game))
    assert returns(game) == list(game.returns()) and sum(returns(game)) == pytest.approx(0)


def test_the_shaping_sums_to_nothing_over_a_game():
    shaping = LeadShaping(0.5, n=1)
    total = 0.0
    for scores, done in [([3, 0], False), ([3, 5], False), ([9, 5], True)]:
        total += float(shaping.bonus([scores], [0], [done])[0])
    assert total == 0.0


def test_agent_params_are_one_value_with_one_conversion():
    params = specs.parse("mcts:30?prove=1").params
    assert params == AgentParams("mcts", 30, prove=True)
    agent = Agent(**dataclasses.asdict(params))
    assert agent.params == params and agent.name == "mcts:30?prove=1"
    assert Agent("random", simulations=0).params == AgentParams("random")
    by_value = play_games([params, AgentParams("greedy")], 2, None, 3, 0, 2)
    by_tuple = play_games([("mcts", 30, False, True), ("greedy", 0)], 2, None, 3, 0, 2)
    assert all((a == b).all() for a, b in zip(by_value, by_tuple))
    with pytest.raises(ValueError, match="simulations must be from 1"):
        play_games([AgentParams("mcts", 0), AgentParams()], 2, None, 0, 0, 1)
    with pytest.raises(ValueError, match="not a built-in agent"):
        specs.parse("cmd:./engine").params
