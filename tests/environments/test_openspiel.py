"""The OpenSpiel adapter: OpenSpiel's own conformance check, MCTSBot games, and the
properties docs/rl.md promises (actions, strings, tensors, returns, serialisation)."""

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
mcts = pytest.importorskip("open_spiel.python.algorithms.mcts")

from photoref import win_share  # noqa: E402

import photocore  # noqa: E402
import photocore.env.openspiel  # noqa: E402
from photocore.facts import OPTION_RULES, max_game_moves  # noqa: E402

CONFIGS = [
    {"players": 2},
    {"players": 3},
    {"players": 4},
    {"players": 2, "fourth_revolution": True, "shade_blocks": True},
    {"players": 3, "shade_blocks": True},
    {"players": 4, "fourth_revolution": True},
]


def load(params):
    return pyspiel.load_game("python_photosynthesis", params)


def random_states(game, seed, count=3):
    """States along a few random games, the terminal ones included."""
    rng = random.Random(seed)
    for _ in range(count):
        state = game.new_initial_state()
        while True:
            yield state
            if state.is_terminal():
                break
            state = state.child(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("params", CONFIGS, ids=str)
@pytest.mark.parametrize("serialize", [False, True])
@pytest.mark.slow
def test_random_sim_test(params, serialize):
    pyspiel.random_sim_test(load(params), num_sims=3, serialize=serialize, verbose=False)


def test_game_description():
    game = load({"players": 3, "shade_blocks": True})
    kind = game.get_type()
    assert kind.short_name == "python_photosynthesis"
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_players() == 3
    assert game.num_distinct_actions() == photocore.NUM_ACTIONS
    assert game.observation_tensor_shape() == [photocore.OBSERVATION_SIZE]
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-0.5, 1.0, 0.0)
    assert game.max_game_length() == 2 * 3 + 18 * 3 * 21 == max_game_moves(3, "s")
    assert load({}).num_players() == 2
    with pytest.raises(Exception, match="players must be 2 to 4"):
        load({"players": 5})


def test_parameters_are_the_player_count_and_a_bool_per_rule():
    spec = load({}).get_type().parameter_specification
    assert spec == {"players": 2, **{rule.name: False for rule in OPTION_RULES}}
    for rule in OPTION_RULES:
        game = load({"players": 3, rule.name: True})
        assert game.options == photocore.Options(**{rule.name: True})
        state = game.new_initial_state()
        assert state.photocore_game.options == game.options
        assert str(state).split()[1] == rule.letter
    assert load({"players": 4, "fourth_revolution": True}).max_game_length() == 2024


@pytest.mark.parametrize("params", CONFIGS[:4], ids=str)
@pytest.mark.slow
def test_states_mirror_photocore(params):
    game = load(params)
    for state in random_states(game, seed=len(params) * 10 + params["players"]):
        mirror = state.photocore_game
        assert state.legal_actions() == mirror.legal_moves().ids()
        assert state.legal_actions() == sorted(state.legal_actions())
        assert state.is_terminal() == mirror.is_over
        assert str(state) == mirror.position()
        for action in state.legal_actions()[:5]:
            assert state.action_to_string(action) == str(photocore.Move(action))
        for player in range(game.num_players()):
            np.testing.assert_array_equal(np.asarray(state.observation_tensor(player)),
                                          mirror.observation(player))
            assert state.observation_string(player) == mirror.position()


def test_history_and_clones():
    game = load({"players": 2})
    state = game.new_initial_state()
    rng = random.Random(3)
    played = []
    for _ in range(60):
        action = rng.choice(state.legal_actions())
        played.append(action)
        state.apply_action(action)
    clone = state.clone()
    assert clone.history() == state.history() == played
    clone.apply_action(clone.legal_actions()[0])
    assert len(state.history()) == 60 and str(state) != str(clone)
    replayed = game.new_initial_state()
    for action in played:
        replayed.apply_action(action)
    assert str(replayed) == str(state)


def test_serialisation_is_the_move_history():
    game = load({"players": 4, "shade_blocks": True})
    for state in random_states(game, seed=5, count=1):
        if state.move_number() % 17 and not state.is_terminal():
            continue
        text = pyspiel.serialize_game_and_state(game, state)
        game2, state2 = pyspiel.deserialize_game_and_state(text)
        assert str(game2) == str(game)
        assert state2.history() == state.history()
        assert str(state2) == str(state)
        assert state2.legal_actions() == state.legal_actions()
        history = ",".join(f"{h.player}:{h.action}" for h in state.full_history())
        assert state.serialize().splitlines()[0] == "history=" + history


def power_of_two(n):
    return n & (n - 1) == 0


@pytest.mark.parametrize("params", CONFIGS, ids=str)
@pytest.mark.slow
def test_random_sim_with_undo(params):
    """OpenSpiel's own undo check (RandomSimulation with undo, open_spiel/tests/basic_tests.cc),
    which pyspiel does not expose, written out: after each of the first 10 moves and every
    power-of-two move, a clone takes every move back in turn and must be, each time, the
    state before that move. OpenSpiel's C++ history() cannot be shortened by a Python game,
    so the state itself is compared (its string, tensors, legal actions and game)."""
    game = load(params)
    rng = random.Random(params["players"])
    for _ in range(2):
        state, history = game.new_initial_state(), []
        while not state.is_terminal():
            player, action = state.current_player(), rng.choice(state.legal_actions())
            history.append((state.clone(), player, action))
            state.apply_action(action)
            if len(history) < 10 or power_of_two(len(history)):
                undone = state.clone()
                for before, player, action in reversed(history):
                    undone.undo_action(player, action)
                    assert str(undone) == str(before)
                    assert undone.photocore_game == before.photocore_game
                    assert undone.legal_actions() == before.legal_actions()
                    assert undone.current_player() == before.current_player()
                    assert undone.observation_tensor() == before.observation_tensor()
                    assert undone.returns() == before.returns()


def test_undo_takes_back_only_the_last_action():
    game = load({"players": 3})
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="none is left"):
        state.undo_action(0, 0)
    for action in (0, 1, 2):
        state.apply_action(action)
    before = str(state)
    with pytest.raises(ValueError, match="the last action is 2"):
        state.undo_action(2, 1)
    with pytest.raises(ValueError, match="player 2 played it"):
        state.undo_action(0, 2)
    assert str(state) == before
    state.undo_action(2, 2)
    assert state.current_player() == 2 and state.legal_actions()[:2] == [2, 3]
    state.apply_action(3)
    assert state.photocore_game.history == [photocore.Move(a) for a in (0, 1, 3)]
    # OpenSpiel keeps its own history in C++: it still counts the action taken back
    assert state.history() == [0, 1, 2, 3]


def test_undo_after_serialisation():
    game = load({"players": 2})
    state = game.new_initial_state()
    for action in (0, 1, 2, 3, 889):
        state.apply_action(action)
    _, back = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    back.undo_action(0, 889)
    expected = game.new_initial_state()
    for action in (0, 1, 2, 3):
        expected.apply_action(action)
    assert str(back) == str(expected)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_returns(players):
    game = load({"players": players})
    for state in random_states(game, seed=players, count=6):
        returns = state.returns()
        if not state.is_terminal():
            assert returns == [0.0] * players
            continue
        winners = state.photocore_game.winners()
        assert returns == win_share(players, winners)
        assert sum(returns) == pytest.approx(0.0)
        assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
        assert all(r > 0 for p, r in enumerate(returns) if p in winners)
    assert win_share(players, (0,))[0] == game.max_utility() == 1.0
    assert win_share(players, tuple(range(players))) == [0.0] * players


def test_win_share_scheme():
    assert win_share(2, (1,)) == [-1.0, 1.0]
    assert win_share(2, (0, 1)) == [0.0, 0.0]
    assert win_share(3, (0, 2)) == [0.25, -0.5, 0.25]
    assert win_share(4, (0, 1)) == pytest.approx([1 / 3, 1 / 3, -1 / 3, -1 / 3])


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("fourth", [False, True])
def test_max_game_length_bounds_move_hungry_games(players, fourth):
    # a policy that never ends a turn while anything else is legal plays the most moves
    rng = random.Random(players)
    bound = max_game_moves(players, "f" if fourth else "-")
    for _ in range(3):
        game = photocore.Game(players=players, options="f" if fourth else "-")
        moves = 0
        while not game.is_over:
            ids = game.legal_moves().ids()
            game.play(rng.choice(ids[:-1]) if len(ids) > 1 and ids[-1] == 889 else rng.choice(ids))
            moves += 1
        assert moves <= bound


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.slow
def test_mcts_bot_plays_complete_games(players):
    game = load({"players": players})
    rng = np.random.RandomState(players)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bots = [mcts.MCTSBot(game, uct_c=2.0, max_simulations=6, evaluator=evaluator,
                         random_state=rng) for _ in range(players)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed=players)
    assert sum(returns) == pytest.approx(0.0)
    assert max(returns) > 0
