"""Telling a game's waiting requests and event streams that it changed: the asyncio
futures of those waiting, woken from any thread (an agent's worker, a request)."""

import asyncio
import threading
import time
from collections.abc import Callable

__all__ = ["Notifier"]


class Notifier:
    """The requests waiting on a game, whose state is guarded by `lock` (the Table's).
    `count` grows with everything a listener may want to hear (a change, an agent that
    stops thinking): `notify` counts it and wakes them all."""

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock
        self.count = 0
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def notify(self) -> None:
        """Under the lock: counted, and every waiting request woken."""
        self.count += 1
        for loop, future in self._waiters:
            loop.call_soon_threadsafe(_wake, future)
        self._waiters.clear()

    async def until(self, done: Callable[[], bool], seconds: float) -> None:
        """Returns once `done()` (asked under the lock) is true, or after `seconds`."""
        deadline = time.monotonic() + seconds
        loop = asyncio.get_running_loop()
        while (left := deadline - time.monotonic()) > 0:
            future: asyncio.Future[None] = loop.create_future()
            with self.lock:
                if done():
                    return
                self._waiters.append((loop, future))
            try:
                await asyncio.wait_for(future, left)
            except TimeoutError:
                return
            finally:
                with self.lock:
                    if (loop, future) in self._waiters:
                        self._waiters.remove((loop, future))


def _wake(future: "asyncio.Future[None]") -> None:
    if not future.done():
        future.set_result(None)
