"""The files the commands write: checked before any work, and any failure told in one line
naming the file (never a temporary file), with nothing left behind."""

import contextlib
import importlib
import os

import click


def check_writable(path, append=False):
    """Raises a one-line ClickException unless `path` can be written: its folder exists and
    takes new files (a file is written to a temporary file there, then renamed), and, to
    append, the file itself is writable."""
    reason = _why_not_writable(path, append)
    if reason:
        raise click.ClickException(f"cannot write {path}: {reason}")


def _why_not_writable(path, append):
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
def writing(path):
    """Turns an OSError raised while the block writes `path` into one line naming `path`
    (the writers of photocore.records remove their temporary file first)."""
    try:
        yield
    except OSError as e:
        if e.filename is not None and not _beside(e.filename, path):
            raise click.ClickException(f"{e.filename}: {reason(e)}") from None  # an input
        raise click.ClickException(f"cannot write {path}: {reason(e)}") from None


def _beside(name, path):
    """Whether `name` is `path` or a file in its folder (its temporary file)."""
    folder = os.path.dirname(os.path.abspath(path))
    return os.path.dirname(os.path.abspath(os.fsdecode(name))) == folder


def reason(error):
    """An exception's reason in words, without its file name."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)


def needs(module, what, extra, package=None):
    """Imports `module`, which `what` (an option) needs, or stops with missing()'s line."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise missing(what, extra, e, package) from None


def missing(what, extra, error, package=None):
    """The one-line ClickException for an optional dependency that is not installed:
    what needs it, the ImportError, and the extra that installs it."""
    return click.ClickException(f"{what} needs {package or error.name or 'a package'} "
                                f"({error}): pip install 'photocore[{extra}]'")
