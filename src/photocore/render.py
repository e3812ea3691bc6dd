"""A Game drawn as text for the terminal: the hex board, the sun, a line per player.

>>> g = Game(players=2)
>>> for move in ("place a4", "place g1", "place d1", "place d7", "grow a4"):
...     g.play(move)
>>> print(text(g))
round 1 of 18, sun 0 (E corner: shadows fall W), first player 0, player 0 to move
options: none
<BLANKLINE>
     a4          *0M    .     .     .    a7
     b3        .     .     .     .     .    b7
     c2     .     .     .     .     .     .    c7
     d1  0S    .     .     .     .     :     1S   d7  SUN
     e1     .     .     .     .     .     .    e6
     f1        .     .     .     .     .    f5
     g1           1S    .     .     .    g4
<BLANKLINE>
> player 0  light 0   available 2o 2S 0M 0L   player board 4o 4S 3M 2L   tokens -   score 0
  player 1  light 2   available 2o 2S 1M 0L   player board 4o 4S 3M 2L   tokens -   score 0
token stacks (4, 3, 2, 1 leaves): 0 5 7 9 left
cells: owner and size (0M = player 0's medium tree; o seed, S small, M medium, L large),
~ shaded piece, . empty, : empty in a shadow, * activated this turn, SUN the sun's corner
"""

from collections.abc import Callable, Sequence

from photocore._game import Game
from photocore.facts import CELLS, DIRECTIONS, ROWS, STACK_LEAVES, shadow_direction

__all__ = ["SIZES", "PLAYER_COLOURS", "CELL_WIDTH", "MARGIN", "LEGEND", "text", "winners_text"]

# a piece of text with an ANSI colour code, or as it is
_Paint = Callable[[str, str], str]

SIZES = "oSML"
"""The letter of each piece size, indexed by it: seed, small, medium, large."""
PLAYER_COLOURS = ("31", "34", "33", "32")
"""The ANSI foreground colour codes of the players, in seat order: red, blue, yellow, green (as in
svg.py)."""
CELL_WIDTH = 6
"""Characters of one cell: activated mark, owner, size, shaded mark, 2 spaces."""
MARGIN = 5
"""Characters left of the board: room for the sun on the W side."""
LEGEND = ("cells: owner and size (0M = player 0's medium tree; o seed, S small, M medium, "
          "L large),\n~ shaded piece, . empty, : empty in a shadow, * activated this turn, "
          "SUN the sun's corner")
"""The legend printed under the board, explaining its marks."""


def text(game: Game, color: bool = False) -> str:
    """`game` as lines of text; color=True adds ANSI colours (players, shade, the sun)."""
    paint = _ansi if color else _plain
    return "\n".join([
        _status(game), _options(game),
        *_board(game, paint),
        *(_player(game, p, paint) for p in range(game.players)),
        f"token stacks ({', '.join(map(str, STACK_LEAVES))} leaves): "
        + " ".join(map(str, game.stacks)) + " left",
        LEGEND,
    ])


def winners_text(winners: Sequence[int]) -> str:
    """Who won, as every drawing of a finished game says it.

    >>> winners_text([1]), winners_text([0, 2]), winners_text([0, 1, 3])
    ('player 1 wins', 'players 0 and 2 win', 'players 0, 1 and 3 win')
    """
    if len(winners) == 1:
        return f"player {winners[0]} wins"
    return f"players {', '.join(map(str, winners[:-1]))} and {winners[-1]} win"


def _status(game: Game) -> str:
    if game.phase == "setup":
        return f"setup: player {game.current_player} places a small tree on the outer ring"
    sun = (f"sun {game.sun} ({DIRECTIONS[game.sun]} corner: shadows fall "
           f"{DIRECTIONS[shadow_direction(game.sun)]}), first player {game.first_player}")
    if game.is_over:
        return (f"game over after round {game.round} of {game.last_round}, {sun}: "
                f"{winners_text(game.winners())}")
    return (f"round {game.round} of {game.last_round}, {sun}, player {game.current_player} "
            "to move")


def _options(game: Game) -> str:
    return "options: " + game.options.name


def _board(game: Game, paint: _Paint) -> list[str]:
    board, shaded, active = game.board(), set(game.shaded()), set(game.activated())
    dark = set(game.shadows()[1])       # every cell a shadow covers
    sun = None if game.phase == "setup" else game.sun
    mark = paint("SUN", "1;33")
    rows = []
    for r, letter in enumerate(ROWS):
        names = [c for c in CELLS if c[0] == letter]
        cells = "".join(_cell(c, board, c in shaded, c in dark, c in active, paint)
                        for c in names)
        left = mark if sun == 3 and letter == "d" else ""
        right = "  " + mark if sun == 0 and letter == "d" else ""
        indent = " " * (abs(r - 3) * CELL_WIDTH // 2)
        rows.append(f"{left:<{MARGIN}}{names[0]:<3}{indent}{cells}{names[-1]}{right}".rstrip())
    near, far = " " * (MARGIN + 3 + 4), " " * (MARGIN + 3 + 9 + 4 * CELL_WIDTH)
    above: dict[int | None, str] = {4: near + mark, 5: far + mark}   # NW above a4, NE a7
    below: dict[int | None, str] = {2: near + mark, 1: far + mark}   # SW below g1, SE g4
    # blank when the sun is elsewhere: a steady layout
    return [above.get(sun, ""), *rows, below.get(sun, "")]


def _cell(name: str, board: dict[str, tuple[int, int]], shaded: bool, dark: bool,
          active: bool, paint: _Paint) -> str:
    mark = "*" if active else " "
    if name not in board:
        return f"{mark}{':' if dark else '.'}    "
    owner, size = board[name]
    piece = paint(f"{owner}{SIZES[size]}", PLAYER_COLOURS[owner] + (";2" if shaded else ""))
    return f"{mark}{piece}{'~' if shaded else ' '}  "


def _player(game: Game, p: int, paint: _Paint) -> str:
    to_move = ">" if game.current_player == p else " "
    won = "   winner" if game.is_over and p in game.winners() else ""
    tokens = "+".join(map(str, game.tokens(p))) or "-"
    return (f"{to_move} {paint(f'player {p}', PLAYER_COLOURS[p])}  light {game.light[p]:<2}  "
            f"available {_pieces(game.available(p))}   "
            f"player board {_pieces(game.player_board(p))}   "
            f"tokens {tokens}   score {game.scores()[p]}{won}")


def _pieces(counts: Sequence[int]) -> str:
    return " ".join(f"{n}{SIZES[size]}" for size, n in enumerate(counts))


def _plain(text: str, _code: str) -> str:
    return text


def _ansi(text: str, code: str) -> str:
    return f"\x1b[{code}m{text}\x1b[0m"
