"""Plays a game between loaded players (play/specs.py): each chooses for its seat until the
game ends or one of them forfeits.

>>> from photocore import Game
>>> from photocore.play import specs
>>> game = Game()
>>> played = play_game(game, [specs.load("greedy"), specs.load("random")], seeds=[1, 2])
>>> game.is_over, played.forfeit
(True, None)
"""

import time
from collections.abc import Hashable, Sequence

from photocore._game import Game
from photocore._kernel import stream_seed
from photocore.budget import Limit
from photocore.errors import IllegalMoveError
from photocore.play import session
from photocore.play.player import Forfeit, Player
from photocore.play.specs import Spec

__all__ = ["Played", "play_game", "player", "seed_for"]

# this process's players, kept from game to game: {(spec, copy): player}
_PLAYERS: dict[tuple[Spec, Hashable], Player] = {}


class Played:
    """How a game went beyond its moves: a forfeit, engines' info lines, the players'
    time."""

    __slots__ = ("forfeit", "info", "seconds", "choices")

    def __init__(self, players: int = 0) -> None:
        self.forfeit: tuple[int, str, str] | None = None
        """None, or (the seat that forfeited, why in a line, the details)."""
        self.info: dict[int, list[str]] = {}
        """The 1-based number of a move -> the info lines its engine sent choosing it."""
        self.seconds = [0.0] * players
        """Each seat's seconds in `select`, over the moves it chose where there was more
        than one legal move (a forced move is not timed)."""
        self.choices = [0] * players
        """Each seat's number of moves chosen where there was more than one legal move."""

    def metadata(self) -> dict[str, object]:
        """The record metadata of a forfeit and of info lines (docs/matches.md)."""
        meta: dict[str, object] = {}
        if self.forfeit is not None:
            meta["forfeit"] = session.forfeit_metadata(self.forfeit[0], self.forfeit[1])
        if self.info:
            meta["info"] = {str(ply): lines for ply, lines in sorted(self.info.items())}
        return meta

    def winners(self, game: Game) -> tuple[int, ...]:
        """The winning seats: the game's, or everyone but the seat that forfeited."""
        return session.winners(game, None if self.forfeit is None else self.forfeit[0])


def play_game(game: Game, players: Sequence[Player],
              seeds: Sequence[int] | None = None, limit: Limit | None = None) -> Played:
    """Plays `game` to its end, players[p] choosing for player p, each move within `limit`
    (a photocore.Limit, None: each player's own budget); returns a Played.

    Each player is first reset (with seeds[p] when given). A player that raises Forfeit,
    or whose move is illegal, loses the game there: the game stays unfinished.
    """
    played = Played(game.players)
    seat = 0                  # the seat a Forfeit is charged to
    try:
        for seat, player in enumerate(players):
            player.reset(None if seeds is None else seeds[seat])
        while (current := game.current_player) is not None:    # None once the game is over
            seat, player = current, players[current]
            forced = len(game.legal_moves()) == 1
            start = time.perf_counter()
            move = player.select(game, limit)
            if not forced:
                played.seconds[seat] += time.perf_counter() - start
                played.choices[seat] += 1
            try:
                game.play(move)
            except IllegalMoveError as e:
                raise Forfeit(f"illegal move {e}") from None
            info = getattr(player, "info", None)    # an engine's lines for this move
            if info:
                played.info[len(game.history)] = list(info)
    except Forfeit as e:
        played.forfeit = (seat, e.reason, e.detail)
    return played


def player(spec: Spec, copy: Hashable = 0) -> Player:
    """This process's player for `spec` (loaded on first use and kept, so an engine runs
    once per worker); `copy` tells apart players of one spec in several seats."""
    key = (spec, copy)
    found = _PLAYERS.get(key)
    if found is None:
        found = _PLAYERS[key] = spec.load()
    return found


def seed_for(seed: int, game: int, agent: int) -> int:
    """The seed of an agent in game `game` of a seeded run: a function of the three only,
    so a run plays the same games whatever its workers (stream `agent` of the game's seed,
    stream `game` of the run's: the kernel's stream_seed)."""
    return stream_seed(stream_seed(seed, game), agent)
