"""The games a server holds: a store that is bounded, forgets idle games, and keeps every
change in its database (serve/database.py) before it is answered, so that a restarted
server serves each game as it was; each game a Table (serve/table.py) whose agents move in
worker threads.

Nothing here knows HTTP: a refused request raises BadRequest (the input is wrong),
UnknownGame, NotNow (the game's state does not allow it) or Unavailable (the server
cannot take it now); serve/app.py turns them into status codes.

>>> store = Store(Agents(["random"]))
>>> table, tokens = store.create(seats=["person", "random"])
>>> sorted(tokens), store.get(table.id) is table
([0], True)
>>> store.create(seats=["person", "py:evil.py:Agent"])
Traceback (most recent call last):
...
photocore.play.session.BadRequest: agent 'py:evil.py:Agent' is not allowed here (allowed: ...
"""

import collections
import contextlib
import math
import secrets
import threading
import time
from collections.abc import Callable, Sequence

from photocore.play import hints
from photocore.play.allowed import Allowed
from photocore.play.session import PERSON, BadRequest, Session, start
from photocore.play.specs import Spec
from photocore.serve.auth import new_tokens, token_hash
from photocore.serve.database import MEMORY, Damaged, Database, DatabaseError, GameRow, Saved
from photocore.serve.table import Table

SITE = "photocore serve"            # the site of its records
#: Store's default `max_games`: games held in memory at most.
DEFAULT_MAX_GAMES = 1000
DEFAULT_MAX_GAMES_PER_CLIENT = 100  #: unfinished games of one client at once (Store's default)
DEFAULT_EXPIRE = 3600.0             #: seconds an unfinished game is kept after its last request
DEFAULT_KEEP = 30 * 86400.0         #: seconds a finished game stays readable (Store's default)
_PURGE_EVERY = 1.0                  # seconds between two sweeps for expired games
_GONE_KEPT = 10_000                 # games whose reason for being gone is remembered

__all__ = ["DEFAULT_EXPIRE", "DEFAULT_KEEP", "DEFAULT_MAX_GAMES", "DEFAULT_MAX_GAMES_PER_CLIENT",
           "Agents", "Store", "TooManyGames", "Unavailable", "UnknownGame"]


class UnknownGame(ValueError):
    """No game has this id (never had, or it expired)."""


class Unavailable(RuntimeError):
    """The server cannot take this now (it holds its maximum of games)."""


class TooManyGames(RuntimeError):
    """This client plays its maximum of unfinished games."""


class Agents(Allowed):
    """The agents a server was started with, by label: the only ones a request can seat
    (the rule of photocore.play.allowed.Allowed, refusals as BadRequest).

    >>> agents = Agents(["mcts:50", "greedy"])
    >>> agents.labels, agents.find("greedy").label, agents.find("MCTS:50").label
    (('mcts:50', 'greedy'), 'greedy', 'mcts:50')
    >>> agents.find("mcts:60")
    Traceback (most recent call last):
    ...
    photocore.play.session.BadRequest: agent 'mcts:60' is not allowed here (allowed: mcts:50, ...
    """

    def find(self, text: str) -> Spec:
        try:
            return super().find(text)
        except ValueError as e:         # not allowed, or a malformed built-in spec
            raise BadRequest(str(e)) from None


class Store:
    """The games of a server, by id, kept in `db` (serve/database.py; by default one in
    memory): the unfinished ones all in memory, where their agents play, each dropped
    `expire` seconds after its last request; the finished ones readable for `keep` seconds
    after their end, and at least while they are in memory (`expire` seconds after their
    last request: with keep=0, no longer). At most `max_games` are held in
    memory: when full, the finished game touched longest ago leaves it, and with none
    finished a new game is refused (Unavailable). A client (the `client` that creates it)
    plays at most `max_games_per_client` unfinished games at once (more is TooManyGames),
    so that no one client fills the store for everyone.

    Opened on a database that holds games (a restart), it serves them again: the
    unfinished ones are rebuilt at once and an agent to move thinks again; `problems`
    lists the games that could not be rebuilt (a damaged row: set aside, the others
    served; asked for, such a game is Damaged), one line each.

    A write to the database that fails (a full disk) never stops the server: a change is
    undone and its request answered DatabaseError (503), an agent's move waits (Worker), and
    a sweep that cannot delete leaves the games as they were and tries again later."""

    def __init__(self, agents: Agents, max_games: int = DEFAULT_MAX_GAMES,
                 expire: float = DEFAULT_EXPIRE,
                 hint_simulations: int = hints.DEFAULT_SIMULATIONS,
                 max_games_per_client: int = DEFAULT_MAX_GAMES_PER_CLIENT,
                 db: Database | None = None, keep: float = DEFAULT_KEEP) -> None:
        if max_games < 1:
            raise ValueError(f"max_games must be at least 1, got {max_games}")
        if max_games_per_client < 1:
            raise ValueError(f"max_games_per_client must be at least 1, got "
                             f"{max_games_per_client}")
        if not 0 < expire < math.inf:       # nan too: /api/info's JSON cannot hold either
            raise ValueError(f"expire must be a finite number of seconds > 0, got {expire}")
        if not 0 <= keep < math.inf:
            raise ValueError(f"keep must be a finite number of seconds >= 0, got {keep}")
        if not 1 <= hint_simulations <= hints.MAX_SIMULATIONS:
            raise ValueError(f"hint_simulations must be from 1 to {hints.MAX_SIMULATIONS:,}, "
                             f"got {hint_simulations}")
        self.agents = agents
        self.max_games = max_games
        self.max_games_per_client = max_games_per_client
        self.expire = expire
        self.keep = keep
        self.hint_simulations = hint_simulations
        self.db = db or Database(MEMORY)
        self.tables: collections.OrderedDict[str, Table] = collections.OrderedDict()
        """Game id -> its Table, for the games in memory, the one touched longest ago
        first."""
        self.lock = threading.Lock()
        self.clock: Callable[[], float] = time.time     # tests move time on by replacing it
        """The store's clock in seconds (time.time), for expiry and thinking times."""
        self._swept = 0.0
        self.problems: list[str] = []
        """The games of the database that could not be rebuilt at opening, a line each."""
        self.damaged: dict[str, str] = {}
        """Game id -> why it cannot be served (a damaged row, set aside: Damaged)."""
        self.gone: collections.OrderedDict[str, str] = collections.OrderedDict()
        """Game id -> why it is gone (expired, deleted), the latest _GONE_KEPT, for a true
        404."""
        self._restore()

    def __len__(self) -> int:
        return len(self.tables)

    def create(self, players: int | None = None, options: str | None = None,
               seats: Sequence[str] | None = None, position: str | None = None,
               moves: Sequence[str | int] | None = None, seed: int | None = None,
               client: str = "") -> tuple[Table, dict[int, str]]:
        """A new game, saved, and the token of each person's seat (shown this once: only
        their hashes are kept). BadRequest names the field that is wrong; Unavailable
        when full; TooManyGames when `client` plays its maximum of unfinished games.

        `seats` holds "person" or a served agent per player (default: a person in seat 0
        and the first served agent in the others); `position` a position to start from,
        `moves` moves to play first (a record's, to continue it).
        """
        game = start(players, options, position, moves or ())
        session = Session(game, self._seats(game.players, seats), SITE, self.agents.announced)
        if seed is None:
            seed = secrets.randbits(32)
        tokens = new_tokens(session.people())
        table = Table(secrets.token_urlsafe(9), session, seed, self.hint_simulations, client,
                      {seat: token_hash(token) for seat, token in tokens.items()},
                      self.db, self.clock)
        begun = {"players": game.players, "options": str(game.options), "position": position,
                 "moves": [str(move) for move in game.history]}
        with self.lock:
            self._sweep(force=True)
            playing = sum(t.client == client and not t.session.over
                          for t in self.tables.values())
            if playing >= self.max_games_per_client:
                raise TooManyGames(f"this client ({client[:60]}) plays {playing} unfinished "
                                   "games, its most: resign or delete one first")
            if len(self.tables) >= self.max_games:
                self._make_room()
            table.touched = self.clock()
            self.db.add_game(GameRow(table.id, begun, session.labels(), seed, client,
                                     table.touched), table.tokens)
            self.tables[table.id] = table
        with table.lock:
            table.worker.start()
        return table, tokens

    def _seats(self, players: int, seats: Sequence[str] | None) -> list[Spec | None]:
        """The seats named (the Session checks their number and that a person plays)."""
        if seats is None:
            first = self.agents.labels[0] if self.agents.labels else PERSON
            seats = [PERSON] + [first] * (players - 1)
        return [None if s.strip().lower() == PERSON else self.agents.find(s) for s in seats]

    def get(self, game_id: str) -> Table:
        """The game `game_id` (UnknownGame if there is none), kept a while longer: from
        memory, or rebuilt from the database (a finished game asked for again)."""
        with self.lock:
            self._sweep()
            table = self.tables.get(game_id)
            if table is None:
                if game_id in self.damaged:
                    raise Damaged(self.damaged[game_id])
                try:
                    saved = self.db.load(game_id)
                    if saved is not None and saved.row.finished is not None:
                        table = self._rebuild(saved)
                except Damaged as e:
                    self._set_aside(game_id, str(e))
                    raise
                if table is None:
                    # an unfinished game is always in memory: one not there is gone
                    why = self.gone.get(game_id, (
                        f"never created, deleted, or expired: an unfinished game expires after "
                        f"{self.expire:g} s without a request, a finished one {self.keep:g} s "
                        "after its end once it is no longer asked for"))
                    raise UnknownGame(f"no game {game_id[:40]!r} ({why})")
                with contextlib.suppress(Unavailable):   # else read once, not held
                    if len(self.tables) >= self.max_games:
                        self._make_room()
                    self.tables[game_id] = table
            table.touched = self.clock()
            if game_id in self.tables:
                self.tables.move_to_end(game_id)
        table.worker.retry()    # an agent whose move could not be saved thinks again
        return table

    def _forget(self, game_id: str, why: str) -> None:
        """Under the lock: the game is gone from the database, and why (kept for its 404)."""
        self.gone[game_id] = why
        self.gone.move_to_end(game_id)
        while len(self.gone) > _GONE_KEPT:
            self.gone.popitem(last=False)

    def _set_aside(self, game_id: str, why: str) -> None:
        """A game whose row is damaged: not served, and said why, once."""
        if game_id not in self.damaged:
            self.damaged[game_id] = why
            self.problems.append(why)

    def delete(self, game_id: str) -> None:
        """Forgets the game, here and in the database."""
        table = self.get(game_id)
        with self.lock:
            self.db.delete(game_id)
            self.tables.pop(game_id, None)
            self._forget(game_id, "deleted by one of its players")
        table.close()

    def close(self) -> None:
        """Every game closed (the server stops): its agents stop, and the time each was
        last asked for is saved, so that it expires after a restart as it would have."""
        with self.lock:
            tables = list(self.tables.values())
            self.tables.clear()
        for table in tables:
            table.close()
        with contextlib.suppress(DatabaseError):
            self.db.touch({table.id: table.touched for table in tables})
        self.db.close()

    def _sweep(self, force: bool = False) -> None:
        """Under the lock (at most once a second): the unfinished games idle past `expire`
        dropped, here and in the database; the finished ones leave memory then, and the
        database `keep` seconds after their end (a game in memory is never purged: it
        stays readable while it is asked for). A write that fails (a full disk) leaves
        the games as they were, tried again at the next sweep: reading goes on."""
        now = self.clock()
        if not force and now - self._swept < _PURGE_EVERY:
            return
        self._swept = now
        with contextlib.suppress(DatabaseError):
            while self.tables:
                oldest = next(iter(self.tables.values()))   # in order of their last request
                if now - oldest.touched <= self.expire:
                    break
                if not oldest.session.over:
                    self.db.delete(oldest.id)       # first: if it fails, nothing changed
                    self._forget(oldest.id, f"unfinished, it expired after {self.expire:g} s "
                                            "without a request")
                del self.tables[oldest.id]
                oldest.close()
            for gone in self.db.purge(now - self.keep, spare=set(self.tables)):
                self._forget(gone, f"finished, it was kept {self.keep:g} s after its end "
                                   "and while it was asked for")

    def _make_room(self) -> None:
        """Under the lock: the finished game asked for longest ago leaves memory (it stays
        readable from the database)."""
        for table in self.tables.values():
            if table.session.over:
                del self.tables[table.id]
                table.close()
                return
        raise Unavailable(f"the server holds its maximum of {self.max_games} games, none of "
                          "them finished: try again later")

    # ---- rebuilding the games of the database ----

    def _restore(self) -> None:
        """The database's unfinished games rebuilt (those idle past `expire` dropped), an
        agent to move thinking again; a damaged game set aside (`problems`, `damaged`). A
        purge that cannot be written (a full disk) is left for the sweeps."""
        now = self.clock()
        try:
            for gone in self.db.purge(now - self.keep, idle_since=now - self.expire):
                self._forget(gone, f"expired after {self.expire:g} s without a request, or "
                                   f"finished more than {self.keep:g} s ago, before the "
                                   "server started")
        except DatabaseError as e:
            self.problems.append(f"the expired games are not deleted yet: {e}")
        for game_id in self.db.unfinished():
            try:
                saved = self.db.load(game_id)
                if saved is None:
                    continue
                table = self._rebuild(saved)
            except Damaged as e:
                self._set_aside(game_id, str(e))
                continue
            self.tables[game_id] = table
            with table.lock:
                table.worker.start()

    def _rebuild(self, saved: Saved) -> Table:
        """The game as saved: begun as it was, its changes made again (DatabaseError when
        they cannot be). An agent this server no longer serves forfeits its unfinished
        game."""
        row = saved.row
        try:
            game = start(row.start["players"], row.start["options"], row.start["position"],
                         row.start["moves"])
            seats: list[Spec | None] = []
            gone = []
            for seat, name in enumerate(row.seats):
                if name == PERSON:
                    seats.append(None)
                    continue
                try:
                    seats.append(self.agents.find(name))
                except BadRequest:
                    seats.append(Spec(name, "unserved"))    # named, never loaded
                    gone.append(seat)
            table = Table(row.id, Session(game, seats, SITE, self.agents.announced), row.seed,
                          self.hint_simulations, row.client, saved.tokens, self.db, self.clock)
            for change in saved.changes:
                table.apply(change)
        except (ValueError, KeyError, TypeError, AttributeError, AssertionError) as e:
            raise Damaged(f"game {row.id} is damaged: it cannot be rebuilt from its start and "
                          f"{len(saved.changes)} changes ({e}); it is not served") from None
        table.touched = row.touched
        if gone and not table.session.over:
            # not saved (a full disk): the unserved agent forfeits when it is to move
            with contextlib.suppress(DatabaseError):
                table.forfeit(gone[0], f"agent {row.seats[gone[0]]} is not served here "
                                       "since the server restarted")
        return table
