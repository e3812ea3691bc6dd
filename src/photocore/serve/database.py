"""The served games on disk: one SQLite database (the standard library's sqlite3) holding
each game's start, seats, seed, the hashes of its seats' tokens, and the log of its changes
(moves, undo, resignations, forfeits, stop and resume), one row per change, from which
serve/store.py rebuilds the game after a restart; the hints asked for are kept too.

Each change is one transaction, committed before the request that made it is answered
(WAL, synchronous=NORMAL: a change committed survives the process being killed; a power
cut may lose the last moments). The schema has a version (table `versions`), and
MIGRATIONS take a database of any older version to the current one when it is opened.

Nothing here knows the rules: rows go in and out as JSON text and numbers.

>>> db = Database(":memory:")
>>> db.add_game(GameRow("g1", {"players": 2}, ["person", "random"], 7, "me", 100.0),
...             {0: b"hash"})
>>> db.add_change("g1", 1, {"kind": "play", "move": "place a4"}, 101.0, None)
>>> saved = db.load("g1")
>>> saved.row.seats, saved.changes, saved.tokens
(['person', 'random'], [{'kind': 'play', 'move': 'place a4'}], {0: b'hash'})
>>> db.version
2
"""

import contextlib
import dataclasses
import json
import math
import os
import pathlib
import shutil
import sqlite3
import stat
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Collection, Iterator
from typing import Any

from photocore import files

__all__ = [
    "MEMORY", "APPLICATION_ID", "COMPANIONS", "MIGRATIONS", "SCHEMA_VERSION", "DatabaseError",
    "Damaged", "GameRow", "Saved", "Database"
]

MEMORY = ":memory:"
"""The path of a database held in memory (SQLite's name): a server given it saves nothing."""
APPLICATION_ID = 0x50484F54
"""SQLite's header field naming the program's files (application_id), "PHOT" in ASCII: how a
file is known as a photocore database."""
COMPANIONS = ("-wal", "-shm", "-journal", "-lock")
"""The suffixes of the files SQLite keeps beside a database (a backup may overwrite none of
them)."""

MIGRATIONS: list[str] = [
    # 1: the games, their seats' tokens and their changes
    """
    CREATE TABLE games (
        id TEXT PRIMARY KEY,
        start TEXT NOT NULL,        -- JSON: players, options, position, moves as created
        seats TEXT NOT NULL,        -- JSON: 'person' or the agent's label, per seat
        seed TEXT NOT NULL,         -- 0 to 2**64 - 1: past SQLite's signed integers
        client TEXT NOT NULL,       -- who created it (its cap of unfinished games)
        created REAL NOT NULL,      -- Unix times
        touched REAL NOT NULL,      -- its last change (its last request, at a clean stop)
        finished REAL,              -- when it ended; NULL while it goes on
        version INTEGER NOT NULL    -- its changes so far
    );
    CREATE INDEX games_by_time ON games (finished, touched);
    CREATE TABLE tokens (
        game TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        hash BLOB NOT NULL,         -- sha256 of the seat's token
        PRIMARY KEY (game, seat)
    ) WITHOUT ROWID;
    CREATE TABLE changes (
        game TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        version INTEGER NOT NULL,   -- the game's version once it is made: 1, 2, ...
        change TEXT NOT NULL,       -- JSON: {"kind": "play", "move": "place a4"}, ...
        PRIMARY KEY (game, version)
    ) WITHOUT ROWID;
    """,
    # 2: the hints asked for, by position
    """
    CREATE TABLE hints (
        game TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,
        position TEXT NOT NULL,
        top INTEGER NOT NULL,
        answer TEXT NOT NULL,       -- JSON, as the API answered it
        PRIMARY KEY (game, ply, position, top)
    ) WITHOUT ROWID;
    """,
]
"""The SQL scripts of the schema's versions: each takes the schema from the version before it to
its own; never edit one that was released: add the next."""
SCHEMA_VERSION = len(MIGRATIONS)
"""The schema version of a database this code writes: the count of MIGRATIONS."""


class DatabaseError(RuntimeError):
    """The database cannot be opened, read or written (the message names it and why)."""


class Damaged(DatabaseError):
    """A game's row or changes cannot be read back (the message names the game and what):
    that game cannot be served; the others can."""


@dataclasses.dataclass
class GameRow:
    """A game's row: what it began with, and its times (Unix times, in seconds)."""

    id: str
    """The game's id, as in its URL."""
    start: dict[str, Any]
    """What it was created with: players, options, position and moves."""
    seats: list[str]
    """Each seat's player: "person" or the agent's label."""
    seed: int
    """The agents' seed, 0 to 2**64 - 1."""
    client: str
    """Who created it (its address), whose cap of unfinished games it counts in."""
    created: float
    """When it was created."""
    touched: float = 0.0
    """Its last change, or its last request at a clean stop (0: when created)."""
    finished: float | None = None
    """When it ended; None while it goes on."""
    version: int = 0
    """Its changes so far."""


@dataclasses.dataclass
class Saved:
    """A game as the database holds it: its row, its changes in order, its seats' token
    hashes."""

    row: GameRow
    """Its row."""
    changes: list[dict[str, Any]]
    """Its changes, in order (version 1 first): {"kind": "play", "move": "place a4"}, ..."""
    tokens: dict[int, bytes]
    """A person's seat -> the sha256 of its token."""


class Database:
    """The games' database at `path` (":memory:" for one that ends with the process),
    opened, locked against a second server (on systems with fcntl) and migrated to
    SCHEMA_VERSION; `shared`: opened read-only beside the server that holds it (to back it
    up), neither locked nor migrated. Every method is one transaction and may be called
    from any thread. DatabaseError names the file and what is wrong.

    The database is a file, not a path: `file` is its real path (every link followed),
    the one SQLite opens and the lock is taken beside; the lock is held on the file itself
    too, so a symbolic or a hard link to a database in use is refused like its own name.
    A file that is not photocore's (another program's SQLite database, anything else) is
    refused before anything is written to it or beside it: an existing database is
    photocore's when it carries APPLICATION_ID, or (made before it did) the table
    `versions`; an empty or missing file is a new one."""

    def __init__(self, path: "str | os.PathLike[str]", shared: bool = False) -> None:
        self.path = str(path)               # as given: the messages name it
        self.file = self.path               # the file SQLite opens (its real path)
        self._lock = threading.Lock()
        self._lockfile: Any = None
        self._shared = shared
        try:
            if self.path == MEMORY:
                self._db = sqlite3.connect(MEMORY, check_same_thread=False,
                                           isolation_level=None)
            else:
                self.file = os.path.realpath(files.expanded(self.path))
                _check_file(self.file, self.path, shared)
                if not shared:
                    pathlib.Path(self.file).parent.mkdir(parents=True, exist_ok=True)
                    self._lockfile = _lock_out_others(self.file, self.path)
                _check_ours(self.file, self.path)
                if not shared:
                    self._lockfile.append(_lock_beside(self.file, self.path))
                    self._lockfile = [held for held in self._lockfile if held is not None]
                # autocommit: every transaction is begun and ended here, by _transaction;
                # a URI of the real path: a name such as 'file:x?mode=memory' is a file
                # name here, as it is everywhere else (SQLite would read it as a URI)
                self._db = sqlite3.connect(_uri(self.file, _mode(self.file, shared)),
                                           uri=True, check_same_thread=False,
                                           isolation_level=None)
        except (OSError, ValueError, sqlite3.Error) as e:
            self._unlock()
            raise DatabaseError(f"cannot open the games database {self.path}: {_why(e)}") from None
        except DatabaseError:
            self._unlock()
            raise
        try:
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db.execute("PRAGMA busy_timeout = 5000")
            if self.path != MEMORY and not shared:
                self._db.execute("PRAGMA journal_mode = WAL")
                self._db.execute("PRAGMA synchronous = NORMAL")
            self.version = self._read_version() if shared else self._migrate()
        except (sqlite3.Error, DatabaseError) as e:
            self.close()
            if isinstance(e, DatabaseError):
                raise
            raise DatabaseError(f"cannot use {self.path} as the games database: "
                             f"{_why(e)}") from None

    # ---- the schema ----

    def _read_version(self) -> int:
        """The schema's version (0: a new database); opened to write, the table of versions
        made where there is none, and the database marked photocore's (APPLICATION_ID)."""
        with self._transaction() as db:
            if not self._shared:
                db.execute("CREATE TABLE IF NOT EXISTS versions "
                           "(version INTEGER PRIMARY KEY, applied REAL NOT NULL)")
                if self.path != MEMORY:
                    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            elif not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                "name = 'versions'").fetchone():
                return 0
            return int(db.execute("SELECT max(version) FROM versions").fetchone()[0] or 0)

    def _migrate(self) -> int:
        """The schema brought to SCHEMA_VERSION, each migration a transaction of its own;
        the version it is at."""
        version = self._read_version()
        if version > SCHEMA_VERSION:
            raise DatabaseError(f"the games database {self.path} has schema version {version}, "
                             f"newer than this photocore's {SCHEMA_VERSION}: upgrade photocore")
        for number in range(version + 1, SCHEMA_VERSION + 1):
            self.migrate_to(number)
        return SCHEMA_VERSION

    def migrate_to(self, number: int) -> None:
        """Applies migration `number` (the schema is at number - 1)."""
        with self._transaction() as db:
            for statement in _statements(MIGRATIONS[number - 1]):
                db.execute(statement)
            db.execute("INSERT INTO versions VALUES (?, ?)", (number, time.time()))

    # ---- writing ----

    def add_game(self, row: GameRow, tokens: dict[int, bytes]) -> None:
        """A new game's row and its seats' token hashes (seat -> sha256): one
        transaction."""
        with self._transaction() as db:
            db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (row.id, _text(row.start), _text(row.seats), str(row.seed),
                        row.client, row.created, row.touched or row.created,
                        row.finished, row.version))
            db.executemany("INSERT INTO tokens VALUES (?, ?, ?)",
                           [(row.id, seat, digest) for seat, digest in tokens.items()])

    def add_change(self, game: str, version: int, change: dict[str, Any], touched: float,
                   finished: float | None) -> None:
        """The game's change number `version`, with its new times: one transaction."""
        with self._transaction() as db:
            db.execute("INSERT INTO changes VALUES (?, ?, ?)", (game, version, _text(change)))
            updated = db.execute("UPDATE games SET version = ?, touched = ?, finished = ? "
                                 "WHERE id = ? AND version = ?",
                                 (version, touched, finished, game, version - 1)).rowcount
            if updated != 1:
                raise DatabaseError(f"game {game} is not at version {version - 1} in "
                                 f"{self.path}: another server writes to it")

    def touch(self, times: dict[str, float]) -> None:
        """When each game was last asked for (kept at a clean stop)."""
        with self._transaction() as db:
            db.executemany("UPDATE games SET touched = max(touched, ?) WHERE id = ?",
                           [(when, game) for game, when in times.items()])

    def delete(self, game: str) -> None:
        """Deletes the game `game` with its tokens, changes and hints (none: nothing)."""
        with self._transaction() as db:
            db.execute("DELETE FROM games WHERE id = ?", (game,))

    def purge(self, finished_before: float, idle_since: float | None = None,
              spare: Collection[str] = ()) -> list[str]:
        """Deletes the games that finished before `finished_before` and, when
        `idle_since` is given, the unfinished ones untouched since, but not those in
        `spare` (the games in memory, still asked for); their ids."""
        with self._transaction() as db:
            gone = [row[0] for row in db.execute(
                "SELECT id FROM games WHERE finished < ? OR (finished IS NULL AND touched < ?)",
                (finished_before, -math.inf if idle_since is None else idle_since))
                if row[0] not in spare]
            db.executemany("DELETE FROM games WHERE id = ?", [(g,) for g in gone])
        return gone

    def add_hint(self, game: str, ply: int, position: str, top: int,
                 answer: dict[str, Any]) -> None:
        """Keeps the answer to a request for `top` hints in position `position`, move
        `ply` of game `game` (replacing one kept before), for hint() to give again."""
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO hints VALUES (?, ?, ?, ?, ?)",
                       (game, ply, position, top, _text(answer)))

    # ---- reading ----

    def load(self, game: str) -> Saved | None:
        """The game `game` as saved, or None; Damaged when its row or a change cannot be
        read back (not JSON, not the kind of value it must be)."""
        with self._transaction() as db:
            row = db.execute("SELECT * FROM games WHERE id = ?", (game,)).fetchone()
            if row is None:
                return None
            texts = list(db.execute(
                "SELECT version, change FROM changes WHERE game = ? ORDER BY version", (game,)))
            tokens = dict(db.execute("SELECT seat, hash FROM tokens WHERE game = ?", (game,)))
        gid, start, seats, seed, client, created, touched, finished, version = row
        where = "its start"
        try:
            begun = _read(start, dict)
            where = "its seats"
            named = _read(seats, list)
            where = "its seed"
            number = int(seed)
            changes = []
            for number_of_change, text in texts:
                where = f"its change {number_of_change}"
                changes.append(_read(text, dict))
        except (ValueError, TypeError) as e:
            raise Damaged(f"game {str(gid)[:40]} is damaged in {self.path}: {where} cannot be "
                          f"read ({str(e)[:80]}); it is not served") from None
        return Saved(GameRow(gid, begun, named, number, client, created, touched, finished,
                          version), changes, tokens)

    def unfinished(self) -> list[str]:
        """The ids of the games that go on, the one touched longest ago first."""
        with self._transaction() as db:
            return [row[0] for row in db.execute(
                "SELECT id FROM games WHERE finished IS NULL ORDER BY touched")]

    def hint(self, game: str, ply: int, position: str, top: int) -> dict[str, Any] | None:
        """The answer add_hint kept for that request, or None."""
        with self._transaction() as db:
            row = db.execute("SELECT answer FROM hints WHERE game = ? AND ply = ? AND "
                             "position = ? AND top = ?", (game, ply, position, top)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def count(self) -> int:
        """The number of games in the database."""
        with self._transaction() as db:
            return int(db.execute("SELECT count(*) FROM games").fetchone()[0])

    # ---- the file ----

    def backup(self, path: "str | os.PathLike[str]") -> None:
        """A consistent copy of the database at `path` (SQLite's online backup: the
        server may go on writing meanwhile), made in a temporary file, then put in place
        by files.atomic (a link followed, a file's mode kept, a device or a FIFO written
        through). The database itself and its companions (-wal, -shm, -journal, -lock),
        whatever the name or link that reaches them, are refused before anything is
        written."""
        try:
            target = files.expanded(path)
            if self.path != MEMORY:
                for name in {self.file, files.expanded(self.path)}:
                    for own in ("", *COMPANIONS):
                        if files.same_file(target, name + own):
                            raise DatabaseError(
                                f"cannot back {self.path} up to {path}: it is "
                                f"{'the database itself' if not own else 'its ' + own + ' file'}"
                                ": choose another file")
            real = os.path.realpath(target)
            there = os.stat(real) if os.path.lexists(real) else None
            # the copy is made beside a file (the same disk), in the temporary folder for
            # a device or a pipe
            beside = (os.path.dirname(real)
                      if there is None or stat.S_ISREG(there.st_mode) else None)
            with tempfile.TemporaryDirectory(prefix=".photocore-backup-", dir=beside) as tmp:
                partial = os.path.join(tmp, "copy.sqlite3")
                copy = sqlite3.connect(partial)
                try:
                    with self._lock:
                        self._db.backup(copy)
                finally:
                    copy.close()
                with open(partial, "rb") as made, files.atomic(target) as out:
                    shutil.copyfileobj(made, out)
        except (OSError, ValueError, sqlite3.Error) as e:
            raise DatabaseError(f"cannot back {self.path} up to {path}: {_why(e)}") from None

    def close(self) -> None:
        """Closes the database and releases its lock (a second call does nothing)."""
        with self._lock, contextlib.suppress(sqlite3.Error, AttributeError):
            self._db.close()
        self._unlock()                      # after SQLite's (see _lock_out_others)

    def _unlock(self) -> None:
        if self._lockfile is not None:
            for held in self._lockfile:
                held.close()                # closing a file releases its lock
            self._lockfile = None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One transaction, committed when the block ends, rolled back if it raises;
        sqlite3's errors become DatabaseError."""
        with self._lock:
            try:
                self._db.execute("BEGIN" if self._shared else "BEGIN IMMEDIATE")
                try:
                    yield self._db
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.Error as e:
                raise DatabaseError(f"the games database {self.path}: {_why(e)}") from None


def _check_file(file: str, path: str, shared: bool) -> None:
    """DatabaseError unless `file` (a real path) is a regular file of one name, or (unless
    `shared`) missing. Through a second hard link SQLite would look for another -wal
    beside another name, and miss the changes in the first (SQLite's *How To Corrupt An
    SQLite Database File*, 2.5): such a file is refused, whichever name it is given by."""
    try:
        there = os.stat(file)
    except FileNotFoundError:
        if shared:
            raise DatabaseError(f"cannot open the games database {path}: no such file") from None
        return
    if not stat.S_ISREG(there.st_mode):
        raise DatabaseError(f"cannot open the games database {path}: not a regular file "
                         f"({_kind(there.st_mode)})")
    if there.st_nlink > 1:
        raise DatabaseError(f"cannot open the games database {path}: it has {there.st_nlink} "
                         "hard links, and SQLite would find its -wal through one name only: "
                         "remove the others")


def _check_ours(file: str, path: str) -> None:
    """DatabaseError unless `file` (a real path, a regular file or none) may be photocore's
    games database: empty or missing (a new one), or an SQLite database with
    APPLICATION_ID or, made before photocore set one, the table `versions`. Decided
    read-only: a file refused is left as it was."""
    if not os.path.exists(file) or os.path.getsize(file) == 0:
        return
    # read-only, and without a -wal the file holds it all: read as immutable, which makes
    # no -shm or -wal beside it (read-only would, for a database in WAL mode)
    how = "ro" if os.path.exists(f"{file}-wal") else "ro&immutable=1"
    try:
        probe = sqlite3.connect(_uri(file, how), uri=True)
        try:
            mark = probe.execute("PRAGMA application_id").fetchone()[0]
            tables = {row[0] for row in probe.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            probe.close()
    except sqlite3.Error as e:
        raise DatabaseError(f"cannot use {path} as the games database: {_why(e)} "
                         "(refused, left as it was)") from None
    if mark != APPLICATION_ID and (mark != 0 or "versions" not in tables):
        raise DatabaseError(f"cannot use {path} as the games database: it is another "
                         "program's SQLite database, not photocore's (refused, left as it "
                         "was): give another --db")


def _lock_out_others(file: str, path: str) -> list[Any]:
    """An exclusive lock on the database file itself (`file`: a real path, created when
    missing), held while it is open: a second server on the same file would run the same
    games' agents and write over their changes. Through a symbolic or a hard link it is
    the same file, so the same lock.

    flock() locks, on Linux independent of the POSIX (fcntl) locks SQLite takes on the
    database (tests/server/test_serve_online.py checks it); but closing any descriptor of the file
    drops this process's POSIX locks on it, so the descriptor is closed only after SQLite's
    connection, and one whose lock was refused is kept open (the refused Database may share
    its process with the one holding the file)."""
    try:
        import fcntl
    except ImportError:         # Windows: no guard
        return []
    itself = os.fdopen(os.open(file, os.O_RDONLY | os.O_CREAT | os.O_NONBLOCK, 0o644), "rb")
    refused = None
    if not stat.S_ISREG(os.fstat(itself.fileno()).st_mode):
        refused = DatabaseError(f"cannot open the games database {path}: not a regular file")
    else:
        try:
            fcntl.flock(itself, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            refused = _busy(path)
    if refused is not None:
        _REFUSED.append(itself)
        raise refused
    return [itself]


def _lock_beside(file: str, path: str) -> Any:
    """An exclusive lock on FILE-lock too, the one photocore serve 0.2.0 and before took
    (beside a real path: through a symbolic link, the same)."""
    try:
        import fcntl
    except ImportError:         # Windows: no guard
        return None
    handle = open(f"{file}-lock", "a")      # noqa: SIM115 (held open: it holds the lock)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise _busy(path) from None
    return handle


def _busy(path: str) -> DatabaseError:
    return DatabaseError(f"the games database {path} is in use by another photocore serve "
                      "(stop it, or give this one another --db)")


_REFUSED: list[Any] = []        # descriptors not closed (_lock_out_others)


def _uri(file: str, mode: str) -> str:
    """The SQLite URI of the file at the absolute path `file`, opened in `mode` (ro, rw,
    rwc, and more parameters after an &)."""
    return f"file:{urllib.parse.quote(file)}?mode={mode}"


def _mode(file: str, shared: bool) -> str:
    """How the database `file` is opened: to write, or `shared` read-only; and where this
    user may write nothing beside it and there is no -wal (no server writes to it: the
    file holds it all), immutable, since SQLite in WAL mode would make a -shm."""
    if not shared:
        return "rwc"
    if not os.path.exists(f"{file}-wal") and not os.access(os.path.dirname(file), os.W_OK):
        return "ro&immutable=1"
    return "ro"


def _kind(mode: int) -> str:
    return ("a folder" if stat.S_ISDIR(mode) else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a file")


def _statements(script: str) -> Iterator[str]:
    """The SQL statements of `script`, one by one (executescript would commit the
    transaction they belong to)."""
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            yield statement
            statement = ""


def _read(text: Any, kind: type) -> Any:
    """The JSON `text` holds, which must be a `kind` (ValueError, TypeError if not)."""
    value = json.loads(text)
    if not isinstance(value, kind):
        raise TypeError(f"{type(value).__name__}, not {kind.__name__}")
    return value


def _text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _why(error: Exception) -> str:
    return getattr(error, "strerror", None) or str(error)
