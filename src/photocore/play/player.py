"""What plays a seat: the Player protocol that every kind of player satisfies, and the
contract between a player and whatever drives it: a misbehaving player forfeits (Forfeit),
and what it returns is read as a move by one rule (as_move).

The built-in C agents (photocore.Agent), a user's Python agent behind the harness
(specs.PythonAgentPlayer), an engine program (protocol.Engine) and a network's search
(search.SearchAgent) are all Players: matches, self-play and the adapters drive them
through these four names alone.

A user's own agent needs only `select(game)` (returning a Move, an action id or move
text) and may have `reset()` (or `reset(seed=...)`) and `name`: `photocore.play.specs`
wraps it into a Player. Its `select` may take a `limit` too, `select(game, limit=None)`,
to be given the photocore.Limit of each move.

>>> from photocore.play.specs import load
>>> isinstance(load("greedy"), Player)
True
"""

from typing import Protocol, SupportsIndex, cast, runtime_checkable

from photocore._game import Game, Move
from photocore.budget import Limit
from photocore.errors import InvalidMoveError

__all__ = ["Player", "Forfeit", "as_move", "one_line", "printable"]


@runtime_checkable
class Player(Protocol):
    """Plays one seat of a game, game after game."""

    @property
    def name(self) -> str:
        """How tables and records name it, e.g. `mcts:200`."""
        ...

    def select(self, game: Game, limit: Limit | None = None) -> Move:
        """The move it plays in `game`, which it leaves as it was, within `limit` (a
        photocore.Limit: the fields it has a meaning for; None: its own budget)."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Readies it for a new game (`seed`: the game's, for a seeded player)."""
        ...

    def close(self) -> None:
        """Frees what it holds (an engine's process); it plays no more after this."""
        ...


class Forfeit(Exception):
    """A player lost its game by misbehaving: `reason` says how, in one line, for the
    record; `detail` holds more for the log (a traceback, an engine's last words)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.reason, self.detail = reason, detail


def as_move(choice: object) -> Move:
    """A Move from what a player returned: a Move, an action id or move text (Forfeit,
    saying what it was, for anything else).

    >>> as_move("place a4") == as_move(Move.parse("place a4").id)
    True
    >>> as_move(None)
    Traceback (most recent call last):
    ...
    photocore.play.player.Forfeit: returned None, not a Move, an action id or move text
    """
    if type(choice) is Move:
        return choice
    try:
        if isinstance(choice, str):
            return Move.parse(choice)
        # anything else without __index__ (or a bool) raises the TypeError caught below
        return Move(cast(SupportsIndex, choice))
    except InvalidMoveError as e:
        raise Forfeit(f"malformed move: {e}") from None
    except (TypeError, ValueError):
        raise Forfeit(f"returned {_short(repr(choice))}, not a Move, an action id or move "
                      "text") from None


def one_line(error: BaseException) -> str:
    """An exception as a forfeit's reason: its type and first line, at most 200 characters."""
    return _short(f"{type(error).__name__}: {error}".splitlines()[0] if str(error)
                  else type(error).__name__)


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def printable(text: str) -> str:
    """`text` from a player (a name it announced, what it wrote on its error output) or an
    agent spec, as a terminal may show it: every character that does not print (control
    characters and escape sequences, bidirectional overrides, the lone surrogates of bytes
    that are not UTF-8) written as Python escapes it.

    >>> printable("engine\\x1b[31m\\u202eé\\udcff")
    'engine\\\\x1b[31m\\\\u202eé\\\\udcff'
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
