"""Strict JSON, as photocore reads and writes every record, file and message: the records'
files, the analysis server's queries and the served API's bodies alike.

JSON's readers disagree on what Python's `json` lets through (NaN, Infinity, a number past a
float's range, a key written twice): `loads` refuses them, naming the field, and `dumps`
never writes them.
"""

import collections
import json
import math
import re
from collections.abc import Sequence
from typing import Any

from photocore.errors import RecordError

__all__ = ["loads", "dumps", "field_name"]


def field_name(path: Sequence[str]) -> str:
    """A field's name as docs/records.md writes it: result.tokens[1] for the path
    ("result", "tokens", "1")."""
    return "".join(f"[{part}]" if part.isdigit() else f".{part}" for part in path)[1:]


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
        raise RecordError(f"field {field_name(path)!r}{'' if why.startswith('is ') else ':'} "
                          f"{why}")
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
        named = f"field {field_name(where)!r}" if where else "the value"
        raise RecordError(f"{named} is {number}: JSON holds finite numbers only") from None


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
