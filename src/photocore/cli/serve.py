"""`photocore serve`: the JSON API and the page to play in the browser (photocore.serve)."""

import contextlib
import ipaddress
import os
import pathlib
import socket
from typing import Any

import click

from photocore import files
from photocore.cli.options import FiniteRange, parse_agents
from photocore.cli.output import check_writable, missing
from photocore.play import hints, specs
from photocore.serve.database import MEMORY, Database, DatabaseError
from photocore.serve.store import (
    DEFAULT_EXPIRE,
    DEFAULT_KEEP,
    DEFAULT_MAX_GAMES,
    DEFAULT_MAX_GAMES_PER_CLIENT,
    Agents,
)

__all__ = ["DEFAULT_AGENTS", "LOOPBACK_NAMES", "MAX_EXPIRE", "MAX_KEEP", "serve", "default_db"]

DEFAULT_AGENTS = "mcts:1000,greedy,random"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
MAX_EXPIRE = 525_600.0      # minutes: a year (more overflows once made seconds)
MAX_KEEP = 36_500.0         # days: a century


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The interface to listen on. Anything but the loopback interface lets "
                   "other machines play (and use the served agents' CPU).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="The TCP port (0: any free port).")
@click.option("--agents", "agent_specs", default=DEFAULT_AGENTS, show_default=True,
              metavar="SPEC,...", callback=parse_agents,
              help="The agents a game can seat, the first the default opponent: random, "
                   "greedy, mcts:N, py:..., cmd:... (docs/matches.md). Requests choose "
                   "only among these.")
@click.option("--max-games", type=click.IntRange(min=1), default=DEFAULT_MAX_GAMES,
              show_default=True, help="Games held in memory at most.")
@click.option("--max-games-per-client", type=click.IntRange(min=1),
              default=DEFAULT_MAX_GAMES_PER_CLIENT, show_default=True,
              help="Unfinished games one client (an IPv4 address, an IPv6 /64) may hold at "
                   "once; behind a proxy every client is the proxy's address.")
@click.option("--expire", type=FiniteRange(1, MAX_EXPIRE), default=DEFAULT_EXPIRE / 60,
              show_default=True,
              help="Minutes a game is kept after its last request (a year at most).")
@click.option("--hint-simulations", type=click.IntRange(1, hints.MAX_SIMULATIONS),
              default=hints.DEFAULT_SIMULATIONS, show_default=True,
              help="Simulations (random playouts) a hint spends.")
@click.option("--db", "db", type=click.Path(dir_okay=False), default=None,
              help="The SQLite file the games are kept in, so that they outlive a restart "
                   "(default: serve.sqlite3 in the user's data folder; :memory: keeps none).")
@click.option("--keep", type=FiniteRange(0, MAX_KEEP), default=DEFAULT_KEEP / 86400,
              show_default=True,
              help="Days a finished game stays readable (its record, its replay).")
@click.option("--allowed-hosts", "allowed_hosts", default=None, metavar="NAME,...",
              help="The Host names answered (behind a reverse proxy: the site's name), "
                   "besides the loopback names on the loopback interface; others get a "
                   "400. Off loopback, without it, any name is answered.")
@click.option("--backup", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Copy the games' database (--db) to FILE, consistent even while a "
                   "server writes to it (SQLite's online backup), and exit.")
def serve(host: str, port: int, agent_specs: tuple[str, ...], max_games: int,
          max_games_per_client: int, expire: float, hint_simulations: int, db: str | None,
          keep: float, allowed_hosts: str | None, backup: str | None) -> None:
    """Play in the browser against photocore's agents, and drive games over a JSON API.

    Open the address it prints: a 2-player game against the first of --agents starts
    at once; the page also starts games of 2 to 4 players with any seats, and gives a
    link to each other person's seat to play online. Every game is kept in --db: a
    restarted server serves each as it was. The API lives under /api/ (its OpenAPI
    schema: /api/openapi.json; docs/play.md). Ctrl-C stops.

    \b
    Example:  photocore serve --agents mcts:1000,greedy,random
    """
    try:
        import uvicorn

        from photocore.serve.app import create_app
        from photocore.serve.http import Protocol

        path = db if db is not None else str(default_db())
    except ImportError as e:
        raise missing("photocore serve", "serve", e) from None
    if backup is not None:
        _backup(path, backup)
        return
    if db is not None and db != MEMORY:
        # the rule of every file a command writes: a folder that is not there is refused,
        # not made (a mistyped path); the default's, the user's data folder, is made
        try:
            check_writable(files.expanded(db), append=True)
        except ValueError as e:
            raise click.BadParameter(f"{db!r}: {e}", param_hint="--db") from None
    hosts = [] if allowed_hosts is None else [h.strip() for h in allowed_hosts.split(",")]
    if allowed_hosts is not None and not all(hosts):
        raise click.BadParameter(f"{allowed_hosts!r}: give host names, separated by commas",
                                 param_hint="--allowed-hosts")
    try:
        agents = Agents([specs.parse(text) for text in agent_specs])
        agents.check()
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--agents") from None
    family, address = _resolve(host, port)
    loopback = _is_loopback(address[0])
    # on loopback the Host header must name this server (against DNS rebinding): the
    # address it was told to listen on, as given or as resolved, or a loopback name
    try:
        app = create_app(agents, max_games=max_games,
                         expire=expire * 60, hint_simulations=hint_simulations,
                         allowed_hosts=(*hosts, *LOOPBACK_NAMES, host, address[0]) if loopback
                         else hosts or None,
                         max_games_per_client=max_games_per_client, db=path,
                         keep=keep * 86400)
    except DatabaseError as e:
        raise click.ClickException(str(e)) from None
    store = app.state.store
    # IPPROTO_TCP named: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say so,
    # and an answer's headers and body are two writes: with Nagle the body waits for the
    # client's delayed ACK, 40 ms
    with socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP) as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            listener.bind(address)
            listener.listen(2048)       # connections wait from now on, while uvicorn starts
        except OSError as e:
            raise click.ClickException(f"cannot listen on {host}:{port}: "
                                       f"{e.strerror or e}") from None
        bound = listener.getsockname()[1]
        shown = f"[{address[0]}]" if family == socket.AF_INET6 else address[0]
        # uvicorn's own HTTP/1.1, with a deadline for each request (serve/http.py)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                               http=Protocol))
        # Ctrl-C: uvicorn stops gracefully, then raises it again (or it comes before)
        with contextlib.suppress(KeyboardInterrupt):
            click.echo(f"photocore serve: open http://{shown}:{bound}/ to play "
                       f"(agents: {', '.join(agents.labels)}); Ctrl-C stops")
            click.echo(f"photocore serve: games kept in {store.db.file}" if path != MEMORY else
                       "photocore serve: games kept in memory only (--db :memory:): a "
                       "restart loses them")
            if len(store):
                click.echo(f"photocore serve: {len(store)} unfinished games served again")
            for problem in store.problems:
                click.echo(f"warning: {problem}", err=True)
            if not loopback:
                click.echo(f"warning: listening on {shown}, not on the loopback interface: "
                           "other machines that reach it can play and use the agents' CPU",
                           err=True)
            server.run(sockets=[listener])
    click.echo("photocore serve: stopped")


def default_db() -> pathlib.Path:
    """Where the games are kept unless --db says: the user's data folder (platformdirs:
    $XDG_DATA_HOME/photocore on Linux, ~/Library/Application Support on macOS, ...)."""
    import platformdirs

    return platformdirs.user_data_path("photocore", appauthor=False) / "serve.sqlite3"


def _backup(path: str, target: str) -> None:
    """--backup: `path` copied to `target` by SQLite's online backup, the database opened
    read-only (a file this user may only read is backed up too)."""
    if path == MEMORY:
        raise click.BadParameter("a database in memory has nothing to back up",
                                 param_hint="--db")
    try:
        file = files.expanded(path)
    except ValueError as e:
        raise click.BadParameter(f"{path!r}: {e}", param_hint="--db") from None
    if not os.path.exists(file):
        raise click.BadParameter(f"{path!r}: no such database", param_hint="--db")
    try:
        files.expanded(target)
    except ValueError as e:
        raise click.BadParameter(f"{target!r}: {e}", param_hint="--backup") from None
    try:
        source = Database(path, shared=True)
        try:
            source.backup(target)
            games = source.count()
        finally:
            source.close()
    except DatabaseError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"photocore serve: {path} ({games} games) backed up to {target}")


def _resolve(host: str, port: int) -> tuple[socket.AddressFamily, tuple[Any, ...]]:
    """The family and socket address --host names (127.1 is 127.0.0.1, a name its first
    address); a usage error for an empty host or one that does not resolve."""
    if not host.strip():
        raise click.BadParameter("give an address or a name to listen on (empty: every "
                                 "interface would be meant; say 0.0.0.0 or :: for that)",
                                 param_hint="--host")
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError) as e:
        raise click.BadParameter(f"{host!r} is no address this machine can listen on "
                                 f"({getattr(e, 'strerror', None) or e})",
                                 param_hint="--host") from None
    family, _, _, _, address = found[0]
    return family, address


def _is_loopback(address: str) -> bool:
    """Whether a resolved address is a loopback one (::ffff:127.0.0.1 too)."""
    ip = ipaddress.ip_address(address.partition("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback
