"""The caps on what photocore reads from outside: every line, message and body read from a
file, a pipe, a socket or a terminal has one here (docs/hardening.md, "Every line from
outside has a cap"). A reader reads at most its cap (and a chunk) into memory: a longer
line is refused or read past in bounded chunks, never held.

tests/contracts/test_limits.py finds every place in the package that reads lines or text and
checks that each is named there with its cap and a test that feeds it a line past it.

>>> RECORD_LINE_CAP // 2**20, QUERY_LINE_CAP // 2**10, ENGINE_LINE_CAP, HTTP_BODY_CAP // 2**10
(16, 1024, 16384, 256)
"""

__all__ = [
    "RECORD_LINE_CAP", "RECORD_READ_PAST", "READ_CHUNK", "QUERY_LINE_CAP", "ENGINE_LINE_CAP",
    "HTTP_BODY_CAP", "SOLVED_LINE_CAP", "TERMINAL_LINE_CAP", "cap_text"
]

# One game record's line, newline included (docs/records.md). The longest real one
# measured is about 30 KB (a four-player game of four revolutions, random moves, with
# analysis annotations); the cap leaves over 500 times that for metadata.
RECORD_LINE_CAP = 16 * 2**20

# A line longer than RECORD_LINE_CAP is read past (in READ_CHUNK pieces, not kept) to
# its newline, so the lines after it are read, up to this far: a line that runs on past
# it (/dev/zero, a decompression bomb) ends the file's reading there.
RECORD_READ_PAST = 16 * RECORD_LINE_CAP

READ_CHUNK = 2**20          # bytes read at once while reading past a long line

QUERY_LINE_CAP = 2**20      # one query line of `photocore analyze --serve`
ENGINE_LINE_CAP = 16384     # one line from an engine (docs/protocol.md), newline excluded
HTTP_BODY_CAP = 256 * 2**10  # a request's body (photocore serve)
SOLVED_LINE_CAP = 2**20     # one line of a solved-position set (seeds/solved.jsonl: 1.9 KB)
TERMINAL_LINE_CAP = 4096    # one line typed at (or piped into) `photocore play`


def cap_text(cap: int) -> str:
    """A cap in words, for messages.

    >>> cap_text(RECORD_LINE_CAP), cap_text(HTTP_BODY_CAP), cap_text(ENGINE_LINE_CAP)
    ('16 MiB', '256 KiB', '16 KiB')
    """
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if cap >= size and cap % size == 0:
            return f"{cap // size} {unit}"
    return f"{cap:,} bytes"
