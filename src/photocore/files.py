"""Files written whole or not at all, for every writer of the package: records, exports,
pages, charts, summaries, training shards.

>>> import os, tempfile
>>> folder = tempfile.TemporaryDirectory()
>>> path = os.path.join(folder.name, "out.txt")
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

What stands at the path is respected: a link is followed (the file it names is replaced,
the link stays), a file keeps its permissions, and a device or a pipe is written through
rather than replaced by a regular file:

>>> link = os.path.join(os.path.dirname(path), "link.txt")
>>> os.symlink(path, link); os.chmod(path, 0o600)
>>> with atomic(link) as f:
...     _ = f.write(b"through the link")
>>> os.path.islink(link), open(path, "rb").read(), oct(os.stat(path).st_mode & 0o777)
(True, b'through the link', '0o600')
>>> folder.cleanup()
"""

import contextlib
import io
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from typing import TypeAlias

__all__ = ["FilePath", "atomic", "same_file", "expanded", "input_among"]

FilePath: TypeAlias = str | os.PathLike[str]   # a path, as open() takes it


@contextlib.contextmanager
def atomic(path: FilePath) -> Iterator[io.BufferedWriter]:
    """A binary file that replaces `path` when the block ends without an exception: a
    temporary file beside it, flushed to the disk (fsync), then renamed into place, so a
    reader never sees half a file and a crash leaves the old one. On any exception,
    Ctrl-C included, the temporary file goes and `path` is untouched.

    A symbolic link at `path` is followed: the file it names is replaced and the link
    stays. A file replaced keeps its permission bits (and, where this process may set
    them, its owner and group). A character device or a FIFO at `path` (/dev/null,
    /dev/stdout, a named pipe) is written through, as a shell's `>` would, since there is
    no file to replace; any other kind of file (a block device, a socket) is refused with
    an OSError naming it, before anything is written.
    """
    target = os.path.realpath(path)   # through every link: a link stays a link
    try:
        there = os.stat(target)
    except FileNotFoundError:
        there = None
    if there is not None and not stat.S_ISREG(there.st_mode):
        if stat.S_ISDIR(there.st_mode):
            raise IsADirectoryError(21, "Is a directory", os.fspath(path))
        if not (stat.S_ISCHR(there.st_mode) or stat.S_ISFIFO(there.st_mode)):
            raise OSError(f"{os.fspath(path)}: not a regular file, a character device or a "
                          "pipe: refused as an output")
        # written through: nothing here to keep whole, and a device must stay a device
        with open(os.open(target, os.O_WRONLY), "wb") as f:
            yield f
        return
    folder, name = os.path.split(target)
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "xb") as f:
            if there is not None:
                _keep_mode(f.fileno(), there)
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _keep_mode(fd: int, there: os.stat_result) -> None:
    """The new file gets the replaced one's permission bits, owner and group (these two
    only where this process may set them: as root, or its own group)."""
    with contextlib.suppress(PermissionError):
        os.fchown(fd, there.st_uid, there.st_gid)
    os.fchmod(fd, stat.S_IMODE(there.st_mode))


def same_file(a: FilePath, b: FilePath) -> bool:
    """Whether `a` and `b` name one file: the same path through links, or (both existing)
    the same file on disk, hard links included.

    >>> same_file(".", os.getcwd()), same_file(".", os.path.join(os.getcwd(), "no-such-file"))
    (True, False)
    """
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def expanded(path: FilePath) -> str:
    """`path` with a leading `~` or `~user` made that home folder, as a shell would; a
    ValueError naming it when there is no such user (rather than a traceback, or a folder
    named `~user` made in the current one).

    >>> expanded("x/~y") == "x/~y", expanded("~no_such_user_at_all/x")
    Traceback (most recent call last):
    ...
    ValueError: no user 'no_such_user_at_all' to take a home folder from
    """
    text = os.fspath(path)
    if not text.startswith("~"):
        return text
    done = os.path.expanduser(text)
    if done.startswith("~"):
        user = text[1:].split(os.sep, 1)[0]
        raise ValueError(f"no user {user!r} to take a home folder from" if user else
                         "no home folder to take ~ from")
    return done


def input_among(output: FilePath, inputs: Iterable[FilePath]) -> str | None:
    """The first of `inputs` that `output` would overwrite (same_file), else None: every
    command checks its outputs so, before it reads or writes anything."""
    return next((os.fspath(i) for i in inputs if same_file(output, i)), None)
