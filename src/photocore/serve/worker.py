"""The thread that moves for a served game's agents: it chooses on a copy of the game
outside the Table's lock, and its move is played (and saved) only if the game did not
change meanwhile.

A move that cannot be saved (a full disk: DatabaseError) is dropped and the worker ends
(no thread dies): `unsaved` says why, the state shows it, and the agent thinks again at
the next request for the game (`retry`, from Store.get) or resume, not before: a full
disk does not make it think in a loop.
"""

import contextlib
import threading
import time
from contextlib import AbstractContextManager
from typing import Any, Protocol

from photocore.facts import check_seed
from photocore.play.player import Player
from photocore.play.session import NotNow, Session
from photocore.play.specs import Spec
from photocore.serve.database import DatabaseError

__all__ = ["Host", "Worker"]


class Host(Protocol):
    """The game a Worker moves in, as it sees it (serve/table.py's Table): under `lock`,
    its `session` (replaced when a change is undone: read it anew each time), whether it
    is `stopped` or `closed`, `moved` (the moves played and taken back); a change made in
    `changing` and saved by `changed`."""

    id: str
    """The game's id (the threads' names hold it)."""
    seed: int
    """The game's seed: each agent's player is reset with it plus its seat."""
    lock: threading.Lock
    """Held to read or change the game."""
    session: Session
    """The seats, the moves, the forfeit."""
    stopped: bool
    """The agents were stopped: the game waits."""
    closed: bool
    """The game was closed: its agents stop for good."""
    moved: int
    """The moves played and taken back: an agent's move counts only if it did not change."""

    def changing(self, what: str) -> AbstractContextManager[None]:
        """The lock, held for a change: refused (NotNow) once the game is over, undone if
        it fails."""
        ...

    def changed(self, change: dict[str, Any] | None = None) -> None:
        """Under the lock: `change` saved and logged (DatabaseError when it cannot be);
        the waiting requests told."""
        ...


class Worker:
    """The agents of `table`: their players and the thread that moves for them, while
    one thinks. Every method but `retry` is called under the table's lock."""

    def __init__(self, table: Host) -> None:
        self.table = table
        self.players: dict[int, Player] = {}
        """An agent's seat -> its player, made on first use."""
        self.ready: set[int] = set()
        """The agents' seats whose player was reset for this game."""
        self.thread: threading.Thread | None = None
        """The thread moving for the agents, while one thinks (None else)."""
        self.since: float | None = None
        """When the agent to move started thinking (time.monotonic()), None when none is."""
        self.unsaved: str | None = None
        """Why the agent's last move could not be saved (None when it was): it thinks
        again at the next request."""

    def thinking(self) -> bool:
        """An agent is to move and the thread chooses for it (a thread still finishing a
        move that was taken back is not thinking for a person's turn)."""
        return (self.thread is not None and not self.table.stopped
                and self.table.session.agent_to_move() is not None)

    def start(self, retry: bool = False) -> None:
        """A thread for the agents if one is to move (one at most: a thread still
        finishing a dropped move goes on with the new position); after a move that could
        not be saved, only when `retry`."""
        table = self.table
        if (self.thread is not None or table.stopped or table.closed
                or (self.unsaved and not retry) or table.session.agent_to_move() is None):
            return
        self.thread = threading.Thread(target=self._run, name=f"agent {table.id}", daemon=True)
        self.since = time.monotonic()
        self.thread.start()

    def retry(self) -> None:
        """The agent whose move could not be saved thinks again (a request came)."""
        with self.table.lock:
            if self.unsaved and not self.table.session.over:
                self.start(retry=True)

    def _run(self) -> None:
        """The thread: plays the agents' moves until a person is to move, the game ends,
        an agent forfeits or the agents are stopped."""
        table = self.table
        ended = False
        try:
            while self._move_once():
                pass
            ended = True
        finally:
            with table.lock:
                thought = self.thinking()
                self.thread = None
                self.since = None
                if table.closed or table.session.over:
                    self.close_players()
                elif ended:
                    self.start()            # resumed as this thread was leaving
                if thought and not self.thinking():
                    table.changed()         # it no longer thinks: the waiting requests told

    def _move_once(self) -> bool:
        table = self.table
        with table.lock:
            seat = table.session.agent_to_move()
            if table.closed or table.stopped or seat is None:
                return False
            spec = table.session.seats[seat]
            assert spec is not None
            snapshot, moved = table.session.game.copy(), table.moved
        failure: Exception | None = None
        try:
            move = self._player(seat, spec).select(snapshot)
        except Exception as e:  # noqa: BLE001 (any failure of an agent loses its game)
            failure = e
        try:
            with table.changing("play an agent's move"):
                if moved != table.moved or table.closed or table.stopped:
                    return True                 # the position changed: think again, or stop
                if failure is not None:
                    table.session.agent_fails(seat, failure)
                    played = False
                else:
                    played = table.session.agent_plays(move)    # False: illegal, forfeited
                if played:
                    table.moved += 1
                    table.changed({"kind": "agent", "move": str(move)})
                else:
                    forfeit = table.session.forfeit
                    assert forfeit is not None
                    table.changed({"kind": "forfeit", "seat": seat, "reason": forfeit[1]})
                return played
        except NotNow:
            return False                        # a person resigned meanwhile: dropped
        except DatabaseError as e:              # undone (changing): the game waits
            with table.lock:
                self.unsaved = f"player {seat} ({spec.label})'s move could not be saved: {e}"
            return False

    def _player(self, seat: int, spec: Spec) -> Player:
        """The seat's player, loaded and reset for this game on its first move."""
        player = self.players.get(seat)
        if player is None:
            player = self.players[seat] = spec.load()
        if seat not in self.ready:
            player.reset(check_seed(self.table.seed + seat))
            self.ready.add(seat)
        return player

    def close_players(self) -> None:
        """No thread running: the players closed, in a thread of their own (an engine may
        take a moment to quit: not in a request, nor under the lock)."""
        players, self.players = list(self.players.values()), {}
        if players:
            threading.Thread(target=_close, args=(players,), name=f"close {self.table.id}",
                             daemon=True).start()


def _close(players: list[Player]) -> None:
    for player in players:
        with contextlib.suppress(Exception):   # a player that fails to close is gone
            player.close()
