"""The fuzz targets: each turns the fuzzer's bytes into inputs for checks.py.

TARGETS maps a name to its `one_input(data: bytes)`; SEEDS to a function giving a few
starting inputs. The decoding is our own (`Data`), not atheris's FuzzedDataProvider, so
the same bytes give the same inputs under atheris, under the plain random driver of
run.py and in a replayed crash file.
"""

import json
import os
import pathlib
import pickle
import random
import tempfile
import time

import numpy as np

import checks
from checks import FuzzFailure
from photocore import NUM_ACTIONS, Game, Move
from photocore.facts import CELLS, SIZES
from photocore.notation import MOVE_TEXTS

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = [json.loads(line) for line in (ROOT / "seeds" / "golden.jsonl").read_bytes().splitlines()
          if line.strip()]
# seconds one input may take before it counts as a hang (run.py also gives libFuzzer a
# hard -timeout for a hang inside C code, where this check cannot run)
BUDGET = float(os.environ.get("PHOTOCORE_FUZZ_BUDGET", "10"))


class Data:
    """Reads typed values off the front of the fuzzer's bytes; zeros once they run out."""

    def __init__(self, data):
        self.data, self.pos = data, 0

    def byte(self):
        if self.pos >= len(self.data):
            return 0
        self.pos += 1
        return self.data[self.pos - 1]

    def int(self, low, high):
        """An int in [low, high] (low when the range is empty)."""
        span = high - low + 1
        if span <= 1:
            return low
        value, width = 0, 0
        while (1 << width) < span:
            value = value << 8 | self.byte()
            width += 8
        return low + value % span

    def bool(self):
        return self.byte() & 1 == 1

    def pick(self, seq):
        return seq[self.int(0, len(seq) - 1)]

    def bytes(self, most):
        n = self.int(0, most)
        chunk = self.data[self.pos:self.pos + n]
        self.pos += len(chunk)
        return chunk

    def text(self, most):
        """Text of up to `most` characters: Latin-1, UTF-8 or any code points."""
        mode = self.int(0, 2)
        raw = self.bytes(most * 3 if mode == 2 else most)
        if mode == 0:
            return raw.decode("latin-1")[:most]
        if mode == 1:
            return raw.decode("utf-8", "replace")[:most]
        return "".join(chr(int.from_bytes(raw[i:i + 3], "little") % 0x110000)
                       for i in range(0, len(raw) - 2, 3))[:most]

    def rest(self):
        chunk = self.data[self.pos:]
        self.pos = len(self.data)
        return chunk

    def rng(self):
        return random.Random(self.int(0, 2**32 - 1))

    def game(self, most_plies=120):
        players, fourth, shade = self.pick(checks.CONFIGS)
        return checks.random_game(players, fourth, shade, self.int(0, most_plies),
                                  self.int(0, 2**16))


class WithIndex:
    """A user's integer-like object: operator.index gives `value`."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value

    def __repr__(self):
        return f"WithIndex({self.value!r})"


INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
EDGES = [0, 1, 2, 3, 4, 5, -1, NUM_ACTIONS - 1, NUM_ACTIONS, 2**31 - 1, 2**31, 2**63 - 1,
         2**63, 2**64 - 1, 2**64, -2**63, -2**63 - 1, 1 << 24, (1 << 24) + 1]


def value(d, ints=EDGES):
    """Any value a caller might pass for an int argument: ints small, edge and huge, bools,
    numpy scalars and 0-d arrays, floats, text, None, bytes, Moves, lists, objects."""
    kind = d.int(0, 15)
    if kind == 0:
        return d.int(-3, 900)
    if kind == 1:
        return d.pick(ints)
    if kind == 2:
        return (-1) ** d.int(0, 1) * (1 << d.int(31, 300)) + d.int(-2, 2)
    if kind == 3:
        return d.bool()
    if kind == 4:
        dtype = d.pick(INT_DTYPES)
        info = np.iinfo(dtype)
        return dtype(info.min + d.int(0, 2**64 - 1) % (int(info.max) - int(info.min) + 1))
    if kind == 5:
        return d.pick([0.0, 1.0, 2.0, -1.0, 0.5, 1e300, float("nan"), float("inf"),
                       -float("inf"), float(d.int(0, 900))])
    if kind == 6:
        return d.pick([d.text(12), str(d.int(-3, 900)), "end", "2", " 3 "])
    if kind == 7:
        return None
    if kind == 8:
        return d.bytes(8)
    if kind == 9:
        return Move(d.int(0, NUM_ACTIONS - 1))
    if kind == 10:
        return d.pick([[d.int(0, 900)], [], (2,), {2: 2}, {2}])
    if kind == 11:
        return np.array(d.int(-3, 900)).astype(d.pick(INT_DTYPES + [np.float64]))  # wraps
    if kind == 12:
        return complex(d.int(0, 5), d.int(0, 1))
    if kind == 13:
        return WithIndex(d.pick(ints + [d.int(-3, 900)]))
    if kind == 14:
        return d.pick([np.float64(d.int(0, 5)), np.bool_(d.bool()), np.float32(1.5)])
    return object()


def timed(target):
    """The target with the per-input time budget: a slow input is a finding."""
    def one_input(data):
        start = time.perf_counter()
        target(data)
        took = time.perf_counter() - start
        if took > BUDGET:
            raise FuzzFailure(f"one input took {took:.1f} s (budget {BUDGET} s)")
    one_input.__name__ = target.__name__
    return one_input


# ---- the targets -----------------------------------------------------------------------

VOCAB = ["place", "buy", "plant", "grow", "collect", "end", *SIZES, *CELLS, "PLACE", "End",
         "d4", "h1", "a0", "d44", "", "seed,", "plant d4", "Grow\tD4"]
SEPARATORS = [" ", "  ", "\t", "\n", "\u3000", "\x1c", "\xa0", "", ",", "\x00"]


def move_text(data):
    d = Data(data)
    game = d.game()
    for _ in range(d.int(1, 4)):
        if d.bool():
            text = d.text(40)
        else:
            words = [d.pick(VOCAB) if d.int(0, 7) else d.text(6) for _ in range(d.int(0, 4))]
            text = d.pick(SEPARATORS[:4]) + "".join(
                w + d.pick(SEPARATORS) for w in words)
            if d.bool():
                text = "".join(c.upper() if d.bool() else c for c in text)
        checks.check_move_text(text, game)


def action_id(data):
    d = Data(data)
    game = d.game()
    for _ in range(d.int(1, 8)):
        checks.check_action(value(d), game)


def position_text(data):
    d = Data(data)
    mode = d.int(0, 3)
    if mode == 0:
        text = d.text(300)
    else:
        game = d.game(400)
        fields = game.position().split()
        for _ in range(d.int(1, 3)):
            i = d.int(0, len(fields) - 1)
            op = d.int(0, 7)
            if op == 0:                                # another field's text
                fields[i] = d.pick(fields)
            elif op == 1:                              # a digit changed
                chars = list(fields[i]) or [""]
                chars[d.int(0, len(chars) - 1)] = d.pick("0123456789-/.,:abcdefg")
                fields[i] = "".join(chars)
            elif op == 2:                              # fuzz text
                fields[i] = d.text(20)
            elif op == 3 and len(fields) > 1:          # a field dropped or repeated
                fields.insert(i, fields[i]) if d.bool() else fields.pop(i)
            elif op in (4, 5, 6) and len(fields) < 11:  # too few fields left for these
                fields.append(d.pick(fields))
            elif op == 4:                              # a board entry added or removed
                entries = [] if fields[7] == "-" else fields[7].split(",")
                if entries and d.bool():
                    entries.pop(d.int(0, len(entries) - 1))
                else:
                    entries.append(f"{d.pick(CELLS)}:{d.int(0, 4)}:{d.int(0, 4)}")
                fields[7] = ",".join(entries) or "-"
            elif op == 5:                              # a token moved or invented
                p = d.int(8, len(fields) - 2)
                parts = fields[p].split("/")
                if len(parts) == 4:
                    parts[3] = ".".join(str(d.pick([12, 13, 14, 16, 17, 18, 19, 20, 21, 22, 11, 23]))
                                        for _ in range(d.int(0, 3))) or "-"
                    fields[p] = "/".join(parts)
            elif op == 6:                              # activated cells
                fields[6] = ",".join(d.pick(CELLS) for _ in range(d.int(0, 3))) or "-"
            else:                                      # a field's digits in another order
                fields[i] = fields[i][::-1]
        text = d.pick([" ", "  ", "\t"]).join(fields)
        if mode == 3:
            text = checks.mutate_bytes(text.encode("utf-8", "surrogatepass"), d.rng(),
                                       d.int(1, 4)).decode("utf-8", "replace")
    checks.check_position(text, seed=d.int(0, 255))


def record_file(data):
    d = Data(data)
    mode, compressed = d.int(0, 2), d.bool()
    if mode == 0:                                      # any bytes
        wrap = compressed and d.bool()
        content = d.rest()
        if wrap:
            content = checks.gzip_bytes(content)
    else:                                              # golden records, changed
        rng = d.rng()
        lines = []
        for _ in range(d.int(1, 3)):
            rec = d.pick(GOLDEN)
            if d.int(0, 3):
                rec = checks.mutate_record(rec, rng)
            lines.append(json.dumps(rec, separators=(",", ":")).encode() + b"\n")
        content = b"".join(lines)
        if d.bool():                                   # a cut last line, as a killed writer
            content = content[:rng.randrange(len(content) + 1)]
        if compressed:
            content = checks.gzip_bytes(content)
        if mode == 2:
            content = checks.mutate_bytes(content, rng, d.int(1, 6))
    # a folder per input, gone after it: libFuzzer's exit runs no Python clean-up
    with tempfile.TemporaryDirectory(prefix="photocore-fuzz-") as folder:
        checks.check_record_file(content, compressed, folder)


def vecgame_inputs(data):
    d = Data(data)
    script = [d.int(0, 255) for _ in range(d.int(1, 12))]
    checks.check_vecgame(d.int(1, 4), d.pick(checks.CONFIGS), d.int(0, 2**16), script)


def pickled_state(data):
    d = Data(data)
    mode = d.int(0, 3)
    game = d.game(200)
    rng = d.rng()
    if mode == 0:                                      # the bytes of a Game pickle
        blob = pickle.dumps(game, d.int(0, pickle.HIGHEST_PROTOCOL))
        checks.loads_checked(checks.mutate_bytes(blob, rng, d.int(1, 4)))
    elif mode == 1:                                    # the arguments of its __reduce__
        _, (root, actions) = game.__reduce__()
        how = d.int(0, 3)
        if how == 1:
            root = d.text(80)
        elif how == 2:
            fields = root.split()
            fields[d.int(0, len(fields) - 1)] = d.text(10)
            root = " ".join(fields)
        elif how == 3:
            root = checks.mutate_bytes(root.encode("utf-8", "surrogatepass"), rng,
                                       d.int(1, 3)).decode("latin-1")
        actions = list(actions)
        for _ in range(d.int(0, 3)):
            if not isinstance(actions, list):
                break
            op, i = d.int(0, 3), d.int(0, len(actions))
            if op == 0 and i < len(actions):
                actions[i] = value(d)
            elif op == 1:
                actions.insert(i, value(d))
            elif op == 2:
                del actions[i:i + d.int(1, 5)]
            else:
                actions = d.pick([actions, tuple(actions), iter(actions), None, 5,
                                  [str(Move(a)) for a in actions if type(a) is int
                                   and 0 <= a < NUM_ACTIONS]])      # a bool is no id
        checks.check_restore(root, actions)
    elif mode == 2:                                    # the arguments of LegalMoves'
        ids = game.legal_moves().ids()
        for _ in range(d.int(0, 3)):
            i = d.int(0, len(ids))
            if d.bool() or not ids:
                ids.insert(i, value(d))
            else:
                ids[min(i, len(ids) - 1)] = value(d)
        checks.check_legal_moves_restore(ids)
    else:                                              # other pickles: moves, lists, tuples
        obj = d.pick([game.legal_moves(), Move(d.int(0, NUM_ACTIONS - 1)),
                      [game, game.legal_moves()], (game.copy(history=False),)])
        blob = pickle.dumps(obj, d.int(0, pickle.HIGHEST_PROTOCOL))
        checks.loads_checked(checks.mutate_bytes(blob, rng, d.int(1, 4)))


def constructors(data):
    d = Data(data)
    small = [0, 1, 2, 3, 4, 5, -1, 20, 21, 64, 65, 1 << 24, (1 << 24) + 1, 2**63 - 1, 2**63]
    checks.check_constructors(
        players=value(d, [0, 1, 2, 3, 4, 5, -2]),
        fourth=value(d, [0, 1, 2, -1]), shade=value(d, [0, 1, 2, -1]),
        n=value(d, small), games=value(d, small), seed=value(d),
        kind=d.pick(["random", "greedy", "mcts", "MCTS", "mcts:5", "", None, 3, b"mcts",
                     ["mcts"]]) if d.int(0, 7) else d.text(8),
        simulations=value(d, [1, 2, 30, 0, -1, 10_000_000, 10_000_001]),
        exploration=value(d, [0, 1, 2]))


TARGETS = {name: timed(fn) for name, fn in [
    ("move_text", move_text), ("action_id", action_id), ("position_text", position_text),
    ("record_file", record_file), ("vecgame_inputs", vecgame_inputs),
    ("pickled_state", pickled_state), ("constructors", constructors)]}


def seeds(name):
    """A few starting inputs for target `name` (libFuzzer's seed corpus)."""
    rng = random.Random(name)
    out = [bytes(rng.randrange(256) for _ in range(rng.choice([4, 16, 64, 256])))
           for _ in range(8)]
    if name == "record_file":
        golden = (ROOT / "seeds" / "golden.jsonl").read_bytes().splitlines(keepends=True)
        out += [b"\x00\x00" + b"".join(golden[i:i + 2]) for i in range(0, 8, 2)]
        out += [b"\x00\x01\x01" + line for line in golden[:4]]          # gzipped
    if name == "move_text":
        # a start position, one text, as Latin-1 of its length
        out += [b"\x00" * 5 + b"\x00\x01\x00" + bytes([len(text)]) + text.encode()
                for text in MOVE_TEXTS[::89]]
    return out
