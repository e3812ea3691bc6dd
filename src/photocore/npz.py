"""The npz export of game records (docs/records.md): one numpy array per field, all games
end to end, for training pipelines; and the records back from it by replay."""

import os
import zlib
from collections.abc import Iterable, Iterator
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from photocore.errors import RecordError
from photocore.facts import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    OPTIONS,
    PLAYERS,
    RULES_VERSION,
    Options,
)
from photocore.files import FilePath, atomic
from photocore.notation import MOVE_TEXTS
from photocore.records import (
    FORMAT,
    RECORD_VERSION,
    Record,
    check_record,
    from_record,
    result_of,
)

__all__ = ["Arrays", "ARRAYS", "write", "load", "read_records"]

_FLAGS = {options.flags for options in OPTIONS}
Arrays: TypeAlias = dict[str, npt.NDArray[Any]]
"""The arrays of an export by name: all of ARRAYS, and "agent_names" and "rules_version"."""
ARRAYS: dict[str, type[np.generic]] = {
    "moves": np.uint16, "offsets": np.int64, "players": np.uint8, "options": np.uint8,
    "scores": np.int16, "winners": np.uint8, "agents": np.int16}
"""The numeric arrays of an export and the dtype each is stored as."""


def write(path: FilePath, records: Iterable[Record]) -> int:
    """Writes records as the numpy arrays of docs/records.md (atomically); returns the count.

    The records are checked, not replayed (read them with verify=True for that). Every
    record must share one rules_version. Metadata other than the agents is dropped.
    """
    moves, offsets, players, options, winners = [], [0], [], [], []
    scores: list[list[int]] = []
    agents: list[list[int]] = []
    names: dict[str, int] = {}
    rules: set[str] = set()
    for rec in records:
        moves.extend(check_record(rec))
        offsets.append(len(moves))
        players.append(rec["players"])
        options.append(Options(**rec["options"]).flags)
        padded, mask = _exported_result(rec["result"])
        scores.append(padded)
        winners.append(mask)
        seats = [names.setdefault(a, len(names)) for a in rec["metadata"]["agents"]]
        agents.append(seats + [-1] * (MAX_PLAYERS - len(seats)))
        rules.add(rec["rules_version"])
    if len(rules) > 1:
        raise RecordError(f"the games mix rules versions {', '.join(sorted(rules))}: export "
                          "each version on its own", path=os.fspath(path))
    columns = {"moves": moves, "offsets": offsets, "players": players, "options": options,
               "scores": scores, "winners": winners, "agents": agents}
    arrays: Arrays = {name: np.array(values, ARRAYS[name]) for name, values in columns.items()}
    arrays["scores"] = arrays["scores"].reshape(-1, MAX_PLAYERS)
    arrays["agents"] = arrays["agents"].reshape(-1, MAX_PLAYERS)
    arrays["agent_names"] = np.array(list(names), dtype=str)
    arrays["rules_version"] = np.array(rules.pop() if rules else RULES_VERSION)
    with atomic(path) as f:
        # numpy's stub: a key of **arrays could be its allow_pickle
        np.savez_compressed(f, **arrays)  # type: ignore[arg-type]
    return len(players)


def _exported_result(result: dict[str, Any] | None) -> tuple[list[int], int]:
    """A result as the export keeps it: scores padded to MAX_PLAYERS with -1, winners as a
    bitmask (0 for an unfinished game)."""
    if result is None:
        return [-1] * MAX_PLAYERS, 0
    return (result["scores"] + [-1] * (MAX_PLAYERS - len(result["scores"])),
            sum(1 << p for p in result["winners"]))


def load(path: FilePath) -> Arrays:
    """The arrays of an npz export as a dict, checked; RecordError says what is wrong."""
    path = os.fspath(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (ValueError, OSError, zlib.error) as e:
        raise RecordError(f"not an npz export: {e}", path=path) from None
    dtypes: dict[str, type[np.generic] | None] = {**ARRAYS, "agent_names": None,
                                                  "rules_version": None}
    for name, dtype in dtypes.items():
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
        if arrays[name].shape != (games, MAX_PLAYERS):
            raise RecordError(f"array {name!r} must have shape (games, {MAX_PLAYERS})",
                              path=path)
    if len(arrays["moves"]) and arrays["moves"].max() >= NUM_ACTIONS:
        raise RecordError(f"array 'moves' holds ids outside range({NUM_ACTIONS})", path=path)
    return arrays


def read_records(source: FilePath | Arrays) -> Iterator[Record]:
    """The records of an npz export (a path, or the dict of load), one by one.

    Each game is replayed to restore its result (scores, winners, tokens, light), which must
    agree with the exported scores and winners. Errors give the game's number as the line.
    """
    path: str | None
    if isinstance(source, dict):
        arrays, path = source, None
    else:
        path = os.fspath(source)
        arrays = load(path)
    moves, offsets = arrays["moves"].tolist(), arrays["offsets"].tolist()
    names = arrays["agent_names"].tolist()
    for g, (players, options) in enumerate(zip(arrays["players"].tolist(),
                                               arrays["options"].tolist())):
        if players not in PLAYERS or options not in _FLAGS:
            raise RecordError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS} and options one "
                              f"of {sorted(_FLAGS)}", path, g + 1)
        rec: Record = {"format": FORMAT, "version": RECORD_VERSION,
               "rules_version": str(arrays["rules_version"]), "players": players,
               "options": Options.from_flags(options)._asdict(),
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
        if exported != _exported_result(rec["result"]):
            raise RecordError(f"exported scores {exported[0]} and winners mask {exported[1]} "
                              f"disagree with the replay {_exported_result(rec['result'])}", path,
                              g + 1)
        yield rec
