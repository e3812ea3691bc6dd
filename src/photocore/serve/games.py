"""The games a server holds: each a play/session.py Session (the seats, the moves, undo,
resign, forfeits, the record) whose agents move in worker threads, and a store that is
bounded, forgets idle games, and keeps every change in its database (serve/database.py)
before it is answered, so that a restarted server serves each game as it was.

Each person's seat acts with its own token (a secret made when the game is created; only
its hash is kept): without it a change is Forbidden. Reading a game needs only its id.

Nothing here knows HTTP: a refused request raises BadRequest (the input is wrong),
UnknownGame, Forbidden (not this seat's token), NotNow (the game's state does not allow
it) or Unavailable (the server cannot take it now); serve/app.py turns them into status
codes.

>>> store = Store(Agents(["random"]))
>>> table, tokens = store.create(seats=["person", "random"])
>>> table.play("place a4", seat=table.seat_of(tokens[0]))
>>> table.play("place d1", seat=table.seat_of("a guess"))
Traceback (most recent call last):
...
photocore.serve.games.Forbidden: this token is no seat's of game ...
>>> table.state()["history"][0]
{'move': 'place a4', 'player': 0, 'by': 'person'}
>>> import time
>>> while table.state()["thinking"]:       # random places its tree in a thread
...     time.sleep(0.01)
>>> state = table.state()
>>> state["to_move"], len(state["history"]), state["reply"]
('person', 2, [1])
>>> store.create(seats=["person", "py:evil.py:Agent"])
Traceback (most recent call last):
...
photocore.play.session.BadRequest: agent 'py:evil.py:Agent' is not allowed here (allowed: ...
"""

import asyncio
import collections
import contextlib
import hashlib
import hmac
import math
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from photocore import render, svg, viewer
from photocore._game import Move
from photocore.budget import Limit
from photocore.errors import IllegalMoveError, InvalidMoveError
from photocore.facts import NUM_ACTIONS, check_seed
from photocore.play import hints
from photocore.play.player import Forfeit, Player
from photocore.play.session import PERSON, BadRequest, NotNow, Session, start
from photocore.play.specs import Allowed, Spec
from photocore.serve.database import MEMORY, Damaged, Database, DatabaseError, GameRow, Saved

SITE = "photocore serve"            # the site of its records
#: Store's default `max_games`: games held in memory at most.
DEFAULT_MAX_GAMES = 1000
DEFAULT_MAX_GAMES_PER_CLIENT = 100  #: unfinished games of one client at once (Store's default)
DEFAULT_EXPIRE = 3600.0             #: seconds an unfinished game is kept after its last request
DEFAULT_KEEP = 30 * 86400.0         #: seconds a finished game stays readable (Store's default)
TOKEN_BYTES = 18                    # a seat's token: 144 random bits, 24 characters
SVG_SIZE = 640
MAX_TOP = 10                        #: hints a request may ask for
_PURGE_EVERY = 1.0                  # seconds between two sweeps for expired games
_GONE_KEPT = 10_000                 # games whose reason for being gone is remembered

# BadRequest and NotNow are the session's: its refusals reach serve/app.py as they are
__all__ = ["DEFAULT_EXPIRE", "DEFAULT_KEEP", "DEFAULT_MAX_GAMES", "DEFAULT_MAX_GAMES_PER_CLIENT",
           "MAX_TOP", "Agents", "BadRequest", "Damaged", "DatabaseError", "Forbidden", "NotNow",
           "Store", "Table", "TooManyGames", "Unavailable", "UnknownGame", "token_hash"]


class UnknownGame(ValueError):
    """No game has this id (never had, or it expired)."""


class Unavailable(RuntimeError):
    """The server cannot take this now (it holds its maximum of games)."""


class TooManyGames(RuntimeError):
    """This client plays its maximum of unfinished games."""


class Forbidden(PermissionError):
    """The request acts for a seat without that seat's token."""


def token_hash(token: str) -> bytes:
    """What is kept of a seat's token: its sha256 (the token is random, 144 bits: no
    salt or slow hash is needed)."""
    return hashlib.sha256(token.encode("utf-8", "replace")).digest()


# ---- the agents a server plays with ------------------------------------------------------

class Agents(Allowed):
    """The agents a server was started with, by label: the only ones a request can seat
    (the rule of photocore.play.specs.Allowed, refusals as BadRequest).

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


# ---- one game ----------------------------------------------------------------------------

class Table:
    """A game being played on the server: its Session (seats, moves, who played them, the
    forfeit), the hashes of its people's tokens, the agents' players, and the worker thread
    that moves for the agents.

    Every change goes through `_changing` (under `lock`, refused once the game is over: a
    finished game never changes again) and `_changed`, which saves it in the database
    (`db`) first: if that fails the change is undone and DatabaseError raised. `version` counts
    the changes, `log` holds them (the game is rebuilt from it: `apply`), and `notified`
    grows with everything a listener may want to hear (a change, an agent that stops
    thinking). The agents choose on a copy of the game outside the lock, and their move is
    played only if the game did not change meanwhile (`moved` counts the moves played and
    taken back).

    A change that cannot be saved (a full disk: DatabaseError) is undone. A person's is
    refused (the request answers 503); an agent's is dropped by its worker, which ends
    (no thread dies): `unsaved` says why, the state shows it, and the agent thinks again
    at the next request for the game (`retry`, from Store.get) or resume, not before: a
    full disk does not make it think in a loop.
    """

    def __init__(self, game_id: str, session: Session, seed: int, hint_simulations: int,
                 client: str, tokens: dict[int, bytes], db: Database,
                 clock: Callable[[], float]) -> None:
        self.id = game_id
        self.client = client                # who created it (serve/app.py: its address)
        self.session = session
        self.seed = seed
        self.hint_simulations = hint_simulations
        self.tokens = dict(tokens)          # person's seat -> token_hash of its token
        self.db = db                        # where its changes are saved, its row made
        self.clock = clock
        self.players: dict[int, Player] = {}
        """An agent's seat -> its player, made on first use."""
        self.ready: set[int] = set()        # seats whose player was reset for this game
        """The agents' seats whose player was reset for this game."""
        self.lock = threading.Lock()
        self.version = 0
        self.log: list[dict[str, Any]] = []
        """The changes, in order, as saved: the game is rebuilt from them (apply)."""
        self.notified = 0
        self.listeners = 0                  # its event streams open (serve/app.py)
        self.moved = 0
        self.worker: threading.Thread | None = None
        """The thread moving for the agents, while one thinks (None else)."""
        self.stopped = False                # the agents were stopped; the game waits
        self.closed = False
        self.thinking_since: float | None = None
        """When the agent to move started thinking (time.monotonic()), None when none is."""
        self.unsaved: str | None = None     # why the agent's last move could not be saved
        """Why the agent's last move could not be saved (None when it was): it thinks
        again at the next request."""
        self.touched = clock()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    # ---- who may act ----

    def seat_of(self, token: str | None) -> int:
        """The person's seat whose token `token` is (Forbidden when it is none's). Every
        seat's hash is compared, in constant time: the answer's timing tells nothing."""
        if not token:
            raise Forbidden(f"acting for a seat of game {self.id} needs that seat's token "
                            "(Authorization: Bearer TOKEN; the seat's link holds it)")
        digest = token_hash(token[:200])
        found = None
        for seat, kept in self.tokens.items():
            if hmac.compare_digest(digest, kept):
                found = seat
        if found is None:
            raise Forbidden(f"this token is no seat's of game {self.id}: use your seat's link")
        return found

    # ---- what the clients see ----

    def state(self, with_svg: bool = False) -> dict[str, Any]:
        """The game as the API shows it (docs/play.md lists the fields)."""
        with self.lock:
            session = self.session.copy()
            thinking = self._thinking()
            since = self.thinking_since
            version, stopped, unsaved = self.version, self.stopped, self.unsaved
        game, forfeit, over = session.game, session.forfeit, session.over
        current = None if over else game.current_player
        to_move = None if current is None else "agent" if session.seats[current] else PERSON
        history = game.history
        state: dict[str, Any] = {
            "id": self.id,
            "version": version,
            "players": game.players,
            "options": str(game.options),
            "seats": session.labels(),
            "names": session.names(),
            "position": game.position(),
            "phase": game.phase,
            "round": game.round,
            "last_round": game.last_round,
            "sun": game.sun,
            "first_player": game.first_player,
            "current_player": current,
            "to_move": to_move,
            "thinking": thinking,
            "thinking_seconds": round(time.monotonic() - since, 1) if thinking and since else 0,
            "stopped": stopped and not over,
            "over": over,
            "winners": list(session.winners()) if over else None,
            "forfeit": None if forfeit is None else {"seat": forfeit[0], "reason": forfeit[1]},
            "status": self._status(session, thinking, stopped, unsaved),
            "unsaved": None if over else unsaved,
            "light": list(game.light),
            "scores": list(game.scores()),
            "available": [list(game.available(p)) for p in range(game.players)],
            "player_board": [list(game.player_board(p)) for p in range(game.players)],
            "tokens": [list(game.tokens(p)) for p in range(game.players)],
            "stacks": list(game.stacks),
            "board": [{"cell": c, "owner": o, "size": s} for c, (o, s) in game.board().items()],
            "activated": list(game.activated()),
            "shaded": list(game.shaded()),
            "shadows": {str(size): list(cells) for size, cells in game.shadows().items()},
            "legal_moves": [] if over else [{"move": str(m), "id": int(m)}
                                            for m in game.legal_moves()],
            "history": [{"move": str(m), "player": p, "by": b}
                        for m, p, b in zip(history, session.movers, session.by)],
            "reply": session.reply(),
            "can_undo": session.can_undo(),
            "recordable": game.from_start,
        }
        if with_svg:
            state["svg"] = str(svg.board(game, size=SVG_SIZE))
        return state

    def changes_after(self, version: int) -> list[tuple[int, dict[str, Any]]]:
        """The changes made since `version`, each with the version it made."""
        with self.lock:
            return list(enumerate(self.log[version:], max(version, 0) + 1))

    def _thinking(self) -> bool:
        """Under the lock: an agent is to move and a worker chooses for it (a worker still
        finishing a move that was taken back is not thinking for a person's turn)."""
        return (self.worker is not None and not self.stopped
                and self.session.agent_to_move() is not None)

    @staticmethod
    def _status(session: Session, thinking: bool, stopped: bool,
                unsaved: str | None = None) -> str:
        game, names = session.game, session.names()

        def who(p: int) -> str:
            return f"player {p} ({names[p]})"

        if session.forfeit is not None:
            winners = render.winners_text(session.winners())
            return f"Game over: {who(session.forfeit[0])} {session.forfeit_text()}: {winners}"
        if game.is_over:
            scores = " to ".join(map(str, game.scores()))
            return f"Game over: {render.winners_text(game.winners())} (scores {scores})"
        p = game.current_player
        assert p is not None
        if session.seats[p] is not None:
            if stopped:
                return f"{who(p)} is stopped: undo, resign or let it go on"
            if thinking:
                return f"{who(p)} is thinking"
            if unsaved:
                return (f"{who(p)}'s move could not be saved ({unsaved}): it thinks again "
                        "at the next request")
            return f"{who(p)} to move"
        if game.phase == "setup":
            return f"{who(p)} to move: place a small tree on the outer ring"
        return (f"Round {game.round} of {game.last_round}: {who(p)} to move, "
                f"{game.light[p]} light")

    # ---- what people do (`seat`: the seat_of the request's token) ----

    def play(self, move: str | int, ply: int | None = None, *, seat: int) -> None:
        """A person's move, for `seat`, which must be the one to move; `ply`, when given,
        is the number of moves the client saw, so a stale click is refused rather than
        misplayed."""
        with self._changing("play"):
            current = self._person_to_move("play")
            if seat != current:
                raise NotNow(f"cannot play: it is player {current}'s turn, not player "
                             f"{seat}'s (this link's)")
            plies = len(self.session.game.history)
            if ply is not None and ply != plies:
                raise NotNow(f"the game is at ply {plies}, not {ply}: reload it")
            if isinstance(move, int) and not 0 <= move < NUM_ACTIONS:
                raise BadRequest(f"malformed move {move}: action ids are 0 to {NUM_ACTIONS - 1}")
            try:
                self.session.play(move)
            except IllegalMoveError as e:
                raise BadRequest(f"illegal move {e}") from None
            except (InvalidMoveError, TypeError) as e:
                raise BadRequest(f"malformed move {e}") from None
            self.moved += 1
            self._changed({"kind": "play", "move": str(self.session.game.history[-1])})
            self._start_agents()

    def undo(self, *, seat: int) -> None:
        """Takes back `seat`'s last move and the agents' moves after it (stopping an agent
        that is thinking); refused when another person has moved since."""
        with self._changing("undo"):
            self.session.undo(seat)
            self.moved += 1
            self.stopped = False
            self._changed({"kind": "undo", "seat": seat})

    def resign(self, player: int | None = None, *, seat: int) -> None:
        """`seat` gives the game up: the others win (`player`, when given, must be it)."""
        with self._changing("resign"):
            if player is not None and player != seat:
                raise Forbidden(f"this link is player {seat}'s: it cannot resign for "
                                f"player {player}")
            self.session.resign(seat)
            self._changed({"kind": "resign", "seat": seat})

    def stop(self, *, seat: int) -> None:
        """Stops the agent that is thinking (any person may): its move, when it comes, is
        dropped, and the game waits (undo, resign, or resume)."""
        with self._changing("stop"):
            if not self._thinking():
                raise NotNow("no agent is thinking")
            self.stopped = True
            self._changed({"kind": "stop", "seat": seat})

    def resume(self, *, seat: int) -> None:
        """Lets stopped agents go on."""
        with self._changing("resume"):
            if not self.stopped and self.unsaved:
                self._start_agents(retry=True)      # its move could not be saved: again
                return
            if not self.stopped:
                raise NotNow("the agents are not stopped")
            self.stopped = False
            self._changed({"kind": "resume", "seat": seat})
            self._start_agents()

    def hint(self, top: int, *, seat: int) -> dict[str, Any]:
        """The best moves for `seat`, the person to move (flat Monte Carlo, play/hints.py),
        kept in the database: asked again for the same position, the answer comes from
        there. Runs for a while: call it from a worker thread."""
        with self.lock:
            current = self._person_to_move("ask for a hint")
            if seat != current:
                raise NotNow(f"cannot ask for a hint: it is player {current}'s turn, not "
                             f"player {seat}'s (this link's)")
            game = self.session.game.copy(history=False)
            ply = len(self.session.game.history)
        position = game.position()
        kept = self.db.hint(self.id, ply, position, top)
        if kept is not None:
            return kept
        found = hints.hint(game, top=top, limit=Limit(simulations=self.hint_simulations),
                           seed=self.seed + ply)
        answer = {"ply": ply, "budget": self.hint_simulations,
                  "by": f"flat Monte Carlo over {hints.ROLLOUT} playouts",
                  "moves": [{"move": str(h.move), "id": int(h.move), "value": h.value,
                             "playouts": h.playouts} for h in found]}
        with contextlib.suppress(DatabaseError):  # not kept (a full disk): answered all the same
            self.db.add_hint(self.id, ply, position, top, answer)
        return answer

    def record(self) -> dict[str, Any]:
        """The game as a record (docs/records.md): NotNow for a game that began from a
        position rather than the start."""
        with self.lock:
            session = self.session.copy()
        return session.record()

    def replay(self) -> str:
        """The record as the replay viewer's page (photocore.viewer)."""
        return str(viewer.page(self.record()))

    @contextlib.contextmanager
    def _changing(self, what: str) -> Iterator[None]:
        """The lock, held for a change to the game: every change (a person's move, undo,
        resign, stop, resume, the agents' moves and forfeits) goes through here, and once the
        game is over (by its end, a forfeit or a resignation) it is refused, NotNow: a
        finished game never changes again (the session's rule). A change that fails half
        way (its saving did) leaves the game as it was."""
        with self.lock:
            self.session.refuse_if_over(what)
            before = self.session.copy(), self.stopped, self.moved
            try:
                yield
            except BaseException:
                self.session, self.stopped, self.moved = before
                raise

    def _person_to_move(self, what: str) -> int:
        doing = "stopped" if self.stopped else "thinking" if self._thinking() else "to move"
        return self.session.person_to_move(what, doing)

    # ---- the log: saving and rebuilding ----

    def _changed(self, change: dict[str, Any] | None = None) -> None:
        """Under the lock: the change (when there is one) saved in the database, committed,
        then counted and logged; the waiting requests and listeners told. Once the game is
        over its players are freed: an engine's program ends with its game."""
        if change is not None:
            now = self.clock()
            self.db.add_change(self.id, self.version + 1, change, now,
                               now if self.session.over else None)
            self.touched = now
            self.version += 1
            self.log.append(change)
            self.unsaved = None
        self.notified += 1
        for loop, future in self._waiters:
            loop.call_soon_threadsafe(_wake, future)
        self._waiters.clear()
        if self.session.over and self.worker is None:
            self._close_players()

    def apply(self, change: dict[str, Any]) -> None:
        """Makes a saved change again, as it was made (the game is being rebuilt from its
        log; nothing is saved). ValueError (BadRequest, NotNow) if it cannot be made."""
        kind, session = change.get("kind"), self.session
        if kind == "play":
            session.play(change["move"])
        elif kind == "agent":
            if not session.agent_plays(Move.parse(change["move"])):
                raise BadRequest(f"the agent's move {change['move']} is illegal")
        elif kind == "undo":
            session.undo(change["seat"])
            self.stopped = False
        elif kind == "resign":
            session.resign(change["seat"])
        elif kind == "forfeit":
            session.agent_fails(change["seat"], Forfeit(change["reason"]))
        elif kind in ("stop", "resume"):
            self.stopped = kind == "stop"
        else:
            raise BadRequest(f"unknown change {kind!r}")
        self.version += 1
        self.log.append(change)

    def forfeit(self, seat: int, reason: str) -> None:
        """The agent of `seat` loses the game (it cannot play here any more)."""
        with self._changing("forfeit"):
            self.session.agent_fails(seat, Forfeit(reason))
            self._changed({"kind": "forfeit", "seat": seat, "reason": reason})

    # ---- waiting for the agents, listening to the changes ----

    async def wait(self, seconds: float) -> None:
        """Returns once no agent is thinking, or after `seconds`."""
        await self._until(lambda: not self._thinking(), seconds)

    async def wait_for_news(self, seen: int, seconds: float) -> None:
        """Returns once `notified` is past `seen` or the game is closed (deleted, expired,
        the server stops), or after `seconds`."""
        await self._until(lambda: self.notified != seen or self.closed, seconds)

    async def _until(self, done: Callable[[], bool], seconds: float) -> None:
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

    # ---- the agents ----

    def _start_agents(self, retry: bool = False) -> None:
        """Under the lock: a worker thread for the agents if one is to move (one at most:
        a worker still finishing a dropped move goes on with the new position); after a
        move that could not be saved, only when `retry`."""
        if (self.worker is not None or self.stopped or self.closed
                or (self.unsaved and not retry) or self.session.agent_to_move() is None):
            return
        self.worker = threading.Thread(target=self._agents_move, name=f"agent {self.id}",
                                       daemon=True)
        self.thinking_since = time.monotonic()
        self.worker.start()

    def retry(self) -> None:
        """The agent whose move could not be saved thinks again (a request came)."""
        with self.lock:
            if self.unsaved and not self.session.over:
                self._start_agents(retry=True)

    def _agents_move(self) -> None:
        """The worker: plays the agents' moves until a person is to move, the game ends,
        an agent forfeits or the agents are stopped."""
        ended = False
        try:
            while self._agent_moves_once():
                pass
            ended = True
        finally:
            with self.lock:
                thought = self._thinking()
                self.worker = None
                self.thinking_since = None
                if self.closed or self.session.over:
                    self._close_players()
                elif ended:
                    self._start_agents()    # resumed as this worker was leaving
                if thought and not self._thinking():
                    self._changed()         # it no longer thinks: the waiting requests told

    def _agent_moves_once(self) -> bool:
        with self.lock:
            seat = self.session.agent_to_move()
            if self.closed or self.stopped or seat is None:
                return False
            spec = self.session.seats[seat]
            assert spec is not None
            snapshot, moved = self.session.game.copy(), self.moved
        failure: Exception | None = None
        try:
            player = self._player(seat, spec)
            move = player.select(snapshot)
        except Exception as e:  # noqa: BLE001 (any failure of an agent loses its game)
            failure = e
        try:
            with self._changing("play an agent's move"):
                if moved != self.moved or self.closed or self.stopped:
                    return True                 # the position changed: think again, or stop
                if failure is not None:
                    self.session.agent_fails(seat, failure)
                    played = False
                else:
                    played = self.session.agent_plays(move)     # False: illegal, forfeited
                if played:
                    self.moved += 1
                    self._changed({"kind": "agent", "move": str(move)})
                else:
                    forfeit = self.session.forfeit
                    assert forfeit is not None
                    self._changed({"kind": "forfeit", "seat": seat, "reason": forfeit[1]})
                return played
        except NotNow:
            return False                        # a person resigned meanwhile: dropped
        except DatabaseError as e:              # undone (_changing): the game waits
            with self.lock:
                self.unsaved = f"player {seat} ({spec.label})'s move could not be saved: {e}"
            return False

    def _player(self, seat: int, spec: Spec) -> Player:
        """The seat's player, loaded and reset for this game on its first move."""
        player = self.players.get(seat)
        if player is None:
            player = self.players[seat] = spec.load()
        if seat not in self.ready:
            player.reset(check_seed(self.seed + seat))
            self.ready.add(seat)
        return player

    def close(self) -> None:
        """Stops the agents and frees their players (now, or when the worker ends)."""
        with self.lock:
            self.closed = True
            self._changed()
            if self.worker is None:
                self._close_players()

    def _close_players(self) -> None:
        """Under the lock, no worker running: the players closed, in a thread of their own
        (an engine may take a moment to quit: not in a request, nor under the lock)."""
        players, self.players = list(self.players.values()), {}
        if players:
            threading.Thread(target=_close, args=(players,), name=f"close {self.id}",
                             daemon=True).start()


def _close(players: list[Player]) -> None:
    for player in players:
        with contextlib.suppress(Exception):   # a player that fails to close is gone
            player.close()


def _wake(future: "asyncio.Future[None]") -> None:
    if not future.done():
        future.set_result(None)


# ---- the store ---------------------------------------------------------------------------

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
    undone and its request answered DatabaseError (503), an agent's move waits (Table), and
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
        tokens = {seat: secrets.token_urlsafe(TOKEN_BYTES) for seat in session.people()}
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
            table._start_agents()
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
        table.retry()       # an agent whose move could not be saved thinks again
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
                table._start_agents()

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
