"""`photocore play`: a person against agents in the terminal, moves typed in notation."""

import contextlib
import functools
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import click

from photocore import records, render
from photocore._game import Game
from photocore.budget import Limit
from photocore.cli.options import (
    SEED,
    SEED_HELP,
    agents_option,
    builtin_agents,
    rule_options,
)
from photocore.cli.output import check_writable, reason, writing
from photocore.errors import IllegalMoveError, InvalidMoveError, RecordError
from photocore.facts import CELLS, MAX_PLAYERS, MIN_PLAYERS, Options, check_seed
from photocore.limits import TERMINAL_LINE_CAP, cap_text
from photocore.play import hints, session, specs
from photocore.play.player import Player
from photocore.play.session import BadRequest, NotNow, Session

__all__ = ["SITE", "HELP", "COMMANDS", "play", "read_command", "Terminal"]

SITE = "photocore play"             # the site of its records


def _cell_ranges() -> str:
    """The board's cells, row by row, as facts.CELLS names them: "a4-a7, b3-b7, ..."."""
    rows: dict[str, list[int]] = {}
    for cell in CELLS:
        rows.setdefault(cell[0], []).append(int(cell[1:]))
    return ", ".join(f"{row}{min(numbers)}-{row}{max(numbers)}"
                     for row, numbers in sorted(rows.items()))


HELP = f"""\
Type a move in notation (tab completes, arrows recall earlier lines), or a command:
  moves        the legal moves
  undo         take back your last move and the agents' moves after it
  hint         the best moves by flat Monte Carlo, with their value (-1 to +1)
  save FILE    write the game as a record (.jsonl, or .jsonl.gz)
  position     the position's notation (photocore play --position starts from it)
  board        draw the board again
  help         this text
  quit         leave (Ctrl-D and Ctrl-C too)
Moves: place CELL, buy seed|small|medium|large, plant FROM TO, grow CELL, collect CELL, end
Cells, row by row: {_cell_ranges()}"""
COMMANDS = ("moves", "undo", "hint", "save ", "position", "board", "help", "quit")


@click.command()
@agents_option("The agents of the other seats: one for all of them, or one per seat in "
               f"order ({builtin_agents()}, py:..., cmd:...; docs/matches.md).",
               default="mcts:1000")
@click.option("--players", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS), default=None,
              help="Number of players.  [default: 2, or the position's or record's]")
@click.option("--seat", type=click.IntRange(0, MAX_PLAYERS - 1), default=0, show_default=True,
              help="Your seat (0 moves first).")
@functools.partial(rule_options, given_only=True)
@click.option("--position", default=None, metavar="TEXT",
              help="Start from this position (the notation `position` prints).")
@click.option("--record", "record_file", type=click.Path(exists=True, dir_okay=False),
              default=None, help="Continue the game of this record file.")
@click.option("--game", "line", type=click.IntRange(min=1), default=1, show_default=True,
              help="With --record: the game on line N of the file.")
@click.option("--seed", type=SEED, default=None,
              help=f"Seeds the agents, {SEED_HELP}  [default: a random seed]")
@click.option("--hint-simulations", type=click.IntRange(1, hints.MAX_SIMULATIONS),
              default=hints.DEFAULT_SIMULATIONS, show_default=True,
              help="Simulations (random playouts) a hint spends.")
@click.option("--color/--no-color", default=None,
              help="Colour the board.  [default: when printing to a terminal]")
def play(agents: tuple[str, ...], players: int | None, seat: int, options: Options | None,
         position: str | None, record_file: str | None, line: int, seed: int | None,
         hint_simulations: int, color: bool | None) -> None:
    """Play a game against agents in the terminal.

    The board is drawn as text (in colour on a terminal); type moves in notation, with tab
    completion and a history of the lines typed. `help` lists the commands (moves, undo,
    hint, save FILE, position, quit). Ctrl-C or Ctrl-D leaves.

    \b
    Examples:  photocore play --agents mcts:1000
               photocore play --players 3 --seat 1 --agents greedy,mcts:200
               photocore play --record games.jsonl --game 2 --agents greedy
    """
    game = _start(players, options, position, record_file, line)
    try:
        chosen = [specs.parse(text) for text in agents]
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--agents") from None
    others = game.players - 1
    if len(chosen) not in (1, others):
        raise click.BadParameter(f"{len(chosen)} agents for {others} other seats: give one "
                                 f"for all of them or {others}", param_hint="--agents")
    if seat >= game.players:
        raise click.BadParameter(f"a {game.players}-player game has seats 0 to "
                                 f"{game.players - 1}", param_hint="--seat")
    seats: list[specs.Spec | None] = [None] * game.players
    for k, p in enumerate(p for p in range(game.players) if p != seat):
        seats[p] = chosen[k % len(chosen)]
    try:
        announced = {}
        for spec in dict.fromkeys(chosen):
            name = spec.check(game)     # one that cannot play this game is refused now
            if name is not None:
                announced[spec.label] = name
        loaded = {p: spec.load() for p, spec in enumerate(seats) if spec is not None}
    except (ValueError, TypeError, OSError) as e:
        raise click.BadParameter(str(e), param_hint="--agents") from None
    table = Terminal(Session(game, seats, SITE, announced), loaded, seed, hint_simulations,
                     sys.stdout.isatty() if color is None else color,
                     inputs=[*([record_file] if record_file else []),
                             *(f for spec in chosen for f in spec.files)])
    try:
        code = table.run()
    finally:
        for player in loaded.values():
            with contextlib.suppress(Exception):
                player.close()
    sys.exit(code)


def _start(players: int | None, rules: Options | None, position: str | None,
           record_file: str | None, line: int) -> Game:
    if position is not None and record_file is not None:
        raise click.UsageError("give --position or --record, not both")
    try:
        return session.start(players, rules, position if record_file is None
                             else records.read_game(record_file, line))
    except RecordError as e:                # a record that cannot be read or replayed
        assert record_file is not None
        raise click.ClickException(str(e.at(record_file, line) if e.path is None else e)) \
            from None
    except BadRequest as e:                 # the hint names the option: the message need not
        raise click.BadParameter(str(e).removeprefix(f"{e.field}: "),
                                 param_hint=f"--{e.field}") from None


def read_command(prompt: str) -> str:
    """One line of the person's input, as input() reads it; where standard input is not a
    terminal (a pipe, a file) read with at most TERMINAL_LINE_CAP bytes in memory: a
    longer line is no command, and ends the game (click.ClickException). At a terminal
    input() reads what the person types (with its line editing, and its history)."""
    if sys.stdin.isatty():
        return input(prompt)
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.buffer.readline(TERMINAL_LINE_CAP + 1)
    if not line:
        raise EOFError
    if len(line) > TERMINAL_LINE_CAP:
        raise click.ClickException(f"a line of input longer than {cap_text(TERMINAL_LINE_CAP)} "
                                   "(the cap on one): not a command")
    return line.decode("utf-8", "replace").rstrip("\r\n")


class Terminal:
    """The game between the person and the agents, at the terminal: the session plays by
    its rules (play/session.py), the terminal reads and prints."""

    def __init__(self, session: Session, players: dict[int, Player], seed: int | None,
                 hint_simulations: int, color: bool, echo: Callable[[str], None] = click.echo,
                 read: Callable[[str], str] | None = None, inputs: Sequence[str] = ()) -> None:
        self.session = session
        self.inputs = inputs        # the files read (--record, agents'): never saved over
        self.players = players
        self.seed = seed
        self.hint_simulations = hint_simulations
        self.color = color
        self.echo = echo
        self.read = read or read_command

    @property
    def game(self) -> Game:
        return self.session.game

    def run(self) -> int:
        """Plays until the person leaves; the exit status (130 after Ctrl-C)."""
        with _completion(self._candidates):
            try:
                seats = ", ".join(self._who(p) for p in range(self.game.players))
                self.echo(f"photocore play: {seats}; type help for the commands")
                for p, player in self.players.items():
                    if not self.session.over:   # the first forfeit ends the game
                        self._agent(p, player.reset,
                                    None if self.seed is None else check_seed(self.seed + p))
                self._draw()
                while True:
                    if self._agents_to_move():
                        self._agents_move()
                        self._draw()
                    if not self._command(self.read(self._prompt()).strip()):
                        return 0
            except EOFError:
                self.echo("")
                return 0
            except KeyboardInterrupt:
                self.echo("\ninterrupted")
                return 130

    def _who(self, p: int) -> str:
        name = "you" if self.session.seats[p] is None else self.session.names()[p]
        return f"player {p} ({name})"

    def _prompt(self) -> str:
        if self.session.over:
            return "game over> "
        return f"player {self.game.current_player}> "

    def _draw(self) -> None:
        self.echo(render.text(self.game, color=self.color))
        forfeit = self.session.forfeit
        if forfeit is not None:
            winners = render.winners_text(self.session.winners())
            self.echo(f"{self._who(forfeit[0])} forfeits ({forfeit[1]}): {winners}")
        elif self.game.is_over:
            scores = ", ".join(f"{self._who(p)} {s}" for p, s in enumerate(self.game.scores()))
            self.echo(f"game over: {render.winners_text(self.game.winners())} ({scores})")

    def _candidates(self) -> list[str]:
        moves = [] if self.session.over else [str(m) for m in self.game.legal_moves()]
        return moves + list(COMMANDS)

    # ---- the agents ----

    def _agents_to_move(self) -> bool:
        return self.session.agent_to_move() is not None

    def _agents_move(self) -> None:
        while (seat := self.session.agent_to_move()) is not None:
            move = self._agent(seat, self.players[seat].select, self.game.copy())
            if move is None or not self.session.agent_plays(move):     # it forfeited
                return
            self.echo(f"{self._who(seat)}: {move}")

    def _agent(self, seat: int, call: Callable[[Any], Any], argument: Any) -> Any:
        """call(argument) for an agent, in a thread; None when the agent fails (it
        forfeits the game)."""
        try:
            return _in_thread(call, argument)
        except KeyboardInterrupt:
            raise
        except Exception as e:  # noqa: BLE001 (any failure of an agent loses its game)
            self.session.agent_fails(seat, e)
            return None

    # ---- the person ----

    def _command(self, text: str) -> bool:
        """Does what `text` says; False to leave."""
        word, _, rest = text.partition(" ")
        word = word.lower()
        if not text:
            return True
        if word in ("quit", "exit"):
            return False
        actions: dict[str, Callable[[], None]] = {
            "moves": self._moves, "undo": self._undo, "hint": self._hint,
            "position": self._position, "board": self._draw, "help": self._help}
        action = actions.get(word)
        if action is not None and not rest:
            action()
        elif word == "save":
            self._save(rest.strip())
        else:
            self._play(text)
        return True

    def _play(self, text: str) -> None:
        if self.session.over:
            self.echo("the game is over: save FILE or quit")
            return
        try:
            self.session.play(text)
        except IllegalMoveError as e:
            self.echo(f"illegal move {e}")
            return
        except InvalidMoveError as e:
            self.echo(f"not a move or a command: {e} (help lists them)")
            return
        if not self._agents_to_move():          # else the board comes after their moves
            self._draw()

    def _position(self) -> None:
        self.echo(self.game.position())

    def _help(self) -> None:
        self.echo(HELP)

    def _moves(self) -> None:
        if self.session.over:
            self.echo("none: the game is over")
            return
        by_kind: dict[str, list[str]] = {}
        for move in self.game.legal_moves():
            by_kind.setdefault(move.kind, []).append(str(move))
        for texts in by_kind.values():
            self.echo(", ".join(texts))

    def _undo(self) -> None:
        try:
            taken = self.session.undo()
        except NotNow as e:
            self.echo(str(e))
            return
        self.echo(f"taken back: {', '.join(map(str, taken))}")
        self._draw()

    def _hint(self) -> None:
        if self.session.over:
            self.echo("the game is over")
            return
        found = hints.hint(self.game, limit=Limit(simulations=self.hint_simulations),
                           seed=(self.seed or 0) + len(self.game.history))
        for h in found:
            self.echo(f"{str(h.move):<16} value {h.value:+.2f} ({h.playouts} playouts)")

    def _save(self, path: str) -> None:
        if not path:
            self.echo("save FILE: name the file")
            return
        try:
            record = self.session.record()
        except NotNow as e:
            self.echo(f"cannot save: {e}")
            return
        try:
            check_writable(path, inputs=self.inputs)
            with writing(path):
                records.write_games(path, [record])
        except click.ClickException as e:
            self.echo(e.format_message())
            return
        except OSError as e:
            self.echo(f"cannot write {path}: {reason(e)}")
            return
        self.echo(f"saved {len(self.game.history)} moves to {path}")


def _in_thread(call: Callable[[Any], Any], argument: Any) -> Any:
    """call(argument) in a thread, so that Ctrl-C stops the wait at once."""
    result: list[Any] = []
    failure: list[BaseException] = []

    def choose() -> None:
        try:
            result.append(call(argument))
        except BaseException as e:  # noqa: BLE001 (raised again in the main thread)
            failure.append(e)

    worker = threading.Thread(target=choose, daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.05)
    if failure:
        raise failure[0]
    return result[0]


@contextlib.contextmanager
def _completion(candidates: Callable[[], list[str]]) -> Iterator[None]:
    """Tab completion of the whole line over `candidates()` while the block runs (when the
    readline module is there; its history of lines comes with it)."""
    try:
        import readline
    except ImportError:
        yield
        return
    matches: list[str] = []

    def complete(text: str, state: int) -> str | None:
        if state == 0:
            line = readline.get_line_buffer().lower()
            matches[:] = [c for c in candidates() if c.startswith(line)]
        return matches[state] if state < len(matches) else None

    old_completer, old_delims = readline.get_completer(), readline.get_completer_delims()
    readline.set_completer(complete)
    readline.set_completer_delims("")
    if "libedit" in (readline.__doc__ or ""):
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")
    try:
        yield
    finally:
        readline.set_completer(old_completer)
        readline.set_completer_delims(old_delims)
