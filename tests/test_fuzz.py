"""Fuzz tests: every input from outside gets a clear exception or a correct result.

The first part holds regression tests for what the fuzzers (fuzz/) found; the second runs
the fuzzers' own checks (fuzz/checks.py) on inputs that hypothesis draws, a bounded number
of examples each, so the suite stays fast.
"""

import pickle

import numpy as np
import pytest

import photocore
from photocore import Agent, Game, LegalMoves, VecGame, records


# ---- found by fuzzing ------------------------------------------------------------------

def test_a_tampered_legal_moves_pickle_is_refused_not_trusted():
    # LegalMoves used Cython's automatic pickling, which set its C array and count from the
    # pickle unchecked: a count past the array or ids past NUM_ACTIONS read out of bounds
    # (a segfault). It now pickles as its ids, checked on the way back in.
    moves = Game().legal_moves()
    back = pickle.loads(pickle.dumps(moves))
    assert type(back) is LegalMoves and back == moves and list(back) == list(moves)
    reconstruct, args = moves.__reduce__()
    for ids in ([60000] * 5, [5, 3], [1, 1], [-1], list(range(600)), ["end"], [1.5], 7):
        with pytest.raises((ValueError, TypeError)):
            reconstruct(ids)
    assert list(reconstruct([0, 5, 889])) == [photocore.Move(0), photocore.Move(5),
                                              photocore.Move(889)]


def test_deeply_nested_json_is_a_record_error(tmp_path):
    # json.loads raises RecursionError (not a ValueError) on deep nesting
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b"[" * 100_000 + b"\n")
    with pytest.raises(photocore.RecordError, match="deep.jsonl:1: malformed JSON"):
        list(photocore.read_games(path))
    assert list(photocore.read_games(path, on_error="skip")) == []


def test_counts_too_large_for_c_are_value_errors():
    # an int past the C long long used to escape as OverflowError
    with pytest.raises(ValueError, match="games"):
        photocore.random_playouts(2**70)
    with pytest.raises(ValueError):
        VecGame(2**70)


@pytest.mark.parametrize("value", ["no", "", [], [0], None, 1.0, object()])
def test_options_of_the_wrong_type_are_refused(value):
    # `bint` arguments took any object by its truth: Game(2, "no") played the fourth
    # revolution
    for make in (lambda **o: Game(2, **o), lambda **o: VecGame(1, **o),
                 lambda **o: photocore.random_playouts(1, **o)):
        for name in ("fourth_revolution", "shade_blocks"):
            with pytest.raises(TypeError, match=name):
                make(**{name: value})


def test_options_accept_bools_numpy_bools_and_0_1():
    for on in (True, 1, np.bool_(True), np.int8(1)):
        assert Game(2, fourth_revolution=on).fourth_revolution is True
        assert Game(2, shade_blocks=on).shade_blocks is True
    for off in (False, 0, np.bool_(False)):
        assert Game(2, fourth_revolution=off, shade_blocks=off).position() == Game(2).position()
    with pytest.raises(ValueError):
        Game(2, fourth_revolution=2)


def test_agent_arguments_of_the_wrong_kind_are_clear_errors():
    for kwargs, error in [(dict(exploration=10**400), ValueError),
                          (dict(exploration=float("inf")), ValueError),
                          (dict(exploration=float("nan")), ValueError),
                          (dict(exploration="1.0"), TypeError),
                          (dict(simulations=1.5), TypeError),
                          (dict(simulations="5"), TypeError),
                          (dict(seed=1.5), TypeError)]:
        with pytest.raises(error):
            Agent("mcts", **kwargs)
    assert Agent("mcts", exploration=np.float32(0.5), simulations=np.int64(3)).name == "mcts:3"


def test_huge_indices_are_index_errors():
    moves = Game().legal_moves()
    for i in (10**30, -10**30):
        with pytest.raises(IndexError):
            moves[i]
    env = VecGame(2)
    for i in (2, -1, 10**30):
        with pytest.raises(IndexError):
            env.game(i)


def test_counts_take_any_integer_like_object():
    # VecGame multiplied n itself, so an object with __index__ (as check_count allows)
    # failed with "unsupported operand"
    class Three:
        def __index__(self):
            return 3

    assert VecGame(Three(), players=Three()).num_games == 3
    assert VecGame(np.int8(2)).num_games == 2
    assert photocore.random_playouts(Three(), players=Three())["games"] == 3


def test_reinitialising_a_game_drops_its_history():
    # __init__ on a played game reset the state but kept the undo stack of the old game
    game = Game(2)
    for text in ("place a4", "place g1"):
        game.play(text)
    game.__init__(3)
    assert game.history == [] and game.position() == Game(3).position()
    with pytest.raises(IndexError):
        game.undo()
    assert pickle.loads(pickle.dumps(game)) == Game(3)


def test_read_games_on_undecodable_bytes_is_a_record_error(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"\xff\xfe{}\n")
    with pytest.raises(photocore.RecordError, match="malformed JSON"):
        list(records.read_games(path))
