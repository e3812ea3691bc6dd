"""The analysis a record may hold (metadata.analysis, docs/analysis.md; photocore.analysis
writes it): its check against the record's moves and players, alone and in a replay."""

from typing import Any, cast

import fastjsonschema

from photocore._game import Game
from photocore.errors import InvalidMoveError, RecordError
from photocore.notation import ACTION_OF_TEXT, parse_move_text
from photocore.records.format import Record, _schema_error, _Validator, schema

__all__ = ["ANALYSIS_VERSIONS", "check_analysis"]


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
