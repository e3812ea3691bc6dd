"""A game's changes as Server-Sent Events (sse-starlette), for `GET /api/games/{id}/events`
(serve/app.py): the stream of one listener, and the caps on the streams open at once, so
that listeners never take the file descriptors that moves and the database need.
"""

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from photocore.errors import missing_extra

try:
    from sse_starlette import EventSourceResponse, ServerSentEvent
    from starlette.types import Receive, Scope, Send
except ImportError as e:     # the `serve` extra
    raise missing_extra(__name__, "serve", e) from None

from photocore.serve import view
from photocore.serve.table import Table

__all__ = ["MAX_LISTENERS", "MAX_CLIENT_STREAMS", "FILES_KEPT_FREE", "PING", "RETRY_MS",
           "stream", "Events", "stream_cap", "Streams"]

MAX_LISTENERS = 64
"""Event streams of one game at once."""
MAX_CLIENT_STREAMS = 64
"""Event streams of one client at once, all games together."""
FILES_KEPT_FREE = 64
"""File descriptors no event stream may take: kept for moves and the database."""
PING = 15.0
"""Seconds between two comments on a quiet event stream, a keep-alive."""
RETRY_MS = 1000
"""Milliseconds a browser waits before it reconnects a dropped stream (the event stream's
`retry`)."""


async def stream(table: Table, after: int | None, with_svg: bool
                 ) -> AsyncIterator[ServerSentEvent]:
    """A game's events for one listener: the changes after version `after` (none when it
    is None: a new listener), then the state; again at each change, and when the state
    shown changes otherwise (an agent stops thinking). Ends when the game is closed. The
    stream was counted (Streams.admit) before it began."""
    if after is not None and after > table.version:
        after = None        # an id of another server's game: start afresh
    shown = None
    while not table.closed:
        seen = table.news.count
        if after is not None:
            for version, change in table.changes_after(after):
                yield ServerSentEvent(_compact({"version": version, **change}),
                                      event="change", id=str(version))
                after = version
        state = view.state(table, with_svg)
        if after is None:
            after = state.version
        key = state.version, state.thinking, state.stopped, state.unsaved
        if key != shown:
            yield ServerSentEvent(_compact(state.model_dump(exclude_unset=True)), event="state",
                                  id=str(state.version),
                                  retry=RETRY_MS if shown is None else None)
            shown = key
        await table.wait_for_news(seen, PING)


class Events(EventSourceResponse):
    """An event stream that gives its place back (`release`) when it ends, however it
    ends: started or not, the client gone or the game closed."""

    def __init__(self, *args: Any, release: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._release: Callable[[], None] | None = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            release, self._release = self._release, None
            if release is not None:
                release()


def stream_cap() -> int:
    """The most event streams the server holds at once: half of the file descriptors it
    may open (RLIMIT_NOFILE's soft limit) past FILES_KEPT_FREE, so that streams never
    take the descriptors that moves, the database and the agents' engines need."""
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):    # Windows: no such limit
        return 4096
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return 4096
    return max(8, min(4096, (soft - FILES_KEPT_FREE) // 2))


class Streams:
    """The event streams open, by game (Table.listeners), by client and in all, and their
    caps: MAX_LISTENERS a game, MAX_CLIENT_STREAMS a client, `most` in all. Counted on
    the event loop's thread only (the route and the response), so that a check and its
    count are one step: streams opened at once cannot all pass a cap."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.open = 0
        self.by_client: dict[str, int] = {}
        """Client -> its streams open (no entry: none)."""

    def admit(self, table: Table, client: str) -> str | None:
        """Counts a new stream of `client` on `table`; or why it is refused."""
        if table.listeners >= MAX_LISTENERS:
            return f"game {table.id} has {MAX_LISTENERS} event streams open, its most"
        if self.by_client.get(client, 0) >= MAX_CLIENT_STREAMS:
            return (f"this client ({client[:60]}) has {MAX_CLIENT_STREAMS} event streams "
                    "open, its most: close some")
        if self.open >= self.most:
            return f"the server has {self.most} event streams open, its most: try again later"
        table.listeners += 1
        self.by_client[client] = self.by_client.get(client, 0) + 1
        self.open += 1
        return None

    def release(self, table: Table, client: str) -> None:
        """Uncounts a stream of `client` on `table` that admit() counted, once it ends."""
        table.listeners -= 1
        self.open -= 1
        left = self.by_client.get(client, 0) - 1
        if left > 0:
            self.by_client[client] = left
        else:
            self.by_client.pop(client, None)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
