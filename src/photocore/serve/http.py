"""uvicorn's HTTP/1.1 (h11) with a deadline on each request. uvicorn has none while it
waits for a request: a client could hold a connection (a socket, a file descriptor, its
buffers) for ever by sending its headers a byte at a time, or nothing at all, and a few
thousand such connections exhaust the server. `photocore serve` runs uvicorn with
`Config(http=Protocol)`.
"""

import asyncio
from typing import Any

from photocore.errors import missing_extra

__all__ = ["REQUEST_TIMEOUT", "Protocol"]

try:
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol
except ImportError as e:     # the `serve` extra
    raise missing_extra(__name__, "serve", e) from None


REQUEST_TIMEOUT = 10.0      # seconds a client has to send a whole request


class Protocol(H11Protocol):
    """A client has `request_timeout` seconds to send a whole request, headers and body,
    from the moment it connects or its previous answer was sent; then the connection is
    closed (a request being answered has been received whole: it is not cut short)."""

    request_timeout = REQUEST_TIMEOUT
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._wait_for_request()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
            self._received()            # the whole request (or the end of the connection)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if (self.conn.their_state in (h11.IDLE, h11.SEND_BODY)
                and not self.transport.is_closing()):
            self._wait_for_request()    # the next one, on a connection kept alive

    def connection_lost(self, exc: Exception | None) -> None:
        self._received()
        super().connection_lost(exc)

    def _wait_for_request(self) -> None:
        self._received()
        self._deadline = self.loop.call_later(self.request_timeout, self._too_slow)

    def _received(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()
