"""The games a server holds: people's seats and agents' seats, agents that move in worker
threads, and a store that is bounded and forgets idle games.

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
photocore.serve.games.BadRequest: agent 'py:evil.py:Agent' is not allowed here (allowed: ...
"""

import asyncio
import collections
import contextlib
import math
import secrets
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from photocore import records, render, svg, viewer
from photocore._game import Game, Move
from photocore.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError
from photocore.facts import MAX_PLAYERS, NUM_ACTIONS, PLAYERS, Options
from photocore.play.player import Player
from photocore.play.specs import Allowed, Forfeit, Spec
from photocore.serve import hints

PERSON = "person"                   # a seat a person plays, in requests and records
DEFAULT_MAX_GAMES = 1000
DEFAULT_EXPIRE = 3600.0             # seconds a game is kept after its last request
SVG_SIZE = 640
MAX_TOP = 10                        # hints a request may ask for
_PURGE_EVERY = 1.0                  # seconds between two sweeps for expired games

By = Literal["person", "agent", "given"]   # who played a move: "given" when the game began


class BadRequest(ValueError):
    """The request itself is wrong: a bad value, a malformed or illegal move."""


class UnknownGame(ValueError):
    """No game has this id (never had, or it expired)."""


class NotNow(ValueError):
    """The request is well formed but the game's state does not allow it now."""


class Unavailable(RuntimeError):
    """The server cannot take this now (it holds its maximum of games)."""


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
    photocore.serve.games.BadRequest: agent 'mcts:60' is not allowed here (allowed: mcts:50, greedy)
    """

    def find(self, text: str) -> Spec:
        try:
            return super().find(text)
        except ValueError as e:         # not allowed, or a malformed built-in spec
            raise BadRequest(str(e)) from None


# ---- one game ----------------------------------------------------------------------------

class Table:
    """A game being played on the server: its seats, the agents' players, who played each
    move, and the worker thread that moves for the agents.

    Every change goes through `_changing` (under `lock`, refused once the game is over: a
    finished game never changes again) and bumps `version`; the agents choose on a copy of
    the game outside the lock, and their move is played only if the game did not change
    meanwhile (`moved` counts the moves played and taken back).
    """

    def __init__(self, game_id: str, game: Game, seats: Sequence[Spec | None], seed: int,
                 given: int, hint_playouts: int) -> None:
        self.id = game_id
        self.game = game
        self.seats = tuple(seats)           # None for a person's seat
        self.seed = seed
        self.hint_playouts = hint_playouts
        self.players: dict[int, Player] = {}
        self.ready: set[int] = set()        # seats whose player was reset for this game
        self.lock = threading.Lock()
        self.version = 0
        self.moved = 0
        # who played each move of game.history, and the seat to move before it
        self.by: list[By] = ["given"] * given
        self.movers: list[int] = []
        self.forfeit: tuple[int, str, int] | None = None    # seat, reason, ply
        self.worker: threading.Thread | None = None
        self.stopped = False                # the agents were stopped; the game waits
        self.closed = False
        self.thinking_since: float | None = None
        self.touched = time.monotonic()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    # ---- what the clients see ----

    def names(self) -> list[str]:
        return [PERSON if spec is None else spec.label for spec in self.seats]

    def state(self, with_svg: bool = False) -> dict[str, Any]:
        """The game as the API shows it (docs/play.md lists the fields)."""
        with self.lock:
            game = self.game.copy()
            by, movers, forfeit = list(self.by), list(self.movers), self.forfeit
            thinking = self._thinking()
            since = self.thinking_since
            version, stopped = self.version, self.stopped
        over = game.is_over or forfeit is not None
        current = None if over else game.current_player
        to_move = None if current is None else "agent" if self.seats[current] else PERSON
        names = self.names()
        history = game.history
        reply: list[int] = []
        for ply in range(len(by) - 1, -1, -1):     # the agents' moves since a person's
            if by[ply] != "agent":
                break
            reply.insert(0, ply)
        state: dict[str, Any] = {
            "id": self.id,
            "version": version,
            "players": game.players,
            "options": str(game.options),
            "seats": names,
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
            "winners": list(self._winners(game, forfeit)) if over else None,
            "forfeit": None if forfeit is None else {"seat": forfeit[0], "reason": forfeit[1]},
            "status": self._status(game, forfeit, thinking, stopped, since),
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
                        for m, p, b in zip(history, movers, by)],
            "reply": reply,
            "can_undo": not over and PERSON in by,
            "recordable": game.from_start,
        }
        if with_svg:
            state["svg"] = str(svg.board(game, size=SVG_SIZE))
        return state

    def _over(self) -> bool:
        return self.forfeit is not None or self.game.is_over

    def _thinking(self) -> bool:
        """Under the lock: an agent is to move and a worker chooses for it (a worker still
        finishing a move that was taken back is not thinking for a person's turn)."""
        return (self.worker is not None and not self.stopped and not self._over()
                and self.seats[self.game.current_player or 0] is not None)

    def _status(self, game: Game, forfeit: tuple[int, str, int] | None, thinking: bool,
                stopped: bool, since: float | None) -> str:
        names = self.names()

        def who(p: int) -> str:
            return f"player {p} ({names[p]})"

        if forfeit is not None:
            seat, reason, _ = forfeit
            what = "resigned" if reason == "resigned" else f"forfeited ({reason})"
            winners = self._winners(game, forfeit)
            return f"Game over: {who(seat)} {what}: {render.winners_text(winners)}"
        if game.is_over:
            scores = " to ".join(map(str, game.scores()))
            return f"Game over: {render.winners_text(game.winners())} (scores {scores})"
        p = game.current_player
        assert p is not None
        if self.seats[p] is not None:
            if stopped:
                return f"{who(p)} is stopped: undo, resign or let it go on"
            if thinking:
                return f"{who(p)} is thinking"
            return f"{who(p)} to move"
        if game.phase == "setup":
            return f"{who(p)} to move: place a small tree on the outer ring"
        return (f"Round {game.round} of {game.last_round}: {who(p)} to move, "
                f"{game.light[p]} light")

    @staticmethod
    def _winners(game: Game, forfeit: tuple[int, str, int] | None) -> tuple[int, ...]:
        if forfeit is None:
            return game.winners()
        return tuple(p for p in range(game.players) if p != forfeit[0])

    # ---- what people do ----

    def play(self, move: str | int, ply: int | None = None) -> None:
        """A person's move (notation or action id); `ply`, when given, is the number of
        moves the client saw, so a stale click is refused rather than misplayed."""
        with self._changing("play"):
            seat = self._person_to_move("play")
            if ply is not None and ply != len(self.game.history):
                raise NotNow(f"the game is at ply {len(self.game.history)}, not {ply}: "
                             "reload it")
            if isinstance(move, int) and not 0 <= move < NUM_ACTIONS:
                raise BadRequest(f"malformed move {move}: action ids are 0 to {NUM_ACTIONS - 1}")
            try:
                self.game.play(move)
            except IllegalMoveError as e:
                raise BadRequest(f"illegal move {e}") from None
            except (InvalidMoveError, TypeError) as e:
                raise BadRequest(f"malformed move {e}") from None
            self.by.append("person")
            self.movers.append(seat)
            self.moved += 1
            self._changed()
            self._start_agents()

    def undo(self) -> None:
        """Takes back a person's last move and the agents' moves after it (stopping an
        agent that is thinking)."""
        with self._changing("undo"):
            if PERSON not in self.by:
                raise NotNow("nothing to undo: no person has moved yet")
            keep = len(self.by) - 1 - self.by[::-1].index(PERSON)
            while len(self.by) > keep:
                self.game.undo()
                self.by.pop()
                self.movers.pop()
            self.moved += 1
            self.stopped = False
            self._changed()

    def resign(self, player: int | None = None) -> None:
        """A person's seat gives the game up: the others win."""
        with self._changing("resign"):
            people = [p for p, spec in enumerate(self.seats) if spec is None]
            if player is None:
                current = self.game.current_player
                if len(people) == 1:
                    player = people[0]
                elif current in people:
                    player = current
                else:
                    raise BadRequest("say which player resigns: one of " +
                                     ", ".join(map(str, people)))
            if player not in people:
                raise BadRequest(f"player {player} is not a person's seat (people: "
                                 f"{', '.join(map(str, people))})")
            self.forfeit = (player, "resigned", len(self.game.history))
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
        """The best moves for the person to move (flat Monte Carlo, serve/hints.py); runs
        for a while: call it from a worker thread."""
        with self.lock:
            self._person_to_move("ask for a hint")
            game = self.game.copy(history=False)
            ply = len(self.game.history)
        found = hints.hint(game, top=top, playouts=self.hint_playouts, seed=self.seed + ply)
        return {"ply": ply, "budget": self.hint_playouts,
                "by": f"flat Monte Carlo over {hints.ROLLOUT} playouts",
                "moves": [{"move": str(h.move), "id": int(h.move), "value": h.value,
                           "playouts": h.playouts} for h in found]}

    def record(self) -> dict[str, Any]:
        """The game as a record (docs/records.md): NotNow for a game that began from a
        position rather than the start."""
        with self.lock:
            game = self.game.copy()
            forfeit = self.forfeit
        if not game.from_start:
            raise NotNow("a record holds a game from the start position; this game began "
                         "from a position")
        metadata: dict[str, Any] = {"agents": self.names(), "site": "photocore serve"}
        if forfeit is not None:
            metadata["forfeit"] = {"seat": forfeit[0], "reason": forfeit[1], "ply": forfeit[2]}
        rec: dict[str, Any] = records.to_record(game, metadata)
        return rec

    def replay(self) -> str:
        """The record as the replay viewer's page (photocore.viewer)."""
        return str(viewer.page(self.record()))

    @contextlib.contextmanager
    def _changing(self, what: str) -> Iterator[None]:
        """The lock, held for a change to the game: every change (a person's move, undo,
        resign, stop, resume, the agents' moves and forfeits) goes through here, and once the
        game is over (by its end, a forfeit or a resignation) it is refused, NotNow: a
        finished game never changes again."""
        with self.lock:
            self._refuse_if_over(what)
            yield

    def _refuse_if_over(self, what: str) -> None:
        if self._over():
            raise NotNow(f"cannot {what}: {self._over_reason()}")

    def _person_to_move(self, what: str) -> int:
        self._refuse_if_over(what)
        seat = self.game.current_player
        assert seat is not None
        spec = self.seats[seat]
        if spec is not None:
            doing = "stopped" if self.stopped else "thinking" if self._thinking() else "to move"
            raise NotNow(f"cannot {what}: it is player {seat}'s turn ({spec.label}, {doing})")
        return seat

    def _over_reason(self) -> str:
        if self.forfeit is not None:
            seat, reason, _ = self.forfeit
            return (f"the game is over: player {seat} "
                    + ("resigned" if reason == "resigned" else f"forfeited ({reason})"))
        return "the game is over"

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
        """Under the lock: a new version, and the waiting requests told."""
        self.version += 1
        for loop, future in self._waiters:
            loop.call_soon_threadsafe(_wake, future)
        self._waiters.clear()

    # ---- the agents ----

    def _start_agents(self) -> None:
        """Under the lock: a worker thread for the agents if one is to move (one at most:
        a worker still finishing a dropped move goes on with the new position)."""
        if self.worker is not None or self.stopped or self.closed or self._over():
            return
        if self.seats[self.game.current_player or 0] is None:
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
                if self.closed:
                    self._close_players()
                elif ended:
                    self._start_agents()    # resumed as this worker was leaving
                if thought and not self._thinking():
                    self._changed()         # it no longer thinks: the waiting requests told

    def _agent_moves_once(self) -> bool:
        with self.lock:
            if self.closed or self.stopped or self._over():
                return False
            seat = self.game.current_player
            assert seat is not None
            spec = self.seats[seat]
            if spec is None:
                return False
            snapshot, moved = self.game.copy(), self.moved
        failure = None
        try:
            player = self._player(seat, spec)
            move = player.select(snapshot)
        except Exception as e:  # noqa: BLE001 (any failure of an agent loses its game)
            reason = e.reason if isinstance(e, Forfeit) else f"{type(e).__name__}: {e}"
            failure = reason.splitlines()[0][:300] if reason else "failed"
        try:
            with self._changing("play an agent's move"):
                if moved != self.moved or self.closed or self.stopped:
                    return True                 # the position changed: think again, or stop
                if failure is None:
                    try:
                        self.game.play(move)
                    except (IllegalMoveError, InvalidMoveError) as e:
                        failure = f"illegal move {e}"
                if failure is not None:
                    self.forfeit = (seat, failure, len(self.game.history))
                else:
                    self.by.append("agent")
                    self.movers.append(seat)
                    self.moved += 1
                self._changed()
                return failure is None
        except NotNow:
            return False                        # a person resigned meanwhile: dropped

    def _player(self, seat: int, spec: Spec) -> Player:
        """The seat's player, loaded and reset for this game on its first move."""
        player = self.players.get(seat)
        if player is None:
            player = self.players[seat] = spec.load()
        if seat not in self.ready:
            player.reset(self.seed + seat)
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
        players, self.players = list(self.players.values()), {}
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
    and with none finished a new game is refused (Unavailable)."""

    def __init__(self, agents: Agents, max_games: int = DEFAULT_MAX_GAMES,
                 expire: float = DEFAULT_EXPIRE,
                 hint_playouts: int = hints.DEFAULT_PLAYOUTS) -> None:
        if max_games < 1:
            raise ValueError(f"max_games must be at least 1, got {max_games}")
        if not 0 < expire < math.inf:       # nan too: /api/info's JSON cannot hold either
            raise ValueError(f"expire must be a finite number of seconds > 0, got {expire}")
        if not 1 <= hint_playouts <= hints.MAX_PLAYOUTS:
            raise ValueError(f"hint_playouts must be from 1 to {hints.MAX_PLAYOUTS:,}, "
                             f"got {hint_playouts}")
        self.agents = agents
        self.max_games = max_games
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
               moves: Sequence[str | int] | None = None, seed: int | None = None) -> Table:
        """A new game (BadRequest naming the field that is wrong; Unavailable when full).

        `seats` holds "person" or a served agent per player (default: a person in seat 0
        and the first served agent in the others); `position` a position to start from,
        `moves` moves to play first (a record's, to continue it).
        """
        game = self._start(players, options, position)
        given = 0
        for k, move in enumerate(moves or ()):
            try:
                game.play(Move(move) if isinstance(move, int) else move)
            except (ValueError, TypeError) as e:
                raise BadRequest(f"moves[{k}]: {e}") from None
            given += 1
        chosen = self._seats(game.players, seats)
        if seed is None:
            seed = secrets.randbits(32)
        table = Table(secrets.token_urlsafe(9), game, chosen, seed, given, self.hint_playouts)
        table.movers = _movers(game)
        with self.lock:
            self._sweep(force=True)
            if len(self.tables) >= self.max_games:
                self._make_room()
            table.touched = self.clock()
            self.tables[table.id] = table
        with table.lock:
            table._start_agents()
        return table

    def _start(self, players: int | None, options: str | None, position: str | None) -> Game:
        if players is not None and players not in PLAYERS:
            raise BadRequest(f"players must be {', '.join(map(str, PLAYERS[:-1]))} or "
                             f"{MAX_PLAYERS}, got {players}")
        try:
            rules = None if options is None else Options.parse(options)
        except ValueError as e:
            raise BadRequest(str(e)) from None
        if position is None:
            return Game(players or PLAYERS[0], options=rules)
        try:
            game = Game.from_position(position)
        except (InvalidPositionError, ValueError) as e:
            raise BadRequest(f"position: {e}") from None
        if players is not None and players != game.players:
            raise BadRequest(f"players {players} disagrees with the position's {game.players}")
        if rules is not None and rules != game.options:
            raise BadRequest(f"options {options!r} disagree with the position's "
                             f"{str(game.options)!r}")
        return game

    def _seats(self, players: int, seats: Sequence[str] | None) -> list[Spec | None]:
        if seats is None:
            first = self.agents.labels[0] if self.agents.labels else PERSON
            seats = [PERSON] + [first] * (players - 1)
        if len(seats) != players:
            raise BadRequest(f"seats must name {players} players, one per seat, got "
                             f"{len(seats)}")
        chosen = [None if s.strip().lower() == PERSON else self.agents.find(s) for s in seats]
        if all(chosen):
            raise BadRequest(f"at least one seat must be a {PERSON!r}'s")
        return chosen

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
            if table.forfeit is not None or table.game.is_over:
                del self.tables[table.id]
                table.close()
                return
        raise Unavailable(f"the server holds its maximum of {self.max_games} games, none of "
                          "them finished: try again later")


def _movers(game: Game) -> list[int]:
    """The player who made each move of `game`'s history (replayed from its root)."""
    root = game.root()
    movers = []
    for move in game.history:
        movers.append(root.current_player if root.current_player is not None else -1)
        root.play(move)
    return movers

