"""One served game: its play/session.py Session (the seats, the moves, undo, resign,
forfeits, the record), the log of its changes, each saved in the database
(serve/database.py) before it is answered, so that a restarted server rebuilds it as it
was (`apply`); its agents move in a Worker (serve/worker.py), its waiting requests are
told by a Notifier (serve/notifier.py), and serve/view.py shows it.

Nothing here knows HTTP nor tokens: the `seat` a change acts for is the one serve/app.py
found the request's token to be (serve/auth.py). A refused change raises BadRequest (the
input is wrong), NotNow (the game's state does not allow it), Forbidden (another seat's
business) or DatabaseError (it could not be saved); serve/app.py turns them into status
codes.
"""

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

from photocore import viewer
from photocore._game import Move
from photocore.budget import Limit
from photocore.errors import IllegalMoveError, InvalidMoveError
from photocore.facts import NUM_ACTIONS
from photocore.play import hints
from photocore.play.player import Forfeit
from photocore.play.session import BadRequest, NotNow, Session
from photocore.serve.auth import Forbidden
from photocore.serve.database import Database, DatabaseError
from photocore.serve.notifier import Notifier
from photocore.serve.worker import Worker

__all__ = ["MAX_TOP", "Table"]

MAX_TOP = 10
"""Hints a request may ask for."""


class Table:
    """A game being played on the server: its Session (seats, moves, who played them, the
    forfeit), the hashes of its people's tokens, its agents' `worker`, and `news`, which
    tells the requests waiting on it.

    Every change goes through `changing` (under `lock`, refused once the game is over: a
    finished game never changes again) and `changed`, which saves it in the database
    (`db`) first: if that fails the change is undone and DatabaseError raised (a
    person's is refused, the request answers 503; an agent's waits: Worker). `version`
    counts the changes, `log` holds them (the game is rebuilt from it: `apply`). `moved`
    counts the moves played and taken back: an agent's move is played only if it did not
    change while the agent chose.
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
        self.lock = threading.Lock()
        self.version = 0
        self.log: list[dict[str, Any]] = []
        """The changes, in order, as saved: the game is rebuilt from them (apply)."""
        self.news = Notifier(self.lock)
        self.listeners = 0                  # its event streams open (serve/app.py)
        self.moved = 0
        self.worker = Worker(self)
        self.stopped = False                # the agents were stopped; the game waits
        self.closed = False
        self.touched = clock()

    # ---- what people do (`seat`: the seat of the request's token) ----

    def play(self, move: str | int, ply: int | None = None, *, seat: int) -> None:
        """A person's move, for `seat`, which must be the one to move; `ply`, when given,
        is the number of moves the client saw, so a stale click is refused rather than
        misplayed."""
        with self.changing("play"):
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
            self.changed({"kind": "play", "move": str(self.session.game.history[-1])})
            self.worker.start()

    def undo(self, *, seat: int) -> None:
        """Takes back `seat`'s last move and the agents' moves after it (stopping an agent
        that is thinking); refused when another person has moved since."""
        with self.changing("undo"):
            self.session.undo(seat)
            self.moved += 1
            self.stopped = False
            self.changed({"kind": "undo", "seat": seat})

    def resign(self, player: int | None = None, *, seat: int) -> None:
        """`seat` gives the game up: the others win (`player`, when given, must be it)."""
        with self.changing("resign"):
            if player is not None and player != seat:
                raise Forbidden(f"this link is player {seat}'s: it cannot resign for "
                                f"player {player}")
            self.session.resign(seat)
            self.changed({"kind": "resign", "seat": seat})

    def stop(self, *, seat: int) -> None:
        """Stops the agent that is thinking (any person may): its move, when it comes, is
        dropped, and the game waits (undo, resign, or resume)."""
        with self.changing("stop"):
            if not self.worker.thinking():
                raise NotNow("no agent is thinking")
            self.stopped = True
            self.changed({"kind": "stop", "seat": seat})

    def resume(self, *, seat: int) -> None:
        """Lets stopped agents go on."""
        with self.changing("resume"):
            if not self.stopped and self.worker.unsaved:
                self.worker.start(retry=True)       # its move could not be saved: again
                return
            if not self.stopped:
                raise NotNow("the agents are not stopped")
            self.stopped = False
            self.changed({"kind": "resume", "seat": seat})
            self.worker.start()

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

    def _person_to_move(self, what: str) -> int:
        doing = "stopped" if self.stopped else "thinking" if self.worker.thinking() else "to move"
        return self.session.person_to_move(what, doing)

    # ---- the log: saving and rebuilding ----

    @contextlib.contextmanager
    def changing(self, what: str) -> Iterator[None]:
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

    def changed(self, change: dict[str, Any] | None = None) -> None:
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
            self.worker.unsaved = None
        self.news.notify()
        if self.session.over and self.worker.thread is None:
            self.worker.close_players()

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
        with self.changing("forfeit"):
            self.session.agent_fails(seat, Forfeit(reason))
            self.changed({"kind": "forfeit", "seat": seat, "reason": reason})

    def changes_after(self, version: int) -> list[tuple[int, dict[str, Any]]]:
        """The changes made since `version`, each with the version it made."""
        with self.lock:
            return list(enumerate(self.log[version:], max(version, 0) + 1))

    # ---- waiting for the agents, listening to the changes ----

    async def wait(self, seconds: float) -> None:
        """Returns once no agent is thinking, or after `seconds`."""
        await self.news.until(lambda: not self.worker.thinking(), seconds)

    async def wait_for_news(self, seen: int, seconds: float) -> None:
        """Returns once `news.count` is past `seen` or the game is closed (deleted,
        expired, the server stops), or after `seconds`."""
        await self.news.until(lambda: self.news.count != seen or self.closed, seconds)

    def close(self) -> None:
        """Stops the agents and frees their players (now, or when the worker ends)."""
        with self.lock:
            self.closed = True
            self.changed()
            if self.worker.thread is None:
                self.worker.close_players()
