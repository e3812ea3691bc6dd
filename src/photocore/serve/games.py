"""The games a server holds: each a play/session.py Session (the seats, the moves, undo,
resign, forfeits, the record) whose agents move in worker threads, and a store that is
bounded and forgets idle games.

Nothing here knows HTTP: a refused request raises BadRequest (the input is wrong),
UnknownGame, NotNow (the game's state does not allow it) or Unavailable (the server cannot
take it now); serve/app.py turns them into status codes.

>>> store = Store(Agents(["random"]))
>>> table = store.create(seats=["person", "random"])
>>> table.play("place a4")
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
import math
import secrets
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from photocore import render, svg, viewer
from photocore.errors import IllegalMoveError, InvalidMoveError
from photocore.facts import NUM_ACTIONS, check_seed
from photocore.play import hints
from photocore.play.player import Player
from photocore.play.session import PERSON, BadRequest, NotNow, Session, start
from photocore.play.specs import Allowed, Spec

SITE = "photocore serve"            # the site of its records
DEFAULT_MAX_GAMES = 1000
DEFAULT_MAX_GAMES_PER_CLIENT = 100  # unfinished games of one client at once
DEFAULT_EXPIRE = 3600.0             # seconds a game is kept after its last request
SVG_SIZE = 640
MAX_TOP = 10                        # hints a request may ask for
_PURGE_EVERY = 1.0                  # seconds between two sweeps for expired games

# BadRequest and NotNow are the session's: its refusals reach serve/app.py as they are
__all__ = ["DEFAULT_EXPIRE", "DEFAULT_MAX_GAMES", "DEFAULT_MAX_GAMES_PER_CLIENT", "MAX_TOP",
           "Agents", "BadRequest", "NotNow", "Store", "Table", "TooManyGames", "Unavailable",
           "UnknownGame"]


class UnknownGame(ValueError):
    """No game has this id (never had, or it expired)."""


class Unavailable(RuntimeError):
    """The server cannot take this now (it holds its maximum of games)."""


class TooManyGames(RuntimeError):
    """This client plays its maximum of unfinished games."""


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
    forfeit), the agents' players, and the worker thread that moves for the agents.

    Every change goes through `_changing` (under `lock`, refused once the game is over: a
    finished game never changes again) and bumps `version`; the agents choose on a copy of
    the game outside the lock, and their move is played only if the game did not change
    meanwhile (`moved` counts the moves played and taken back).
    """

    def __init__(self, game_id: str, session: Session, seed: int, hint_playouts: int,
                 client: str = "") -> None:
        self.id = game_id
        self.client = client                # who created it (serve/app.py: its address)
        self.session = session
        self.seed = seed
        self.hint_playouts = hint_playouts
        self.players: dict[int, Player] = {}
        self.ready: set[int] = set()        # seats whose player was reset for this game
        self.lock = threading.Lock()
        self.version = 0
        self.moved = 0
        self.worker: threading.Thread | None = None
        self.stopped = False                # the agents were stopped; the game waits
        self.closed = False
        self.thinking_since: float | None = None
        self.touched = time.monotonic()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    # ---- what the clients see ----

    def state(self, with_svg: bool = False) -> dict[str, Any]:
        """The game as the API shows it (docs/play.md lists the fields)."""
        with self.lock:
            session = self.session.copy()
            thinking = self._thinking()
            since = self.thinking_since
            version, stopped = self.version, self.stopped
        game, forfeit, over = session.game, session.forfeit, session.over
        current = None if over else game.current_player
        to_move = None if current is None else "agent" if session.seats[current] else PERSON
        history = game.history
        state: dict[str, Any] = {
            "id": self.id,
            "version": version,
            "players": game.players,
            "options": str(game.options),
            "seats": session.names(),
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
            "status": self._status(session, thinking, stopped),
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

    def _thinking(self) -> bool:
        """Under the lock: an agent is to move and a worker chooses for it (a worker still
        finishing a move that was taken back is not thinking for a person's turn)."""
        return (self.worker is not None and not self.stopped
                and self.session.agent_to_move() is not None)

    @staticmethod
    def _status(session: Session, thinking: bool, stopped: bool) -> str:
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
            return f"{who(p)} to move"
        if game.phase == "setup":
            return f"{who(p)} to move: place a small tree on the outer ring"
        return (f"Round {game.round} of {game.last_round}: {who(p)} to move, "
                f"{game.light[p]} light")

    # ---- what people do ----

    def play(self, move: str | int, ply: int | None = None) -> None:
        """A person's move (notation or action id); `ply`, when given, is the number of
        moves the client saw, so a stale click is refused rather than misplayed."""
        with self._changing("play"):
            self._person_to_move("play")
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
            self._changed()
            self._start_agents()

    def undo(self) -> None:
        """Takes back a person's last move and the agents' moves after it (stopping an
        agent that is thinking)."""
        with self._changing("undo"):
            self.session.undo()
            self.moved += 1
            self.stopped = False
            self._changed()

    def resign(self, player: int | None = None) -> None:
        """A person's seat gives the game up: the others win."""
        with self._changing("resign"):
            self.session.resign(player)
            self._changed()

    def stop(self) -> None:
        """Stops the agent that is thinking: its move, when it comes, is dropped, and the
        game waits (undo, resign, or resume)."""
        with self._changing("stop"):
            if not self._thinking():
                raise NotNow("no agent is thinking")
            self.stopped = True
            self._changed()

    def resume(self) -> None:
        """Lets stopped agents go on."""
        with self._changing("resume"):
            if not self.stopped:
                raise NotNow("the agents are not stopped")
            self.stopped = False
            self._changed()
            self._start_agents()

    def hint(self, top: int) -> dict[str, Any]:
        """The best moves for the person to move (flat Monte Carlo, play/hints.py); runs
        for a while: call it from a worker thread."""
        with self.lock:
            self._person_to_move("ask for a hint")
            game = self.session.game.copy(history=False)
            ply = len(self.session.game.history)
        found = hints.hint(game, top=top, playouts=self.hint_playouts, seed=self.seed + ply)
        return {"ply": ply, "budget": self.hint_playouts,
                "by": f"flat Monte Carlo over {hints.ROLLOUT} playouts",
                "moves": [{"move": str(h.move), "id": int(h.move), "value": h.value,
                           "playouts": h.playouts} for h in found]}

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
        finished game never changes again (the session's rule)."""
        with self.lock:
            self.session.refuse_if_over(what)
            yield

    def _person_to_move(self, what: str) -> int:
        doing = "stopped" if self.stopped else "thinking" if self._thinking() else "to move"
        return self.session.person_to_move(what, doing)

    # ---- waiting for the agents ----

    async def wait(self, seconds: float) -> None:
        """Returns once no agent is thinking, or after `seconds`."""
        deadline = time.monotonic() + seconds
        loop = asyncio.get_running_loop()
        while (left := deadline - time.monotonic()) > 0:
            future: asyncio.Future[None] = loop.create_future()
            with self.lock:
                if not self._thinking():
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

    def _changed(self) -> None:
        """Under the lock: a new version, and the waiting requests told. Once the game is
        over its players are freed: an engine's program ends with its game."""
        self.version += 1
        for loop, future in self._waiters:
            loop.call_soon_threadsafe(_wake, future)
        self._waiters.clear()
        if self.session.over and self.worker is None:
            self._close_players()

    # ---- the agents ----

    def _start_agents(self) -> None:
        """Under the lock: a worker thread for the agents if one is to move (one at most:
        a worker still finishing a dropped move goes on with the new position)."""
        if (self.worker is not None or self.stopped or self.closed
                or self.session.agent_to_move() is None):
            return
        self.worker = threading.Thread(target=self._agents_move, name=f"agent {self.id}",
                                       daemon=True)
        self.thinking_since = time.monotonic()
        self.worker.start()

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
                self._changed()
                return played
        except NotNow:
            return False                        # a person resigned meanwhile: dropped

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
    """The games of a server, by id: at most `max_games`, each dropped `expire` seconds
    after its last request; when full, the finished game touched longest ago makes room,
    and with none finished a new game is refused (Unavailable). A client (the `client`
    that creates it) plays at most `max_games_per_client` unfinished games at once (more
    is TooManyGames), so that no one client fills the store for everyone."""

    def __init__(self, agents: Agents, max_games: int = DEFAULT_MAX_GAMES,
                 expire: float = DEFAULT_EXPIRE,
                 hint_playouts: int = hints.DEFAULT_PLAYOUTS,
                 max_games_per_client: int = DEFAULT_MAX_GAMES_PER_CLIENT) -> None:
        if max_games < 1:
            raise ValueError(f"max_games must be at least 1, got {max_games}")
        if max_games_per_client < 1:
            raise ValueError(f"max_games_per_client must be at least 1, got "
                             f"{max_games_per_client}")
        if not 0 < expire < math.inf:       # nan too: /api/info's JSON cannot hold either
            raise ValueError(f"expire must be a finite number of seconds > 0, got {expire}")
        if not 1 <= hint_playouts <= hints.MAX_PLAYOUTS:
            raise ValueError(f"hint_playouts must be from 1 to {hints.MAX_PLAYOUTS:,}, "
                             f"got {hint_playouts}")
        self.agents = agents
        self.max_games = max_games
        self.max_games_per_client = max_games_per_client
        self.expire = expire
        self.hint_playouts = hint_playouts
        self.tables: collections.OrderedDict[str, Table] = collections.OrderedDict()
        self.lock = threading.Lock()
        self.clock = time.monotonic     # tests move time on by replacing it
        self._swept = 0.0

    def __len__(self) -> int:
        return len(self.tables)

    def create(self, players: int | None = None, options: str | None = None,
               seats: Sequence[str] | None = None, position: str | None = None,
               moves: Sequence[str | int] | None = None, seed: int | None = None,
               client: str = "") -> Table:
        """A new game (BadRequest naming the field that is wrong; Unavailable when full;
        TooManyGames when `client` plays its maximum of unfinished games).

        `seats` holds "person" or a served agent per player (default: a person in seat 0
        and the first served agent in the others); `position` a position to start from,
        `moves` moves to play first (a record's, to continue it).
        """
        game = start(players, options, position, moves or ())
        session = Session(game, self._seats(game.players, seats), SITE)
        if seed is None:
            seed = secrets.randbits(32)
        table = Table(secrets.token_urlsafe(9), session, seed, self.hint_playouts, client)
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
            self.tables[table.id] = table
        with table.lock:
            table._start_agents()
        return table

    def _seats(self, players: int, seats: Sequence[str] | None) -> list[Spec | None]:
        """The seats named (the Session checks their number and that a person plays)."""
        if seats is None:
            first = self.agents.labels[0] if self.agents.labels else PERSON
            seats = [PERSON] + [first] * (players - 1)
        return [None if s.strip().lower() == PERSON else self.agents.find(s) for s in seats]

    def get(self, game_id: str) -> Table:
        """The game `game_id` (UnknownGame if there is none), kept a while longer."""
        with self.lock:
            self._sweep()
            table = self.tables.get(game_id)
            if table is None:
                raise UnknownGame(f"no game {game_id[:40]!r} (never created, deleted or "
                                  f"expired after {self.expire:g} s without a request)")
            table.touched = self.clock()
            self.tables.move_to_end(game_id)
        return table

    def delete(self, game_id: str) -> None:
        table = self.get(game_id)
        with self.lock:
            self.tables.pop(game_id, None)
        table.close()

    def close(self) -> None:
        """Every game closed (the server stops)."""
        with self.lock:
            tables = list(self.tables.values())
            self.tables.clear()
        for table in tables:
            table.close()

    def _sweep(self, force: bool = False) -> None:
        """Under the lock: drops the games idle past `expire` (at most once a second)."""
        now = self.clock()
        if not force and now - self._swept < _PURGE_EVERY:
            return
        self._swept = now
        while self.tables:
            oldest = next(iter(self.tables.values()))   # kept in order of their last request
            if now - oldest.touched <= self.expire:
                break
            del self.tables[oldest.id]
            oldest.close()

    def _make_room(self) -> None:
        for table in self.tables.values():
            if table.session.over:
                del self.tables[table.id]
                table.close()
                return
        raise Unavailable(f"the server holds its maximum of {self.max_games} games, none of "
                          "them finished: try again later")


