"""The harness's side of the engine protocol (docs/protocol.md, version 1): an engine is a
program that reads commands on its standard input and answers on its standard output.

An Engine is a player like any other (`reset(seed)`, `select(game)`, `name`, `close()`).
Whatever the program does — crash, hang, print garbage or an endless line, answer an
illegal move — select() raises Forfeit with the reason, and the program, if it may be out
of step, is killed and started again for the next game. Programs start without a shell,
each in a session (process group) of its own, and are killed with their whole group when
they are closed, when the process that started them exits or gets SIGTERM, and (on Linux)
when it dies.
"""

import atexit
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref

from photocore.notation import MOVE_TEXTS
from photocore.play.specs import DEFAULT_STARTUP, Forfeit, as_move

VERSION = 1
MAX_LINE = 16384            # bytes in one line from an engine, newline excluded
MAX_INFO = 100              # info lines kept per move
DEFAULT_MOVETIME = 1000     # ms an engine is told it may think
DEFAULT_GRACE = 1000        # ms on top of it before a silent engine forfeits
_QUIT_WAIT = 0.2            # seconds a closing engine gets to leave on its own

_LIVE = weakref.WeakSet()   # engines of this process with a program running
_CLEANUP = threading.Lock()
_cleanup_installed = False


class Engine:
    """An engine program behind the protocol, started on its first game.

    >>> import photocore
    >>> engine = Engine([sys.executable, "examples/engines/simple_engine.py"])  # doctest: +SKIP
    >>> engine.reset(seed=1); engine.select(photocore.Game())                   # doctest: +SKIP
    Move('place g3')
    >>> engine.close()                                                          # doctest: +SKIP
    """

    def __init__(self, argv, cwd=None, label=None, startup=DEFAULT_STARTUP,
                 movetime=DEFAULT_MOVETIME, grace=DEFAULT_GRACE, transcript=None):
        self.argv = [str(a) for a in argv]
        self.cwd = cwd or None
        self.label = label or " ".join(self.argv)
        self.name = self.label
        self.startup = float(startup)
        self.movetime = int(movetime)
        self.grace = int(grace)
        self.info = []                # the info lines sent while choosing the last move
        self.restarts = 0             # programs started after the first
        self.transcript = transcript  # called with each line sent (">") and read ("<")
        self._process = None
        self._stderr = None
        self._buffer = bytearray()
        self._started = 0

    # ---- the player interface ----

    def start(self):
        """Starts the program and waits for `ready` (Forfeit if it does not come)."""
        self.close()
        _install_cleanup()
        self._stderr = tempfile.TemporaryFile()
        try:
            self._process = subprocess.Popen(
                self.argv, cwd=self.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self._stderr, bufsize=0, start_new_session=True,
                preexec_fn=_die_with_parent())
        except OSError as e:
            self._stderr.close()
            self._stderr = None
            raise Forfeit(f"cannot start {self.argv[0]}: {e.strerror or e}") from None
        _LIVE.add(self)
        self._readable = _poller(self._process.stdout.fileno(), select.POLLIN)
        self._writable = _poller(self._process.stdin.fileno(), select.POLLOUT)
        self.restarts += self._started > 0
        self._started += 1
        os.set_blocking(self._process.stdin.fileno(), False)
        self._buffer.clear()
        deadline = time.monotonic() + self.startup
        self._send(f"photocore {VERSION}\n", deadline)
        while True:
            word, rest = self._read(deadline, f"no 'ready' within {self.startup:g} s of the "
                                              f"greeting")
            if word == "ready":
                name = rest.strip()
                if name.startswith("name=") and name[5:].strip():
                    self.name = name[5:].strip()
                return
            if word != "info":
                self._fail(f"protocol error: {_quote(word, rest)} before 'ready'")

    def reset(self, seed=None):
        """Before a game: the program (re)started if it is not running, then `newgame`."""
        if self._process is None or self._process.poll() is not None:
            self.start()
        else:
            os.ftruncate(self._stderr.fileno(), 0)   # stderr is kept for the last game only
        self._send("newgame\n" if seed is None else f"newgame seed={seed}\n",
                   time.monotonic() + self.grace / 1000)

    def select(self, game):
        """The engine's move in `game`, with the info lines it sent in `self.info`."""
        if self._process is None:
            self.reset()
        self.info = []
        legal = ",".join(map(MOVE_TEXTS.__getitem__, game.legal_moves().ids()))
        self._drain()
        deadline = time.monotonic() + (self.movetime + self.grace) / 1000
        self._send(f"position {game.position()}\nlegal {legal}\ngo movetime={self.movetime}\n",
                   deadline)
        while True:
            word, rest = self._read(deadline, f"no move within {self.movetime} ms "
                                              f"+ {self.grace} ms of grace")
            if word == "move":
                try:
                    return as_move(rest)
                except Forfeit as e:
                    self._fail(f"protocol error: {e.reason}")
            if word != "info":
                self._fail(f"protocol error: {_quote(word, rest)} instead of 'move' or 'info'")
            if len(self.info) < MAX_INFO:
                self.info.append(rest)

    def close(self):
        """Sends quit, then kills the program's whole process group."""
        process, self._process = self._process, None
        if process is not None:
            _LIVE.discard(self)
            if process.poll() is None:
                if self.transcript:
                    self.transcript("> quit")
                try:
                    os.write(process.stdin.fileno(), b"quit\n")
                    process.wait(_QUIT_WAIT)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            _kill(process)
            for pipe in (process.stdin, process.stdout):
                pipe.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def __del__(self):
        if getattr(self, "_process", None) is not None:
            _kill(self._process)

    def __repr__(self):
        return f"Engine({self.label!r})"

    # ---- lines ----

    def _send(self, text, deadline):
        if self.transcript:
            for line in text.splitlines():
                self.transcript(f"> {line}")
        data = memoryview(text.encode())
        fd = self._process.stdin.fileno()
        while data:
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                # the engine is not reading its input: wait for room, not past the deadline
                if not _wait(self._writable, deadline):
                    self._fail("stopped reading its input")
            except BrokenPipeError:
                self._fail(self._exit_reason())

    def _read(self, deadline, too_late):
        """The next non-blank line as (first word, the rest)."""
        while True:
            line = self._line(deadline, too_late)
            if line.strip():
                word, _, rest = line.strip().partition(" ")
                return word, rest

    def _line(self, deadline, too_late):
        fd = self._process.stdout.fileno()
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
            if len(self._buffer) > MAX_LINE:
                self._fail(f"protocol error: a line longer than {MAX_LINE} bytes")
            if not _wait(self._readable, deadline):
                self._fail(too_late)
            chunk = os.read(fd, 65536)
            if not chunk:
                self._fail(self._exit_reason())
            self._buffer += chunk

    def _drain(self):
        """Reads what the engine sent unasked since its last move: info lines are kept
        (for this move), anything else is a protocol error."""
        fd = self._process.stdout.fileno()
        while b"\n" in self._buffer or self._readable.poll(0):
            if b"\n" not in self._buffer:
                chunk = os.read(fd, 65536)
                if not chunk:
                    self._fail(self._exit_reason())
                self._buffer += chunk
                continue
            word, rest = self._read(0, "")
            if word != "info":
                self._fail(f"protocol error: {_quote(word, rest)} after its move, unasked")
            if len(self.info) < MAX_INFO:
                self.info.append(rest)

    def _fail(self, reason):
        """Forfeit: kill the program (it starts again for the next game) and say why."""
        detail = self._stderr_tail()
        self.close()
        raise Forfeit(reason, detail)

    def _exit_reason(self):
        try:
            code = self._process.wait(1.0)
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

    def _stderr_tail(self, size=2000):
        if self._stderr is None:
            return ""
        fd = self._stderr.fileno()
        end = os.fstat(fd).st_size
        return os.pread(fd, size, max(0, end - size)).decode("utf-8", "replace")


def _quote(word, rest):
    line = f"{word} {rest}".strip()
    return repr(line if len(line) <= 80 else line[:77] + "...")


def _poller(fd, event):
    poller = select.poll()
    poller.register(fd, event | select.POLLHUP | select.POLLERR)
    return poller


def _wait(poller, deadline):
    """True once the poller's pipe is ready, False when the deadline (monotonic) passes."""
    while True:
        left = deadline - time.monotonic()
        if poller.poll(max(0, left) * 1000):
            return True
        if left <= 0:
            return False


def _kill(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)    # the engine and anything it started
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        pass


def close_all():
    """Kills every engine program this process started that is still running."""
    for engine in list(_LIVE):
        process = engine._process
        if process is not None:
            _kill(process)


def _install_cleanup():
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


def _terminated(signum, frame):
    close_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _die_with_parent():
    """On Linux, a function that makes the child get SIGKILL when the thread that started
    it dies (so a killed worker leaves no engine behind); None elsewhere, or when started
    from another thread than the main one, whose end would kill the engine too early."""
    if not sys.platform.startswith("linux") or threading.current_thread() is not threading.main_thread():
        return None
    import ctypes
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def die_with_parent():
        prctl(1, signal.SIGKILL)    # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return die_with_parent
