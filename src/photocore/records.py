"""Game records: the JSON format of docs/records.md, files of them, replay and the npz export.

A record keeps a game as its moves from the start position; positions and results follow by
replaying them through the engine, which is also how a record is checked.
"""

import contextlib
import errno
import gzip
import json
import os
import secrets
import struct
import warnings
import zlib

import numpy as np

import photocore
from photocore._game import Game
from photocore.errors import IllegalMoveError, InvalidMoveError, RecordError
from photocore.facts import Options
from photocore.notation import ACTION_OF_TEXT, MOVE_TEXTS, NUM_ACTIONS, parse_move_text

FORMAT = "photocore-game"
VERSION = 1
FIELDS = ("format", "version", "rules_version", "players", "options", "moves", "result",
          "metadata")
OPTIONS = ("fourth_revolution", "shade_blocks")
RESULT_FIELDS = ("scores", "winners", "tokens", "light")

_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
               int: "a number", float: "a number", type(None): "null"}


# ---- one record ------------------------------------------------------------------------

def to_record(game, metadata=None):
    """`game` (played from the start position) as a record dict.

    `metadata` is copied in; `agents` defaults to "unknown" for every seat. The result is
    null while the game is not over.
    """
    if not game.from_start:
        raise ValueError("a record holds a game from its start position; this game began at "
                         f"{game.root().position()!r}")
    metadata = dict(metadata or {})
    metadata.setdefault("agents", ["unknown"] * game.players)
    rec = {
        "format": FORMAT,
        "version": VERSION,
        "rules_version": photocore.RULES_VERSION,
        "players": game.players,
        "options": game.options._asdict(),
        "moves": [str(m) for m in game.history],
        "result": result_of(game),
        "metadata": metadata,
    }
    _check_metadata(metadata, game.players)  # the rest comes from the engine
    return rec


def result_of(game):
    """The `result` field of a record of `game`: None while the game is not over."""
    if not game.is_over:
        return None
    return {"scores": list(game.scores()), "winners": list(game.winners()),
            "tokens": [list(game.tokens(p)) for p in range(game.players)],
            "light": list(game.light)}


def check_record(rec):
    """The action ids of the record's moves, after checking every field of it.

    Raises RecordError naming the field (or the ply of a malformed move) and what is wrong.
    Whether the moves are legal and the result right only a replay tells (from_record).
    """
    if not isinstance(rec, dict):
        raise RecordError(f"a record is a JSON object, not {_json_type(rec)}")
    if rec.get("format") != FORMAT:
        _fail_field(rec, "format", repr(FORMAT))
    version = rec.get("version")
    if not _is_int(version):
        _fail_field(rec, "version", "an integer")
    if version != VERSION:
        raise RecordError(f"unknown format version {version}: this photocore reads version "
                          f"{VERSION}")
    for name in FIELDS:
        if name not in rec:
            raise RecordError(f"missing field {name!r}")
    for name in rec:
        if name not in FIELDS:
            raise RecordError(f"unknown field {name!r} (a record has {', '.join(FIELDS)})")
    if not isinstance(rec["rules_version"], str) or not rec["rules_version"]:
        _fail_field(rec, "rules_version", "a non-empty string")
    players = rec["players"]
    if not _is_int(players) or players not in (2, 3, 4):
        _fail_field(rec, "players", "2, 3 or 4")
    _check_options(rec["options"])
    _check_result(rec["result"], players)
    _check_metadata(rec["metadata"], players)
    return _action_ids(rec["moves"])


def _check_options(options):
    if not isinstance(options, dict):
        raise RecordError(f"field 'options' must be an object, not {_json_type(options)}")
    for name in options:
        if name not in OPTIONS:
            raise RecordError(f"unknown option {name!r} (the options are {', '.join(OPTIONS)})")
    for name in OPTIONS:
        if name not in options:
            raise RecordError(f"missing field 'options.{name}'")
        if type(options[name]) is not bool:
            raise RecordError(f"field 'options.{name}' must be true or false, not "
                              f"{_json_type(options[name])}")


def _check_result(result, players):
    if result is None:
        return
    if not isinstance(result, dict):
        raise RecordError(f"field 'result' must be an object or null, not {_json_type(result)}")
    for name in RESULT_FIELDS:
        if name not in result:
            raise RecordError(f"missing field 'result.{name}'")
    for name in result:
        if name not in RESULT_FIELDS:
            raise RecordError(f"unknown field 'result.{name}'")
    for name in ("scores", "light"):
        _check_ints(result[name], f"result.{name}", players)
    tokens = result["tokens"]
    if not isinstance(tokens, list) or len(tokens) != players:
        raise RecordError(f"field 'result.tokens' must be an array of {players} arrays, one "
                          "per player")
    for p, values in enumerate(tokens):
        _check_ints(values, f"result.tokens[{p}]", None)
    winners = result["winners"]
    _check_ints(winners, "result.winners", None)
    if not winners or winners != sorted(set(winners)) or not 0 <= winners[0] <= winners[-1] < players:
        raise RecordError(f"field 'result.winners' must list players 0..{players - 1}, "
                          f"ascending, at least one, got {winners}")


def _check_ints(values, field, length):
    if not isinstance(values, list) or not set(map(type, values)) <= {int}:
        raise RecordError(f"field {field!r} must be an array of integers")
    if length is not None and len(values) != length:
        raise RecordError(f"field {field!r} must hold {length} values, one per player, "
                          f"got {len(values)}")


def _check_metadata(metadata, players):
    if not isinstance(metadata, dict):
        raise RecordError(f"field 'metadata' must be an object, not {_json_type(metadata)}")
    if "agents" not in metadata:
        raise RecordError("missing field 'metadata.agents'")
    agents = metadata["agents"]
    if (not isinstance(agents, list) or len(agents) != players
            or not all(isinstance(a, str) for a in agents)):
        raise RecordError(f"field 'metadata.agents' must be an array of {players} names, one "
                          "per seat")
    if "seed" in metadata and not _is_int(metadata["seed"]):
        raise RecordError("field 'metadata.seed' must be an integer")


def _action_ids(moves):
    if not isinstance(moves, list):
        raise RecordError(f"field 'moves' must be an array, not {_json_type(moves)}")
    try:
        return list(map(ACTION_OF_TEXT.__getitem__, moves))  # the texts photocore writes
    except (KeyError, TypeError):
        pass
    ids = []
    for ply, text in enumerate(moves, 1):
        if not isinstance(text, str):
            raise RecordError(f"malformed move: {_json_type(text)}, not a string", ply=ply)
        try:
            ids.append(parse_move_text(text))
        except InvalidMoveError as e:
            raise RecordError(f"malformed move {e}", ply=ply) from None
    return ids


def _fail_field(rec, name, expected):
    if name not in rec:
        raise RecordError(f"missing field {name!r}")
    raise RecordError(f"field {name!r} must be {expected}, got {rec[name]!r}")


def _is_int(value):
    return type(value) is int


def _json_type(value):
    return _JSON_TYPES.get(type(value), type(value).__name__)


# ---- replay ----------------------------------------------------------------------------

def from_record(rec, ply=None):
    """The Game of a record after its first `ply` moves (all of them by default).

    Replaying the whole record also checks its stored result. Raises RecordError naming the
    ply of an illegal or malformed move, or what in the result disagrees.
    """
    ids = check_record(rec)
    if ply is not None:
        if not _is_int(ply) or not 0 <= ply <= len(ids):
            raise ValueError(f"ply must be an int from 0 to {len(ids)}, got {ply!r}")
        ids = ids[:ply]
    game = _start(rec)
    play = game.play
    try:
        for a in ids:
            play(a)
    except (IllegalMoveError, InvalidMoveError) as e:
        raise _replay_error(rec, e, len(game.history) + 1) from None
    if ply is None:
        _check_replayed_result(rec, game)
    return game


def positions(rec):
    """Iterates independent Games: the start position, then the position after each move.

    A record of n moves gives n + 1 games; the k-th (from 0) is from_record(rec, ply=k).
    Reaching the end also checks the stored result, as from_record does.
    """
    ids = check_record(rec)
    game = _start(rec)
    yield game.copy()
    for ply, a in enumerate(ids, 1):
        try:
            game.play(a)
        except (IllegalMoveError, InvalidMoveError) as e:
            raise _replay_error(rec, e, ply) from None
        yield game.copy()
    _check_replayed_result(rec, game)


def _start(rec):
    return Game(rec["players"], options=Options(**rec["options"]))


def _replay_error(rec, error, ply):
    kind = "illegal" if isinstance(error, IllegalMoveError) else "malformed"
    return RecordError(f"{kind} move {error}{_rules_note(rec)}", ply=ply)


def _check_replayed_result(rec, game):
    stored, replayed = rec["result"], result_of(game)
    if stored == replayed:
        return
    n = len(rec["moves"])
    if replayed is None:
        reason = f"the record has a result but the game is not over after its {n} moves"
    elif stored is None:
        reason = f"the game is over after its {n} moves but the record's result is null"
    else:
        reason = "the stored result disagrees with the replay: " + "; ".join(
            f"{name} {stored[name]} stored, {replayed[name]} replayed"
            for name in RESULT_FIELDS if stored[name] != replayed[name])
    raise RecordError(reason + _rules_note(rec), ply=n)


def _rules_note(rec):
    if rec["rules_version"] == photocore.RULES_VERSION:
        return ""
    return (f" (the game was played under rules version {rec['rules_version']}, this is "
            f"photocore rules version {photocore.RULES_VERSION})")


# ---- files -----------------------------------------------------------------------------

def read_games(path, on_error="raise", verify=False):
    """The records of a .jsonl (or .jsonl.gz) file, one by one, as a GameReader.

    Every record is checked as it is read (check_record); verify=True also replays it,
    checking each move and the stored result. A bad record raises RecordError naming the
    file, the line and the ply, or with on_error="skip" is counted and passed over.
    """
    return GameReader(path, on_error, verify)


class GameReader:
    """An iterator over the records of one file (see read_games) that keeps counts.

    After (or during) iteration: `games` and `moves` count the records yielded, `skipped`
    the bad ones passed over, `errors` holds their RecordErrors, and `line` is the line of
    the record yielded last. Blank lines are ignored, so a game's number is its line.
    """

    def __init__(self, path, on_error="raise", verify=False):
        if on_error not in ("raise", "skip"):
            raise ValueError(f"on_error must be 'raise' or 'skip', got {on_error!r}")
        self.path = os.fspath(path)
        self.on_error, self.verify = on_error, verify
        self.games = self.moves = self.skipped = self.line = 0
        self.errors = []
        self._records = self._read()

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._records)

    def _read(self):
        for line, data, damage in _lines(self.path):
            try:
                if damage:
                    raise RecordError(damage)
                rec = _parse(data)
                if self.verify:
                    from_record(rec)   # checks the fields too
                else:
                    check_record(rec)
            except RecordError as e:
                error = e.at(self.path, line)
                if self.on_error == "raise":
                    raise error from None
                self.skipped += 1
                self.errors.append(error)
                continue
            self.line = line
            self.games += 1
            self.moves += len(rec["moves"])
            yield rec


def read_game(path, line):
    """The record on line `line` (1-based) of a file, checked but not replayed.

    Only that line is parsed, so other bad lines do not stand in the way; RecordError when
    it is bad or holds no game.
    """
    path = os.fspath(path)
    last = 0
    for number, data, damage in _lines(path):
        if damage:
            raise RecordError(damage, path, number)
        if number == line:
            try:
                rec = _parse(data)
                check_record(rec)
            except RecordError as e:
                raise e.at(path, line) from None
            return rec
        if number > line:
            raise RecordError("no game: the line is blank", path, line)
        last = number
    raise RecordError(f"no game: the file's last game is on line {last}" if last
                      else "no game: the file holds none", path, line)


def _lines(path):
    """(line number, bytes, None) per non-blank line; a damaged compressed stream ends the
    lines with (its line number, None, what is wrong)."""
    line = 0
    with (gzip.open if _compressed(path) else open)(path, "rb") as f:
        try:
            for line, data in enumerate(f, 1):
                if not data.isspace():
                    yield line, data, None
        except (EOFError, OSError, zlib.error) as e:
            if not _compressed(path):
                raise  # a plain file's read error is not about its records
            yield line + 1, None, (f"the compressed stream is damaged or cut short ({e}); "
                                   "nothing after this line can be read")


def _parse(data):
    try:
        return json.loads(data)
    except RecursionError:   # not a ValueError: nesting deeper than the parser's stack
        raise RecordError("malformed JSON: nested too deeply") from None
    except ValueError as e:
        if not data.endswith(b"\n"):
            raise RecordError("truncated last line: it is not valid JSON and the file does not "
                              "end with a newline (was the writer killed mid-game?)") from None
        raise RecordError(f"malformed JSON: {e}") from None


def write_games(path, games):
    """Writes Games and record dicts to `path` (.jsonl, or .jsonl.gz), one per line.

    The lines go to a temporary file in the same folder, renamed over `path` only once all
    are written: an exception or a killed process leaves `path` as it was (an exception
    also removes the temporary file). Returns the number of games written.
    """
    path = os.fspath(path)
    count = 0
    with _atomic(path) as raw, _maybe_gzip(raw, path) as out:
        for game in games:
            out.write(record_line(game))
            count += 1
    return count


class RecordWriter:
    """Appends games to a .jsonl (or .jsonl.gz) file one complete line at a time.

    For self-play: each write() flushes its line to the operating system (fsync=True also
    to the disk), so a killed process leaves every game written before it plus at most one
    truncated last line, which read_games reports and on_error="skip" passes over. Opening
    a .jsonl to append first cuts such a truncated line off (with a warning); a .jsonl.gz
    whose stream was cut short cannot be appended to (RecordError). Use as a context manager
    or call close(); `count` is the number of games written.

    A write that fails (OSError: a full disk; or an exception such as KeyboardInterrupt in
    the middle of it) cuts the file back to where that write began, so the file holds whole
    lines only, and re-raises; the writer then refuses further writes. A .jsonl.gz is then
    closed as a complete gzip stream of the lines before, which a later writer can append to.
    """

    def __init__(self, path, append=True, fsync=False):
        self.path = os.fspath(path)
        self.fsync = fsync
        self.count = 0
        self.failed = None      # the exception that broke a write, if one did
        if append and os.path.exists(self.path):
            _prepare_append(self.path)
        # unbuffered: once a write returns, its bytes are in the file, and after a failed
        # one no byte waits in a buffer to land behind the cut
        self._raw = open(self.path, "ab" if append else "wb", buffering=0)
        self._sink = _Sink(self._raw)
        self._gzip = (gzip.GzipFile(fileobj=self._sink, mode="wb", filename="", mtime=0)
                      if _compressed(self.path) else None)

    def write(self, game):
        """Appends one Game, record dict or line from record_line() as one line."""
        self._write(game if isinstance(game, bytes) else record_line(game))
        self.count += 1

    def write_lines(self, lines):
        """Appends lines from record_line() in one write: a batch reaches the file at once,
        or (if the write fails) not at all."""
        self._write(b"".join(lines))
        self.count += len(lines)

    def _write(self, data):
        if self.failed is not None:
            raise RecordError(f"an earlier write failed ({self.failed}); this writer writes "
                              "no more", path=self.path)
        if self._raw.closed:
            raise ValueError(f"{self.path}: write to a closed RecordWriter")
        size = os.fstat(self._raw.fileno()).st_size
        crc, length = (self._gzip.crc, self._gzip.size) if self._gzip else (None, None)
        try:
            if self._gzip:
                self._gzip.write(data)
                self._gzip.flush()   # a sync flush: every line written can be read now
            else:
                self._sink.write(data)
            if self.fsync:
                os.fsync(self._raw.fileno())
        except BaseException as e:
            self.failed = e
            self._cut(size, crc, length)
            raise

    def _cut(self, size, crc, length):
        """After a failed write: the file back to `size` bytes, a gzip stream ended there."""
        try:
            if os.fstat(self._raw.fileno()).st_size > size:
                os.ftruncate(self._raw.fileno(), size)
        except OSError:
            return   # not a regular file (/dev/full...): nothing was kept there anyway
        if self._gzip is not None:
            # the compressor has taken the failed data in: it must not write its end. The
            # stream up to `size` ends on a sync flush, so an empty final block and the
            # trailer of the lines before make it a whole gzip member.
            self._gzip.fileobj = None
            try:
                self._raw.write(b"\x03\x00" + struct.pack("<II", crc, length & 0xFFFFFFFF))
            except OSError:
                os.ftruncate(self._raw.fileno(), size)   # a cut stream: read_games reads it

    def close(self):
        try:
            if self._gzip is not None and self._gzip.fileobj is not None:
                self._gzip.close()
        finally:
            self._raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class _Sink:
    """An unbuffered binary file whose write() writes everything or raises (a raw file may
    write part of what it is given, as on a disk that fills up)."""

    def __init__(self, raw):
        self.raw = raw

    def write(self, data):
        view = memoryview(data).cast("B")
        while view:
            written = self.raw.write(view)
            if not written:
                raise OSError(errno.EIO, "the file took no bytes")
            view = view[written:]
        return len(data)

    def flush(self):
        pass


def _prepare_append(path):
    if _compressed(path):
        try:
            with gzip.open(path, "rb") as f:
                while f.read(1 << 20):
                    pass
        except (EOFError, OSError, zlib.error) as e:
            raise RecordError(f"cannot append: the compressed stream is damaged or cut short "
                              f"({e}); copy its good games out with read_games(..., "
                              "on_error='skip') and write_games", path=path) from None
        return
    with open(path, "r+b") as f:
        end = f.seek(0, os.SEEK_END)
        start = end
        while start > 0:
            step = min(start, 1 << 16)
            f.seek(start - step)
            newline = f.read(step).rfind(b"\n")
            if newline >= 0:
                start += newline - step + 1
                break
            start -= step
        if start == end:
            return
        f.seek(start)
        try:
            json.loads(f.read())
        except ValueError:
            f.truncate(start)
            warnings.warn(f"{path}: cut off a truncated last line ({end - start} bytes) that "
                          "an interrupted writer left", stacklevel=3)
            return
        f.write(b"\n")  # a complete record that only lacked its newline


def record_line(game):
    """A Game or record dict as one checked JSON line (bytes, newline included)."""
    if isinstance(game, Game):
        rec = to_record(game)
    else:
        check_record(game)
        rec = game
    return json.dumps(rec, separators=(",", ":")).encode() + b"\n"


def _compressed(path):
    return path.endswith(".gz")


@contextlib.contextmanager
def _atomic(path):
    """A binary file that replaces `path` when the block ends without an exception."""
    folder, name = os.path.split(os.path.abspath(path))
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "xb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _maybe_gzip(raw, path):
    if _compressed(path):
        return gzip.GzipFile(fileobj=raw, mode="wb", filename="", mtime=0, compresslevel=6)
    return contextlib.nullcontext(raw)


# ---- npz export ------------------------------------------------------------------------

NPZ_ARRAYS = {"moves": np.uint16, "offsets": np.int64, "players": np.uint8,
              "options": np.uint8, "scores": np.int16, "winners": np.uint8,
              "agents": np.int16}


def write_npz(path, records):
    """Writes records as the numpy arrays of docs/records.md (atomically); returns the count.

    The records are checked, not replayed (read them with verify=True for that). Every
    record must share one rules_version. Metadata other than the agents is dropped.
    """
    moves, offsets, players, options, scores, winners, agents = [], [0], [], [], [], [], []
    names, rules = {}, set()
    for rec in records:
        moves.extend(check_record(rec))
        offsets.append(len(moves))
        players.append(rec["players"])
        options.append(Options(**rec["options"]).flags)
        padded, mask = _npz_result(rec["result"])
        scores.append(padded)
        winners.append(mask)
        seats = [names.setdefault(a, len(names)) for a in rec["metadata"]["agents"]]
        agents.append(seats + [-1] * (4 - len(seats)))
        rules.add(rec["rules_version"])
    if len(rules) > 1:
        raise RecordError(f"the games mix rules versions {', '.join(sorted(rules))}: export "
                          "each version on its own", path=os.fspath(path))
    arrays = {"moves": moves, "offsets": offsets, "players": players, "options": options,
              "scores": scores, "winners": winners, "agents": agents}
    arrays = {name: np.array(values, NPZ_ARRAYS[name]) for name, values in arrays.items()}
    arrays["scores"] = arrays["scores"].reshape(-1, 4)
    arrays["agents"] = arrays["agents"].reshape(-1, 4)
    arrays["agent_names"] = np.array(list(names), dtype=str)
    arrays["rules_version"] = np.array(rules.pop() if rules else photocore.RULES_VERSION)
    with _atomic(os.fspath(path)) as f:
        np.savez_compressed(f, **arrays)
    return len(players)


def _npz_result(result):
    """A result as the export keeps it: scores padded to 4 with -1, winners as a bitmask
    (0 for an unfinished game)."""
    if result is None:
        return [-1] * 4, 0
    return (result["scores"] + [-1] * (4 - len(result["scores"])),
            sum(1 << p for p in result["winners"]))


def load_npz(path):
    """The arrays of an npz export as a dict, checked; RecordError says what is wrong."""
    path = os.fspath(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (ValueError, OSError, zlib.error) as e:
        raise RecordError(f"not an npz export: {e}", path=path) from None
    for name, dtype in {**NPZ_ARRAYS, "agent_names": None, "rules_version": None}.items():
        if name not in arrays:
            raise RecordError(f"missing array {name!r}", path=path)
        if dtype is not None and arrays[name].dtype != dtype:
            raise RecordError(f"array {name!r} must be {np.dtype(dtype)}, not "
                              f"{arrays[name].dtype}", path=path)
    games, offsets = len(arrays["players"]), arrays["offsets"]
    if (offsets.shape != (games + 1,) or offsets[0] != 0 or offsets[-1] != len(arrays["moves"])
            or np.any(np.diff(offsets) < 0)):
        raise RecordError("array 'offsets' must rise from 0 to the number of moves, one more "
                          "entry than games", path=path)
    for name in ("options", "winners"):
        if arrays[name].shape != (games,):
            raise RecordError(f"array {name!r} must hold one value per game", path=path)
    for name in ("scores", "agents"):
        if arrays[name].shape != (games, 4):
            raise RecordError(f"array {name!r} must have shape (games, 4)", path=path)
    if len(arrays["moves"]) and arrays["moves"].max() >= NUM_ACTIONS:
        raise RecordError(f"array 'moves' holds ids outside range({NUM_ACTIONS})", path=path)
    return arrays


def records_from_npz(source):
    """The records of an npz export (a path, or the dict of load_npz), one by one.

    Each game is replayed to restore its result (scores, winners, tokens, light), which must
    agree with the exported scores and winners. Errors give the game's number as the line.
    """
    if isinstance(source, dict):
        arrays, path = source, None
    else:
        path = os.fspath(source)
        arrays = load_npz(path)
    moves, offsets = arrays["moves"].tolist(), arrays["offsets"].tolist()
    names = arrays["agent_names"].tolist()
    for g, (players, options) in enumerate(zip(arrays["players"].tolist(),
                                               arrays["options"].tolist())):
        try:
            options = Options.from_flags(options)
        except ValueError:
            options = None
        if players not in (2, 3, 4) or options is None:
            raise RecordError("players must be 2 to 4 and options 0 to 3", path, g + 1)
        rec = {"format": FORMAT, "version": VERSION,
               "rules_version": str(arrays["rules_version"]), "players": players,
               "options": options._asdict(),
               "moves": [MOVE_TEXTS[a] for a in moves[offsets[g]:offsets[g + 1]]],
               "result": None,
               "metadata": {"agents": [names[i] if 0 <= i < len(names) else "unknown"
                                       for i in arrays["agents"][g, :players].tolist()]}}
        try:
            game = from_record(rec, ply=len(rec["moves"]))  # with a ply: no result to check yet
        except RecordError as e:
            raise e.at(path, g + 1) from None
        rec["result"] = result_of(game)
        exported = (arrays["scores"][g].tolist(), int(arrays["winners"][g]))
        if exported != _npz_result(rec["result"]):
            raise RecordError(f"exported scores {exported[0]} and winners mask {exported[1]} "
                              f"disagree with the replay {_npz_result(rec['result'])}", path,
                              g + 1)
        yield rec
