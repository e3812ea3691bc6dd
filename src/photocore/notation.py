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

from collections import Counter
from typing import NamedTuple

from photocore.errors import InvalidMoveError, InvalidPositionError
from photocore.facts import (ACTION_BASE, CELL_INDEX, CELLS, LIGHT_CAP, NUM_ACTIONS, OUTER_RING,
                             OWNED, PLANT_PAIRS, PLAYERS, REACH, SIZES, SLOTS, STACK_LEAVES,
                             START_AVAILABLE, SUN_POSITIONS, TOKENS, Options, distance)

# ---- moves ------------------------------------------------------------------------------

_ARGUMENTS = {   # the words after each verb, in the order of the action ids of that kind
    "place": [(c,) for c in CELLS],
    "buy": [(column,) for column in SIZES],
    "plant": [(CELLS[s], CELLS[t]) for s, t in PLANT_PAIRS],
    "grow": [(c,) for c in CELLS],
    "collect": [(c,) for c in CELLS],
    "end": [()],
}


def _move_texts():
    texts = [None] * NUM_ACTIONS
    for verb, arguments in _ARGUMENTS.items():   # each kind from its first id (the kernel's)
        for k, words in enumerate(arguments):
            texts[ACTION_BASE[verb] + k] = " ".join((verb, *words))
    return tuple(texts)


MOVE_TEXTS = _move_texts()          # the notation of each action id
ACTION_OF_TEXT = {text: a for a, text in enumerate(MOVE_TEXTS)}   # the texts written here


def parse_move_text(text):
    """The action id of a move written in notation; InvalidMoveError says what is wrong."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"move text must be a str, not {type(text).__name__}")
    words = text.lower().split()
    action = ACTION_OF_TEXT.get(" ".join(words))
    if action is not None:
        return action
    raise InvalidMoveError(f"{text!r}: {_why_malformed(words)}")


def _why_malformed(words):
    if not words:
        return "empty move"
    verb, args = words[0], words[1:]
    if verb not in _ARGUMENTS:
        return f"unknown move {verb!r} (expected one of {', '.join(_ARGUMENTS)})"
    arity = len(_ARGUMENTS[verb][0])
    if len(args) != arity:
        return f"{verb} takes {arity} argument{'s' if arity != 1 else ''}, got {len(args)}"
    if verb == "buy":
        return f"unknown column {args[0]!r} (expected {', '.join(SIZES[:-1])} or {SIZES[-1]})"
    for word in args:
        if word not in CELL_INDEX:
            return f"{word!r} is not a cell of the board"
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
    round: int                   # 0 during setup
    sun: int
    first: int                   # the first player of the round
    current: int | None          # the player to move; None once the game is over
    activated: tuple             # cells activated this turn, ascending
    board: tuple                 # (cell, owner, size) of each occupied cell, ascending
    light: tuple
    available: tuple             # per player: (seeds, small, medium, large)
    player_board: tuple          # per player: (seeds, small, medium, large)
    tokens: tuple                # per player: the token values taken, in order
    stacks: tuple                # tokens left on the 4-, 3-, 2- and 1-leaf stacks


def format_position(fields):
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
                     for owner in range(max(PLAYERS))) for name in CELLS)
_COLUMNS = "%d" * len(SIZES)                # a digit per size
_PLAYER = f"%d/{_COLUMNS}/{_COLUMNS}/%s"      # light/available/player board/tokens
_STACKS = "%d" * len(STACK_LEAVES)          # a digit per token stack


def parse_position(text):
    """The checked PositionFields of position `text`; InvalidPositionError names the field
    and why."""
    return _Parser(text).fields


_TOKEN_VALUES = range(min(map(min, TOKENS)), max(map(max, TOKENS)) + 1)
_SETUP_TREES = 2                    # each player places two small trees (docs/rules.md §4)
_SMALL = SIZES.index("small")


class _Parser:
    """Parses and checks each field of a position, in order."""

    def __init__(self, text):
        if not isinstance(text, str):
            raise InvalidPositionError(f"position must be a str, not {type(text).__name__}")
        words = text.split()
        if not words:
            raise InvalidPositionError("empty position")
        players = self.integer(words[0], "players", 2, 4)
        if len(words) != 9 + players:
            raise InvalidPositionError(
                f"{text!r}: a {players}-player position has {9 + players} fields, got {len(words)}")
        try:
            options = Options.parse(words[1])
        except ValueError as e:     # its message names the field and the forms
            raise InvalidPositionError(str(e)) from None
        last = options.rounds
        round_ = self.integer(words[2], "round", 0, last)
        due = 0 if round_ == 0 else (round_ - 1) % SUN_POSITIONS
        sun = self.integer(words[3], "sun", 0, SUN_POSITIONS - 1)
        if sun != due:
            self.fail("sun", words[3], f"round {round_} has the sun at {due}")
        due = 0 if round_ == 0 else (round_ - 1) % players
        first = self.integer(words[4], "first", 0, players - 1)
        if first != due:
            self.fail("first", words[4], f"round {round_} starts with player {due}")
        over = words[5] == "-"
        current = None if over else self.integer(words[5], "to-move", 0, players - 1)
        if over and round_ != last:
            self.fail("to-move", "-", f"the game can only be over after round {last}")
        active = self.cells(words[6], "activated")
        board = self.board(words[7], players)
        light, avail, pboard, tokens = [], [], [], []
        for p in range(players):
            values = self.player(words[8 + p], p, board)
            for column, value in zip((light, avail, pboard, tokens), values):
                column.append(value)
        stacks = self.stacks(words[8 + players], players, tokens)
        self.check_turn(round_, over, current, players, active, board, light, avail, pboard,
                        tokens)
        self.fields = PositionFields(
            players, options, round_, sun, first, current, tuple(sorted(active)),
            tuple((cell, *board[cell]) for cell in sorted(board)), tuple(light),
            tuple(map(tuple, avail)), tuple(map(tuple, pboard)), tuple(map(tuple, tokens)),
            tuple(stacks))

    def fail(self, field, value, reason):
        raise InvalidPositionError(f"{field} {value!r}: {reason}")

    def integer(self, word, field, low, high):
        if not (word.isascii() and word.isdigit()) or not low <= int(word) <= high:
            self.fail(field, word, f"expected an integer from {low} to {high}")
        return int(word)

    def cells(self, word, field):
        if word == "-":
            return []
        names = word.split(",")
        for name in names:
            if name not in CELL_INDEX:
                self.fail(field, name, "not a cell of the board")
        if len(set(names)) != len(names):
            self.fail(field, word, "a cell is named twice")
        return [CELL_INDEX[n] for n in names]

    def board(self, word, players):
        board = {}
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

    def player(self, word, p, board):
        field = f"player {p}"
        parts = word.split("/")
        if len(parts) != 4:
            self.fail(field, word, "expected light/available/playerboard/tokens")
        light = self.integer(parts[0], f"{field} light", 0, LIGHT_CAP)
        avail = self.counts(parts[1], f"{field} available")
        pboard = self.counts(parts[2], f"{field} player board")
        for size, column in enumerate(SIZES):
            if pboard[size] > SLOTS[size]:
                self.fail(f"{field} player board", parts[2],
                          f"the {column} column has {SLOTS[size]} slots")
            placed = sum(1 for owner, s in board.values() if owner == p and s == size)
            if avail[size] + pboard[size] + placed > OWNED[size]:
                self.fail(field, word, f"more than {OWNED[size]} pieces of size {size} "
                          f"({avail[size]} available, {pboard[size]} on the player board, "
                          f"{placed} on the main board)")
        tokens = [] if parts[3] == "-" else [
            self.integer(t, f"{field} token", _TOKEN_VALUES[0], _TOKEN_VALUES[-1])
            for t in parts[3].split(".")]
        return light, avail, pboard, tokens

    def counts(self, word, field):
        if len(word) != len(SIZES) or not (word.isascii() and word.isdigit()):
            self.fail(field, word, "expected four digits: seeds, small, medium, large")
        return [int(c) for c in word]

    def stacks(self, word, players, tokens):
        heights = self.counts(word, "stacks")
        for leaves, stack, height in zip(STACK_LEAVES, TOKENS, heights):
            if height > len(stack):
                self.fail("stacks", word, f"the {leaves}-leaf stack holds {len(stack)} tokens")
        if players == 2 and heights[STACK_LEAVES.index(4)]:
            self.fail("stacks", word, "two players play without the 4-leaf stack: it must be 0")
        taken = Counter(v for leaves, stack, height in zip(STACK_LEAVES, TOKENS, heights)
                        for v in stack[:len(stack) - height]
                        if players > 2 or leaves != 4)
        held = Counter(v for values in tokens for v in values)
        if taken != held:
            self.fail("stacks", word, f"the tokens taken from the stacks ({_listing(taken)}) "
                      f"are not the tokens the players hold ({_listing(held)})")
        return heights

    def check_turn(self, round_, over, current, players, active, board, light, avail, pboard,
                   tokens):
        if round_ == 0:
            placed = len(board)
            if placed >= _SETUP_TREES * players:
                self.fail("round", "0", f"setup ends after {_SETUP_TREES * players} placements")
            if current != placed % players:
                self.fail("to-move", str(current), f"after {placed} placements player "
                          f"{placed % players} places")
            for p in range(players):
                mine = [c for c, (owner, _) in board.items() if owner == p]
                due = placed // players + (1 if p < placed % players else 0)
                if len(mine) != due:
                    self.fail("board", CELLS[mine[0]] if mine else "-",
                              f"player {p} has {len(mine)} trees placed, setup gives {due}")
                start = [n - (due if size == _SMALL else 0)
                         for size, n in enumerate(START_AVAILABLE)]
                if light[p] or tokens[p] or pboard[p] != list(SLOTS) or avail[p] != start:
                    self.fail(f"player {p}", "", "during setup a player has 0 light, no tokens, "
                              "a full player board and only the setup trees placed")
            for cell, (_, size) in board.items():
                if size != _SMALL or cell not in OUTER_RING:
                    self.fail("board", CELLS[cell],
                              "setup places only small trees on the outer ring")
        if (over or round_ == 0) and active:
            self.fail("activated", CELLS[active[0]], "cells are activated only during a turn")
        for cell in active:
            if cell in board and board[cell][0] != current:
                self.fail("activated", CELLS[cell], f"holds a piece of player {board[cell][0]}, "
                          f"not of the player to move")


def _listing(counter):
    return ", ".join(str(v) for v in sorted(counter.elements(), reverse=True)) or "none"
