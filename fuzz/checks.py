"""What every fuzzed input must give: a clear exception of the documented kinds, or a
correct result. Never a crash, a hang or a corrupted state.

Each `check_*` function takes one structured input, runs it through photocore and raises
`FuzzFailure` when photocore's answer is wrong (an undocumented exception, a result that
disagrees with another way of computing it, a state that breaks its invariants). The
atheris targets (targets.py) decode fuzzer bytes into these inputs; tests/engine/test_fuzz.py
draws them with hypothesis.
"""

import gzip
import io
import math
import numbers
import operator
import os
import pickle
import pickletools
import random
import tempfile

import numpy as np

import photocore
from photocore.notation import parse_position
from photocore import (NUM_ACTIONS, OBSERVATION_SIZE, Agent, Game, IllegalMoveError,
                       InvalidMoveError, InvalidPositionError, LegalMoves, Move, RecordError,
                       Options, VecGame, records, render)

# every move that the fuzzers' games play is checked against the state's invariants
photocore.check_invariants(True)
# run.py --sanitize: make sure the sanitized build is the one under test
_BUILD = os.environ.get("PHOTOCORE_FUZZ_EXPECT_BUILD")
if _BUILD and not photocore.__file__.startswith(_BUILD):
    raise ImportError(f"photocore from {photocore.__file__}, not from the build in {_BUILD}")

# what photocore documents for bad input: ValueError (and its subclasses) and TypeError
BAD_INPUT = (ValueError, TypeError)
CONFIGS = [(p, f, s) for p in (2, 3, 4) for f in (False, True) for s in (False, True)]


class FuzzFailure(AssertionError):
    """photocore answered an input wrongly: the message says how."""


def expect(kinds, call, *args, **kwargs):
    """(True, result) when `call` returns, (False, exception) when it raises one of `kinds`;
    FuzzFailure for any other exception."""
    try:
        return True, call(*args, **kwargs)
    except kinds as e:
        if not str(e):
            raise FuzzFailure(f"{type(e).__name__} without a message from {call!r}") from e
        return False, e
    except (FuzzFailure, KeyboardInterrupt):
        raise
    except BaseException as e:   # noqa: BLE001: any other exception is the finding
        raise FuzzFailure(f"{call!r} raised {type(e).__name__}: {e} (expected one of "
                          f"{[k.__name__ for k in kinds]} or a result)") from e


def same(a, b, what):
    if a != b:
        raise FuzzFailure(f"{what}: {a!r} != {b!r}")


# ---- games ---------------------------------------------------------------------------

def random_game(players=2, fourth=False, shade=False, plies=0, seed=0):
    """A Game after `plies` uniformly random legal moves (fewer if it ends first)."""
    rng = random.Random(seed)
    game = Game(players, options=Options(fourth_revolution=fourth, shade_blocks=shade))
    for _ in range(plies):
        legal = game.legal_moves()
        if not legal:
            break
        game.play(rng.choice(legal))
    return game


def check_game(game, seed=0, moves=3):
    """`game` is consistent: its position round-trips (which checks the state's invariants
    again), its legal moves agree with each other, a few moves play (invariants checked
    after each) and undo exactly, it copies, pickles and draws."""
    text = game.position()
    back = Game.from_position(text)
    same(back.position(), text, "position round trip")
    listed = game.legal_moves()
    legal = listed.ids()
    same(legal, sorted(set(legal)), "legal actions ascend")
    same(legal, [m.id for m in listed], "the legal Moves agree with their ids")
    same(np.flatnonzero(listed.mask()).tolist(), legal, "the legal mask agrees")
    same(game.is_over, not legal, "a game has moves until it is over")
    obs = game.observation()
    if obs.shape != (OBSERVATION_SIZE,) or not np.isfinite(obs).all():
        raise FuzzFailure(f"observation of {text!r} is not finite")
    rng = random.Random(seed)
    played = 0
    for _ in range(moves):
        ids = game.legal_moves().ids()
        if not ids:
            break
        a = rng.choice(ids)
        if not game.is_legal(a):
            raise FuzzFailure(f"{Move(a)} listed legal but is_legal says no in {text!r}")
        game.play(a)      # InvariantError (an AssertionError) if the move breaks the state
        played += 1
    for _ in range(played):
        game.undo()
    same(game.position(), text, "undo restores the position")
    same(game.copy().position(), text, "copy")
    same(pickle.loads(pickle.dumps(game)).position(), text, "pickle round trip")
    render.text(game)      # the text drawing reads every field of the state
    return game


# ---- move text -------------------------------------------------------------------------

def check_move_text(text, game):
    """Move.parse(text) and game.play(text): a Move, InvalidMoveError or IllegalMoveError."""
    parsed, move = expect((InvalidMoveError,), Move.parse, text)
    if parsed:
        normal = " ".join(text.lower().split())
        same(str(move), normal, "a parsed move prints as its normalised text")
        same(Move.parse(str(move)), move, "parse(str(move))")
    before = game.position()
    legal = game.is_legal(text)
    same(legal, text in game.legal_moves(), "is_legal and `in legal_moves`")
    if legal and not parsed:
        raise FuzzFailure(f"{text!r} is legal but does not parse")
    played, error = expect((InvalidMoveError, IllegalMoveError), game.play, text)
    same(played, legal, f"play({text!r}) succeeded exactly when is_legal")
    if played:
        same(game.history[-1], move, "the move played is the one parsed")
        game.undo()
    elif parsed and not isinstance(error, IllegalMoveError):
        raise FuzzFailure(f"a well-formed move {text!r} raised {type(error).__name__}")
    elif not parsed and not isinstance(error, InvalidMoveError):
        raise FuzzFailure(f"malformed {text!r} raised {type(error).__name__}")
    same(game.position(), before, "a refused or undone move leaves the game unchanged")


# ---- action ids ------------------------------------------------------------------------

def check_action(value, game):
    """Move(value), play, is_legal, `in` and LegalMoves[value] on any value."""
    as_int = _as_index(value)
    as_id = None if isinstance(value, bool) else as_int     # a bool is no action id
    ok, move = expect(BAD_INPUT, Move, value)
    if ok != (as_id is not None and 0 <= as_id < NUM_ACTIONS):
        raise FuzzFailure(f"Move({value!r}) {'accepted' if ok else 'refused'} {as_id!r}")
    if ok:
        same(move.id, as_id, "Move(value).id")
    before = game.position()
    legal = game.is_legal(value)
    if isinstance(value, str):
        return  # text: check_move_text's business
    same(legal, as_id is not None and as_id in game.legal_moves().ids(),
         f"is_legal({value!r})")
    same(value in game.legal_moves(), legal, f"{value!r} in legal_moves")
    played, _ = expect(BAD_INPUT, game.play, value)
    same(played, legal, f"play({value!r}) succeeded exactly when legal")
    if played:
        same(game.undo().id, as_int, "the move played")
    same(game.position(), before, "a refused or undone move leaves the game unchanged")
    moves = game.legal_moves()
    ok, item = expect(BAD_INPUT + (IndexError,), operator.getitem, moves, value)
    expected = as_int is not None and -len(moves) <= as_int < len(moves)
    same(ok, expected, f"legal_moves()[{value!r}] of {len(moves)}")
    if ok:
        same(item, list(moves)[as_int], "legal_moves()[i]")


def _as_index(value):
    """operator.index(value), or None when it has none (a bool counts as an int, and a
    Move as its id, as in Python: an index; a bool is no action id and no seed)."""
    try:
        return operator.index(value)
    except TypeError:
        return None



def _as_count(value):
    """_as_index(value) for a count (games, n, simulations), or None: a bool is no count."""
    return None if isinstance(value, (bool, np.bool_)) else _as_index(value)


# ---- position text ---------------------------------------------------------------------

def check_position(text, seed=0):
    """Game.from_position(text): InvalidPositionError or a consistent game that holds what
    the text says."""
    ok, game = expect((InvalidPositionError,), Game.from_position, text)
    if ok:
        # the game's own text (canonical: cells in index order, no leading zeros) reads as
        # the same fields as the text it came from
        said, holds = parse_position(text), parse_position(game.position())
        same(holds, said, f"the fields of {text!r} and of the game read from it")
        check_game(game, seed)
        if not game.is_over:
            same(Agent("greedy", seed=seed).select(game) in game.legal_moves(), True,
                 "an agent picks a legal move")
    return game if ok else None


# ---- record files ----------------------------------------------------------------------

def check_record_file(data, compressed=False, folder=None):
    """read_games on a file holding `data`: RecordError (or nothing with on_error="skip")
    and, for each record it yields, one that replays."""
    folder = folder or tempfile.gettempdir()
    path = os.path.join(folder, "fuzz.jsonl.gz" if compressed else "fuzz.jsonl")
    with open(path, "wb") as f:
        f.write(data)
    for verify in (False, True):
        ok, games = expect((RecordError,), lambda: list(photocore.read_games(path, verify=verify)))
        reader = photocore.read_games(path, on_error="skip", verify=verify)
        _, kept = expect((), list, reader)
        if ok:
            same(len(kept), len(games), "skip mode keeps what raise mode reads")
        for error in reader.errors:
            if not isinstance(error, RecordError) or error.path != path or not error.line:
                raise FuzzFailure(f"a skipped error without its place: {error!r}")
        for rec in kept:
            ids = records.check_record(rec)
            if verify:
                game = records.from_record(rec)
                same(len(game.history), len(ids), "a verified record replays all its moves")
                same(records.result_of(game), rec["result"], "the stored result")
    ok, rec = expect((RecordError,), records.read_game, path, 1)
    return path


def mutate_record(rec, rng):
    """A copy of record `rec` with one to three random changes at the JSON level."""
    rec = _deep_copy(rec)
    values = [None, True, False, 0, 1, -1, 2, 5, 2**64, 1.5, "", "end", "grow d4", [], {},
              [1, 2], {"a": 1}, "x" * 50]
    rng = _CopyingRandom(rng)
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(8)
        if kind == 0 and rec:                                   # drop a field
            rec.pop(rng.choice(sorted(rec)))
        elif kind == 1:                                         # a field of another type
            rec[rng.choice(records.FIELDS)] = rng.choice(values)
        elif kind == 2 and isinstance(rec.get("moves"), list) and rec["moves"]:
            moves = rec["moves"]                                # change, drop or swap moves
            i = rng.randrange(len(moves))
            op = rng.randrange(4)
            if op == 0:
                moves[i] = rng.choice(values + list(photocore.notation.MOVE_TEXTS[::37]))
            elif op == 1:
                del moves[i:]
            elif op == 2:
                moves.insert(i, rng.choice(photocore.notation.MOVE_TEXTS))
            else:
                j = rng.randrange(len(moves))
                moves[i], moves[j] = moves[j], moves[i]
        elif kind == 3 and isinstance(rec.get("result"), dict):  # a wrong result
            field = rng.choice(records.RESULT_FIELDS)
            rec["result"][field] = rng.choice(values + [[0, 0], [[12], []], [1, 0]])
        elif kind == 4 and isinstance(rec.get("options"), dict):
            rec["options"][rng.choice(["fourth_revolution", "shade_blocks", "giant"])] = \
                rng.choice(values)
        elif kind == 5:
            rec["players"] = rng.choice([1, 2, 3, 4, 5, "2", 2.0, None])
        elif kind == 6 and isinstance(rec.get("metadata"), dict):
            rec["metadata"][rng.choice(["agents", "seed", "game"])] = rng.choice(values)
        else:
            rec["version"] = rng.choice([0, 1, 2, "1", None])
    return rec


class _CopyingRandom:
    """rng whose choice() copies what it picks: no list ends up inside itself."""

    def __init__(self, rng):
        self.rng = rng

    def choice(self, seq):
        return _deep_copy(self.rng.choice(seq))

    def __getattr__(self, name):
        return getattr(self.rng, name)


def _deep_copy(value):
    if isinstance(value, dict):
        return {k: _deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep_copy(v) for v in value]
    return value


def gzip_bytes(data):
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as f:
        f.write(data)
    return out.getvalue()


# ---- VecGame ---------------------------------------------------------------------------

class VecModel:
    """A VecGame beside the list of Games it must equal."""

    def __init__(self, n, players, fourth, shade, seed=0):
        options = self.env_options = Options(fourth_revolution=fourth, shade_blocks=shade)
        self.env = VecGame(n, players=players, options=options)
        self.config = (players, fourth, shade)
        self.games = [Game(players, options=options) for _ in range(n)]
        self.obs, self.mask = self.env.reset(seed=seed)
        self.compare()

    def compare(self):
        for i, game in enumerate(self.games):
            if not np.array_equal(self.obs[i], game.observation()):
                raise FuzzFailure(f"VecGame observation {i} differs from its Game")
            if not np.array_equal(self.mask[i], game.legal_moves().mask()):
                raise FuzzFailure(f"VecGame mask {i} differs from its Game")
            same(self.env.game(i).position(), game.position(), f"VecGame.game({i})")

    def step(self, actions, **outputs):
        """env.step(actions): ValueError/TypeError leaving every game as it was, or the
        step the Games take."""
        before = [self.env.game(i).position() for i in range(len(self.games))]
        ok, result = expect(BAD_INPUT, self.env.step, actions, **outputs)
        if not ok:
            same([self.env.game(i).position() for i in range(len(self.games))], before,
                 "a refused step changes nothing")
            return False
        ids = np.asarray(actions)
        n = len(self.games)
        if ids.shape not in ((n,), (n, 1)):     # (n, 1) is what a torch policy gives
            raise FuzzFailure(f"step accepted actions of shape {ids.shape}")
        ids = ids.reshape(n).tolist()
        for i, game in enumerate(self.games):
            if not game.is_legal(ids[i]):
                raise FuzzFailure(f"step accepted illegal action {ids[i]!r} in game {i}")
        self.obs, self.mask, rewards, done = result
        for i, game in enumerate(self.games):
            game.play(ids[i])
            same(bool(done[i]), game.is_over, f"done[{i}]")
            expected = game.returns() if game.is_over else (0.0,) * game.players
            if not np.allclose(rewards[i], expected, atol=1e-6):
                raise FuzzFailure(f"rewards[{i}] {rewards[i]} != {expected}")
            if game.is_over:
                self.games[i] = Game(self.config[0], options=self.env_options)
        self.compare()
        for name, array in outputs.items():
            if array is not None and array is not {"obs": self.obs, "mask": self.mask,
                                                   "rewards": rewards, "done": done}[name]:
                raise FuzzFailure(f"step did not fill the given {name} array")
        return True

    def legal_actions(self, rng):
        return np.array([rng.choice(g.legal_moves().ids()) for g in self.games], np.int64)


ACTION_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                 np.uint64, np.float32, np.float64, np.bool_, object, np.complex64, "U4"]
BAD_IDS = [-1, NUM_ACTIONS, 2**15, 2**31 - 1, -2**31, 2**63 - 1, -2**63, 2**64 - 1]


def tamper_actions(good, rng, choice):
    """A variant of a good action array: another dtype, shape, layout or an id out of range
    or illegal (`choice` picks which, `rng` the details)."""
    n = len(good)
    kind = choice % 7
    if kind == 0:                                               # another dtype
        dtype = rng.choice(ACTION_DTYPES)
        try:
            return good.astype(dtype)
        except (ValueError, OverflowError):
            return good
    if kind == 1:                                               # another shape
        return rng.choice([good.reshape(n, 1), np.concatenate([good, good[:1]]), good[:-1],
                           np.int64(good[0]), good.reshape(1, n), np.zeros((0,), np.int64)])
    if kind == 2:                                               # non-contiguous, same ids
        wide = np.empty(2 * n, good.dtype)
        wide[::2] = good
        return wide[::2]
    if kind == 3:                                               # an id out of range
        bad = good.astype(object)
        bad[rng.randrange(n)] = rng.choice(BAD_IDS)
        try:
            return bad.astype(rng.choice([np.int64, np.uint64, object]))
        except OverflowError:
            return bad
    if kind == 4:                                               # a legal id elsewhere
        bad = good.copy()
        bad[rng.randrange(n)] = rng.randrange(NUM_ACTIONS)
        return bad
    if kind == 5:                                               # a list or a tuple
        return rng.choice([good.tolist(), tuple(good.tolist()), [str(a) for a in good]])
    return rng.choice([None, "end", 3, b"\x00" * n, {0: 1}])   # not an array at all


def tamper_output(name, shape, dtype, rng):
    """A caller's output array for step(): right, or of a wrong dtype, shape or layout."""
    kind = rng.randrange(6)
    if kind == 0:
        return np.empty(shape, dtype)
    if kind == 1:
        return np.empty(shape, rng.choice([np.float64, np.int8, np.bool_, np.float32]))
    if kind == 2:
        return np.empty(tuple(s + 1 for s in shape), dtype)
    if kind == 3:
        return np.empty(shape, dtype, order="F") if len(shape) > 1 else \
            np.empty(shape[0] * 2, dtype)[::2]
    if kind == 4:
        array = np.empty(shape, dtype)
        array.flags.writeable = False
        return array
    return rng.choice([[0.0] * shape[0], "obs", 1.0])


def check_vecgame(n, config, seed, script):
    """A VecGame of n games stepped by `script`, a list of integers: each picks a good step,
    a tampered action array, a tampered output array or random_actions with an output."""
    model = VecModel(n, *config, seed=seed)
    rng = random.Random(seed)
    for choice in script:
        good = model.legal_actions(rng)
        kind = choice % 4
        if kind == 0:
            model.step(good)
        elif kind == 1:
            model.step(tamper_actions(good, rng, choice // 4))
        elif kind == 2:
            name, shape, dtype = rng.choice([
                ("obs", (n, OBSERVATION_SIZE), np.float32), ("mask", (n, NUM_ACTIONS), np.bool_),
                ("rewards", (n, config[0]), np.float32), ("done", (n,), np.bool_)])
            model.step(good, **{name: tamper_output(name, shape, dtype, rng)})
        else:
            out = tamper_output("out", (n,), np.int64, rng)
            ok, actions = expect(BAD_INPUT, model.env.random_actions, out)
            if ok:
                model.step(actions)
    for i in (n, -1, 2**70, "0", 1.5):
        ok, _ = expect(BAD_INPUT + (IndexError,), model.env.game, i)
        if ok:
            raise FuzzFailure(f"VecGame.game({i!r}) of {n} games answered")
    return model


# ---- pickles ---------------------------------------------------------------------------

# what a Game, a Move or LegalMoves pickle refers to: a careful user unpickles with such
# an allowlist, and it keeps a mutated pickle from calling anything else
_ALLOWED = {("photocore._game", name) for name in ("_restore", "Move", "_legal_moves", "Game",
                                                   "LegalMoves")}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed")
        return super().find_class(module, name)


def _memo_is_small(data):
    """Whether every memo index in `data` (read up to where it breaks) is small: a mutated
    PUT of index 2**31 makes pickle itself allocate gigabytes, which is pickle's problem."""
    try:
        for op, arg, _ in pickletools.genops(data):
            if "PUT" in op.name or "GET" in op.name:
                if isinstance(arg, int) and arg > 10_000:
                    return False
    except Exception:  # noqa: BLE001: malformed from here on; loads stops there too
        pass
    return True


def loads_checked(data):
    """pickle.loads of possibly tampered bytes (photocore's classes only): an exception, or
    an object that is consistent. Exceptions from pickle itself may be of any kind (it
    reads garbage); those raised in photocore's reconstructors must be ValueError or
    TypeError."""
    if not _memo_is_small(data):
        return None
    try:
        obj = _Unpickler(io.BytesIO(data)).load()
    except (FuzzFailure, KeyboardInterrupt):
        raise
    except RecursionError:
        return None
    except Exception as e:  # noqa: BLE001
        if _raised_in_photocore(e) and not isinstance(e, BAD_INPUT):
            raise FuzzFailure(f"unpickling raised {type(e).__name__} in photocore: {e}") from e
        return e
    check_unpickled(obj)
    return obj


def _raised_in_photocore(error):
    """Whether a frame of `error`'s traceback runs code of the photocore package.

    Decided by the frame's module (compiled modules' frames carry theirs too), not by its
    file's path: in a checkout in a folder named photocore every path there holds that
    word, this harness's and the virtual environment's included."""
    tb = error.__traceback__
    while tb is not None:
        module = tb.tb_frame.f_globals.get("__name__") or ""
        if module == "photocore" or module.startswith("photocore."):
            return True
        tb = tb.tb_next
    return False


def check_unpickled(obj):
    """Whatever came out of a tampered pickle: if it holds photocore objects, they are sound."""
    if isinstance(obj, Game):
        check_game(obj)
        replay = obj.root()
        for move in obj.history:
            replay.play(move)
        same(replay.position(), obj.position(), "a pickled game replays its history")
    elif isinstance(obj, LegalMoves):
        ids = obj.ids()
        same(ids, sorted(set(ids)), "unpickled legal moves ascend")
        if ids and not 0 <= ids[0] <= ids[-1] < NUM_ACTIONS:
            raise FuzzFailure(f"unpickled legal moves hold ids {ids}")
        same([m.id for m in obj], ids, "unpickled legal moves iterate their ids")
    elif isinstance(obj, Move):
        same(Move(obj.id), obj, "an unpickled Move")
        str(obj)
    elif isinstance(obj, (list, tuple)):
        for item in obj[:20]:
            check_unpickled(item)
    elif isinstance(obj, dict):
        for item in list(obj.values())[:20]:
            check_unpickled(item)


def mutate_bytes(data, rng, count):
    """`data` with `count` random byte flips, insertions, deletions or copies."""
    data = bytearray(data)
    for _ in range(count):
        op = rng.randrange(4)
        i = rng.randrange(len(data) + 1)
        if op == 0 and i < len(data):
            data[i] = rng.randrange(256)
        elif op == 1:
            data[i:i] = bytes([rng.randrange(256)])
        elif op == 2 and i < len(data):
            del data[i:i + rng.randint(1, 4)]
        else:
            j = rng.randrange(len(data) + 1)
            data[i:i] = data[j:j + rng.randint(1, 8)]
    return bytes(data)


def check_restore(root, actions):
    """The reconstructor of a Game pickle called with tampered arguments."""
    reconstruct, _ = Game().__reduce__()
    ok, game = expect(BAD_INPUT, reconstruct, root, actions)
    if ok:
        check_unpickled(game)
    return game if ok else None


def check_legal_moves_restore(ids):
    reconstruct, _ = Game().legal_moves().__reduce__()
    ok, moves = expect(BAD_INPUT, reconstruct, ids)
    if ok:
        check_unpickled(moves)


# ---- constructors ----------------------------------------------------------------------

def check_constructors(players, fourth, shade, n, games, seed, kind, simulations, exploration):
    """Options, Game, VecGame, Agent and random_playouts: a clear exception or the right
    object. The rule flags go in as Options' fields; refused, the constructors get no
    options, so that their other arguments are still tried."""
    players_ok = _as_index(players) in (2, 3, 4)
    options_ok, options = expect(BAD_INPUT, Options, fourth_revolution=fourth,
                                 shade_blocks=shade)
    same(options_ok, _is_option(fourth) and _is_option(shade),
         f"Options(fourth_revolution={fourth!r}, shade_blocks={shade!r})")
    if not options_ok:
        options, fourth, shade = Options(), False, False
    ok, game = expect(BAD_INPUT, Game, players, options=options)
    same(ok, players_ok, f"Game({players!r}, options={options!r})")
    if ok:
        config = (operator.index(players), _option_value(fourth), _option_value(shade))
        same((game.players, game.options.fourth_revolution, game.options.shade_blocks), config,
             "Game's settings")
        same(game.position(), Game(config[0], options=Options(fourth_revolution=config[1],
             shade_blocks=config[2])).position(), "a new game is at the start")

    size = _as_count(n)
    if not (size is not None and 64 < size <= 1 << 24):    # valid but big: not on every input
        ok, env = expect(BAD_INPUT, VecGame, n, players, options=options)
        same(ok, size is not None and 1 <= size <= 1 << 24 and players_ok,
             f"VecGame({n!r}, {players!r}, options={options!r})")
        if ok:
            same((env.num_games, env.players), (size, operator.index(players)), "VecGame's size")

    count = _as_count(games)
    if not (count is not None and 20 < count < 1 << 63):    # valid but slow: not run
        ok, totals = expect(BAD_INPUT, photocore.random_playouts, games, players, seed,
                            options=options)
        same(ok, count is not None and 0 <= count < 1 << 63 and players_ok and _is_seed(seed),
             f"random_playouts({games!r}, {players!r}, {seed!r}, options={options!r})")
        if ok:
            same(totals["games"], count, "random_playouts games")
            same(len(totals["wins"]), operator.index(players), "one win count per seat")

    sims = _as_count(simulations)
    # a budget of 1 to 10,000,000; random and greedy take none, so None or 0 says so too
    budget_ok = ((sims is not None and 1 <= sims <= 10_000_000)
                 or (kind in ("random", "greedy") and (simulations is None or sims == 0)))
    agent_ok = (isinstance(kind, str) and kind in ("random", "greedy", "mcts")
                and budget_ok and _is_seed(seed)
                and isinstance(exploration, numbers.Real) and not isinstance(exploration, bool)
                and _finite_nonneg(exploration))
    ok, agent = expect(BAD_INPUT, Agent, kind, seed, simulations, exploration)
    same(ok, agent_ok, f"Agent({kind!r}, {seed!r}, {simulations!r}, {exploration!r})")
    if ok and (kind != "mcts" or sims <= 30):
        board = random_game(2, plies=6, seed=1)
        same(board.is_legal(agent.select(board)), True, f"{agent!r} picks a legal move")


def _option_value(value):
    return bool(value) if isinstance(value, (bool, np.bool_)) else operator.index(value) == 1


def _is_seed(value):
    """Whether `value` is a seed (photocore.facts.check_seed): any integer but a bool."""
    return not isinstance(value, bool) and _as_index(value) is not None


def _is_option(value):
    return isinstance(value, (bool, np.bool_)) or _as_index(value) in (0, 1)


def _finite_nonneg(x):
    try:
        return math.isfinite(float(x)) and float(x) >= 0
    except OverflowError:
        return False
