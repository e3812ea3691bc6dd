"""Files written whole or not at all, for every writer of the package: records, exports,
pages, charts, summaries, training shards.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "out.txt")
>>> with atomic(path) as f:
...     _ = f.write(b"all of it")
>>> open(path, "rb").read()
b'all of it'
>>> with atomic(path) as f:
...     _ = f.write(b"half")
...     raise OSError("disk full")
Traceback (most recent call last):
...
OSError: disk full
>>> open(path, "rb").read(), os.listdir(os.path.dirname(path))
(b'all of it', ['out.txt'])
"""

import contextlib
import io
import os
import secrets
from collections.abc import Iterator
from typing import TypeAlias

FilePath: TypeAlias = str | os.PathLike[str]   # a path, as open() takes it


@contextlib.contextmanager
def atomic(path: FilePath) -> Iterator[io.BufferedWriter]:
    """A binary file that replaces `path` when the block ends without an exception: a
    temporary file beside it, flushed to the disk (fsync), then renamed into place, so a
    reader never sees half a file and a crash leaves the old one. On any exception,
    Ctrl-C included, the temporary file goes and `path` is untouched."""
    folder, name = os.path.split(os.path.abspath(path))
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "xb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
