"""Game records: the JSON format of docs/records.md (its definition: record.schema.json in this
package), files of them, and replay.

A record keeps a game as its moves from the start position; positions and results follow by
replaying them through the engine, which is also how a record is checked.
"""

import collections
import contextlib
import copy
import errno
import gzip
import importlib.resources
import io
import json
import math
import os
import re
import stat
import struct
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import IO, Any, Literal, Self, TypeAlias, cast

import fastjsonschema

from photocore._game import Game
from photocore._kernel import check_bool
from photocore.errors import IllegalMoveError, InvalidMoveError, RecordError
from photocore.facts import RULES_VERSION, Options
from photocore.files import FilePath, atomic
from photocore.limits import READ_CHUNK, RECORD_LINE_CAP, RECORD_READ_PAST, cap_text
from photocore.notation import ACTION_OF_TEXT, parse_move_text

__all__ = [
    "FORMAT", "RECORD_VERSION", "Record", "to_record", "result_of", "check_record", "schema",
    "FIELDS", "RESULT_FIELDS", "ANALYSIS_VERSIONS", "check_analysis", "from_record", "positions",
    "OnError", "read_games", "GameReader", "read_game", "capped_lines", "read_past", "too_long",
    "loads", "dumps", "write_games", "RecordWriter", "kept_lines", "record_line", "is_compressed"
]

FORMAT = "photocore-game"
"""The `format` of every record (docs/records.md): what tells a photocore game record from other
JSON."""
RECORD_VERSION = 1
"""The `version` of the records written (docs/records.md)."""

Record: TypeAlias = dict[str, Any]
"""A record as a dict, the JSON object of docs/records.md."""
# a file's path, as every function here takes it

_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
               int: "a number", float: "a number", type(None): "null"}


# ---- one record ------------------------------------------------------------------------

def to_record(game: Game, metadata: Mapping[str, Any] | None = None) -> Record:
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
        "version": RECORD_VERSION,
        "rules_version": RULES_VERSION,
        "players": game.players,
        "options": game.options._asdict(),
        "moves": [str(m) for m in game.history],
        "result": result_of(game),
        "metadata": metadata,
    }
    check_record(rec)   # the metadata comes from the caller
    return rec


def result_of(game: Game) -> dict[str, Any] | None:
    """The `result` field of a record of `game`: None while the game is not over."""
    if not game.is_over:
        return None
    return {"scores": list(game.scores()), "winners": list(game.winners()),
            "tokens": [list(game.tokens(p)) for p in range(game.players)],
            "light": list(game.light)}


def check_record(rec: object) -> list[int]:
    """The action ids of the record's moves, after checking it against the record schema
    (record.schema.json, shipped in the package), the move notation, and its analysis
    (metadata.analysis of ANALYSIS_VERSIONS) against its moves and players.

    An integer written as a whole float (2.0, which JSON Schema counts as the integer 2) is
    made an int in `rec`, so that every reader of a checked record counts with ints.
    Raises RecordError naming the field (or the ply of a malformed move) and what is wrong.
    Whether the moves are legal and the result right only a replay tells (from_record).
    """
    ids = _schema_checked(rec)
    checked = cast(Record, rec)
    _as_ints(checked, _INTEGERS)
    _check_analysis(checked)
    return ids


def _schema_checked(rec: object) -> list[int]:
    """The action ids of the record's moves, after checking it against the schema and the
    move notation."""
    players = rec.get("players") if isinstance(rec, dict) else None
    if isinstance(rec, dict) and type(players) is int and players in _BY_PLAYERS:
        try:
            _BY_PLAYERS[players](rec)
            return list(map(ACTION_OF_TEXT.__getitem__, rec["moves"]))  # the texts photocore writes
        except (fastjsonschema.JsonSchemaValueException, KeyError, TypeError):
            pass   # the whole schema, then the notation, tell what is wrong
    try:
        _validate(rec)
    except fastjsonschema.JsonSchemaValueException as e:
        if e.path[1:2] == ["moves"] and len(e.path) == 3:   # a move: name its ply
            raise RecordError(f"malformed move: {_json_type(e.value)}, not a string",
                              ply=int(e.path[2]) + 1) from None
        raise RecordError(_schema_error(rec, e)) from None
    return _action_ids(cast(Record, rec)["moves"])


def schema() -> dict[str, Any]:
    """The record schema (JSON Schema, a dict): the definition of the format."""
    text = importlib.resources.files("photocore").joinpath("record.schema.json").read_text(
        encoding="utf-8")
    return cast(dict[str, Any], json.loads(text))


# checks a JSON value against a schema: JsonSchemaValueException where it does not conform
_Validator: TypeAlias = Callable[[object], object]


def _by_players(whole: dict[str, Any]) -> dict[int, _Validator]:
    """Validators of the schema for each player count, for records whose moves turn out to
    be texts photocore writes (so strings): the schema's per-player branches (allOf:
    if players is N then ...) picked by a lookup here rather than tried one by one, and no
    check of each move's type. Together with that lookup they check what the whole schema
    does, at about half its cost."""
    validators: dict[int, _Validator] = {}
    for branch in whole["allOf"]:
        one = copy.deepcopy(whole)
        one["allOf"] = [branch["then"]]
        del one["properties"]["moves"]["items"]
        validators[branch["if"]["properties"]["players"]["const"]] = fastjsonschema.compile(one)
    return validators


_validate: _Validator = fastjsonschema.compile(schema())
_BY_PLAYERS = _by_players(schema())
FIELDS = tuple(schema()["properties"])
"""The top-level fields of a record, in the schema's order (docs/records.md)."""
RESULT_FIELDS = tuple(schema()["properties"]["result"]["properties"])
"""The fields of a record's `result`, in the schema's order."""


def _integer_paths(node: dict[str, Any], whole: dict[str, Any],
                   path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """The paths (field names; "[]": every item of an array) where `node` of the schema
    `whole`, its branches included, wants an integer: a type, an enum or a const of them."""
    if "$ref" in node:
        node = whole["$defs"][node["$ref"].removeprefix("#/$defs/")]
    allowed = node.get("enum", [node["const"]] if "const" in node else [])
    types = node.get("type")
    if (types == "integer" or isinstance(types, list) and "integer" in types
            or allowed and all(type(v) is int for v in allowed)):
        yield path
        return
    for name, field in node.get("properties", {}).items():
        yield from _integer_paths(field, whole, (*path, name))
    if "items" in node:
        yield from _integer_paths(node["items"], whole, (*path, "[]"))
    for branch in (node, *node.get("allOf", ())):
        if "then" in branch:
            yield from _integer_paths(branch["then"], whole, path)


def _integer_tree(paths: Iterable[tuple[str, ...]]) -> dict[str, Any]:
    """The paths as a tree, for _as_ints: key -> True (an integer there) or the tree under."""
    tree: dict[str, Any] = {}
    for path in paths:
        node = tree
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = True
    return tree


# where a record holds integers, which JSON may write as whole floats (2.0)
_INTEGERS = _integer_tree(_integer_paths(schema(), schema()))


def _as_ints(value: Any, where: dict[str, Any]) -> None:
    """Makes the whole floats under `value` at the places `where` (a part of _INTEGERS)
    ints, in place. Only whole floats change, and the types are not taken for granted (an
    analysis of a later version is not checked by the schema)."""
    if isinstance(value, list):
        items = where.get("[]")
        if items is True:
            if float in map(type, value):
                value[:] = map(_int, value)
        elif items is not None:
            for item in value:
                _as_ints(item, items)
    elif isinstance(value, dict):
        for key, under in where.items():
            if key in value:
                if under is not True:
                    _as_ints(value[key], under)
                elif type(value[key]) is float:
                    value[key] = _int(value[key])


def _int(value: Any) -> Any:
    return int(value) if type(value) is float and value.is_integer() else value


ANALYSIS_VERSIONS = (1, 2)
"""The versions of metadata.analysis (docs/analysis.md) photocore checks and reads: 2 added the
solver's exact plies; photocore.analysis writes the last."""
# their arrays of one entry per move
_ANALYSIS_PER_MOVE: dict[int, tuple[str, ...]] = {
    1: ("player", "best", "best_value", "played_value", "loss", "labels", "forced")}
_ANALYSIS_PER_MOVE[2] = (*_ANALYSIS_PER_MOVE[1], "exact", "best_margin", "played_margin")


# an analysis alone, as a record holds it (metadata.analysis)
_validate_analysis: _Validator = fastjsonschema.compile({
    "$defs": schema()["$defs"], "type": "object",
    "properties": {"metadata": {"type": "object",
                                "properties": {"analysis": {"$ref": "#/$defs/analysis"}}}}})


def check_analysis(data: object, players: int, moves: int | None = None) -> None:
    """Checks an analysis on its own as check_record checks a record's.

    Args:
        data: an analysis of ANALYSIS_VERSIONS (metadata.analysis, as
            GameAnalysis.from_json reads it).
        players: the game's number of players.
        moves: the game's number of moves (None: as many as the analysis has best moves).

    Raises:
        RecordError: naming the field that is wrong.

    >>> check_analysis({"version": 2, "judge": "mcts:5"}, 2)
    Traceback (most recent call last):
    ...
    photocore.errors.RecordError: missing field 'metadata.analysis.seed'
    """
    holder = {"metadata": {"analysis": data}}
    try:
        _validate_analysis(holder)
    except fastjsonschema.JsonSchemaValueException as e:
        raise RecordError(_schema_error(holder, e)) from None
    analysis = cast(dict[str, Any], data)
    _check_analysis_fields(analysis, len(analysis["best"]) if moves is None else moves, players)


def _check_analysis(rec: Record) -> None:
    """What the schema cannot say of a record's analysis of ANALYSIS_VERSIONS (later
    versions pass as data)."""
    if _analysed(rec):
        _check_analysis_fields(rec["metadata"]["analysis"], len(rec["moves"]), rec["players"])


def _check_analysis_fields(data: dict[str, Any], moves: int, players: int) -> None:
    """That an analysis is of a game of `moves` moves and `players`: one entry per move, per
    position (the moves + 1) and per player, its players among the game's and its best
    moves in the notation."""
    for name in _ANALYSIS_PER_MOVE[data["version"]]:
        if len(data[name]) != moves:
            raise RecordError(f"field 'metadata.analysis.{name}' covers {len(data[name])} "
                              f"moves, the game has {moves}")
    if len(data["values"]) != moves + 1:
        raise RecordError(f"field 'metadata.analysis.values' must hold {moves + 1} values, "
                          f"one per position (the moves + 1), got {len(data['values'])}")
    rows = {f"values[{k}]": v for k, v in enumerate(data["values"])}
    rows["accuracy"] = data["accuracy"]
    for field, values in rows.items():
        if len(values) != players:
            raise RecordError(f"field 'metadata.analysis.{field}' must hold {players} values, "
                              f"one per player, got {len(values)}")
    for k, player in enumerate(data["player"]):
        if player >= players:
            raise RecordError(f"field 'metadata.analysis.player[{k}]' must be at most "
                              f"{players - 1}, got {player}", ply=k + 1)
    for k, text in enumerate(data["best"]):
        if text not in ACTION_OF_TEXT:
            try:
                parse_move_text(text)
            except InvalidMoveError as e:
                raise RecordError(f"field 'metadata.analysis.best[{k}]': malformed move {e}",
                                  ply=k + 1) from None


def _analysed(rec: Record) -> bool:
    """Whether the record holds an analysis of a version this photocore reads."""
    data = rec["metadata"].get("analysis")
    return data is not None and data["version"] in ANALYSIS_VERSIONS


def _check_analysed_ply(rec: Record, game: Game, ply: int, action: int) -> None:
    """What the record's analysis (of ANALYSIS_VERSIONS) says of move `ply`, `action`, about to be
    played on `game`, against the replay: who moves, and that the engine's best move is
    legal there. An illegal move itself is left to the replay to report."""
    data = rec["metadata"]["analysis"]
    player, best = data["player"][ply - 1], data["best"][ply - 1]
    if not game.is_legal(action):
        return
    if player != game.current_player:
        raise RecordError(f"field 'metadata.analysis.player[{ply - 1}]' says player {player} "
                          f"made this move, the replay says player {game.current_player}",
                          ply=ply)
    if not game.is_legal(best):
        raise RecordError(f"field 'metadata.analysis.best[{ply - 1}]': {best} is not a legal "
                          "move there", ply=ply)


def _schema_error(rec: object, error: fastjsonschema.JsonSchemaValueException) -> str:
    """What the schema found wrong, in words, naming the field."""
    # the format and version explain every other difference: they come first
    if isinstance(rec, dict) and "format" in rec and rec["format"] != FORMAT:
        return f"field 'format' must be {FORMAT!r}, got {rec['format']!r}"
    version = rec.get("version") if isinstance(rec, dict) else None
    if type(version) is int and version != RECORD_VERSION:
        return (f"unknown format version {version}: this photocore reads version "
                f"{RECORD_VERSION}")
    rule, value, definition = error.rule, error.value, error.definition
    path = error.path[1:]
    if rule == "required":
        missing = next(k for k in definition["required"] if k not in value)
        return f"missing field {_field(path + [missing])!r}"
    if rule == "additionalProperties":
        known = definition["properties"]
        extra = next(k for k in value if k not in known)
        return f"unknown field {_field(path + [extra])!r} (known: {', '.join(known)})"
    if not path:
        return f"a record is a JSON object, not {_json_type(value)}"
    field = _field(path)
    if rule == "type":
        types = definition["type"] if isinstance(definition["type"], list) else [definition["type"]]
        return (f"field {field!r} must be {' or '.join(_TYPE_WORDS[t] for t in types)}, "
                f"not {_json_type(value)}")
    if rule == "const":
        return f"field {field!r} must be {definition['const']!r}, got {value!r}"
    if rule == "enum":
        *rest, last = map(repr, definition["enum"])
        return f"field {field!r} must be {', '.join(rest)} or {last}, got {value!r}"
    if rule in ("minItems", "maxItems"):
        low, high = definition.get("minItems"), definition.get("maxItems")
        size = (f"{low} values, one per player" if low == high else
                f"at least {low} value{'s' if low != 1 else ''}" if rule == "minItems" else
                f"at most {high} values")
        return f"field {field!r} must hold {size}, got {len(value)}"
    if rule in ("minimum", "maximum"):
        bound = definition[rule]
        return (f"field {field!r} must be {'at least' if rule == 'minimum' else 'at most'} "
                f"{bound}, got {value!r}")
    if rule == "uniqueItems":
        return f"field {field!r} must not repeat a value, got {value!r}"
    if rule == "minLength":
        return f"field {field!r} must not be empty"
    return f"field {field!r}: {error.message.removeprefix('data.' + field + ' ')}"


def _field(path: Sequence[str]) -> str:
    """A field's name as docs/records.md writes it: result.tokens[1]."""
    return "".join(f"[{part}]" if part.isdigit() else f".{part}" for part in path)[1:]


_TYPE_WORDS = {"object": "an object", "array": "an array", "string": "a string",
               "boolean": "true or false", "integer": "an integer", "null": "null",
               "number": "a number"}


def _action_ids(moves: list[Any]) -> list[int]:
    try:
        return list(map(ACTION_OF_TEXT.__getitem__, moves))  # the texts photocore writes
    except (KeyError, TypeError):
        pass
    ids = []
    for ply, text in enumerate(moves, 1):
        try:
            ids.append(parse_move_text(text))
        except InvalidMoveError as e:
            raise RecordError(f"malformed move {e}", ply=ply) from None
    return ids


def _is_int(value: object) -> bool:
    return type(value) is int


def _json_type(value: object) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


# ---- replay ----------------------------------------------------------------------------

def from_record(rec: Record, ply: int | None = None) -> Game:
    """The Game of a record after its first `ply` moves (all of them by default).

    Replaying the whole record also checks its stored result and that no move follows a
    forfeit. Raises RecordError naming the ply of an illegal or malformed move, of a move
    after a forfeit, or what in the result disagrees. Each call replays from the start: to
    visit every position of a record, positions(rec) replays it once.
    """
    ids = check_record(rec)
    if ply is None:
        _check_forfeit(rec)
    else:
        if not _is_int(ply) or not 0 <= ply <= len(ids):
            raise ValueError(f"ply must be an int from 0 to {len(ids)}, got {ply!r}")
        ids = ids[:ply]
    game = _start(rec)
    if _analysed(rec):
        for _ in _replayed(rec, game, ids):
            pass
    else:   # the loop of _replayed, without its checks of an analysis: faster
        play = game.play
        try:
            for a in ids:
                play(a)
        except (IllegalMoveError, InvalidMoveError) as e:
            raise _replay_error(rec, e, len(game.history) + 1) from None
    if ply is None:
        _check_replayed_result(rec, game)
    return game


def positions(rec: Record, history: bool = True) -> Iterator[Game]:
    """Iterates independent Games: the start position, then the position after each move,
    in one replay of the record.

    A record of n moves gives n + 1 games; the k-th (from 0) is from_record(rec, ply=k).
    Reaching the end also checks the stored result, as from_record does; a record whose
    moves go on after a forfeit yields nothing. With `history=False` each game comes
    without its history (its root() is itself): a copy of the state alone, where a copy
    with history copies the moves so far, so walking a long record takes time in
    proportion to its length, not to its square.

    >>> game = Game(players=2)
    >>> for text in ["place a4", "place g1", "place d1"]:
    ...     game.play(text)
    >>> rec = to_record(game)
    >>> for position, move in zip(positions(rec, history=False), rec["moves"]):
    ...     print(position.current_player, move, len(position.legal_moves()))
    0 place a4 18
    1 place g1 17
    0 place d1 16
    """
    keep = check_bool(history, "history")
    ids = check_record(rec)
    _check_forfeit(rec)
    game = _start(rec)
    yield game.copy(keep)
    for played in _replayed(rec, game, ids):
        yield played.copy(keep)
    _check_replayed_result(rec, game)


def _replayed(rec: Record, game: Game, ids: Sequence[int]) -> Iterator[Game]:
    """Plays the moves `ids` of `rec` on `game`, its start, yielding `game` after each.
    RecordError naming the ply of an illegal move, or of one the record's analysis says
    otherwise of than the replay."""
    analysed = _analysed(rec)
    for ply, a in enumerate(ids, 1):
        if analysed:
            _check_analysed_ply(rec, game, ply, a)
        try:
            game.play(a)
        except (IllegalMoveError, InvalidMoveError) as e:
            raise _replay_error(rec, e, ply) from None
        yield game


def _start(rec: Record) -> Game:
    return Game(rec["players"], options=Options(**rec["options"]))


def _replay_error(rec: Record, error: IllegalMoveError | InvalidMoveError,
                  ply: int) -> RecordError:
    kind = "illegal" if isinstance(error, IllegalMoveError) else "malformed"
    return RecordError(f"{kind} move {error}{_rules_note(rec)}", ply=ply)


def _check_forfeit(rec: Record) -> None:
    """A forfeit (metadata.forfeit: a seat resigned or lost by a fault) ends the game there:
    the record stops at it, unfinished, after `ply` moves where it says."""
    forfeit = rec["metadata"].get("forfeit")
    if forfeit is None:
        return
    n, ply = len(rec["moves"]), forfeit.get("ply")
    what = (f"player {forfeit['seat']} "
            + ("resigned" if forfeit["reason"] == "resigned" else "forfeited"))
    when = f"after move {ply}" if ply else "before any move"
    if ply is not None and ply < n:
        raise RecordError(f"a move after the forfeit: {what} {when} (metadata.forfeit), and "
                          f"the record goes on to {n} moves", ply=ply + 1)
    if ply is not None and ply > n:
        raise RecordError(f"metadata.forfeit.ply is {ply}, past the record's {n} moves", ply=n)
    if rec["result"] is not None:
        raise RecordError(f"the record has a result, but {what} (metadata.forfeit): a forfeit "
                          "ends the game unfinished", ply=n)


def _check_replayed_result(rec: Record, game: Game) -> None:
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


def _rules_note(rec: Record) -> str:
    if rec["rules_version"] == RULES_VERSION:
        return ""
    return (f" (the game was played under rules version {rec['rules_version']}, this is "
            f"photocore rules version {RULES_VERSION})")


# ---- files -----------------------------------------------------------------------------

OnError: TypeAlias = Literal["raise", "skip"]
"""What a reader does with a bad record: "raise" its error, or "skip" it (counted and passed
over)."""
_Readable: TypeAlias = io.BufferedIOBase | IO[bytes]   # a file of bytes, gzip or plain


def read_games(path: FilePath, on_error: OnError = "raise", verify: bool = False) -> "GameReader":
    """The records of a .jsonl (or .jsonl.gz) file, one by one, as a GameReader.

    Every record is checked as it is read (check_record); verify=True also replays it,
    checking each move and the stored result. A bad record raises RecordError naming the
    file, the line and the ply, or with on_error="skip" is counted and passed over.
    """
    return GameReader(path, on_error, verify)


class GameReader:
    """An iterator over the records of one file (see read_games) that keeps counts.

    After (or during) iteration: `games` and `moves` count the records yielded, `skipped`
    the bad lines passed over (one longer than RECORD_LINE_CAP among them), and `line` is
    the line of the record yielded last. Blank lines are ignored, so a game's number is its
    line.
    """

    def __init__(self, path: FilePath, on_error: OnError = "raise", verify: bool = False) -> None:
        if on_error not in ("raise", "skip"):
            raise ValueError(f"on_error must be 'raise' or 'skip', got {on_error!r}")
        self.path = os.fspath(path)
        self.on_error, self.verify = on_error, verify
        self.games = self.moves = self.skipped = self.line = 0
        self.errors: list[RecordError] = []
        """The RecordErrors of the lines skipped and of `damaged`, in file order."""
        self.damaged: RecordError | None = None
        """The RecordError of what ends the file's reading early (no game: the lines after
        it are lost): a compressed stream whose end cannot be read, or a line that runs on
        past RECORD_READ_PAST without a newline. None while the file reads to its end."""
        self._records = self._read()

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> Record:
        return next(self._records)

    def _read(self) -> Iterator[Record]:
        for line, data, damage, kind in _lines(self.path):
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
                if kind == "ends":
                    self.damaged = error
                else:
                    self.skipped += 1
                self.errors.append(error)
                continue
            self.line = line
            self.games += 1
            self.moves += len(rec["moves"])
            yield rec


def read_game(path: FilePath, line: int) -> Record:
    """The record on line `line` (1-based) of a file, checked but not replayed.

    Only that line is parsed, so other bad lines do not stand in the way; RecordError when
    it is bad or holds no game.
    """
    path = os.fspath(path)
    last = 0
    for number, data, damage, kind in _lines(path):
        if damage and (kind == "ends" or number == line):
            raise RecordError(damage, path, number)
        if number == line:
            try:
                rec: Record = _parse(data)
                check_record(rec)
            except RecordError as e:
                raise e.at(path, line) from None
            return rec
        if number > line:
            raise RecordError("no game: the line is blank", path, line)
        last = number
    raise RecordError(f"no game: the file's last game is on line {last}" if last
                      else "no game: the file holds none", path, line)


def _lines(path: str) -> Iterator[tuple[int, bytes, str | None, str | None]]:
    """(line number, bytes, None) per non-blank line; (line number, b"", what is wrong,
    "ends" or "line") for a line that cannot be read: "line" for one longer than
    RECORD_LINE_CAP, read past (the lines after it are read), "ends" for what ends the
    lines, a damaged compressed stream or a line that runs on past RECORD_READ_PAST."""
    line = 0
    compressed = is_compressed(path)
    with (gzip.open if compressed else open)(path, "rb") as f:
        try:
            for line, data in enumerate(capped_lines(f), 1):
                if data is None:
                    yield line, b"", too_long(RECORD_LINE_CAP, "record line"), "line"
                    if not read_past(f):
                        yield line, b"", (f"the line runs on past {cap_text(RECORD_READ_PAST)} "
                                          "without a newline: nothing after it is read"), "ends"
                        return
                elif not data.isspace():
                    yield line, data, None, None
        except (EOFError, OSError, zlib.error) as e:
            if not compressed:
                raise  # a plain file's read error is not about its records
            yield line + 1, b"", (f"the compressed stream is damaged or cut short ({e}); "
                                  "nothing after this line can be read"), "ends"


def capped_lines(f: "_Readable", cap: int = RECORD_LINE_CAP) -> Iterator[bytes | None]:
    """The lines of the binary file `f`, each read with at most `cap` bytes (newline
    included) in memory: None for a longer one, whose first cap + 1 bytes are read and
    dropped (the caller reads past the rest, read_past, or stops)."""
    while line := f.readline(cap + 1):
        yield None if len(line) > cap else line


def read_past(f: "_Readable", limit: int = RECORD_READ_PAST) -> bool:
    """Reads `f` past the end of the line it stands in, READ_CHUNK bytes at a time and
    none kept; False (having read `limit` bytes) if no newline came by then. The end of
    the file ends the line."""
    read = 0
    while read < limit:
        chunk = f.readline(READ_CHUNK)
        if not chunk or chunk.endswith(b"\n"):
            return True
        read += len(chunk)
    return False


def too_long(cap: int, what: str) -> str:
    """The reason a line longer than `cap` is refused."""
    return f"a {what} longer than {cap_text(cap)} (the cap on one; it is not read)"


def _parse(data: bytes) -> Any:
    try:
        return loads(data)
    except RecordError as e:
        if e.reason.startswith("malformed JSON: ") and not data.endswith(b"\n"):
            raise RecordError("truncated last line: it is not valid JSON and the file does "
                              "not end with a newline (was the writer killed mid-game?)") \
                from None
        raise


# a number whose text may overflow a float to infinity: a three-digit exponent, or 300
# digits (the rest cannot, so they take json's own float and skip the slower check)
_HUGE_NUMBER = re.compile(rb"[eE]\+?\d{3}|\d{300}")


class _Refused:
    """What loads() puts where JSON holds a value it refuses, to name the field after."""

    def __init__(self, why: str) -> None:
        self.why = why


def loads(data: bytes | str) -> Any:
    """One JSON value, read as photocore reads every record, file and message: strictly
    JSON. NaN and Infinity (not JSON), a number too large for a float (1e400, which
    Python's reader makes infinity), an integer of more digits than Python reads, a key
    written twice in one object (JSON's readers disagree on which wins) and nesting
    deeper than the parser's stack are refused: RecordError, naming the field.

    >>> loads(b'{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    >>> loads(b'{"metadata": {"note": 1e400}}')
    Traceback (most recent call last):
    ...
    photocore.errors.RecordError: field 'metadata.note': 1e400 is not a finite number
    >>> loads(b'{"moves": [], "moves": ["place a4"]}')
    Traceback (most recent call last):
    ...
    photocore.errors.RecordError: field 'moves' is written twice in one object
    """
    refused = False

    def refuse(why: str) -> _Refused:
        nonlocal refused
        refused = True
        return _Refused(why)

    def number(text: str) -> float | _Refused:
        value = float(text)
        if math.isfinite(value):
            return value
        return refuse(f"{text if len(text) <= 24 else text[:21] + '...'} is not a finite number")

    def integer(text: str) -> int | _Refused:
        try:
            return int(text)
        except ValueError:          # past Python's limit of digits (4,300)
            return refuse(f"an integer of {len(text.lstrip('-')):,} digits is too long")

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any] | _Refused:
        obj = dict(items)
        if len(obj) != len(items):
            twice = next(k for k, n in collections.Counter(k for k, _ in items).items()
                         if n > 1)
            obj[twice] = refuse("is written twice in one object")
        return obj

    raw = data.encode() if isinstance(data, str) else data
    try:
        value = json.loads(data, parse_constant=lambda name: refuse(f"{name} is not JSON"),
                           object_pairs_hook=pairs,
                           parse_float=number if _HUGE_NUMBER.search(raw) else None,
                           parse_int=integer if _HUGE_NUMBER.search(raw) else None)
    except RecursionError:   # not a ValueError: nesting deeper than the parser's stack
        raise RecordError("malformed JSON: nested too deeply") from None
    except ValueError as e:
        raise RecordError(f"malformed JSON: {e}") from None
    if refused:
        path, why = _first_refused(value)
        if not path:
            raise RecordError(f"malformed JSON: {why}")
        raise RecordError(f"field {_field(path)!r}{'' if why.startswith('is ') else ':'} {why}")
    return value


def _first_refused(value: Any, path: tuple[str, ...] = ()) -> tuple[tuple[str, ...], str]:
    """The path to loads()'s first refused value in `value` and why it is refused; ((), "")
    if there is none."""
    if isinstance(value, _Refused):
        return path, value.why
    items = (value.items() if isinstance(value, dict) else
             ((str(k), v) for k, v in enumerate(value)) if isinstance(value, list) else ())
    for key, item in items:
        found = _first_refused(item, (*path, key))
        if found[1]:
            return found
    return (), ""


def dumps(value: Any, **options: Any) -> str:
    """`value` as JSON text (json.dumps with `options`), never a text loads() refuses: a
    NaN or an infinity anywhere is a RecordError naming its field, and nothing is written.

    >>> dumps({"loss": [0.0, float("inf")]})
    Traceback (most recent call last):
    ...
    photocore.errors.RecordError: field 'loss[1]' is inf: JSON holds finite numbers only
    """
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError:
        path = _first_non_finite(value)
        if path is None:
            raise
        where, number = path
        raise RecordError(f"{f'field {_field(where)!r}' if where else 'the value'} is {number}: "
                          "JSON holds finite numbers only") from None


def _first_non_finite(value: Any, path: tuple[str, ...] = ()
                      ) -> tuple[tuple[str, ...], float] | None:
    if isinstance(value, float) and not math.isfinite(value):
        return path, value
    items = (value.items() if isinstance(value, dict) else
             ((str(k), v) for k, v in enumerate(value)) if isinstance(value, (list, tuple))
             else ())
    for key, item in items:
        found = _first_non_finite(item, (*path, str(key)))
        if found is not None:
            return found
    return None


def write_games(path: FilePath, games: Iterable[Game | Record]) -> int:
    """Writes Games and record dicts to `path` (.jsonl, or .jsonl.gz), one per line.

    The lines go to a temporary file in the same folder, renamed over `path` only once all
    are written (files.atomic: through a link, keeping the file's mode): an exception or a
    killed process leaves `path` as it was (an exception also removes the temporary file).
    Returns the number of games written.
    """
    path = os.fspath(path)
    count = 0
    with atomic(path) as raw, _maybe_gzip(raw, path) as out:
        for game in games:
            out.write(record_line(game))
            count += 1
    return count


class RecordWriter:
    """Appends games to a .jsonl (or .jsonl.gz) file one complete line at a time.

    For self-play: each write() puts its line in the file at once (fsync=True: on the disk
    too), so a killed process leaves every game written before it plus at most the start
    of one more. A .jsonl.gz is a whole gzip file after every write (_GzipMember); a file
    that already exists is appended to as what it holds (gzip or plain JSON lines,
    whatever its name). Opening a file to append first cuts off what a killed writer left
    of an unfinished write (with a warning): a .jsonl's truncated last line, a .jsonl.gz's
    cut stream back to its last whole line; a .jsonl.gz damaged otherwise cannot be
    appended to (RecordError). Use as a context manager or call close(); `count` is the
    number of games written.

    A write that fails (OSError: a full disk; or an exception such as KeyboardInterrupt in
    the middle of it) leaves the file as it was before that write, a whole file of whole
    lines, without needing a byte of free space to do so, and re-raises; the writer then
    refuses further writes.
    """

    def __init__(self, path: FilePath, append: bool = True, fsync: bool = False) -> None:
        self.path = os.fspath(path)
        self.fsync = fsync
        self.count = 0
        self.failed: BaseException | None = None
        """The exception that broke a write, if any: the writer then refuses further
        writes."""
        exists = append and os.path.exists(self.path)
        compressed = is_compressed(self.path) if exists else _named_compressed(self.path)
        if exists:
            (_prepare_gzip_append if compressed else _prepare_append)(self.path)
        # unbuffered: once a write returns, its bytes are in the file, and after a failed
        # one no byte waits in a buffer to land behind the cut; close() closes it
        # a gzip member's end is written over in place (pwrite), which O_APPEND forbids
        flags = (os.O_WRONLY | os.O_CREAT | (0 if append else os.O_TRUNC)
                 | (os.O_APPEND if append and not compressed else 0))
        self._fd = os.open(self.path, flags | getattr(os, "O_CLOEXEC", 0), 0o666)
        self._regular = stat.S_ISREG(os.fstat(self._fd).st_mode)
        self._gzip = _GzipMember() if compressed else None
        self._closed = False

    def write(self, game: Game | Record | bytes) -> None:
        """Appends one Game, record dict or line from record_line() as one line."""
        self._write(game if isinstance(game, bytes) else record_line(game))
        self.count += 1

    def write_lines(self, lines: Sequence[bytes]) -> None:
        """Appends lines from record_line() in one write: a batch reaches the file at once,
        or (if the write fails) not at all."""
        self._write(b"".join(lines))
        self.count += len(lines)

    def _write(self, data: bytes) -> None:
        if self.failed is not None:
            raise RecordError(f"an earlier write failed ({self.failed}); this writer writes "
                              "no more", path=self.path)
        if self._closed:
            raise ValueError(f"{self.path}: write to a closed RecordWriter")
        size = os.fstat(self._fd).st_size if self._regular else 0
        try:
            if self._gzip is None:
                _write_all(self._fd, data)
            elif self._regular:
                self._gzip.write(self._fd, data, size)
            else:   # a pipe: the member's end comes once, at close()
                _write_all(self._fd, self._gzip.compress(data))
            if self.fsync and self._regular:
                os.fsync(self._fd)
        except BaseException as e:
            self.failed = e
            if self._regular:
                self._restore(size)
            raise

    def _restore(self, size: int) -> None:
        """After a failed write: the file as it was, `size` bytes. Cutting frees space and
        the gzip member's end goes back where it was, over bytes the file already had."""
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, size)
            if self._gzip is not None:
                self._gzip.restore(self._fd)

    def close(self) -> None:
        """Ends a .jsonl.gz's gzip stream and closes the file; a second call does nothing."""
        if self._closed:
            return
        self._closed = True
        try:
            if (self._gzip is not None and self._gzip.started and not self._regular
                    and self.failed is None):
                _write_all(self._fd, self._gzip.end())
        finally:
            os.close(self._fd)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# a gzip member's header (no name, no time: the same bytes for the same games) and the
# final empty deflate block that ends its data after a sync flush
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
_LAST_BLOCK = b"\x03\x00"


class _GzipMember:
    """The gzip member a RecordWriter appends to a file, kept whole after every write.

    Each write is compressed up to a sync flush and written with the member's end (the
    last empty block, the checksum and the length: 10 bytes) after it, so the file is a
    complete gzip file at every moment; the next write starts over that end. A failed
    write puts the end back where it was, in bytes the file held before, which needs no
    free space: a full disk leaves a whole file that a later writer appends to.
    """

    def __init__(self) -> None:
        self._deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
        self.started = False               # the header written
        self._crc = self._length = 0
        self._end: int | None = None       # where the member's end lies in the file
        self._written = b""                # that end, as written
        self._previous: tuple[int | None, bytes] = (None, b"")  # both, before the last write

    def compress(self, data: bytes) -> bytes:
        """`data` as the member's next bytes, its header first, up to a sync flush."""
        head = b"" if self.started else _GZIP_HEADER
        self.started = True
        self._crc = zlib.crc32(data, self._crc)
        self._length += len(data)
        return head + self._deflate.compress(data) + self._deflate.flush(zlib.Z_SYNC_FLUSH)

    def end(self) -> bytes:
        """The member's end after the bytes compressed so far."""
        return _LAST_BLOCK + struct.pack("<II", self._crc, self._length & 0xFFFFFFFF)

    def write(self, fd: int, data: bytes, size: int) -> None:
        """Writes `data` to the file `fd` (`size` bytes long): over the member's end, or
        after the file's last byte for the member's first write."""
        at = size if self._end is None else self._end
        self._previous = (self._end, self._written)
        chunk = self.compress(data)
        end = self.end()
        _write_all(fd, chunk + end, at)
        self._end, self._written = at + len(chunk), end

    def restore(self, fd: int) -> None:
        """After a failed write (the file cut back to its size before it): the end that
        was there before, written again in place."""
        self._end, self._written = self._previous
        if self._end is not None:
            _write_all(fd, self._written, self._end)


def _write_all(fd: int, data: bytes, at: int | None = None) -> None:
    """Writes all of `data` to `fd` (at offset `at`, or where it stands), or raises: a
    write may take part of what it is given, as on a disk that fills up."""
    view = memoryview(data).cast("B")
    while view:
        written = os.write(fd, view) if at is None else os.pwrite(fd, view, at)
        if not written:
            raise OSError(errno.EIO, "the file took no bytes")
        view = view[written:]
        if at is not None:
            at += written


def _prepare_append(path: str) -> None:
    with open(path, "r+b") as f:
        end = f.seek(0, os.SEEK_END)
        start = end
        while start > 0 and end - start <= RECORD_LINE_CAP:    # read back a cap at most
            step = min(start, 1 << 16)
            f.seek(start - step)
            newline = f.read(step).rfind(b"\n")
            if newline >= 0:
                start += newline - step + 1
                break
            start -= step
        if start == end:
            return
        if end - start > RECORD_LINE_CAP:
            raise RecordError(f"cannot append: its last line is longer than "
                              f"{cap_text(RECORD_LINE_CAP)}, the cap on a record line; "
                              f"`photocore repair {path}` drops it", path=path)
        f.seek(start)
        try:
            loads(f.read())
        except RecordError:
            f.truncate(start)
            warnings.warn(f"{path}: cut off a truncated last line ({end - start} bytes) that "
                          "an interrupted writer left", stacklevel=3)
            return
        f.write(b"\n")  # a complete record that only lacked its newline


def _prepare_gzip_append(path: str) -> None:
    """Before appending to the gzip file `path`: an unfinished last member that a killed
    writer left is cut back to its last whole line and ended there (a warning says how
    many bytes went); any other damage is a RecordError (see _unfinished_member)."""
    unfinished = _unfinished_member(path)
    if unfinished is None:
        return
    start, end, lines, _ = unfinished
    with open(path, "r+b") as f:
        dropped = f.seek(0, os.SEEK_END) - start - end
        f.truncate(start + end)
        if lines:
            f.seek(start + end)
            f.write(_LAST_BLOCK + struct.pack("<II", zlib.crc32(lines), len(lines) & 0xFFFFFFFF))
    warnings.warn(f"{path}: cut off the last {dropped} bytes of compressed data, the "
                  "unfinished write of an interrupted writer", stacklevel=3)


def kept_lines(path: FilePath) -> int | None:
    """How many lines of the gzip record file `path` a RecordWriter appending to it keeps,
    once it has cut off the unfinished write a killed writer left (None: every line, the
    file is whole). RecordError when it cannot be appended to (see RecordWriter)."""
    unfinished = _unfinished_member(os.fspath(path))
    if unfinished is None:
        return None
    _, _, lines, before = unfinished
    return before + lines.count(b"\n")


def _unfinished_member(path: str) -> tuple[int, int, bytes, int] | None:
    """The gzip file `path` read through, member by member: None if every member is whole;
    for an unfinished last member (a killed writer's), (where it starts, how many of its
    bytes end at its last whole line, the data they hold, the lines before it). A file
    damaged otherwise, or whose last member cannot be so ended, is a RecordError that
    sends the user to `photocore repair`."""
    start = read = before = 0   # where the member being read starts; bytes read; its lines
    lines = 0                   # lines of the members read so far
    member = zlib.decompressobj(16 + zlib.MAX_WBITS)
    run = 0                     # bytes since the last newline
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            read += len(chunk)
            while True:     # inflated READ_CHUNK bytes at a time: a bomb does not fill memory
                try:
                    data = member.decompress(chunk, READ_CHUNK)
                except zlib.error as e:
                    raise _unappendable(path, e) from None
                lines += data.count(b"\n")
                newline = data.rfind(b"\n")
                run = len(data) - newline - 1 if newline >= 0 else run + len(data)
                if run > RECORD_LINE_CAP:
                    raise _unappendable(path, too_long(RECORD_LINE_CAP, "record line"))
                if member.eof:
                    chunk = member.unused_data      # the next member's first bytes
                    start, before = read - len(chunk), lines
                    member = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    if not chunk:
                        break
                    continue
                chunk = member.unconsumed_tail
                if not chunk and len(data) < READ_CHUNK:
                    break
        if start == read:
            return None                         # every member whole
        f.seek(start)
        unfinished = f.read()
    kept = _whole_lines_end(unfinished)
    if kept is None:
        raise _unappendable(path, "its last gzip member is cut short inside a line")
    return start, kept[0], kept[1], before


def _whole_lines_end(member: bytes) -> tuple[int, bytes] | None:
    """Where the unfinished gzip member `member` can end with whole lines only, as (its
    bytes kept, their data): at the last sync flush after a line, checked by decompressing
    the member so ended; (0, b"") when it holds no whole line (the member goes); None when
    it holds whole lines but no such place (it is not what _GzipMember writes)."""
    try:
        so_far = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(member)
    except zlib.error:
        return None
    if b"\n" not in so_far:
        return 0, b""
    flush = len(member)
    # a sync flush ends in these bytes; compressed data may hold them too, rarely
    while (flush := member.rfind(b"\x00\x00\xff\xff", 0, flush)) >= 0:
        cut = member[:flush + 4]
        with contextlib.suppress(zlib.error):
            lines = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(cut)
            if lines.endswith(b"\n"):
                ended = (cut + _LAST_BLOCK
                         + struct.pack("<II", zlib.crc32(lines), len(lines) & 0xFFFFFFFF))
                check = zlib.decompressobj(16 + zlib.MAX_WBITS)
                if check.decompress(ended) == lines and check.eof and not check.unused_data:
                    return len(cut), lines
    return None


def _unappendable(path: str, why: object) -> RecordError:
    return RecordError(f"cannot append: the compressed stream is damaged or cut short "
                       f"({why}); `photocore repair {path}` keeps its whole games "
                       "(or copy them out with read_games(..., on_error='skip') and "
                       "write_games)", path=path)


def record_line(game: Game | Record, metadata: Mapping[str, Any] | None = None) -> bytes:
    """A Game (with `metadata`, as to_record takes it) or a record dict as one checked
    JSON line (bytes, newline included); a Game's record is checked once, by to_record."""
    if isinstance(game, Game):
        rec = to_record(game, metadata)
    elif metadata is not None:
        raise TypeError("record_line: metadata goes with a Game; a record dict holds its own")
    else:
        check_record(game)
        rec = game
    line = dumps(rec, separators=(",", ":")).encode() + b"\n"
    if len(line) > RECORD_LINE_CAP:     # no reader would read it back
        raise RecordError(f"the record's line is {len(line):,} bytes, past the cap of "
                          f"{cap_text(RECORD_LINE_CAP)} on one (its metadata is too large?)")
    return line


def is_compressed(path: FilePath) -> bool:
    """Whether the record file at `path` is gzip: by its first bytes where it holds any,
    else (a file to be written) by its name, .gz. A plain .jsonl named .jsonl.gz is read
    and appended to as what it is."""
    with contextlib.suppress(OSError), open(path, "rb") as f:
        head = f.read(2)
        if head:
            return head == b"\x1f\x8b"
    return _named_compressed(os.fspath(path))


def _named_compressed(path: str) -> bool:
    return path.endswith(".gz")


def _maybe_gzip(raw: io.BufferedWriter,
                path: str) -> contextlib.AbstractContextManager[io.BufferedIOBase]:
    if _named_compressed(path):
        return gzip.GzipFile(fileobj=raw, mode="wb", filename="", mtime=0, compresslevel=6)
    return contextlib.nullcontext(raw)

