"""The game's two notations (docs/engine.md): moves (docs/rules.md §9) as text <-> action id, and
positions as one line of text <-> PositionFields. Both are read from photocore.facts; this
module knows nothing of Game, which builds on it (Move.parse, Game.position,
Game.from_position).

>>> MOVE_TEXTS[435], parse_move_text("  Plant D4   e5 ")
('plant d4 e5', 435)
>>> start = "2 - 0 0 0 0 - - 0/2410/4432/- 0/2410/4432/- 0579"
>>> fields = parse_position(start)
>>> fields.players, str(fields.options), fields.current, fields.stacks
(2, '-', 0, (0, 5, 7, 9))
>>> format_position(fields) == start
True
"""

from typing import NamedTuple, NoReturn

from photocore.errors import InvalidMoveError, InvalidPositionError
from photocore.facts import (
    ACTION_BASE,
    CELL_INDEX,
    CELLS,
    LIGHT_CAP,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    PLANT_PAIRS,
    REACH,
    SIZES,
    STACK_LEAVES,
    SUN_POSITIONS,
    TOKENS,
    Options,
    distance,
)

__all__ = [
    "MOVE_TEXTS", "ACTION_OF_TEXT", "parse_move_text", "PositionFields", "format_position",
    "parse_position"
]

# ---- moves ------------------------------------------------------------------------------

# the words after each verb, in the order of the action ids of that kind
_ARGUMENTS: dict[str, list[tuple[str, ...]]] = {
    "place": [(c,) for c in CELLS],
    "buy": [(column,) for column in SIZES],
    "plant": [(CELLS[s], CELLS[t]) for s, t in PLANT_PAIRS],
    "grow": [(c,) for c in CELLS],
    "collect": [(c,) for c in CELLS],
    "end": [()],
}


def _move_texts() -> tuple[str, ...]:
    texts = {ACTION_BASE[verb] + k: " ".join((verb, *words))   # from each kind's first id
             for verb, arguments in _ARGUMENTS.items() for k, words in enumerate(arguments)}
    return tuple(texts[a] for a in range(NUM_ACTIONS))


MOVE_TEXTS = _move_texts()
"""The notation of each action id, indexed by it (NUM_ACTIONS texts)."""
ACTION_OF_TEXT = {text: a for a, text in enumerate(MOVE_TEXTS)}
"""The action id of each text of MOVE_TEXTS (the texts written here)."""
_ECHOED = 40     # characters of a malformed move's text its error repeats (a request's is long)


def parse_move_text(text: str) -> int:
    """The action id of a move written in notation; InvalidMoveError says what is wrong."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"move text must be a str, not {type(text).__name__}")
    words = text.lower().split()
    action = ACTION_OF_TEXT.get(" ".join(words))
    if action is not None:
        return action
    shown = repr(text) if len(text) <= _ECHOED else f"{text[:_ECHOED]!r}... ({len(text):,} chars)"
    raise InvalidMoveError(f"{shown}: {_why_malformed(words)}")


def _why_malformed(words: list[str]) -> str:
    """Why `words` are no move; a word is named only when short, so that a long text is
    echoed once, cut, by the message's start."""
    def named(word: str, otherwise: str = "") -> str:
        return f"{word!r} " if len(word) <= _ECHOED else otherwise

    if not words:
        return "empty move"
    verb, args = words[0], words[1:]
    if verb not in _ARGUMENTS:
        return f"unknown move {named(verb)}(expected one of {', '.join(_ARGUMENTS)})"
    arity = len(_ARGUMENTS[verb][0])
    if len(args) != arity:
        return f"{verb} takes {arity} argument{'s' if arity != 1 else ''}, got {len(args)}"
    if verb == "buy":
        return (f"unknown column {named(args[0])}(expected {', '.join(SIZES[:-1])} or "
                f"{SIZES[-1]})")
    for word in args:
        if word not in CELL_INDEX:
            return f"{named(word, 'the argument ')}is not a cell of the board"
    src, tgt = (CELL_INDEX[w] for w in args)
    return (f"{args[1]} is {distance(src, tgt)} cells from {args[0]}: a plant reaches 1 to "
            f"{max(REACH)}")


# ---- positions --------------------------------------------------------------------------

class PositionFields(NamedTuple):
    """What a position's text says, field by field (docs/engine.md, Position notation).

    Cells are indices into facts.CELLS; the per-player fields hold one entry per player.
    """

    players: int
    options: Options
    round: int
    sun: int
    first: int
    current: int | None
    activated: tuple[int, ...]
    board: tuple[tuple[int, int, int], ...]
    light: tuple[int, ...]
    available: tuple[tuple[int, ...], ...]
    player_board: tuple[tuple[int, ...], ...]
    tokens: tuple[tuple[int, ...], ...]
    stacks: tuple[int, ...]


PositionFields.players.__doc__ = "The number of players."
PositionFields.options.__doc__ = "The advanced rules in play, an Options."
PositionFields.round.__doc__ = "The round: 0 during setup, else 1 to the last round."
PositionFields.sun.__doc__ = "The sun's position, 0 to 5 (facts.DIRECTIONS)."
PositionFields.first.__doc__ = "The first player of the round."
PositionFields.current.__doc__ = "The player to move; None once the game is over."
PositionFields.activated.__doc__ = "The cells activated this turn, ascending."
PositionFields.board.__doc__ = "(cell, owner, size) of each piece on the board, by cell."
PositionFields.light.__doc__ = "Each player's light points."
PositionFields.available.__doc__ = ("Per player: the pieces in their available area, (seeds, "
                                    "small, medium, large).")
PositionFields.player_board.__doc__ = ("Per player: the pieces on their player board, (seeds, "
                                       "small, medium, large).")
PositionFields.tokens.__doc__ = "Per player: the values of the tokens they took, in order."
PositionFields.stacks.__doc__ = "The tokens left on the 4-, 3-, 2- and 1-leaf stacks."


def format_position(fields: PositionFields) -> str:
    """The position notation of `fields` (a PositionFields)."""
    f = fields
    words = [str(f.players), str(f.options), str(f.round), str(f.sun), str(f.first),
             "-" if f.current is None else str(f.current),
             ",".join([CELLS[c] for c in f.activated]) or "-",
             ",".join([_PIECE[c][owner][size] for c, owner, size in f.board]) or "-"]
    for p in range(f.players):
        words.append(_PLAYER % (f.light[p], *f.available[p], *f.player_board[p],
                                ".".join(map(str, f.tokens[p])) or "-"))
    words.append(_STACKS % f.stacks)
    return " ".join(words)


# a position is written once per move to every engine (docs/protocol.md): its pieces'
# texts are made once here, not formatted each time
_PIECE = tuple(tuple(tuple(f"{name}:{owner}:{size}" for size in range(len(SIZES)))
                     for owner in range(MAX_PLAYERS)) for name in CELLS)
_COLUMNS = "%d" * len(SIZES)                # a digit per size
_PLAYER = f"%d/{_COLUMNS}/{_COLUMNS}/%s"      # light/available/player board/tokens
_STACKS = "%d" * len(STACK_LEAVES)          # a digit per token stack


def parse_position(text: str) -> PositionFields:
    """The PositionFields of position `text`, each field well-formed and in its range;
    InvalidPositionError names the field and why. Whether the fields together make a
    position of the game is the kernel's to say: Game.from_position asks it."""
    return _Parser(text).fields


_TOKEN_VALUES = range(min(map(min, TOKENS)), max(map(max, TOKENS)) + 1)
_HEADER = 8     # the fields before the players': players .. board; the stacks come after
_STACK_NAMES = tuple(f"{leaves}-leaf" for leaves in STACK_LEAVES)


class _Parser:
    """Reads each field of a position, in order: its form and its range."""

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise InvalidPositionError(f"position must be a str, not {type(text).__name__}")
        words = text.split()
        if not words:
            raise InvalidPositionError("empty position")
        players = self.integer(words[0], "players", MIN_PLAYERS, MAX_PLAYERS)
        if len(words) != _HEADER + players + 1:
            raise InvalidPositionError(f"{text!r}: a {players}-player position has "
                                       f"{_HEADER + players + 1} fields, got {len(words)}")
        _, options_word, round_word, sun_word, first_word, mover, activated, board = \
            words[:_HEADER]
        try:
            options = Options.parse(options_word)
        except ValueError as e:     # its message names the field and the forms
            raise InvalidPositionError(str(e)) from None
        round_ = self.integer(round_word, "round", 0, options.rounds)
        sun = self.integer(sun_word, "sun", 0, SUN_POSITIONS - 1)
        first = self.integer(first_word, "first", 0, players - 1)
        current = None if mover == "-" else self.integer(mover, "to-move", 0, players - 1)
        active = self.cells(activated, "activated")
        pieces = self.board(board, players)
        light, avail, pboard, tokens = [], [], [], []
        for p, word in enumerate(words[_HEADER:_HEADER + players]):
            values = self.player(word, p)
            light.append(values[0])
            avail.append(values[1])
            pboard.append(values[2])
            tokens.append(values[3])
        stacks = self.digits(words[-1], "stacks", _STACK_NAMES)
        self.fields = PositionFields(
            players, options, round_, sun, first, current, tuple(sorted(active)),
            tuple((cell, *pieces[cell]) for cell in sorted(pieces)), tuple(light),
            tuple(avail), tuple(pboard), tuple(tokens), stacks)

    def fail(self, field: str, value: str, reason: str) -> NoReturn:
        raise InvalidPositionError(f"{field} {value!r}: {reason}")

    def integer(self, word: str, field: str, low: int, high: int) -> int:
        if not (word.isascii() and word.isdigit()) or not low <= int(word) <= high:
            self.fail(field, word, f"expected an integer from {low} to {high}")
        return int(word)

    def cells(self, word: str, field: str) -> list[int]:
        if word == "-":
            return []
        names = word.split(",")
        for name in names:
            if name not in CELL_INDEX:
                self.fail(field, name, "not a cell of the board")
        if len(set(names)) != len(names):
            self.fail(field, word, "a cell is named twice")
        return [CELL_INDEX[n] for n in names]

    def board(self, word: str, players: int) -> dict[int, tuple[int, int]]:
        board: dict[int, tuple[int, int]] = {}
        if word == "-":
            return board
        for entry in word.split(","):
            parts = entry.split(":")
            if len(parts) != 3 or parts[0] not in CELL_INDEX:
                self.fail("board", entry, "expected cell:owner:size with a cell of the board")
            cell = CELL_INDEX[parts[0]]
            if cell in board:
                self.fail("board", entry, f"{parts[0]} is named twice")
            board[cell] = (self.integer(parts[1], "owner", 0, players - 1),
                           self.integer(parts[2], "size", 0, len(SIZES) - 1))
        return board

    def player(self, word: str, p: int) -> tuple[int, tuple[int, ...], tuple[int, ...],
                                                 tuple[int, ...]]:
        field = f"player {p}"
        parts = word.split("/")
        if len(parts) != 4:
            self.fail(field, word, "expected light/available/playerboard/tokens")
        light = self.integer(parts[0], f"{field} light", 0, LIGHT_CAP)
        avail = self.digits(parts[1], f"{field} available", SIZES)
        pboard = self.digits(parts[2], f"{field} player board", SIZES)
        tokens = () if parts[3] == "-" else tuple(
            self.integer(t, f"{field} token", _TOKEN_VALUES[0], _TOKEN_VALUES[-1])
            for t in parts[3].split("."))
        return light, avail, pboard, tokens

    def digits(self, word: str, field: str, names: tuple[str, ...]) -> tuple[int, ...]:
        if len(word) != len(names) or not (word.isascii() and word.isdigit()):
            self.fail(field, word, f"expected {len(names)} digits: {', '.join(names)}")
        return tuple(int(c) for c in word)
