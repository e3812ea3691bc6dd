"""The exceptions photocore raises: ValueErrors for bad input, InvariantError for its own bugs."""

__all__ = [
    "InvalidMoveError", "IllegalMoveError", "InvalidPositionError", "InvariantError",
    "RecordError", "needs_extra", "missing_extra"
]


class InvalidMoveError(ValueError):
    """Text or an id that is not a move at all (malformed notation, an off-board cell)."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in the position."""


class InvalidPositionError(ValueError):
    """Position notation that is malformed or describes an impossible state."""


class InvariantError(AssertionError):
    """The engine broke one of its own invariants: a bug, reported with the position."""


class RecordError(ValueError):
    """A game record that cannot be read or replayed.

    The message starts with where the problem is: ``file:line: ply k: reason`` (each part
    when known). `path`, `line` (1-based line of the file, one game per line), `ply` (the
    1-based number of the move at fault) and `reason` are also attributes.
    """

    def __init__(self, reason: str, path: str | None = None, line: int | None = None,
                 ply: int | None = None) -> None:
        super().__init__(reason, path, line, ply)
        self.reason, self.path, self.line, self.ply = reason, path, line, ply

    def at(self, path: str | None = None, line: int | None = None) -> "RecordError":
        """The same error located in `path`, at `line`."""
        return RecordError(self.reason, path, line, self.ply)

    def __str__(self) -> str:
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
        else:
            where = "" if self.line is None else f"line {self.line}"
        if self.ply is not None:
            where = f"{where}: ply {self.ply}" if where else f"ply {self.ply}"
        return f"{where}: {self.reason}" if where else self.reason


def needs_extra(what: str, extra: str, error: ImportError, package: str | None = None) -> str:
    """The one line saying that an optional package is missing: what needs it, the
    ImportError, and the extra that installs it (the optional modules' ImportError, the
    commands' refusal).

    >>> needs_extra("photocore.plots", "plot",
    ...             ImportError("No module named 'matplotlib'", name="matplotlib"))
    "photocore.plots needs matplotlib (No module named 'matplotlib'): pip install 'photocore[plot]'"
    """
    return (f"{what} needs {package or error.name or 'a package'} ({error}): "
            f"pip install 'photocore[{extra}]'")


def missing_extra(what: str, extra: str, error: ImportError) -> ImportError:
    """The ImportError an optional module raises without its framework: needs_extra's line,
    of the same kind as `error` (a ModuleNotFoundError stays one, so code that tells a
    missing module from a broken one still can)."""
    kind = ModuleNotFoundError if isinstance(error, ModuleNotFoundError) else ImportError
    return kind(needs_extra(what, extra, error), name=error.name)
