"""The files the commands write: checked before any work, and any failure told in one line
naming the file (never a temporary file), with nothing left behind; and the record file of
a run (selfplay, match): resumed, written by the driver, and what it holds once stopped."""

import contextlib
import importlib
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import ModuleType

import click

from photocore.errors import RecordError, needs_extra
from photocore.files import atomic, input_among
from photocore.records import Record, RecordWriter
from photocore.run.driver import ResumeError, resumed
from photocore.run.plan import Batch, Resumable, RunError
from photocore.strictjson import dumps

__all__ = [
    "RECORD_SUFFIXES", "record_file", "check_writable", "writing", "reason", "needs", "missing",
    "resume_from", "run_output"
]

# what a file of game records is named: the writers compress by the name (photocore.records)
RECORD_SUFFIXES = (".jsonl", ".jsonl.gz")


class OutputFile:
    """The click callback of an option naming a file to write: refuses any name without
    one of `suffixes`, which the option's help promises and which says what the file holds
    (a.txt holding a zip or gzip would be misread); `what` says where it goes. A device or
    a FIFO that exists is no file to be read back by its name: let through."""

    def __init__(self, suffixes: tuple[str, ...], what: str) -> None:
        self.suffixes, self.what = suffixes, what

    def __call__(self, ctx: click.Context, param: click.Parameter,
                 path: str | None) -> str | None:
        if (path is not None and not path.endswith(self.suffixes)
                and not (os.path.exists(path) and not os.path.isfile(path)
                         and not os.path.isdir(path))):
            raise click.BadParameter(f"{path}: {self.what}", ctx, param)
        return path


# game records, compressed by the name alone (a.gz would be gzip, a.txt plain JSON lines)
record_file = OutputFile(RECORD_SUFFIXES, "game records are written to a .jsonl file (or "
                                          ".jsonl.gz, compressed)")
# export's arrays, a zip numpy.load opens by its name
npz_file = OutputFile((".npz",), "the arrays are written to a .npz file (a zip of numpy "
                                 "arrays)")
png_file = OutputFile((".png",), "the charts are drawn into a .png file")
html_file = OutputFile((".html",), "the page is written to a .html file")


def check_writable(path: str, append: bool = False, inputs: Iterable[str] = ()) -> None:
    """Raises a one-line ClickException unless `path` can be written: its folder exists and
    takes new files (a file is written to a temporary file there, then renamed), to
    append, the file itself is writable, and it is none of `inputs`, the files the command
    reads (through links and hard links too: files.same_file)."""
    reason = _why_not_writable(path, append)
    same = None if reason else input_among(path, inputs)
    if same is not None:
        reason = (f"it is {'' if same == path else f'{same}, '}one of the files this command "
                  "reads: choose another")
    if reason:
        raise click.ClickException(f"cannot write {path}: {reason}")


def write_summary(path: str, data: Mapping[str, object]) -> None:
    """The JSON of --summary, written to a temporary file and renamed: never half written."""
    with writing(path), atomic(path) as f:
        f.write((dumps(data, indent=1) + "\n").encode())


def _why_not_writable(path: str, append: bool) -> str | None:
    if os.path.isdir(path):
        return "it is a folder"
    folder = os.path.dirname(path) or "."
    if not os.path.exists(folder):
        return f"the folder {folder} does not exist"
    if not os.path.isdir(folder):
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} is not writable"
    if append and os.path.exists(path) and not os.access(path, os.W_OK):
        return "permission denied"
    return None


@contextlib.contextmanager
def writing(path: str) -> Iterator[None]:
    """Turns an OSError raised while the block writes `path` into one line naming `path`
    (the writers of photocore.records remove their temporary file first)."""
    try:
        yield
    except OSError as e:
        if e.filename is not None and not _beside(e.filename, path):
            raise click.ClickException(f"{e.filename}: {reason(e)}") from None  # an input
        raise click.ClickException(f"cannot write {path}: {reason(e)}") from None


def _beside(name: str | bytes, path: str) -> bool:
    """Whether `name` is `path` or a file in its folder (its temporary file)."""
    folder = os.path.dirname(os.path.abspath(path))
    return os.path.dirname(os.path.abspath(os.fsdecode(name))) == folder


def reason(error: BaseException) -> str:
    """An exception's reason in words, without its file name."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)


def needs(module: str, what: str, extra: str, package: str | None = None) -> ModuleType:
    """Imports `module`, which `what` (an option) needs, or stops with missing()'s line."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise missing(what, extra, e, package) from None


def missing(what: str, extra: str, error: ImportError,
            package: str | None = None) -> click.ClickException:
    """The one-line ClickException for an optional dependency that is not installed:
    what needs it, the ImportError, and the extra that installs it."""
    return click.ClickException(needs_extra(what, extra, error, package))


# ---- the record file of a run ------------------------------------------------------------

def resume_from(out: str, resume: bool, plan: Resumable[Batch], set_by: Mapping[str, str],
                take: Callable[[int, Record], object] | None = None,
                inputs: Iterable[str] = ()) -> int:
    """Checks OUT before any game is played: not there yet (or --resume), writable, none
    of `inputs`, and, to resume, holding this run's first games (driver.resumed, each
    handed to `take`). Returns how many it holds."""
    if not resume and os.path.lexists(out):
        raise click.UsageError(f"{out} exists: choose another --out, remove it, or --resume")
    check_writable(out, append=resume, inputs=inputs)
    try:
        return resumed(out, plan, set_by, take) if resume else 0
    except ResumeError as e:
        raise click.ClickException(str(e)) from None


@contextlib.contextmanager
def run_output(command: str, out: str | None, resume: bool, skip: int,
               interrupted: Callable[[], object] | None = None
               ) -> Iterator[RecordWriter | None]:
    """OUT opened for the run (to append to, resuming; None without OUT), for the block
    to hand to the driver. A run that stops is told in one line with what OUT holds and
    how to finish it: Ctrl-C (exit status 130, after `interrupted()`), a RunError, or a
    write that failed (status 1). A new OUT that got no game is removed."""
    created = out is not None and not os.path.exists(out)
    writer = None
    if out is not None:
        with warnings.catch_warnings(record=True) as cut:
            warnings.simplefilter("always")
            try:
                writer = RecordWriter(out, append=resume)
            except (OSError, RecordError) as e:
                raise click.ClickException(f"cannot write {out}: {reason(e)}") from None
        for warning in cut:      # a truncated last line cut off: say so in one line
            click.echo(f"photocore {command}: {warning.message}", err=True)
    try:
        with writer or contextlib.nullcontext():
            yield writer
    except KeyboardInterrupt:
        click.echo(f"\nphotocore {command}: interrupted. {_kept(out, skip, writer, created)}",
                   err=True)
        if interrupted is not None:
            interrupted()
        raise click.exceptions.Exit(130) from None
    except RunError as e:
        raise click.ClickException(f"{e}. {_kept(out, skip, writer, created)}") from None
    except OSError as e:
        if writer is None or writer.failed is not e:
            raise
        raise click.ClickException(f"cannot write {out}: {reason(e)}. "
                                   f"{_kept(out, skip, writer, created)}") from None


def _kept(out: str | None, skip: int, writer: RecordWriter | None, created: bool) -> str:
    """What OUT holds after a stopped run (its writer closed), and how to finish it. A file
    this run created and wrote no game to is removed: the same command then starts afresh."""
    if out is None or writer is None:
        return "No games were written (no --out)."
    if created and writer.count == 0:
        with contextlib.suppress(OSError):
            os.unlink(out)
        why = ("No game could be written to it" if writer.failed is not None
               else "No game was written to it")
        return f"{why}; {out} was removed: run the same command again"
    return (f"{out} holds the {skip + writer.count:,} games finished before "
            f"({writer.count:,} from this run), whole lines only: run the same command with "
            "--resume to play the rest")
