"""Position notation: one line of text holding a whole game state (docs/engine.md)."""

from collections import Counter

from photocore.errors import InvalidPositionError
from photocore.notation import CELL_INDEX, CELLS, distance

OWNED = (6, 8, 4, 2)
SLOTS = (4, 4, 3, 2)
STACKS = ((22, 21, 20), (19, 18, 18, 17, 17), (17, 16, 16, 14, 14, 13, 13),
          (14, 14, 13, 13, 13, 12, 12, 12, 12))   # 4-, 3-, 2-, 1-leaf, top first
OPTIONS = {"-": 0, "f": 1, "s": 2, "fs": 3}


def format_position(game):
    """The position notation of `game`'s current state."""
    players = range(game.players)
    options = ("f" if game.fourth_revolution else "") + ("s" if game.shade_blocks else "")
    board = game.board()
    fields = [
        str(game.players),
        options or "-",
        str(game.round),
        str(game.sun),
        str(game.first_player),
        "-" if game.current_player is None else str(game.current_player),
        ",".join(game.activated()) or "-",
        ",".join(f"{cell}:{owner}:{size}" for cell, (owner, size) in board.items()) or "-",
    ]
    for p in players:
        tokens = ".".join(str(t) for t in game.tokens(p)) or "-"
        fields.append(f"{game.light[p]}/{_digits(game.available(p))}/"
                      f"{_digits(game.player_board(p))}/{tokens}")
    fields.append(_digits(game.stacks))
    return " ".join(fields)


def _digits(values):
    return "".join(str(v) for v in values)


def parse_position(text):
    """The checked fields of position `text`; InvalidPositionError names the field and why."""
    return _Fields(text).state


class _Fields:
    """Parses and checks each field of a position, in order."""

    def __init__(self, text):
        if not isinstance(text, str):
            raise InvalidPositionError(f"position must be a str, not {type(text).__name__}")
        self.text = text
        words = text.split()
        if not words:
            raise InvalidPositionError("empty position")
        players = self.integer(words[0], "players", 2, 4)
        if len(words) != 9 + players:
            raise InvalidPositionError(
                f"{text!r}: a {players}-player position has {9 + players} fields, got {len(words)}")
        if words[1] not in OPTIONS:
            self.fail("options", words[1], "expected -, f, s or fs")
        options = OPTIONS[words[1]]
        last = 24 if options & 1 else 18
        round_ = self.integer(words[2], "round", 0, last)
        sun = self.integer(words[3], "sun", 0, 5)
        if sun != (0 if round_ == 0 else (round_ - 1) % 6):
            self.fail("sun", words[3], f"round {round_} has the sun at {(round_ - 1) % 6 if round_ else 0}")
        first = self.integer(words[4], "first", 0, players - 1)
        if first != (0 if round_ == 0 else (round_ - 1) % players):
            self.fail("first", words[4], f"round {round_} starts with player {(round_ - 1) % players if round_ else 0}")
        over = words[5] == "-"
        current = -1 if over else self.integer(words[5], "to-move", 0, players - 1)
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
        self.check_turn(round_, over, current, players, first, active, board, light, avail,
                        pboard, tokens)
        self.state = dict(players=players, options=options, round_=round_, first=first,
                          current=current, active=active, board=board, light=light,
                          avail=avail, pboard=pboard, tokens=tokens, stacks=stacks)

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
                           self.integer(parts[2], "size", 0, 3))
        return board

    def player(self, word, p, board):
        field = f"player {p}"
        parts = word.split("/")
        if len(parts) != 4:
            self.fail(field, word, "expected light/available/playerboard/tokens")
        light = self.integer(parts[0], f"{field} light", 0, 20)
        avail = self.counts(parts[1], f"{field} available")
        pboard = self.counts(parts[2], f"{field} player board")
        for size in range(4):
            if pboard[size] > SLOTS[size]:
                self.fail(f"{field} player board", parts[2],
                          f"the {('seed', 'small', 'medium', 'large')[size]} column has {SLOTS[size]} slots")
            placed = sum(1 for owner, s in board.values() if owner == p and s == size)
            if avail[size] + pboard[size] + placed > OWNED[size]:
                self.fail(field, word, f"more than {OWNED[size]} pieces of size {size} "
                          f"({avail[size]} available, {pboard[size]} on the player board, {placed} on the main board)")
        tokens = [] if parts[3] == "-" else [self.integer(t, f"{field} token", 12, 22)
                                             for t in parts[3].split(".")]
        return light, avail, pboard, tokens

    def counts(self, word, field):
        if len(word) != 4 or not (word.isascii() and word.isdigit()):
            self.fail(field, word, "expected four digits: seeds, small, medium, large")
        return [int(c) for c in word]

    def stacks(self, word, players, tokens):
        heights = self.counts(word, "stacks")
        for k, height in enumerate(heights):
            if height > len(STACKS[k]):
                self.fail("stacks", word, f"the {4 - k}-leaf stack holds {len(STACKS[k])} tokens")
        if players == 2 and heights[0]:
            self.fail("stacks", word, "two players play without the 4-leaf stack: it must be 0")
        taken = Counter(v for k, stack in enumerate(STACKS)
                        for v in stack[:len(stack) - heights[k]]
                        if players > 2 or k > 0)
        held = Counter(v for values in tokens for v in values)
        if taken != held:
            self.fail("stacks", word, f"the tokens taken from the stacks ({_listing(taken)}) "
                      f"are not the tokens the players hold ({_listing(held)})")
        return heights

    def check_turn(self, round_, over, current, players, first, active, board, light, avail,
                   pboard, tokens):
        if round_ == 0:
            placed = len(board)
            if placed >= 2 * players:
                self.fail("round", "0", f"setup ends after {2 * players} placements")
            if current != placed % players:
                self.fail("to-move", str(current), f"after {placed} placements player "
                          f"{placed % players} places")
            for p in range(players):
                mine = [c for c, (owner, _) in board.items() if owner == p]
                due = placed // players + (1 if p < placed % players else 0)
                if len(mine) != due:
                    self.fail("board", CELLS[mine[0]] if mine else "-",
                              f"player {p} has {len(mine)} trees placed, setup gives {due}")
                if light[p] or tokens[p] or pboard[p] != [4, 4, 3, 2] or avail[p] != [2, 4 - due, 1, 0]:
                    self.fail(f"player {p}", "", "during setup a player has 0 light, no tokens, "
                              "a full player board and only the setup trees placed")
            for cell, (_, size) in board.items():
                if size != 1 or distance(cell, CELL_INDEX["d4"]) != 3:
                    self.fail("board", CELLS[cell], "setup places only small trees on the outer ring")
        if (over or round_ == 0) and active:
            self.fail("activated", CELLS[active[0]], "cells are activated only during a turn")
        for cell in active:
            if cell in board and board[cell][0] != current:
                self.fail("activated", CELLS[cell], f"holds a piece of player {board[cell][0]}, "
                          f"not of the player to move")


def _listing(counter):
    return ", ".join(str(v) for v in sorted(counter.elements(), reverse=True)) or "none"
