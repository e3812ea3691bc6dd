"""What plays a seat: the Player protocol that every kind of player satisfies.

The built-in C agents (specs.BuiltinPlayer), a user's Python agent behind the harness
(specs.PythonPlayer), an engine program (protocol.Engine) and a network's search
(search.SearchAgent) are all Players: matches, self-play and the adapters drive them
through these four names alone.

A user's own agent needs only `select(game)` (returning a Move, an action id or move
text) and may have `reset()` (or `reset(seed=...)`) and `name`: `photocore.play.specs`
wraps it into a Player.

>>> from photocore.play.specs import load
>>> isinstance(load("greedy"), Player)
True
"""

from typing import Protocol, runtime_checkable

from photocore._game import Game, Move


@runtime_checkable
class Player(Protocol):
    """Plays one seat of a game, game after game."""

    @property
    def name(self) -> str:
        """How tables and records name it, e.g. `mcts:200`."""
        ...

    def select(self, game: Game) -> Move:
        """The move it plays in `game`, which it leaves as it was."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Readies it for a new game (`seed`: the game's, for a seeded player)."""
        ...

    def close(self) -> None:
        """Frees what it holds (an engine's process); it plays no more after this."""
        ...
