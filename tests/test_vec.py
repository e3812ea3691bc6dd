"""VecGame against single Games, and its input checks."""

import numpy as np
import pytest

import photocore
from photocore import NUM_ACTIONS, OBSERVATION_SIZE, VecGame


@pytest.mark.parametrize("players,fourth,shade", [(2, False, False), (3, True, True), (4, False, True)])
def test_vecgame_follows_single_games(players, fourth, shade):
    env = VecGame(5, players=players, fourth_revolution=fourth, shade_blocks=shade)
    obs, mask = env.reset(seed=1)
    games = [photocore.Game(players, fourth, shade) for _ in range(5)]
    finished = 0
    for _ in range(3000):
        for i, game in enumerate(games):
            assert np.array_equal(obs[i], game.observation())
            assert np.array_equal(mask[i], game.legal_moves().mask())
        actions = env.random_actions()
        obs, mask, rewards, done = env.step(actions)
        for i, game in enumerate(games):
            game.play(int(actions[i]))
            assert done[i] == game.is_over
            if game.is_over:
                assert tuple(rewards[i]) == pytest.approx(game.returns())
                assert rewards[i].sum() == pytest.approx(0, abs=1e-6)
                games[i] = photocore.Game(players, fourth, shade)
                finished += 1
            else:
                assert not rewards[i].any()
    assert finished >= 5 and env.episodes == finished


def test_observation_layout():
    game = photocore.Game(players=2)
    for move in ["place a4", "place g1", "place d1", "place d7"]:
        game.play(move)
    obs = game.observation()             # player 0 to move, round 1, sun 0
    pieces = obs[:592].reshape(16, 37)
    cell = photocore.CELLS.index
    assert pieces[1, cell("a4")] == 1 and pieces[1, cell("d1")] == 1      # slot 0, small
    assert pieces[5, cell("g1")] == 1 and pieces[5, cell("d7")] == 1      # slot 1, small
    assert obs[740] == pytest.approx(2 / 20)                              # own light
    assert obs[785] == 1 and obs[791 + 1] == 1 and obs[794] == 1          # sun 0, play, slot 0
    shadows = obs[592:703].reshape(3, 37)
    assert shadows[0, cell("d6")] == 1                                    # d7 casts west
    seen_by_1 = game.observation(1)
    assert np.array_equal(seen_by_1[:148], obs[148:296]) and seen_by_1[795] == 1


def test_step_refuses_bad_actions_and_changes_nothing():
    env = VecGame(3)
    obs, mask = env.reset()
    before = [env.game(i).position() for i in range(3)]
    good = env.random_actions()
    bad = good.copy()
    bad[1] = photocore.Move.parse("end").id          # not legal during setup
    with pytest.raises(ValueError, match="game 1: end is not legal"):
        env.step(bad)
    with pytest.raises(ValueError, match="shape"):
        env.step(good[:2])
    with pytest.raises(ValueError, match="integer"):
        env.step(good.astype(np.float64))
    with pytest.raises(ValueError, match="game 0: action id -1"):
        env.step(np.array([-1, 0, 0]))
    with pytest.raises(ValueError, match="float32"):
        env.step(good, obs=np.zeros((3, OBSERVATION_SIZE)))
    with pytest.raises(ValueError, match="shape"):
        env.step(good, mask=np.zeros((3, NUM_ACTIONS - 1), bool))
    assert [env.game(i).position() for i in range(3)] == before
    out = np.empty((3, OBSERVATION_SIZE), np.float32)
    got, _, _, _ = env.step(good, obs=out)
    assert got is out


def test_constructor_checks():
    with pytest.raises(ValueError):
        VecGame(0)
    with pytest.raises(ValueError):
        VecGame(4, players=5)
    with pytest.raises(TypeError):
        VecGame(2.5)
