"""The record format's definition: its schema (record.schema.json in the package), the
fields it names, and what it finds wrong in a record, in words naming the field."""

import copy
import functools
import importlib.resources
import json
from collections.abc import Callable
from typing import Any, TypeAlias, cast

import fastjsonschema

from photocore.strictjson import field_name

__all__ = ["FORMAT", "RECORD_VERSION", "Record", "schema", "FIELDS", "RESULT_FIELDS"]

FORMAT = "photocore-game"
"""The `format` of every record (docs/records.md): what tells a photocore game record from other
JSON."""
RECORD_VERSION = 1
"""The `version` of the records written (docs/records.md)."""

Record: TypeAlias = dict[str, Any]
"""A record as a dict, the JSON object of docs/records.md."""

_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
               int: "a number", float: "a number", type(None): "null"}


def schema() -> dict[str, Any]:
    """The record schema (JSON Schema, a dict): the definition of the format."""
    text = importlib.resources.files("photocore").joinpath("record.schema.json").read_text(
        encoding="utf-8")
    return cast(dict[str, Any], json.loads(text))


# checks a JSON value against a schema: JsonSchemaValueException where it does not conform
_Validator: TypeAlias = Callable[[object], object]


# compiled on first use, not at import: the four compiles were three quarters of the time
# `import photocore` took, paid by every process (workers, the command) that checks no record
@functools.cache
def _validator() -> _Validator:
    """The whole schema's validator."""
    return cast(_Validator, fastjsonschema.compile(schema()))


@functools.cache
def _by_players() -> dict[int, _Validator]:
    """Validators of the schema for each player count, for records whose moves turn out to
    be texts photocore writes (so strings): the schema's per-player branches (allOf:
    if players is N then ...) picked by a lookup here rather than tried one by one, and no
    check of each move's type. Together with that lookup they check what the whole schema
    does, at about half its cost."""
    whole = schema()
    validators: dict[int, _Validator] = {}
    for branch in whole["allOf"]:
        one = copy.deepcopy(whole)
        one["allOf"] = [branch["then"]]
        del one["properties"]["moves"]["items"]
        validators[branch["if"]["properties"]["players"]["const"]] = fastjsonschema.compile(one)
    return validators


FIELDS = tuple(schema()["properties"])
"""The top-level fields of a record, in the schema's order (docs/records.md)."""
RESULT_FIELDS = tuple(schema()["properties"]["result"]["properties"])
"""The fields of a record's `result`, in the schema's order."""


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
        return f"missing field {field_name(path + [missing])!r}"
    if rule == "additionalProperties":
        known = definition["properties"]
        extra = next(k for k in value if k not in known)
        return f"unknown field {field_name(path + [extra])!r} (known: {', '.join(known)})"
    if not path:
        return f"a record is a JSON object, not {_json_type(value)}"
    field = field_name(path)
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



_TYPE_WORDS = {"object": "an object", "array": "an array", "string": "a string",
               "boolean": "true or false", "integer": "an integer", "null": "null",
               "number": "a number"}



def _json_type(value: object) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)
