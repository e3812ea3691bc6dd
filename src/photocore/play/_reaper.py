"""The reaper of one engine program (Linux): photocore.play.protocol starts every engine
through it, so that nothing the engine starts outlives it, and nothing outlives the
harness.

    python -I -S _reaper.py LINK PROGRAM [ARGS...]

It starts PROGRAM as its child, in a process group of its own, with the standard input
and output it was given (and lets go of them: the engine alone holds them), and writes
`started PID` or `error MESSAGE` to LINK, one end of a socket pair whose other end the
harness holds. It is a child subreaper (PR_SET_CHILD_SUBREAPER): whatever the engine
starts, even in a session of its own (`setsid`, a daemon's double fork), comes back to it
when orphaned. It ends, killing the engine's group and every such process, when

- the engine exits: it then exits the same way (its status, or the same signal), so the
  harness sees the engine's end as its own;
- it gets SIGTERM: the harness closes the engine;
- LINK hangs up: the harness is gone, whichever thread started the engine and however the
  harness died (kill -9 too). PR_SET_PDEATHSIG could not do this: it fires when the
  *thread* that started the child ends, and servers start engines from worker threads.

The engine itself gets SIGKILL if the reaper dies (PR_SET_PDEATHSIG, set in the reaper's
only thread). Its error output passes through the reaper into the file the reaper was given
as its own, which keeps at most LOG_KEPT bytes of it (the harness shows the end): an engine
that writes its error output without end does not fill the disk. It imports nothing but
the standard library: it starts with every engine.
"""

import contextlib
import ctypes
import fcntl
import os
import resource
import select
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
LOG_KEPT = 1 << 20          # bytes of the engine's error output kept at most
LOG_TAIL = 64 << 10         # what is kept of it when it grows past LOG_KEPT


def main(link: int, argv: list[str]) -> None:
    os.set_inheritable(link, False)             # the engine gets no end of the link
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    if prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        _report(link, f"error the reaper cannot be a subreaper: {os.strerror(ctypes.get_errno())}")
        os._exit(127)
    # SIGCHLD and SIGTERM wake the loop below through this pipe (no race with poll)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    stop = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.append(signum))
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    errors_r, errors_w = os.pipe()
    # the engine's error output passes through here into the harness's file (our fd 2),
    # whose end the harness shows: kept to LOG_KEPT however much the engine writes
    log_r, log_w = os.pipe()
    os.set_blocking(log_r, False)
    with contextlib.suppress(OSError):          # appended: the harness empties it per game
        fcntl.fcntl(2, fcntl.F_SETFL, fcntl.fcntl(2, fcntl.F_GETFL) | os.O_APPEND)
    reaper = os.getpid()
    engine = os.fork()
    if engine == 0:
        _exec(argv, reaper, prctl, errors_w, log_w)
    os.close(errors_w)
    os.close(log_w)
    with contextlib.suppress(OSError):
        os.setpgid(engine, engine)              # (the child sets it too: no race)
    with os.fdopen(errors_r, "rb") as errors:
        error = errors.read()                   # nothing: exec closed the pipe
    if error:
        _report(link, f"error {error.decode(errors='replace')}")
        os.waitpid(engine, 0)
        os._exit(127)
    _report(link, f"started {engine}")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    poller = select.poll()
    poller.register(link, select.POLLIN)       # the harness never writes: any event is its end
    poller.register(wake_r, select.POLLIN)
    poller.register(log_r, select.POLLIN)
    status = _reap(engine, block=False)
    while status is None and not stop:
        for fd, _ in poller.poll():
            if fd == link:
                stop.append(0)
            elif fd == log_r:
                if _pass_log(log_r) is False:
                    poller.unregister(log_r)
            else:
                os.read(wake_r, 512)
        status = _reap(engine, block=False)
    status = _kill_all(engine, status)
    while _pass_log(log_r):                     # the engine's last words
        pass
    _exit_as(status)


def _exec(argv: list[str], reaper: int, prctl: "ctypes._NamedFuncPointer", errors: int,
          log: int) -> None:
    """In the child: the engine program, its error output on `log`, or its failure
    written to `errors`."""
    try:
        os.dup2(log, 2)
        os.setpgid(0, 0)
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != reaper:          # the reaper died before prctl took effect
            os._exit(1)
        signal.set_wakeup_fd(-1)
        # what Python ignores or catches, the program gets as a program should
        for signum in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD, signal.SIGTERM):
            signal.signal(signum, signal.SIG_DFL)
        os.execvp(argv[0], argv)
    except OSError as e:
        os.write(errors, (e.strerror or str(e)).encode())
    finally:
        os._exit(127)


def _pass_log(log: int) -> bool | None:
    """Passes what waits of the engine's error output into our fd 2, cut to its last
    LOG_TAIL bytes when it grows past LOG_KEPT: True, or False at its end, None when
    nothing waits."""
    try:
        data = os.read(log, 65536)
    except BlockingIOError:
        return None
    if not data:
        return False
    with contextlib.suppress(OSError):          # a full disk: the log is lost, not the game
        os.write(2, data)
        size = os.fstat(2).st_size
        if size > LOG_KEPT:
            tail = os.pread(2, LOG_TAIL, size - LOG_TAIL)
            os.ftruncate(2, 0)
            os.write(2, tail)
    return True


def _report(link: int, text: str) -> None:
    with contextlib.suppress(OSError):
        os.write(link, text.encode() + b"\n")


def _reap(engine: int, block: bool) -> int | None:
    """Reaps the children that have exited (orphans of the engine too); the engine's wait
    status once it is among them. With `block`, waits for one child at least; ChildProcessError
    when none is left."""
    status = None
    flags = 0 if block else os.WNOHANG
    while True:
        try:
            pid, code = os.waitpid(-1, flags)
        except ChildProcessError:
            if block:
                raise
            return status
        if pid == 0:
            return status
        if pid == engine:
            status = code
        flags = os.WNOHANG


def _kill_all(engine: int, status: int | None) -> int | None:
    """Kills the engine's group and every process that came back to the reaper, until
    none is left; the engine's wait status."""
    with contextlib.suppress(OSError):
        os.killpg(engine, signal.SIGKILL)
    while True:
        # a child is ours, alive or a zombie, until reaped: its pid cannot be reused yet
        for child in _children():
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)
        try:
            reaped = _reap(engine, block=True)
        except ChildProcessError:
            return status
        status = reaped if reaped is not None else status


def _children() -> list[int]:
    """The reaper's children (from /proc: /proc/PID/task/TID/children is not in every
    kernel)."""
    me, found = os.getpid(), []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue                        # gone meanwhile
            fields = stat[stat.rfind(b")") + 2:].split()     # the name may hold ") "
            if len(fields) > 1 and int(fields[1]) == me:
                found.append(int(name))
    return found


def _exit_as(status: int | None) -> None:
    """Exits as the engine did: its exit status, or killed by the same signal."""
    if status is None:
        os._exit(1)
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))     # the engine's crash, not ours
        signal.set_wakeup_fd(-1)
        with contextlib.suppress(OSError, ValueError):
            signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        os._exit(128 + signum)
    os._exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2:])
