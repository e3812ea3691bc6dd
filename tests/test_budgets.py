"""Budgets and seeds (docs/hardening.md, "Budgets and seeds"): a bool is never an action
id."""

import numpy as np
import pytest

from photocore import Game, Move
from photocore.play.player import Forfeit, as_move

# ---- a bool is not an action id --------------------------------------------------------------

@pytest.mark.parametrize("flag", [True, False, np.bool_(True), np.bool_(False)])
def test_a_bool_is_never_an_action_id(flag):
    game = Game()
    with pytest.raises(TypeError):
        Move(flag)
    with pytest.raises(TypeError):
        game.play(flag)
    assert game.history == [] and not game.is_legal(flag) and flag not in game.legal_moves()
    with pytest.raises(Forfeit, match="not a Move, an action id"):
        as_move(flag)
    from photocore.play.session import BadRequest, start
    with pytest.raises(BadRequest, match="moves\\[0\\]"):
        start(moves=[flag])


@pytest.mark.parametrize("flag", [True, np.bool_(True)])
def test_the_environments_refuse_a_bool_action(flag):
    pytest.importorskip("gymnasium")
    from photocore.env.gym import PhotosynthesisEnv
    env = PhotosynthesisEnv(opponents="random")
    env.reset(seed=1)
    with pytest.raises(TypeError, match="not a bool"):
        env.step(flag)
    pytest.importorskip("pettingzoo")
    from photocore.env.pettingzoo import raw_env
    aec = raw_env()
    aec.reset(seed=1)
    with pytest.raises(TypeError, match="not a bool"):
        aec.step(flag)
    assert aec.game.history == []
