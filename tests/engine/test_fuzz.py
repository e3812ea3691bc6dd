"""Fuzz tests: every input from outside gets a clear exception or a correct result.

The first part holds regression tests for what the fuzzers (fuzz/) found; the second runs
the fuzzers' own checks (fuzz/checks.py) on inputs that hypothesis draws, a bounded number
of examples each, so the suite stays fast.
"""

import pickle

import numpy as np
import pytest

import photocore
from photocore import Agent, Game, LegalMoves, Options, VecGame, records


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
    # revolution; a rule's flag is an Options field now, and only that
    for rule in photocore.facts.OPTION_RULES:
        with pytest.raises(TypeError, match=rule.name):
            Options(**{rule.name: value})


class Whole:
    """A whole number that is no int: operator.index gives it (found by the fuzzer)."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


def test_options_accept_bools_numpy_bools_and_0_1():
    for rule in photocore.facts.OPTION_RULES:
        assert Options(**{rule.name: Whole(0)}) == Options()
        for on in (True, 1, np.bool_(True), np.int8(1), Whole(1)):
            assert getattr(Options(**{rule.name: on}), rule.name) is True
        for off in (False, 0, np.bool_(False)):
            assert Options(**{rule.name: off}) == Options()
        with pytest.raises(ValueError, match=rule.name):
            Options(**{rule.name: 2})


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


# ---- the fuzzers' checks on inputs hypothesis draws ------------------------------------

import pathlib  # noqa: E402
import sys  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "fuzz"))
import checks  # noqa: E402
import targets  # noqa: E402

from photocore.notation import CELLS, MOVE_TEXTS  # noqa: E402

FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True, scope="module")
def invariants_on():
    previous = photocore.check_invariants(True)
    yield
    photocore.check_invariants(previous)


games = st.builds(checks.random_game, *[st.sampled_from(v) for v in zip(*checks.CONFIGS)],
                  plies=st.integers(0, 150), seed=st.integers(0, 2**16))
words = st.sampled_from(["place", "buy", "plant", "grow", "collect", "end", "seed", "small",
                         "medium", "large", "h1", "d0", *CELLS])
move_texts = st.one_of(
    st.text(max_size=30),
    st.sampled_from(MOVE_TEXTS),
    st.lists(words, max_size=4).flatmap(lambda ws: st.sampled_from(
        [" ".join(ws), "  ".join(ws).upper(), "\t".join(ws) + "\n", "".join(ws)])))


@FUZZ
@given(move_texts, games)
@pytest.mark.slow
def test_fuzz_move_text(text, game):
    checks.check_move_text(text, game)


class Indexable:
    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


int_like = st.one_of(
    st.integers(-5, 900), st.integers(), st.sampled_from(targets.EDGES), st.booleans(),
    st.builds(lambda dtype, v: np.array(v).astype(dtype),
              st.sampled_from(targets.INT_DTYPES), st.integers(-2**63, 2**64 - 1))
    .map(lambda a: a[()]),
    st.builds(Indexable, st.integers(-5, 900)))
anything = st.one_of(int_like, st.floats(), st.text(max_size=6), st.none(), st.binary(max_size=4),
                     st.builds(photocore.Move, st.integers(0, 889)), st.lists(st.integers(), max_size=2),
                     st.complex_numbers(max_magnitude=10))


@FUZZ
@given(anything, games)
def test_fuzz_action_id(value, game):
    checks.check_action(value, game)


def mutated_position(game, rng):
    fields = game.position().split()
    i = rng.randrange(len(fields))
    op = rng.randrange(4)
    if op == 0:
        fields[i] = rng.choice(fields)
    elif op == 1:
        fields[i] = fields[i][::-1]
    elif op == 2:
        chars = list(fields[i])
        chars[rng.randrange(len(chars))] = rng.choice("0123456789-/.,:abcdefgh")
        fields[i] = "".join(chars)
    else:
        fields.pop(i)
    return " ".join(fields)


positions = st.one_of(st.text(max_size=80), games.map(Game.position),
                      st.builds(mutated_position, games, st.randoms(use_true_random=False)))


@FUZZ
@given(positions, st.integers(0, 255))
def test_fuzz_position_text(text, seed):
    checks.check_position(text, seed)


@FUZZ
@given(st.lists(st.sampled_from(targets.GOLDEN), min_size=1, max_size=3),
       st.randoms(use_true_random=False), st.booleans(), st.booleans(), st.integers(0, 4))
@pytest.mark.slow
def test_fuzz_record_file(tmp_path_factory, recs, rng, compressed, cut, byte_mutations):
    content = b"".join(json_line(checks.mutate_record(r, rng) if rng.random() < 0.8 else r)
                       for r in recs)
    if cut:
        content = content[:rng.randrange(len(content) + 1)]
    if compressed:
        content = checks.gzip_bytes(content)
    content = checks.mutate_bytes(content, rng, byte_mutations)
    checks.check_record_file(content, compressed, str(tmp_path_factory.getbasetemp()))


def json_line(rec):
    import json
    return json.dumps(rec, separators=(",", ":")).encode() + b"\n"


@settings(FUZZ, max_examples=50)
@given(st.integers(1, 4), st.sampled_from(checks.CONFIGS), st.integers(0, 2**16),
       st.lists(st.integers(0, 255), min_size=1, max_size=12))
def test_fuzz_vecgame_inputs(n, config, seed, script):
    checks.check_vecgame(n, config, seed, script)


@FUZZ
@given(games, st.integers(0, 5), st.randoms(use_true_random=False), st.integers(1, 4))
def test_fuzz_pickle_bytes(game, protocol, rng, count):
    checks.loads_checked(checks.mutate_bytes(pickle.dumps(game, protocol), rng, count))


@FUZZ
@given(games, st.data())
@pytest.mark.slow
def test_fuzz_pickle_reduce_arguments(game, data):
    _, (root, actions) = game.__reduce__()
    root = data.draw(st.one_of(st.just(root), st.text(max_size=40),
                               st.builds(mutated_position, st.just(game),
                                         st.randoms(use_true_random=False))))
    actions = data.draw(st.one_of(
        st.just(actions),
        st.lists(st.one_of(st.sampled_from(actions or [0]), anything), max_size=30),
        st.just(actions[:-1]), st.just(actions + [889]), st.none(), st.integers()))
    checks.check_restore(root, actions)
    ids = data.draw(st.one_of(st.lists(int_like, max_size=8), st.just(game.legal_moves().ids())))
    checks.check_legal_moves_restore(ids)


options = st.one_of(st.booleans(), st.sampled_from([0, 1, 2, -1, np.bool_(True), np.int8(1)]),
                    anything)


@FUZZ
@given(players=st.one_of(st.sampled_from([0, 1, 2, 3, 4, 5]), anything),
       fourth=options, shade=options,
       n=st.one_of(st.integers(-2, 8), st.sampled_from([1 << 24 + 1, 2**63, 2**70]), anything),
       games=st.one_of(st.integers(-2, 5), st.sampled_from([2**63, 2**70]), anything),
       seed=anything,
       kind=st.one_of(st.sampled_from(["random", "greedy", "mcts", "MCTS", ""]), anything),
       simulations=st.one_of(st.integers(-1, 20), st.sampled_from([10_000_001]), anything),
       exploration=st.one_of(st.floats(), st.integers(-1, 3), st.just(10**400), anything))
@pytest.mark.slow
def test_fuzz_constructors(players, fourth, shade, n, games, seed, kind, simulations,
                           exploration):
    checks.check_constructors(players, fourth, shade, n, games, seed, kind, simulations,
                              exploration)


@pytest.mark.parametrize("name", sorted(targets.TARGETS))
@settings(FUZZ, max_examples=80)
@given(data=st.binary(max_size=400))
def test_fuzz_targets_on_raw_bytes(name, data):
    # the atheris targets themselves, as CI's fuzz run calls them
    targets.TARGETS[name](data)


@pytest.mark.parametrize("name", sorted(targets.TARGETS))
def test_fuzz_targets_pass_their_seeds(name):
    for data in targets.seeds(name):
        targets.TARGETS[name](data)


# ---- the fuzz checker: which frames are photocore's ---------------------------------------

def error_from(module, filename):
    """An exception raised by a function of `module` whose code says it is in `filename`."""
    namespace = {"__name__": module}
    exec(compile("def fail():\n    raise RuntimeError('bad')\n", filename, "exec"), namespace)
    try:
        namespace["fail"]()
    except RuntimeError as e:
        return e


def test_the_fuzz_checker_tells_photocore_frames_by_module_not_by_path():
    # in a checkout in a folder named photocore, every file's path holds that word: the
    # standard library's pickle raising there was taken for photocore
    raised_in_photocore = checks._raised_in_photocore
    assert not raised_in_photocore(error_from("pickle", "/src/photocore/.venv/pickle.py"))
    assert not raised_in_photocore(error_from("checks", "/home/me/photocore/fuzz/checks.py"))
    assert not raised_in_photocore(error_from("photocorex", "/photocore/photocorex.py"))
    # an installed package is photocore's wherever it lies, compiled modules included
    assert raised_in_photocore(error_from("photocore.records", "/opt/lib/records.py"))
    assert raised_in_photocore(error_from("photocore", "__init__.py"))
    with pytest.raises(photocore.InvalidPositionError) as caught:
        photocore.Game.from_position("2 - 1")
    assert raised_in_photocore(caught.value)
