"""A self-play Series that fails on purpose, for tests/runs/test_faults.py.

The fault travels inside the Series to wherever its batches are played: pool workers
unpickle this class by reference (tests/ is on the sys.path their forkserver inherits),
Ray workers by value (`by_value_for_ray`), so the shipped package carries no test hook.
"""

import os
import signal
import threading
import time

from photocore.run.selfplay import SelfPlayBatch, Series

HUGE = 300 << 20        # bytes: sending them back takes a while


class FaultySeries(Series):
    """A Series whose batch holding game `game` fails, as `kind` says:

    "raise"        raises RuntimeError every time it is played;
    "kill-worker"  kills the process playing it (SIGKILL) before it returns;
    "fail-once"    raises on its first attempt only (a marker file in `folder` remembers
                   it across Ray's worker processes), so a retry succeeds;
    "huge"         returns HUGE bytes more (and so do the batches after it);
    "kill-sending" returns HUGE bytes more and kills its process while they are sent.
    """

    def __init__(self, kind, game, *args, folder=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.kind, self.game, self.folder = kind, game, folder

    def batch(self, start, count):
        hit = start <= self.game < start + count
        if hit and self.kind == "raise":
            raise RuntimeError(f"injected failure of the batch of game {self.game}")
        if hit and self.kind == "fail-once":
            marker = os.path.join(self.folder, f"failed-{start}")
            if not os.path.exists(marker):
                open(marker, "w").close()
                raise RuntimeError(f"injected failure of the first attempt of batch {start}")
        result = super().batch(start, count)
        if hit and self.kind == "kill-worker":
            os.kill(os.getpid(), signal.SIGKILL)
        if (hit and self.kind == "kill-sending") or (self.kind == "huge" and start >= self.game):
            if self.kind == "kill-sending":
                threading.Thread(target=_kill_soon, daemon=True).start()
            return SelfPlayBatch([*result.lines, b"x" * HUGE], result.tally)
        return result


def _kill_soon():
    time.sleep(0.05)
    os.kill(os.getpid(), signal.SIGKILL)


def by_value_for_ray(ray):
    """Ray workers need not find tests/: pickle this module's classes by value."""
    import sys

    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


def faulty(kind, game, **kwargs):
    """A stand-in for the Series class (as the `selfplay` command calls it) that builds
    FaultySeries with this fault."""
    return lambda *args, **more: FaultySeries(kind, game, *args, **kwargs, **more)
