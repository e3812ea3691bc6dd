"""The JSON API for games under /api/ and the page to play in (FastAPI on uvicorn).

`create_app(agents)` makes the application; `photocore serve` runs it. docs/play.md has
every route with an example session. Every refused request is answered with a 4xx status
and `{"error": "one line"}`; games live in a serve/store.py Store, saved in its database
(serve/database.py), and are shown as serve/view.py builds them. A request that acts for a
seat carries that seat's token (`Authorization: Bearer TOKEN`, checked by serve/auth.py);
`GET /api/games/{id}/events` streams a game's changes as Server-Sent Events
(serve/events.py).
"""

import asyncio
import contextlib
import errno
import importlib.resources
import ipaddress
import json
import logging
import math
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from typing import Annotated, Any
from urllib.parse import urlsplit

from photocore.errors import missing_extra

try:
    import anyio.to_thread
    from fastapi import Depends, FastAPI, Header, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
    from fastapi.routing import APIRoute
    from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
    from fastapi.staticfiles import StaticFiles
    from starlette.exceptions import HTTPException
    from starlette.types import ASGIApp, Receive, Scope, Send
except ImportError as e:     # the `serve` extra
    raise missing_extra(__name__, "serve", e) from None

from photocore.errors import RecordError
from photocore.facts import OPTIONS, PLAYERS, RULES_VERSION, SIZES, VERSION
from photocore.limits import HTTP_BODY_CAP
from photocore.play import hints
from photocore.play.session import BadRequest, NotNow
from photocore.serve import models, view
from photocore.serve.auth import Forbidden, seat_of
from photocore.serve.database import MEMORY, Damaged, Database, DatabaseError
from photocore.serve.events import PING, Events, Streams, stream, stream_cap
from photocore.serve.store import (
    DEFAULT_EXPIRE,
    DEFAULT_KEEP,
    DEFAULT_MAX_GAMES,
    DEFAULT_MAX_GAMES_PER_CLIENT,
    Agents,
    Store,
    TooManyGames,
    Unavailable,
    UnknownGame,
)
from photocore.serve.table import Table
from photocore.strictjson import loads

__all__ = [
    "MAX_BODY", "MAX_WAIT", "LOG_EVERY", "STATIC", "PAGE_POLICY", "Token", "create_app",
    "validation_message", "client_of", "Guard"
]

MAX_BODY = HTTP_BODY_CAP
"""Bytes of a request's body at most (photocore.limits)."""
MAX_WAIT = 30.0
"""Seconds a GET may wait for an agent's move."""
LOG_EVERY = 10.0
"""Seconds between two log lines on a lack of file descriptors."""
STATIC = importlib.resources.files("photocore.serve").joinpath("static")
"""The folder of the served page's files (photocore/serve/static/), a package resource."""
PAGE_POLICY = ("default-src 'self'; img-src 'self' data:; style-src 'self'; "
               "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
"""The Content-Security-Policy of the served page: it runs only its own script, talks only to this
server, and no site may frame it."""

_STATUS = {BadRequest: 400, Forbidden: 403, UnknownGame: 404, NotNow: 409, TooManyGames: 429,
           Unavailable: 503, DatabaseError: 503, Damaged: 500}
_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": models.Error, "description": "a bad request: the error says what"},
    404: {"model": models.Error, "description": "no such game"},
    409: {"model": models.Error, "description": "not possible in the game's state now"},
}
_SEATED: dict[int | str, dict[str, Any]] = {
    **_ERRORS, 403: {"model": models.Error, "description": "no token of a seat that may do it"}}
# a seat's token, from `Authorization: Bearer TOKEN` (None when there is none)
_bearer = HTTPBearer(auto_error=False, description="a seat's token, as creating the game "
                     "answered it (its invite link holds it too)")
Token = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
"""A route's parameter for a seat's bearer token: the credentials, or None where the request has
none."""


def create_app(agents: Sequence[str] | Agents = ("random",), max_games: int = DEFAULT_MAX_GAMES,
               expire: float = DEFAULT_EXPIRE, hint_simulations: int = hints.DEFAULT_SIMULATIONS,
               allowed_hosts: Sequence[str] | None = None,
               max_games_per_client: int = DEFAULT_MAX_GAMES_PER_CLIENT,
               db: "str | os.PathLike[str]" = MEMORY, keep: float = DEFAULT_KEEP) -> FastAPI:
    """The application: the API over a Store seating `agents` (specs, checked here with
    ValueError on one that cannot play, or Agents already checked; the first is the
    default opponent) whose games are kept in the SQLite database `db` (":memory:": none
    outlives the process), finished ones `keep` seconds; the page at / and the lobby at
    /games. Opened on a database that holds games, it serves them again (DatabaseError when
    the file cannot be used).

    `allowed_hosts` (host names, without port), when given, are the only Host headers
    answered: a server on the loopback interface refuses other names, which stops DNS
    rebinding. Requests from a page of another origin that would change a game are refused.
    A client (an IPv4 address, an IPv6 /64 network) plays at most `max_games_per_client`
    unfinished games at once.
    """
    if not isinstance(agents, Agents):
        agents = Agents(agents)
        agents.check()
    database = Database(db)
    try:
        store = Store(agents, max_games=max_games, expire=expire,
                      hint_simulations=hint_simulations, max_games_per_client=max_games_per_client,
                      db=database, keep=keep)
    except BaseException:
        database.close()
        raise

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        asyncio.get_running_loop().set_exception_handler(_Quiet())
        yield
        store.close()           # the agents stop, engine programs end, the database closes

    app = FastAPI(title="photocore", version=VERSION,
                  summary="Play Photosynthesis against photocore's agents",
                  openapi_url="/api/openapi.json", docs_url=None, redoc_url=None,
                  lifespan=lifespan)
    app.state.store = store
    app.state.streams = streams = Streams(stream_cap())
    app.router.route_class = _Route
    _errors(app)
    _routes(app, store, streams)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    app.add_middleware(Guard, allowed_hosts=allowed_hosts)
    return app


class _Body(Request):
    """A request whose JSON body is read with photocore's limits: every way it fails is a
    JSONDecodeError, which FastAPI answers as invalid JSON with its reason (others it
    answers "There was an error parsing the body", whatever they were)."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = _parse_body(await self.body())
        return self._json


def _parse_body(body: bytes) -> Any:
    """The body's JSON, read as every record and message is (strictjson.loads: NaN, 1e400, a
    key written twice, nesting too deep are refused); each failure a JSONDecodeError that
    says what is wrong."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise json.JSONDecodeError(f"not UTF-8: {e.reason} at byte {e.start}", "", e.start) \
            from None
    try:
        return loads(text)
    except RecordError as e:
        raise json.JSONDecodeError(str(e).removeprefix("malformed JSON: "), text, 0) from None


class _Route(APIRoute):
    """The API's routes: their requests' bodies read as _Body reads them."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def with_body(request: Request) -> Response:
            return await handle(_Body(request.scope, request.receive))

        return with_body


def _json(content: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(content, status_code=status)


def _state(table: Table, with_svg: bool) -> Response:
    """The game as GET answers it: serve/view.py's GameState, the SVG only when asked
    (written by pydantic: the bytes JSONResponse would write, in half the time)."""
    return Response(view.state(table, with_svg).model_dump_json(exclude_unset=True),
                    media_type="application/json")


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _errors(app: FastAPI) -> None:
    for kind, status in _STATUS.items():
        app.add_exception_handler(kind, _handler(status))

    async def invalid(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return _error(400, validation_message(exc.errors()))

    async def http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            return _error(404, f"no such page: {request.method} {request.url.path}")
        if exc.status_code == 405:
            return _error(405, f"{request.method} is not allowed on {request.url.path}")
        return _error(exc.status_code, str(exc.detail))

    async def crash(request: Request, exc: Exception) -> Response:
        return _error(500, f"internal error ({type(exc).__name__}); the server goes on")

    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http)
    app.add_exception_handler(Exception, crash)


def _handler(status: int) -> Callable[[Request, Exception], Awaitable[Response]]:
    async def handle(request: Request, exc: Exception) -> Response:
        return _error(status, str(exc))
    return handle


def validation_message(errors: Sequence[Any]) -> str:
    """The first of pydantic's errors in one line, naming the field.

    >>> validation_message([{"type": "less_than_equal", "loc": ("body", "players"),
    ...                      "msg": "Input should be less than or equal to 4", "input": 7}])
    'players: input should be less than or equal to 4, got 7'
    """
    first = errors[0]
    kind, where = first.get("type", ""), [str(p) for p in first.get("loc", ())]
    if kind == "json_invalid":
        error = first.get("ctx", {}).get("error", "")
        return f"the body is not valid JSON ({error})" if error else "the body is not valid JSON"
    if where == ["body"] and kind in ("missing", "model_attributes_type", "dict_type"):
        return "the body must be a JSON object"
    field = ".".join(where[1:] if where[:1] in (["body"], ["query"], ["path"]) else where)
    if kind == "extra_forbidden":
        return f"unknown field {field!r}"
    if kind == "missing":
        return f"missing field {field!r}"
    message = str(first.get("msg", "invalid")).removeprefix("Value error, ")
    message = message[:1].lower() + message[1:]
    got = f", got {first['input']!r}"[:80] if "input" in first else ""
    return f"{field}: {message}{got}"


# ---- the routes --------------------------------------------------------------------------

def _routes(app: FastAPI, store: Store, streams: "Streams") -> None:
    page_headers = {"Content-Security-Policy": PAGE_POLICY, "Cache-Control": "no-cache"}

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(str(STATIC.joinpath("index.html")), headers=page_headers)

    @app.get("/games", include_in_schema=False)
    async def lobby() -> FileResponse:
        return FileResponse(str(STATIC.joinpath("games.html")), headers=page_headers)

    @app.get("/api/info", response_model=models.Info)
    async def info() -> Response:
        """The agents a game can seat, the player counts and options, the store's limits."""
        return _json({
            "version": VERSION, "rules_version": RULES_VERSION,
            "agents": list(store.agents.labels), "players": list(PLAYERS),
            "columns": list(SIZES),
            "options": {str(o): o.name for o in OPTIONS},
            "games": len(store), "max_games": store.max_games,
            "max_games_per_client": store.max_games_per_client,
            "expire_seconds": store.expire, "keep_seconds": store.keep,
            "saved": store.db.path != MEMORY})

    @app.post("/api/games", status_code=201, response_model=models.NewGameState,
              responses={**_ERRORS, 429: {"model": models.Error},
                         503: {"model": models.Error}})
    async def create(request: Request, new: models.NewGame | None = None,
                     svg: bool = False) -> Response:
        """A new game; an agent to move starts thinking at once. The answer holds, this
        once, each person's seat's token and link (only their hashes are kept)."""
        new = new or models.NewGame.model_validate({})
        table, tokens = store.create(
            players=new.players, options=new.options, seats=new.seats, position=new.position,
            moves=new.moves, seed=new.seed,
            client=client_of(request.client.host if request.client else ""))
        created = models.NewGameState.model_validate({
            **view.state(table, svg).model_dump(exclude_unset=True),
            "invites": [{"seat": seat, "token": token,
                         "link": f"/#game={table.id}&seat{seat}={token}"}
                        for seat, token in tokens.items()],
            "watch": f"/#game={table.id}"})
        return _json(created.model_dump(exclude_unset=True), 201)

    @app.get("/api/games/{id}", response_model=models.GameState, responses=_ERRORS)
    async def read(id: str, svg: bool = False,
                   wait: float = Query(0.0, ge=0, le=MAX_WAIT, description=(
                       "seconds to wait for the agents to finish their moves"))) -> Response:
        """The game; with wait=S, answered once no agent is thinking (or after S s)."""
        table = store.get(id)
        if wait:
            await table.wait(wait)
            unsaved = table.worker.unsaved
            if unsaved and not view.state(table).thinking:
                raise DatabaseError(unsaved)     # the move waited for is not saved
        return _state(table, svg)

    @app.get("/api/games/{id}/events", responses={
        **_ERRORS, 200: {"content": {"text/event-stream": {}}, "description": (
            "`change` events (a change as it is saved, its id the version it made) and "
            "`state` events (the game, as GET answers it, its id its version)")}})
    async def events(id: str, request: Request, svg: bool = False,
                     last_event_id: str | None = Header(None, description=(
                         "the id of the last event received: the changes after it come "
                         "first"))) -> Response:
        """The game's changes as Server-Sent Events, as they are made: first, after
        Last-Event-ID, the changes since then; then the game's state, and again after
        each change. 429 past a game's, a client's or the server's most streams."""
        table = store.get(id)
        after = _event_id(last_event_id)
        who = client_of(request.client.host if request.client else "")
        refusal = streams.admit(table, who)     # counted here, at once: no await between
        if refusal is not None:
            return _error(429, refusal)
        return Events(stream(table, after, svg), ping=PING,
                       release=lambda: streams.release(table, who))

    @app.delete("/api/games/{id}", status_code=204, responses=_SEATED)
    async def delete(id: str, token: Token) -> Response:
        """Forgets the game (its agents stop): any of its people's seats may."""
        _seat(store.get(id), token)
        store.delete(id)
        return Response(status_code=204)

    @app.post("/api/games/{id}/moves", response_model=models.GameState, responses=_SEATED)
    async def play(id: str, move: models.PlayMove, token: Token, svg: bool = False) -> Response:
        """The move of the person to move (their seat's token); the agents' reply follows
        in the background (GET with wait, or the events)."""
        table = store.get(id)
        table.play(move.move, move.ply, seat=_seat(table, token))
        return _state(table, svg)

    @app.post("/api/games/{id}/undo", response_model=models.GameState, responses=_SEATED)
    async def undo(id: str, token: Token, svg: bool = False) -> Response:
        """Takes back the seat's last move and the agents' moves after it."""
        table = store.get(id)
        table.undo(seat=_seat(table, token))
        return _state(table, svg)

    @app.post("/api/games/{id}/hint", response_model=models.Hints, responses=_SEATED)
    async def hint(id: str, token: Token, ask: models.AskHint | None = None) -> Response:
        """The best moves for the person to move, with their value (flat Monte Carlo)."""
        table = store.get(id)
        seat = _seat(table, token)
        top = (ask or models.AskHint.model_validate({})).top
        return _json(await anyio.to_thread.run_sync(lambda: table.hint(top, seat=seat)))

    @app.post("/api/games/{id}/resign", response_model=models.GameState, responses=_SEATED)
    async def resign(id: str, token: Token, who: models.Resign | None = None,
                     svg: bool = False) -> Response:
        """The seat gives the game up."""
        table = store.get(id)
        table.resign(who.player if who else None, seat=_seat(table, token))
        return _state(table, svg)

    @app.post("/api/games/{id}/stop", response_model=models.GameState, responses=_SEATED)
    async def stop(id: str, token: Token, svg: bool = False) -> Response:
        """Stops the agent that is thinking; the game waits (any person's seat may)."""
        table = store.get(id)
        table.stop(seat=_seat(table, token))
        return _state(table, svg)

    @app.post("/api/games/{id}/resume", response_model=models.GameState, responses=_SEATED)
    async def resume(id: str, token: Token, svg: bool = False) -> Response:
        """Lets stopped agents go on (any person's seat may)."""
        table = store.get(id)
        table.resume(seat=_seat(table, token))
        return _state(table, svg)

    @app.get("/api/games/{id}/record", responses=_ERRORS)
    async def record(id: str) -> Response:
        """The game as a record, one JSON line (docs/records.md), to download."""
        line = _record_line(store.get(id))
        return Response(line, media_type="application/x-ndjson", headers={
            "Content-Disposition": f'attachment; filename="photocore-{id}.jsonl"'})

    @app.get("/api/games/{id}/replay", response_class=HTMLResponse, responses=_ERRORS)
    async def replay(id: str) -> Response:
        """The game in the replay viewer: a page to step through."""
        table = store.get(id)
        return HTMLResponse(await anyio.to_thread.run_sync(table.replay))

    @app.get("/api/games/{id}/board.svg", responses=_ERRORS)
    async def board(id: str) -> Response:
        """The board as SVG."""
        return Response(view.state(store.get(id), True).svg, media_type="image/svg+xml")


def _seat(table: Table, token: HTTPAuthorizationCredentials | None) -> int:
    """The seat the request acts for: its token's (serve/auth.py), else Forbidden."""
    return seat_of(table.tokens, table.id, token.credentials if token else None)


def _event_id(text: str | None) -> int | None:
    """The version a Last-Event-ID names (BadRequest for one that is no event's id)."""
    if text is None:
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= 12):
        raise BadRequest(f"Last-Event-ID {text[:40]!r} is no event's id (a version: 0, 1, ...)")
    return int(text)


class _Quiet:
    """The event loop's exception handler: a lack of file descriptors (or memory) when
    accepting a connection is told in one line at most every LOG_EVERY seconds, with the
    number of times since (asyncio would log a traceback for each try, up to a hundred
    in one turn of the loop: megabytes a second), and the retries it scheduled that find
    the listener closed when the server stops are silent; anything else as asyncio tells
    it."""

    SCARCE = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)

    def __init__(self) -> None:
        self.last = -math.inf
        self.missed = 0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        scarce = isinstance(exc, OSError) and exc.errno in self.SCARCE
        # each of those tries scheduled another a second later (asyncio goes on trying in
        # its loop): once the listener is closed (the server stops) each raises ValueError
        retried = (isinstance(exc, ValueError)
                   and "_start_serving" in str(context.get("message", "")))
        if retried:
            return
        if not scarce:
            loop.default_exception_handler(context)
            return
        assert isinstance(exc, OSError)
        self.missed += 1
        now = time.monotonic()
        if now - self.last >= LOG_EVERY:
            logging.getLogger("photocore.serve").warning(
                "photocore serve: %s (%s), %d times in the last %g s: connections wait",
                context.get("message", "out of a resource"), exc.strerror, self.missed,
                LOG_EVERY)
            self.last, self.missed = now, 0


def _record_line(table: Table) -> bytes:
    return json.dumps(table.record(), separators=(",", ":")).encode() + b"\n"


def client_of(address: str) -> str:
    """Who a request comes from, for the cap on games: its IPv4 address, or the /64 network
    of its IPv6 address (one host's share); anything else as it is.

    >>> client_of("192.0.2.7"), client_of("2001:db8::1:2:3:4"), client_of("testclient")
    ('192.0.2.7', '2001:db8::/64', 'testclient')
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else ip)


# ---- what every request passes -----------------------------------------------------------

class Guard:
    """ASGI middleware: the Host header among `allowed_hosts` (when given); no request that
    changes a game from a page of another origin; bodies of at most MAX_BODY bytes."""

    def __init__(self, app: ASGIApp, allowed_hosts: Sequence[str] | None = None) -> None:
        self.app = app
        self.allowed = None if allowed_hosts is None else {h.lower() for h in allowed_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", ())}
        refusal = self._refusal(scope["method"], headers)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _refusal(self, method: str, headers: dict[str, str]) -> JSONResponse | None:
        host = headers.get("host", "")
        if self.allowed is not None and _hostname(host) not in self.allowed:
            return _error(400, f"host {host[:100]!r} is not served here (only "
                               f"{', '.join(sorted(self.allowed))}): a guard against DNS "
                               "rebinding")
        if method not in ("GET", "HEAD", "OPTIONS"):
            origin = headers.get("origin")
            if origin is not None and _netloc(origin) != host.lower():
                return _error(403, f"requests from another site ({origin[:100]}) cannot "
                                   "change games")
            length = headers.get("content-length")
            # isascii: str.isdigit takes "²" too, which int() does not
            if length is not None and not (length.isascii() and length.isdigit()):
                return _error(400, f"Content-Length {length[:20]!r} is not a number of bytes")
            if length is not None and int(length) > MAX_BODY:
                return _error(413, f"the body is over {MAX_BODY // 1024} KiB")
            if length is None and "transfer-encoding" in headers:
                return _error(411, "send the body with a Content-Length")
        return None


def _netloc(url: str) -> str | None:
    """The host and port of an Origin header, lower case; None for one that is not a URL
    (http://[ ...), which is no origin of this server."""
    try:
        return urlsplit(url).netloc.lower()
    except ValueError:
        return None


def _hostname(host: str) -> str:
    """The name of a Host header, without its port: 127.0.0.1:8000 -> 127.0.0.1,
    [::1]:8000 -> ::1."""
    host = host.lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host
