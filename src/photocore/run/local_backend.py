"""Runs on this machine: batches of a plan in worker processes (loky), yielded in order;
the workers leave Ctrl-C to the run and end when it dies."""

import collections
import contextlib
import ctypes
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Generator, Sequence
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool

import loky

from photocore.run.plan import P, Plan, RunError

__all__ = ["PARENT_WATCH", "run_local", "worker_pool"]

PARENT_WATCH = 1.0      # seconds between a worker's looks at whether its parent still lives


def run_local(plan: Plan[P], todo: Sequence[tuple[int, int]],
              workers: int) -> Generator[P, None, None]:
    """The batches `todo` played by `workers` processes, yielded in order."""
    pool = worker_pool(workers)
    finished = False
    try:
        # a bounded window of batches in flight keeps memory flat on long runs
        window = 4 * workers
        futures: collections.deque[Future[P]] = collections.deque(
            pool.submit(plan.batch, *todo[i]) for i in range(min(window, len(todo))))
        for i, (start, count) in enumerate(todo):
            future = futures.popleft()
            try:
                result = future.result()
            except BrokenProcessPool as e:     # loky's TerminatedWorkerError
                raise RunError(f"a worker process {_how_workers_died(e)} (BrokenProcessPool): "
                               f"the run stopped before games {start + 1}..{start + count}"
                               ) from None
            except Exception as e:             # the batch raised in its worker
                raise RunError(f"the batch of games {start + 1}..{start + count} failed in "
                               f"its worker ({type(e).__name__}: {e}): the run stopped there"
                               ) from e
            if i + window < len(todo):
                futures.append(pool.submit(plan.batch, *todo[i + window]))
            yield result
        finished = True
    finally:
        # a stopped run must not wait for batches nobody will read
        pool.shutdown(wait=True, kill_workers=not finished)


def worker_pool(workers: int) -> loky.ProcessPoolExecutor:
    """A pool of `workers` processes, as every run's (and the AlphaZero example's). They
    start clean (loky: fork + exec) whatever threads this process runs; loky notices dead
    workers itself and kills the rest (and their children: engines) on demand. They leave
    Ctrl-C to this process, and end when it dies without stopping them (_start_worker).
    Submit from the thread that made the pool: it starts the workers."""
    return loky.ProcessPoolExecutor(
        max_workers=workers, initializer=_start_worker,
        initargs=(os.getpid(), threading.current_thread() is threading.main_thread()))


def _start_worker(parent: int, from_main_thread: bool) -> None:
    """Readies a worker process of `parent`. Ctrl-C is left to the parent, which stops the
    workers itself: a SIGINT sent to the whole process group (the terminal's Ctrl-C) must
    not kill them mid-batch or spray tracebacks. And the worker ends when its parent dies
    without stopping it (kill -9, the out-of-memory killer), where it would otherwise wait
    for batches forever, keeping loky's resource trackers alive too: they end by themselves
    once every process holding their pipe (the parent, the workers) has gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if from_main_thread and sys.platform.startswith("linux"):
        # at once: SIGKILL when the thread that started this process ends (hence only for
        # the main thread's workers: another thread may end before the pool)
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)    # PR_SET_PDEATHSIG
    # everywhere (and if the parent died before prctl): a look at the parent every second
    threading.Thread(target=_watch_parent, args=(parent,), name="photocore-parent-watch",
                     daemon=True).start()


def _watch_parent(parent: int) -> None:
    """Ends this worker once `parent` has died (this process is then someone else's)."""
    while os.getppid() == parent:
        time.sleep(PARENT_WATCH)
    # SIGTERM, as a stopped run's workers get (its engines are closed, play/protocol.py);
    # if a handler holds it up, the process ends anyway
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)
    os._exit(1)


def _how_workers_died(error: BaseException) -> str:
    """How the dead workers ended, in words, from the exit codes loky reports with them
    (as "{SIGKILL(-9), EXIT(1)}").

    >>> _how_workers_died(RuntimeError("The exit codes of the workers are {SIGKILL(-9)}"))
    'was killed by SIGKILL'
    """
    how = set()
    for name, code in re.findall(r"\b(\w+)\((-?\d+)\)", str(error)):
        if int(code) < 0:
            how.add(f"was killed by {name if name.startswith('SIG') else f'signal {-int(code)}'}")
        elif int(code) > 0:
            how.add(f"exited with status {code}")
    if not how:
        return "died unexpectedly (killed, or out of memory?)"
    return " and another ".join(sorted(how))
