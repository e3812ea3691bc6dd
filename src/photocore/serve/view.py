"""A served game as the API shows it: `state` builds the one definition of its fields,
serve/models.py's GameState (docs/play.md lists them), which serve/app.py answers as it
is and its event streams send.

>>> from photocore.serve.store import Agents, Store
>>> store = Store(Agents(["random"]))
>>> table, tokens = store.create(seats=["person", "random"])
>>> table.play("place a4", seat=0)
>>> state(table).history[0]
HistoryItem(move='place a4', player=0, by='person')
>>> import time
>>> while state(table).thinking:       # random places its tree in a thread
...     time.sleep(0.01)
>>> now = state(table)
>>> now.to_move, len(now.history), now.reply
('person', 2, [1])
"""

import time

from photocore import render, svg
from photocore.play.session import PERSON, Session
from photocore.serve.models import GameState
from photocore.serve.table import Table

__all__ = ["SVG_SIZE", "state", "status"]

SVG_SIZE = 640
"""The board's size in pixels in a state's SVG."""


def state(table: Table, with_svg: bool = False) -> GameState:
    """The game of `table` as the API shows it, the board's SVG too when `with_svg` (its
    field left unset otherwise: answers leave it out)."""
    with table.lock:
        session = table.session.copy()
        thinking = table.worker.thinking()
        since = table.worker.since
        version, stopped, unsaved = table.version, table.stopped, table.worker.unsaved
    game, forfeit, over = session.game, session.forfeit, session.over
    current = None if over else game.current_player
    to_move = None if current is None else "agent" if session.seats[current] else PERSON
    history = game.history
    fields = {
        "id": table.id,
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
        "status": status(session, thinking, stopped, unsaved),
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
        fields["svg"] = str(svg.board(game, size=SVG_SIZE))
    return GameState.model_validate(fields)


def status(session: Session, thinking: bool, stopped: bool, unsaved: str | None = None) -> str:
    """The state of the game in words: who is to move, thinking or stopped, or its end."""
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
