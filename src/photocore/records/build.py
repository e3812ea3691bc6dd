"""One record built from a Game and checked: against the schema, the move notation and its
analysis."""

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, cast

import fastjsonschema

from photocore._game import Game
from photocore.errors import InvalidMoveError, RecordError
from photocore.facts import RULES_VERSION
from photocore.notation import ACTION_OF_TEXT, parse_move_text
from photocore.records.analysis import _check_analysis
from photocore.records.format import (
    FORMAT,
    RECORD_VERSION,
    Record,
    _by_players,
    _json_type,
    _schema_error,
    _validator,
    schema,
)

__all__ = ["to_record", "result_of", "check_record"]


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
    if isinstance(rec, dict) and type(players) is int and players in _by_players():
        try:
            _by_players()[players](rec)
            return list(map(ACTION_OF_TEXT.__getitem__, rec["moves"]))  # the texts photocore writes
        except (fastjsonschema.JsonSchemaValueException, KeyError, TypeError):
            pass   # the whole schema, then the notation, tell what is wrong
    try:
        _validator()(rec)
    except fastjsonschema.JsonSchemaValueException as e:
        if e.path[1:2] == ["moves"] and len(e.path) == 3:   # a move: name its ply
            raise RecordError(f"malformed move: {_json_type(e.value)}, not a string",
                              ply=int(e.path[2]) + 1) from None
        raise RecordError(_schema_error(rec, e)) from None
    return _action_ids(cast(Record, rec)["moves"])


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
