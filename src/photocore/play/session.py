"""A game between people and agents, as the served page (serve/table.py) and the terminal
(cli/play.py) play it: the rules both follow, written once.

A Session holds the game, its seats (None for a person's, else the agent's Spec), who played
each move ("person", "agent", or "given" when the game began with it) and from which seat,
and the forfeit that ended it early (a person resigned, an agent failed). It knows nothing
of threads, requests or the terminal: a front end asks an agent for its move and hands the
move, or the agent's failure, to the session. Once the game is over, by its end or a
forfeit, it never changes again: every change is refused (NotNow).

>>> from photocore.play import specs
>>> session = Session(start(players=2), [None, specs.parse("random")], site="a doctest")
>>> session.play("place a4"), session.agent_to_move()
(0, 1)
>>> session.agent_plays(Move.parse("place d7"))
True
>>> [str(move) for move in session.undo()]          # back to before the person's move
['place a4', 'place d7']
>>> session.resign(), session.winners()
(0, (1,))
>>> session.metadata()["forfeit"]
{'seat': 0, 'reason': 'resigned', 'ply': 0}
>>> session.undo()
Traceback (most recent call last):
...
photocore.play.session.NotNow: cannot undo: the game is over: player 0 resigned
"""

import copy
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from photocore import records
from photocore._game import Game, Move
from photocore.errors import IllegalMoveError, InvalidMoveError
from photocore.facts import MAX_PLAYERS, PLAYERS, Options
from photocore.play.player import Forfeit
from photocore.play.specs import Spec

__all__ = [
    "PERSON", "RESIGNED", "MAX_REASON", "By", "BadRequest", "NotNow", "start", "winners",
    "forfeit_metadata", "Session"
]

PERSON = "person"
"""A person's seat, in requests and records."""
RESIGNED = "resigned"
"""The reason of a person's forfeit."""
MAX_REASON = 300
"""Characters of an agent's failure kept as its forfeit's reason."""

By = Literal["person", "agent", "given"]
"""Who played a move: a person, an agent, or "given" for the moves the game began with."""


class BadRequest(ValueError):
    """What was asked for is wrong: a start, seats, a move or who resigns. The message
    names the input; `field` does too where there is one ("players", "options",
    "position", "moves[2]", "seats", "player")."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class NotNow(ValueError):
    """Well formed, but the game's state does not allow it now: the game is over, it is an
    agent's turn, no person has moved yet."""


def start(players: int | None = None, options: Options | str | None = None,
          position: "str | records.Record | None" = None,
          moves: Sequence[str | int] = ()) -> Game:
    """The game a session begins with: a new game of `players` (2 by default) under
    `options`, or a position's (its notation) or a record's (its game, to continue it),
    then `moves` played. `players` and `options`, when given with a position or record,
    must agree with it.

    BadRequest names the input that is wrong; a record that does not replay raises its
    RecordError.

    >>> start(players=3, options="fs").options
    Options(fourth_revolution=True, shade_blocks=True)
    >>> start(3, position=start(2).position())
    Traceback (most recent call last):
    ...
    photocore.play.session.BadRequest: players 3 disagrees with the position's 2: the game has ...
    """
    if players is not None and players not in PLAYERS:
        raise BadRequest(f"players must be {', '.join(map(str, PLAYERS[:-1]))} or "
                         f"{MAX_PLAYERS}, got {players}", "players")
    try:
        rules = None if options is None else Options.coerce(options)
    except ValueError as e:
        raise BadRequest(str(e), "options") from None
    if position is None:
        game = Game(players or PLAYERS[0], options=rules)
    else:
        source = "position" if isinstance(position, str) else "record"
        if isinstance(position, str):
            try:
                game = Game.from_position(position)
            except ValueError as e:
                raise BadRequest(f"position: {e}", "position") from None
        else:
            game = records.from_record(position)
        if players is not None and players != game.players:
            raise BadRequest(f"players {players} disagrees with the {source}'s {game.players}: "
                             f"the game has {game.players} players", "players")
        if rules is not None and rules != game.options:
            text = options if isinstance(options, str) else str(rules)
            raise BadRequest(f"options {text!r} disagree with the {source}'s "
                             f"{str(game.options)!r}", "options")
    for k, move in enumerate(moves):
        try:
            game.play(Move(move) if isinstance(move, int) else move)
        except (ValueError, TypeError) as e:
            raise BadRequest(f"moves[{k}]: {e}", f"moves[{k}]") from None
    return game


def winners(game: Game, forfeit: int | None) -> tuple[int, ...]:
    """The winning seats: every seat but `forfeit`'s (one that resigned or lost by a
    fault), else the game's own winners."""
    if forfeit is None:
        return game.winners()
    return tuple(p for p in range(game.players) if p != forfeit)


def forfeit_metadata(seat: int, reason: str, ply: int | None = None) -> dict[str, Any]:
    """A forfeit as a record's `metadata.forfeit` (docs/records.md): its ply when known."""
    meta: dict[str, Any] = {"seat": seat, "reason": reason}
    if ply is not None:
        meta["ply"] = ply
    return meta


class Session:
    """One game between people and agents: see the module's docstring.

    `seats` holds None for a person's seat and the agent's Spec for the others (at least
    one person); the moves `game` already has count as given; `site` goes in its record.
    `announced` maps an agent's label to the name it announced (Spec.check), which the
    session shows and records instead of the label (a request still names the label).
    """

    def __init__(self, game: Game, seats: Sequence[Spec | None], site: str,
                 announced: Mapping[str, str] | None = None) -> None:
        if len(seats) != game.players:
            raise BadRequest(f"seats must name {game.players} players, one per seat, got "
                             f"{len(seats)}", "seats")
        if all(seats):
            raise BadRequest(f"at least one seat must be a {PERSON!r}'s", "seats")
        self.game = game
        self.seats = tuple(seats)
        self.site = site
        self.announced = dict(announced or {})
        self.by: list[By] = ["given"] * len(game.history)
        """Who played each move of game.history: a person, an agent, or "given" (the
        moves the session started from)."""
        self.movers = _movers(game)
        """The seat that played each move of game.history."""
        self.forfeit: tuple[int, str, int] | None = None      # seat, reason, ply
        """None, or how the game ended early: (the seat that resigned or forfeited, the
        reason, the ply it happened at)."""

    def copy(self) -> "Session":
        """A copy that changes apart from this one (a front end reads it outside its lock)."""
        other = copy.copy(self)
        other.game, other.by, other.movers = self.game.copy(), list(self.by), list(self.movers)
        return other

    # ---- what the session is at ----

    def labels(self) -> list[str]:
        """Each seat as a request names it: "person" or the agent's label."""
        return [PERSON if spec is None else spec.label for spec in self.seats]

    def names(self) -> list[str]:
        """Each seat's name, as shown and recorded: "person", or the name the agent
        announced, else its label."""
        return [self.announced.get(label, label) for label in self.labels()]

    def people(self) -> list[int]:
        """The people's seats."""
        return [p for p, spec in enumerate(self.seats) if spec is None]

    @property
    def over(self) -> bool:
        """True once the game ended, or a seat forfeited (resigned, or an agent failed)."""
        return self.forfeit is not None or self.game.is_over

    def agent_to_move(self) -> int | None:
        """The seat of the agent to move; None on a person's turn or once the game is over."""
        seat = self.game.current_player
        if self.over or seat is None or self.seats[seat] is None:
            return None
        return seat

    def person_to_move(self, what: str, doing: str = "to move") -> int:
        """The seat of the person to move, or NotNow saying why `what` cannot be done
        (`doing` tells what the agent to move is doing)."""
        self.refuse_if_over(what)
        seat = self.game.current_player
        assert seat is not None
        spec = self.seats[seat]
        if spec is not None:
            raise NotNow(f"cannot {what}: it is player {seat}'s turn ({spec.label}, {doing})")
        return seat

    def refuse_if_over(self, what: str) -> None:
        """NotNow once the game is over: a finished game never changes."""
        if self.over:
            raise NotNow(f"cannot {what}: {self.over_reason()}")

    def over_reason(self) -> str:
        """Why the game is over, in words, for a refusal: "the game is over", and the
        forfeit if there was one."""
        if self.forfeit is None:
            return "the game is over"
        return f"the game is over: player {self.forfeit[0]} {self.forfeit_text()}"

    def forfeit_text(self) -> str:
        """How the forfeiting seat lost: "resigned", or "forfeited (REASON)"."""
        assert self.forfeit is not None
        reason = self.forfeit[1]
        return RESIGNED if reason == RESIGNED else f"forfeited ({reason})"

    def winners(self) -> tuple[int, ...]:
        """The winning seats: after a forfeit everyone else, else the game's (its leaders,
        while it goes on)."""
        return winners(self.game, None if self.forfeit is None else self.forfeit[0])

    def can_undo(self) -> bool:
        """Whether undo() would take a move back: the game goes on and a person has moved."""
        return not self.over and PERSON in self.by

    def reply(self) -> list[int]:
        """The plies of the agents' moves since a person's last move."""
        reply: list[int] = []
        for ply in range(len(self.by) - 1, -1, -1):
            if self.by[ply] != "agent":
                break
            reply.insert(0, ply)
        return reply

    # ---- what people do ----

    def play(self, move: str | int | Move) -> int:
        """A person's move; the seat that played it. NotNow when it is not a person's
        turn; a bad move raises the game's IllegalMoveError or InvalidMoveError (TypeError
        for what is no move at all), and nothing changes."""
        seat = self.person_to_move("play")
        self.game.play(move)
        self.by.append("person")
        self.movers.append(seat)
        return seat

    def undo(self, seat: int | None = None) -> list[Move]:
        """Takes back a person's last move and the agents' moves after it; the moves taken
        back, in the order they were played. With `seat`, that move must be this seat's
        (a person takes back only their own move, not another person's)."""
        self.refuse_if_over("undo")
        if PERSON not in self.by:
            raise NotNow("nothing to undo: no person has moved yet")
        keep = len(self.by) - 1 - self.by[::-1].index(PERSON)
        if seat is not None and self.movers[keep] != seat:
            raise NotNow(f"cannot undo: the last person's move is player "
                         f"{self.movers[keep]}'s, not player {seat}'s")
        taken = []
        while len(self.by) > keep:
            taken.append(self.game.undo())
            self.by.pop()
            self.movers.pop()
        return taken[::-1]

    def resign(self, player: int | None = None) -> int:
        """A person's seat gives the game up (the only person's, else the one to move,
        unless `player` says which); the others win. The seat that resigned."""
        self.refuse_if_over("resign")
        people = self.people()
        if player is None:
            current = self.game.current_player
            if len(people) == 1:
                player = people[0]
            elif current in people:
                player = current
            else:
                raise BadRequest("say which player resigns: one of " +
                                 ", ".join(map(str, people)), "player")
        if player not in people:
            raise BadRequest(f"player {player} is not a person's seat (people: "
                             f"{', '.join(map(str, people))})", "player")
        self.forfeit = (player, RESIGNED, len(self.game.history))
        return player

    # ---- what agents do ----

    def agent_plays(self, move: Move) -> bool:
        """The move the agent to move chose: True once played, False when it was illegal
        and the agent forfeited."""
        self.refuse_if_over("play an agent's move")
        seat = self.agent_to_move()
        assert seat is not None, "a person is to move"
        try:
            self.game.play(move)
        except (IllegalMoveError, InvalidMoveError) as e:
            self.forfeit = (seat, f"illegal move {e}", len(self.game.history))
            return False
        self.by.append("agent")
        self.movers.append(seat)
        return True

    def agent_fails(self, seat: int, error: Exception) -> None:
        """The agent of `seat` failed (its player raised `error`): it forfeits here, with
        the Forfeit's reason or the error's first line."""
        self.refuse_if_over("forfeit")
        assert self.seats[seat] is not None, f"seat {seat} is a person's"
        reason = error.reason if isinstance(error, Forfeit) else f"{type(error).__name__}: {error}"
        self.forfeit = (seat, reason.splitlines()[0][:MAX_REASON] if reason else "failed",
                        len(self.game.history))

    # ---- the record ----

    def metadata(self) -> dict[str, Any]:
        """The record's metadata: the seats' names, the site and the forfeit with its ply."""
        meta: dict[str, Any] = {"agents": self.names(), "site": self.site}
        if self.forfeit is not None:
            meta["forfeit"] = forfeit_metadata(*self.forfeit)
        return meta

    def record(self) -> "records.Record":
        """The game as a record (docs/records.md); NotNow for a game that began from a
        position rather than the start."""
        if not self.game.from_start:
            raise NotNow("a record holds a game from the start position; this game began "
                         "from a position")
        return records.to_record(self.game, self.metadata())


def _movers(game: Game) -> list[int]:
    """The seat that made each move of `game`'s history (replayed from its root)."""
    root = game.root()
    movers = []
    for move in game.history:
        movers.append(root.current_player if root.current_player is not None else -1)
        root.play(move)
    return movers
