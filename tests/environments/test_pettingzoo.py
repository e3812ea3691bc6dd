"""The PettingZoo adapter: PettingZoo's own api_test and seed_test, and whole games."""


import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402
from photoref import win_share  # noqa: E402

import photocore  # noqa: E402
import photocore.env.pettingzoo  # noqa: E402
from photocore.env.pettingzoo import env, raw_env  # noqa: E402

CONFIGS = [
    {"players": 2},
    {"players": 3},
    {"players": 4},
    {"players": 2, "options": "fs"},
    {"players": 4, "options": photocore.Options.parse("s")},
]

# api_test warns about every dict observation of an environment it does not know by name
KNOWN_WARNINGS = [
    "error",
    "ignore:Observation is not a NumPy array:UserWarning",
    "ignore:Observation space for each agent probably should be:UserWarning",
]


@pytest.mark.filterwarnings(*KNOWN_WARNINGS)
@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_api_test(config):
    api_test(env(**config), num_cycles=1000)


@pytest.mark.filterwarnings(*KNOWN_WARNINGS)
def test_api_test_raw_env():
    api_test(raw_env(players=3), num_cycles=1000)


@pytest.mark.parametrize("config", CONFIGS[:3], ids=str)
def test_seed_test(config):
    seed_test(lambda: env(**config), num_cycles=200)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_game(players):
    rng = np.random.default_rng(players)
    e = env(players=players, options="s")
    e.reset(seed=1)
    mirror = photocore.Game(players=players, options="s")
    repeats = 0
    previous = None
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        assert not truncated and info == {}
        if terminated:
            assert mirror.is_over
            assert reward == win_share(players, mirror.winners())[int(agent[-1])]
            e.step(None)
            continue
        assert agent == f"player_{mirror.current_player}" and reward == 0
        np.testing.assert_array_equal(obs["action_mask"], mirror.legal_moves().mask())
        np.testing.assert_array_equal(obs["observation"], mirror.observation())
        action = rng.choice(np.flatnonzero(obs["action_mask"]))
        repeats += agent == previous
        previous = agent
        e.step(action)
        mirror.play(int(action))
    assert e.agents == [] and mirror.is_over
    assert repeats > 0  # turns of several moves keep the same agent selected


def test_other_agents_see_no_legal_moves():
    e = env(players=3)
    e.reset()
    for agent in ("player_1", "player_2"):
        assert e.observe(agent)["action_mask"].sum() == 0
        assert e.observation_space(agent).contains(e.observe(agent))


def test_illegal_move_ends_the_game_for_the_wrapped_env(caplog):
    e = env(players=2)
    e.reset()
    e.step(photocore.Move.parse("end").id)  # no `end` during setup
    assert "Illegal move" in caplog.text
    assert all(e.terminations.values())
    assert e.rewards == {"player_0": -1, "player_1": 0}


def test_raw_env_refuses_illegal_moves():
    e = raw_env(players=2)
    e.reset()
    with pytest.raises(photocore.IllegalMoveError):
        e.step(photocore.Move.parse("end").id)


def test_options_and_bounds():
    e = raw_env(players=4, options="fs")
    e.reset()
    assert e.options == photocore.Options.parse("fs") and e.game.options == e.options
    assert e.game.last_round == 24
    box = e.observation_space("player_0")["observation"]
    assert np.array_equal(box.high, np.array(photocore.facts.OBSERVATION_HIGH, np.float32))
    with pytest.raises(ValueError, match="players must be"):
        raw_env(players=5)
    with pytest.raises(TypeError, match="shade_blocks"):
        env(players=3, shade_blocks=True)           # the rules are options= alone
    with pytest.raises(TypeError, match="fourth_revolution"):
        raw_env(fourth_revolution=True)


def test_render():
    e = raw_env(players=2, render_mode="ansi")
    e.reset()
    assert e.render().startswith(photocore.Game(players=2).position())
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")
