"""The harness's side of the engine protocol (docs/protocol.md, version 1): an engine is a
program that reads commands on its standard input and answers on its standard output.

An Engine is a Player like any other (photocore.play.Player: `reset(seed)`, `select(game)`,
`name`, `close()`). Whatever the program does — crash, hang, print garbage or an endless
line, answer an illegal move — select() raises Forfeit with the reason, and the program, if
it may be out of step, is killed and started again for the next game. Programs start
without a shell, each in a session (process group) of its own, and are killed with their
whole group when they are closed, when the process that started them exits or gets
SIGTERM, and (on Linux) when it dies.
"""

import atexit
import contextlib
import operator
import os
import select
import signal
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
from photocore.notation import MOVE_TEXTS
from photocore.play.player import Forfeit, Player, as_move

VERSION = 1
MAX_LINE = 16384            # bytes in one line from an engine, newline excluded
MAX_INFO = 100              # info lines kept per move
DEFAULT_MOVETIME = 1000     # ms an engine is told it may think
DEFAULT_GRACE = 1000        # ms on top of it before a silent engine forfeits
DEFAULT_STARTUP = 10.0      # seconds an engine may take to answer the greeting
MAX_MILLISECONDS = 86_400_000   # a day: the most movetime and grace may each be
MAX_STARTUP = 86_400.0      # seconds: a day
_QUIT_WAIT = 0.2            # seconds a closing engine gets to leave on its own

# engines of this process with a program running
_LIVE: "weakref.WeakSet[Engine]" = weakref.WeakSet()
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
                 movetime: int = DEFAULT_MOVETIME, grace: int = DEFAULT_GRACE,
                 transcript: Callable[[str], object] | None = None) -> None:
        self.argv = [str(a) for a in argv]
        self.cwd = cwd or None
        self.label = label or " ".join(self.argv)
        self.announced: str | None = None     # the name given in `ready name=...`
        self.startup = check_startup(startup)
        self.movetime, self.grace = check_times(movetime, grace)
        self.info: list[str] = []     # the info lines sent while choosing the last move
        self.restarts = 0             # programs started after the first
        self.transcript = transcript  # called with each line sent (">") and read ("<")
        self._process: subprocess.Popen[bytes] | None = None
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
        try:
            process = subprocess.Popen(
                self.argv, cwd=self.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=stderr, bufsize=0, start_new_session=True,
                preexec_fn=_die_with_parent())
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
        deadline = time.monotonic() + self.startup
        self._send(f"photocore {VERSION}\n", deadline)
        while True:
            word, rest = self._read(deadline, f"no 'ready' within {self.startup:g} s of the "
                                              f"greeting")
            if word == "ready":
                name = rest.strip()
                if name.startswith("name=") and name[5:].strip():
                    self.announced = name[5:].strip()
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

    def select(self, game: Game) -> Move:
        """The engine's move in `game`, with the info lines it sent in `self.info`."""
        if self._process is None:
            self.reset()
        self.info = []
        legal = ",".join(map(MOVE_TEXTS.__getitem__, game.legal_moves().ids()))
        # whatever the engine writes, its time runs from here: lines read later are too late
        deadline = time.monotonic() + (self.movetime + self.grace) / 1000
        too_late = f"no move within {self.movetime} ms + {self.grace} ms of grace"
        self._drain(deadline, too_late)
        self._send(f"position {game.position()}\nlegal {legal}\ngo movetime={self.movetime}\n",
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
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def __del__(self) -> None:
        process = getattr(self, "_process", None)    # None too if __init__ failed
        if process is not None:
            _kill(process)

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
        said = f" ({last[-1][:200]})" if last else ""
        return f"exited with status {code}{said}"

    def _stderr_tail(self, size: int = 2000) -> str:
        if self._stderr is None:
            return ""
        fd = self._stderr.fileno()
        end = os.fstat(fd).st_size
        return os.pread(fd, size, max(0, end - size)).decode("utf-8", "replace")


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


def check_times(movetime: int, grace: int) -> tuple[int, int]:
    """(movetime, grace) checked: whole milliseconds, 1 (0 for grace) to MAX_MILLISECONDS;
    a one-line ValueError naming the one out of range (TypeError: not a whole number)."""
    for name, value, low in (("movetime", movetime, 1), ("grace", grace, 0)):
        if isinstance(value, bool) or not low <= operator.index(value) <= MAX_MILLISECONDS:
            raise ValueError(f"{name} must be from {low} to {MAX_MILLISECONDS:,} ms (a day), "
                             f"got {value!r}")
    return operator.index(movetime), operator.index(grace)


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


def _kill(process: "subprocess.Popen[bytes]") -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)    # the engine and anything it started
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(5)


def close_all() -> None:
    """Kills every engine program this process started that is still running (and forgets
    it: at exit, an Engine's __del__ may run after this module is torn down)."""
    for engine in list(_LIVE):
        process, engine._process = engine._process, None
        if process is not None:
            _kill(process)


def _install_cleanup() -> None:
    """Once per process: engines die with it, at exit and on SIGTERM (the signal a pool
    sends its workers when a run is stopped)."""
    global _cleanup_installed
    with _CLEANUP:
        if _cleanup_installed:
            return
        _cleanup_installed = True
        atexit.register(close_all)
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


def _die_with_parent() -> Callable[[], None] | None:
    """On Linux, a function that makes the child get SIGKILL when the thread that started
    it dies (so a killed worker leaves no engine behind); None elsewhere, or when started
    from another thread than the main one, whose end would kill the engine too early."""
    if (not sys.platform.startswith("linux")
            or threading.current_thread() is not threading.main_thread()):
        return None
    import ctypes
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def die_with_parent() -> None:
        prctl(1, signal.SIGKILL)    # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return die_with_parent
