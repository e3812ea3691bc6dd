"""A record replayed through the engine: its positions, and the checks only a replay makes
(legal moves, the stored result, forfeits, its analysis against the positions)."""

from collections.abc import Iterator, Sequence

from photocore._game import Game
from photocore._kernel import check_bool
from photocore.errors import IllegalMoveError, InvalidMoveError, RecordError
from photocore.facts import RULES_VERSION, Options
from photocore.records.analysis import _analysed, _check_analysed_ply
from photocore.records.build import check_record, result_of
from photocore.records.format import RESULT_FIELDS, Record

__all__ = ["from_record", "positions"]


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

    >>> from photocore.records import to_record
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



def _is_int(value: object) -> bool:
    return type(value) is int
