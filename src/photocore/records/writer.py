"""Files of records written: whole (write_games) or appended a line at a time (RecordWriter),
a .jsonl.gz whole after every write, and what a killed writer left cut off before appending."""

import contextlib
import errno
import gzip
import io
import os
import stat
import struct
import warnings
import zlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Self

from photocore._game import Game
from photocore.errors import RecordError
from photocore.files import FilePath, atomic
from photocore.limits import READ_CHUNK, RECORD_LINE_CAP, cap_text
from photocore.records.build import check_record, to_record
from photocore.records.format import Record
from photocore.records.read import _named_compressed, is_compressed, too_long
from photocore.strictjson import dumps, loads

__all__ = ["write_games", "RecordWriter", "kept_lines", "record_line"]


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


def _maybe_gzip(raw: io.BufferedWriter,
                path: str) -> contextlib.AbstractContextManager[io.BufferedIOBase]:
    if _named_compressed(path):
        return gzip.GzipFile(fileobj=raw, mode="wb", filename="", mtime=0, compresslevel=6)
    return contextlib.nullcontext(raw)
