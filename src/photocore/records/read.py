"""Files of records read: every line checked (or replayed), bad ones raised or counted and
passed over, lines capped in length, gzip or plain."""

import contextlib
import gzip
import io
import os
import zlib
from collections.abc import Iterator
from typing import IO, Any, Literal, Self, TypeAlias

from photocore.errors import RecordError
from photocore.files import FilePath
from photocore.limits import READ_CHUNK, RECORD_LINE_CAP, RECORD_READ_PAST, cap_text
from photocore.records.build import check_record
from photocore.records.format import Record
from photocore.records.replay import from_record
from photocore.strictjson import loads

__all__ = ["OnError", "read_games", "GameReader", "read_game", "capped_lines", "read_past",
           "too_long", "is_compressed"]

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
