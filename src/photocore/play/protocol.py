"""The harness's side of the engine protocol (docs/protocol.md, version 1): an engine is a
program that reads commands on its standard input and answers on its standard output.

An Engine is a Player like any other (photocore.play.Player: `reset(seed)`, `select(game)`,
`name`, `close()`). Whatever the program does — crash, hang, print garbage or an endless
line, answer an illegal move — select() raises Forfeit with the reason, and the program, if
it may be out of step, is killed and started again for the next game. Programs start
without a shell, each in a session (process group) of its own. On Linux each runs under
its reaper (play/_reaper.py), which kills it and everything it started, even in sessions
of their own, when it exits, when it is closed, and when the process that started it
exits or dies, whichever thread started it (kill -9 too). Elsewhere the program's process
group is killed when it is closed, or when the process that started it exits or gets
SIGTERM.
"""

import atexit
import contextlib
import operator
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from types import FrameType
from typing import IO, NoReturn

from photocore._game import Game, Move
from photocore.budget import Limit, check_limit
from photocore.limits import ENGINE_LINE_CAP
from photocore.notation import MOVE_TEXTS
from photocore.play.player import Forfeit, Player, as_move, printable

__all__ = [
    "PROTOCOL_VERSION", "MAX_LINE", "MAX_INFO", "DEFAULT_MOVETIME", "DEFAULT_GRACE",
    "DEFAULT_STARTUP", "MAX_MILLISECONDS", "MAX_STARTUP", "Engine", "movetime", "check_grace",
    "check_startup",
    "close_all"
]

PROTOCOL_VERSION = 1
"""The version of the engine protocol (docs/engines.md) this side speaks, sent in its greeting."""
MAX_LINE = ENGINE_LINE_CAP
"""The most bytes of one line from an engine, newline excluded (photocore.limits): a longer one
is a protocol error."""
MAX_INFO = 100
"""The info lines kept per move (Engine.info): an engine may send any number."""
DEFAULT_MOVETIME = 1000
"""Milliseconds an engine is told it may think where its limit has no seconds."""
DEFAULT_GRACE = 1000
"""Milliseconds on top of the move time before a silent engine forfeits."""
DEFAULT_STARTUP = 10.0
"""Seconds an engine may take to answer the greeting."""
MAX_MILLISECONDS = 86_400_000
"""The most a move time and a grace may each be, in milliseconds: a day."""
MAX_STARTUP = 86_400.0
"""The most seconds a start-up may be given: a day."""
_QUIT_WAIT = 0.2            # seconds a closing engine gets to leave on its own

# engines of this process with a program running
_LIVE: "weakref.WeakSet[Engine]" = weakref.WeakSet()
# on Linux each engine runs under its reaper, which takes everything it started with it
_REAPS = sys.platform.startswith("linux") and bool(sys.executable)
_REAPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_reaper.py")
_CLEANUP = threading.Lock()
_cleanup_installed = False


class Engine(Player):
    """An engine program behind the protocol, started on its first game.

    >>> from photocore import Game
    >>> engine = Engine([sys.executable, "examples/engines/simple_engine.py"])  # doctest: +SKIP
    >>> engine.reset(seed=1); engine.select(Game())                             # doctest: +SKIP
    Move('place g3')
    >>> engine.close()                                                          # doctest: +SKIP
    """

    _readable: select.poll      # the program's output and input, while it runs
    _writable: select.poll

    def __init__(self, argv: Iterable[str | os.PathLike[str]], cwd: str | None = None,
                 label: str | None = None, startup: float = DEFAULT_STARTUP,
                 grace: int = DEFAULT_GRACE,
                 transcript: Callable[[str], object] | None = None) -> None:
        self.argv = [str(a) for a in argv]
        self.cwd = cwd or None
        self.label = label or " ".join(self.argv)
        self.announced: str | None = None     # the name given in `ready name=...`
        """The name the program announced in its `ready name=...` line (None till then, or
        without one): `name` prefers it to the label."""
        self.startup = check_startup(startup)
        self.grace = check_grace(grace)
        self.info: list[str] = []     # the info lines sent while choosing the last move
        """The info lines the program sent while choosing the last move (at most
        MAX_INFO)."""
        self.restarts = 0             # programs started after the first
        self.transcript = transcript  # called with each line sent (">") and read ("<")
        self._process: subprocess.Popen[bytes] | None = None    # its reaper, on Linux
        self._link: socket.socket | None = None     # held while it runs: the reaper's lifeline
        self.pid: int | None = None                  # the program's process, once started
        """The program's process id, once started (None before)."""
        self._stdin = self._stdout = -1   # the program's pipes, while it runs
        self._stderr: IO[bytes] | None = None
        self._buffer = bytearray()
        self._started = 0

    @property
    def name(self) -> str:
        """The name the program gave in `ready name=...`, else its label."""
        return self.announced or self.label

    # ---- the player interface ----

    def start(self) -> None:
        """Starts the program and waits for `ready` (Forfeit if it does not come)."""
        self.close()
        _install_cleanup()
        stderr = self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (open while it runs)
        deadline = time.monotonic() + self.startup
        try:
            process, self._link, self.pid = _launch(self.argv, self.cwd, stderr, deadline)
        except OSError as e:
            stderr.close()
            self._stderr = None
            raise Forfeit(f"cannot start {self.argv[0]}: {e.strerror or e}") from None
        self._process = process
        _LIVE.add(self)
        self._stdin, self._stdout = _fileno(process.stdin), _fileno(process.stdout)
        self._readable = _poller(self._stdout, select.POLLIN)
        self._writable = _poller(self._stdin, select.POLLOUT)
        self.restarts += self._started > 0
        self._started += 1
        os.set_blocking(self._stdin, False)
        self._buffer.clear()
        self._send(f"photocore {PROTOCOL_VERSION}\n", deadline)
        while True:
            word, rest = self._read(deadline, f"no 'ready' within {self.startup:g} s of the "
                                              f"greeting")
            if word == "ready":
                name = rest.strip()
                if name.startswith("name=") and name[5:].strip():
                    self.announced = printable(name[5:].strip())
                return
            if word != "info":
                self._fail(f"protocol error: {_quote(word, rest)} before 'ready'")

    def reset(self, seed: int | None = None) -> None:
        """Before a game: the program (re)started if it is not running, then `newgame`."""
        if self._process is None or self._process.poll() is not None:
            self.start()
        elif self._stderr is not None:
            os.ftruncate(self._stderr.fileno(), 0)   # stderr is kept for the last game only
        self._send("newgame\n" if seed is None else f"newgame seed={seed}\n",
                   time.monotonic() + self.grace / 1000)

    def select(self, game: Game, limit: Limit | None = None) -> Move:
        """The engine's move in `game`, with the info lines it sent in `self.info`: the
        limit's `seconds` are its move time (movetime(): DEFAULT_MOVETIME ms without)."""
        ms = movetime(limit)
        if self._process is None:
            self.reset()
        self.info = []
        legal = ",".join(map(MOVE_TEXTS.__getitem__, game.legal_moves().ids()))
        # whatever the engine writes, its time runs from here: lines read later are too late
        deadline = time.monotonic() + (ms + self.grace) / 1000
        too_late = f"no move within {ms} ms + {self.grace} ms of grace"
        self._drain(deadline, too_late)
        self._send(f"position {game.position()}\nlegal {legal}\ngo movetime={ms}\n",
                   deadline)
        while True:
            word, rest = self._read(deadline, too_late)
            if word == "move":
                try:
                    return as_move(rest)
                except Forfeit as e:
                    self._fail(f"protocol error: {e.reason}")
            if word != "info":
                self._fail(f"protocol error: {_quote(word, rest)} instead of 'move' or 'info'")
            if len(self.info) < MAX_INFO:
                self.info.append(rest)

    def close(self) -> None:
        """Sends quit, then kills the program's whole process group."""
        self._stop(ask=True)

    def _stop(self, ask: bool) -> None:
        """Kills the program (`ask`: after asking it to quit, a moment before)."""
        process, self._process = self._process, None
        if process is not None:
            _LIVE.discard(self)
            if ask and process.poll() is None:
                if self.transcript:
                    self.transcript("> quit")
                try:
                    os.write(self._stdin, b"quit\n")
                    process.wait(_QUIT_WAIT)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            _kill(process)
            for pipe in (process.stdin, process.stdout):
                if pipe is not None:
                    pipe.close()
            self._stdin = self._stdout = -1
        if self._link is not None:
            self._link.close()
            self._link = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def __del__(self) -> None:
        process = getattr(self, "_process", None)    # None too if __init__ failed
        if process is not None:
            _kill(process)
        link = getattr(self, "_link", None)
        if link is not None:
            link.close()

    def __repr__(self) -> str:
        return f"Engine({self.label!r})"

    # ---- lines ----

    def _send(self, text: str, deadline: float) -> None:
        if self.transcript:
            for line in text.splitlines():
                self.transcript(f"> {line}")
        data = memoryview(text.encode())
        while data:
            try:
                data = data[os.write(self._stdin, data):]
            except BlockingIOError:
                # the engine is not reading its input: wait for room, not past the deadline
                if not _wait(self._writable, deadline):
                    self._fail("stopped reading its input")
            except BrokenPipeError:
                self._fail(self._exit_reason())

    def _read(self, deadline: float, too_late: str) -> tuple[str, str]:
        """The next non-blank line as (first word, the rest)."""
        while True:
            line = self._line(deadline, too_late)
            if line.strip():
                word, _, rest = line.strip().partition(" ")
                return word, rest

    def _line(self, deadline: float, too_late: str) -> str:
        """The next line: one already read, else one read before `deadline` (a line that
        comes later is too late, however much the engine wrote before it)."""
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                if end > MAX_LINE:
                    self._fail(f"protocol error: a line longer than {MAX_LINE} bytes")
                line = self._buffer[:end].decode("utf-8", "replace").rstrip("\r")
                del self._buffer[:end + 1]
                if self.transcript:
                    self.transcript(f"< {line}")
                return line
            self._fill(deadline, too_late)

    def _fill(self, deadline: float, too_late: str) -> None:
        """Reads more of the engine's output (the buffer holds no whole line), waiting for
        it until `deadline`."""
        if len(self._buffer) > MAX_LINE:
            self._fail(f"protocol error: a line longer than {MAX_LINE} bytes")
        if not _wait(self._readable, deadline):
            self._fail(too_late)
        chunk = os.read(self._stdout, 65536)
        if not chunk:
            self._fail(self._exit_reason())
        self._buffer += chunk

    def _drain(self, deadline: float, too_late: str) -> None:
        """Reads what the engine sent unasked since its last move, until nothing waits:
        info lines are kept (for this move), anything else is a protocol error. An engine
        that keeps writing past `deadline` forfeits (`too_late`)."""
        while b"\n" in self._buffer or self._readable.poll(0):
            if b"\n" not in self._buffer:
                self._fill(deadline, too_late)      # waiting: no wait, unless too late
                continue
            word, rest = self._read(deadline, too_late)     # a whole line waits: no wait
            if word != "info":
                self._fail(f"protocol error: {_quote(word, rest)} after its move, unasked")
            if len(self.info) < MAX_INFO:
                self.info.append(rest)

    def _fail(self, reason: str) -> NoReturn:
        """Forfeit: kill the program (it starts again for the next game) and say why."""
        detail = self._stderr_tail()
        self._stop(ask=False)           # out of step, perhaps still writing: no quit
        raise Forfeit(reason, detail)

    def _exit_reason(self) -> str:
        process = self._process
        assert process is not None, "only a started program has an exit"
        try:
            code = process.wait(1.0)
        except subprocess.TimeoutExpired:
            return "closed its output"
        if code < 0:
            try:
                return f"crashed: killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"crashed: killed by signal {-code}"
        last = self._stderr_tail().strip().splitlines()
        said = f" ({last[-1][:200]})" if last else ""     # printable: _stderr_tail's
        return f"exited with status {code}{said}"

    def _stderr_tail(self, size: int = 2000) -> str:
        if self._stderr is None:
            return ""
        fd = self._stderr.fileno()
        end = os.fstat(fd).st_size
        tail = os.pread(fd, size, max(0, end - size)).decode("utf-8", "replace")
        return "\n".join(map(printable, tail.split("\n")))     # shown on a terminal


def _quote(word: str, rest: str) -> str:
    line = f"{word} {rest}".strip()
    return repr(line if len(line) <= 80 else line[:77] + "...")


def _fileno(pipe: IO[bytes] | None) -> int:
    assert pipe is not None, "the program's pipes are opened with it"
    return pipe.fileno()


def _poller(fd: int, event: int) -> select.poll:
    poller = select.poll()
    poller.register(fd, event | select.POLLHUP | select.POLLERR)
    return poller


def movetime(limit: Limit | None) -> int:
    """The milliseconds an engine is told it may think (`go movetime=`) within `limit`:
    its seconds, rounded, 1 to MAX_MILLISECONDS (ValueError past a day), else
    DEFAULT_MOVETIME.

    >>> movetime(Limit(seconds=0.05)), movetime(Limit(simulations=10)), movetime(None)
    (50, 1000, 1000)
    """
    limit = check_limit(limit)
    if limit is None or limit.seconds is None:
        return DEFAULT_MOVETIME
    if limit.seconds * 1000 > MAX_MILLISECONDS:
        raise ValueError(f"limit seconds must be at most {MAX_MILLISECONDS // 1000:,} (a day) "
                         f"for an engine, got {limit.seconds:g}")
    return max(1, round(limit.seconds * 1000))


def check_grace(grace: int) -> int:
    """`grace` checked: whole milliseconds, 0 to MAX_MILLISECONDS; a one-line ValueError
    out of range (TypeError: not a whole number)."""
    if isinstance(grace, bool) or not 0 <= operator.index(grace) <= MAX_MILLISECONDS:
        raise ValueError(f"grace must be from 0 to {MAX_MILLISECONDS:,} ms (a day), "
                         f"got {grace!r}")
    return operator.index(grace)


def check_startup(seconds: float) -> float:
    """The seconds an engine may take to start, checked: a number > 0, MAX_STARTUP at
    most."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) \
            or not 0 < seconds <= MAX_STARTUP:
        raise ValueError(f"startup must be a number of seconds > 0 and at most "
                         f"{MAX_STARTUP:,.0f} (a day), got {seconds!r}")
    return float(seconds)


def _wait(poller: select.poll, deadline: float) -> bool:
    """True once the poller's pipe is ready, False once the deadline (monotonic) has
    passed, even if it is ready then: what the engine writes after it comes too late."""
    while (left := deadline - time.monotonic()) > 0:
        if poller.poll(left * 1000):    # (movetime and grace are a day at most: an int)
            return True
    return False


def _launch(argv: list[str], cwd: str | None, stderr: IO[bytes], deadline: float
            ) -> "tuple[subprocess.Popen[bytes], socket.socket | None, int]":
    """Starts `argv` in a session of its own, on Linux through its reaper (play/_reaper.py):
    the process started, the harness's end of the reaper's lifeline, the program's pid.
    OSError when the program cannot be started."""
    if not _REAPS:
        process = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=stderr, bufsize=0,
                                   start_new_session=True)
        return process, None, process.pid
    ours, theirs = socket.socketpair()
    try:
        with theirs:
            process = subprocess.Popen(
                [sys.executable, "-I", "-S", _REAPER, str(theirs.fileno()), *argv], cwd=cwd,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, bufsize=0,
                start_new_session=True, pass_fds=(theirs.fileno(),))
        report = _report(ours, deadline)
    except BaseException:
        ours.close()
        raise
    if report.startswith("started "):
        return process, ours, int(report.split()[1])
    ours.close()
    _kill(process)
    if report.startswith("error "):
        raise OSError(report[6:])
    raise OSError(f"its reaper {'failed' if report else 'did not answer'} ({process.returncode})")


def _report(link: socket.socket, deadline: float) -> str:
    """The reaper's first line ("" if it ends or does not come before `deadline`)."""
    readable = _poller(link.fileno(), select.POLLIN)
    data = b""
    while b"\n" not in data and len(data) < 4096 and _wait(readable, deadline):
        chunk = link.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.partition(b"\n")[0].decode("utf-8", "replace") if b"\n" in data else ""


def _kill(process: "subprocess.Popen[bytes]") -> None:
    """Ends the program and everything it started: its reaper kills them all and exits
    (SIGTERM); without a reaper, or if it does not end, its whole process group is killed."""
    if _REAPS and process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(5)
    if process.poll() is None or not _REAPS:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)    # the engine and its group (or reaper)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(5)


def close_all() -> None:
    """Kills every engine program this process started that is still running (and forgets
    it: at exit, an Engine's __del__ may run after this module is torn down)."""
    engines = list(_LIVE)
    for engine in engines:              # every reaper told first, then each waited for
        process = engine._process
        if _REAPS and process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
    for engine in engines:
        process, engine._process = engine._process, None
        if process is not None:
            _kill(process)
        if engine._link is not None:
            engine._link.close()
            engine._link = None


def _forked() -> None:
    """In a child made by fork: the engines are the parent's. Their lifelines are closed
    here, so that their reapers see the parent's end alone, and the child forgets them."""
    for engine in list(_LIVE):
        if engine._link is not None:
            with contextlib.suppress(OSError):
                engine._link.close()
            engine._link = None
        engine._process = None
    _LIVE.clear()


def _install_cleanup() -> None:
    """Once per process: engines die with it, at exit and on SIGTERM (the signal a pool
    sends its workers when a run is stopped)."""
    global _cleanup_installed
    with _CLEANUP:
        if _cleanup_installed:
            return
        _cleanup_installed = True
        atexit.register(close_all)
        os.register_at_fork(after_in_child=_forked)
        # worker processes end through os._exit, which skips atexit but not these
        from multiprocessing import util
        util.Finalize(None, close_all, exitpriority=100)
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL):
            signal.signal(signal.SIGTERM, _terminated)


def _terminated(signum: int, frame: FrameType | None) -> None:
    close_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
