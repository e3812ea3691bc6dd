"""The game's facts, read from the kernel's own tables: cells, plants, pieces, prices,
tokens, limits and options (docs/rules.md §1–§8). Every other module takes them from here.

>>> CELLS[0], CELLS[18], len(CELLS)
('a4', 'd4', 37)
>>> AXIAL[CELL_INDEX["e5"]], RICHNESS[CELL_INDEX["d4"]]
((1, 1), 4)
>>> CELLS[NEIGHBOURS[CELL_INDEX["d4"]][DIRECTIONS.index("E")]]
'd5'
>>> PRICES[SIZES.index("large")], LIGHT_CAP
((4, 5), 20)
>>> dict(zip(STACK_LEAVES, TOKENS))[3]
(19, 18, 18, 17, 17)
>>> str(Options(fourth_revolution=True)), Options.parse("fs").name
('f', 'fourth revolution + shade blocks')
"""

from typing import NamedTuple

from photocore._kernel import tables as _tables

_KERNEL = _tables()

# ---- the board (docs/rules.md §1, §2) ---------------------------------------------------------

ROWS = "abcdefg"                     # a cell's letter names its row r = -3 .. 3
AXIAL = _KERNEL["axial"]             # (q, r) of each cell, in cell-index order
CELLS = tuple(f"{ROWS[r + 3]}{q + 4}" for q, r in AXIAL)   # the digit names q = -3 .. 3
CELL_INDEX = {name: i for i, name in enumerate(CELLS)}
RICHNESS = _KERNEL["richness"]       # leaves of each cell's soil: 4 centre .. 1 outer ring
OUTER_RING = tuple(i for i, leaves in enumerate(RICHNESS) if leaves == 1)

# clockwise; the sun at position k stands in DIRECTIONS[k] and casts toward the opposite
DIRECTIONS = ("E", "SE", "SW", "W", "NW", "NE")
VECTORS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
_AT = {qr: i for i, qr in enumerate(AXIAL)}
# NEIGHBOURS[cell][d]: the cell one step in direction d, None off the board
NEIGHBOURS = tuple(tuple(_AT.get((q + dq, r + dr)) for dq, dr in VECTORS) for q, r in AXIAL)
SUN_POSITIONS = len(DIRECTIONS)


def distance(a, b):
    """Hex distance between cells `a` and `b` (indices).

    >>> distance(CELL_INDEX["d4"], CELL_INDEX["a7"])
    3
    """
    (q1, r1), (q2, r2) = AXIAL[a], AXIAL[b]
    return max(abs(q1 - q2), abs(r1 - r2), abs(q1 + r1 - q2 - r2))


def shadow_direction(sun):
    """The direction (index into DIRECTIONS) shadows fall with the sun at position `sun`.

    >>> DIRECTIONS[0], DIRECTIONS[shadow_direction(0)]
    ('E', 'W')
    """
    return (sun + 3) % SUN_POSITIONS


PLANT_PAIRS = _KERNEL["plants"]      # (source, target) of each plant action, in id order

# ---- pieces, player boards, tokens (docs/rules.md §3, §6) -------------------------------------

SIZES = ("seed", "small", "medium", "large")           # sizes 0 .. 3; player-board columns
SIZE_NAMES = ("seed", "small tree", "medium tree", "large tree")
OWNED = _KERNEL["owned"]             # pieces of each size a player owns
PRICES = _KERNEL["prices"]           # each column's slot prices, cheapest first
SLOTS = tuple(len(p) for p in PRICES)
START_AVAILABLE = _KERNEL["start_available"]
GROW_COST = _KERNEL["grow_cost"]     # light to grow from size k to k + 1 (docs/rules.md §5.2)
PLANT_COST = _KERNEL["plant_cost"]
COLLECT_COST = _KERNEL["collect_cost"]
REACH = _KERNEL["reach"]             # how far a piece of each size plants a seed
# The token stacks are listed 4-leaf stack first everywhere in Python, the order of docs/rules.md
# §6 (Game.stacks, the position notation, the observation); the kernel indexes its own array
# by leaves - 1, so its table is turned round here, once.
STACK_LEAVES = (4, 3, 2, 1)
TOKENS = tuple(_KERNEL["tokens"][leaves - 1] for leaves in STACK_LEAVES)   # each top first
LIGHT_CAP = _KERNEL["light_cap"]     # light points a player holds at most
LIGHT_PER_POINT = _KERNEL["light_per_point"]   # leftover light scores 1 point per 3 at the end

# ---- the clock (docs/rules.md §2, §4, §8) ------------------------------------------------------

ROUNDS = _KERNEL["rounds"]
ROUNDS_FOURTH_REVOLUTION = _KERNEL["rounds_fourth_revolution"]
PLAYERS = (2, 3, 4)
MAX_GAME_MOVES = _KERNEL["max_game_moves"]   # no game is longer (docs/engine.md)
MAX_LEGAL = _KERNEL["max_legal"]             # no position has more legal moves

# ---- action ids and the observation (docs/engine.md) --------------------------------------

ACTION_BASE = _KERNEL["actions"]     # first id of each kind: place, buy, plant, grow, collect, end
NUM_ACTIONS = ACTION_BASE["count"]
MOVE_KINDS = tuple(sorted((kind for kind in ACTION_BASE if kind != "count"), key=ACTION_BASE.get))
OBSERVATION = _KERNEL["observation"]  # offset of each part of Game.observation()
OBSERVATION_SIZE = OBSERVATION["size"]

# ---- options (docs/rules.md §8) ----------------------------------------------------------------

_FLAGS = _KERNEL["options"]


class Options(NamedTuple):
    """The advanced rules a game is played with, in every form photocore uses:

    - the text form of the position notation, records' summaries, the command line and bench:
      "-" for none, else "f" (fourth revolution) and/or "s" (shade blocks): str() and parse();
    - the record's dict: `Options(**rec["options"])` and `options._asdict()`;
    - the kernel's bit flags: `.flags` and from_flags();
    - in words, for people: `.name`.

    >>> Options.parse("s"), Options.parse("s").flags
    (Options(fourth_revolution=False, shade_blocks=True), 2)
    >>> Options(**{"fourth_revolution": True, "shade_blocks": False}).name
    'fourth revolution'
    """

    fourth_revolution: bool = False
    shade_blocks: bool = False

    @classmethod
    def parse(cls, text):
        """The options written `text`: "-", "f", "s" or "fs"; ValueError otherwise."""
        if text not in _TEXTS:
            raise ValueError(f"options {text!r}: expected -, f, s or fs")
        return _TEXTS[text]

    @classmethod
    def from_flags(cls, flags):
        """The options of the kernel's bit flags (1 fourth revolution, 2 shade blocks);
        ValueError for any other bit."""
        known = _FLAGS["fourth_revolution"] | _FLAGS["shade_blocks"]
        if not 0 <= flags <= known or flags & ~known:
            raise ValueError(f"option flags {flags!r}: expected bits of {known}")
        return cls(bool(flags & _FLAGS["fourth_revolution"]), bool(flags & _FLAGS["shade_blocks"]))

    @property
    def flags(self):
        """The kernel's bit flags of these options."""
        return ((_FLAGS["fourth_revolution"] if self.fourth_revolution else 0)
                | (_FLAGS["shade_blocks"] if self.shade_blocks else 0))

    @property
    def rounds(self):
        """The rounds of a game with these options."""
        return ROUNDS_FOURTH_REVOLUTION if self.fourth_revolution else ROUNDS

    @property
    def name(self):
        """In words, for people: "none", "fourth revolution", "shade blocks", or both."""
        words = [w for w, on in (("fourth revolution", self.fourth_revolution),
                                 ("shade blocks", self.shade_blocks)) if on]
        return " + ".join(words) or "none"

    def __str__(self):
        return ("f" if self.fourth_revolution else "") + ("s" if self.shade_blocks else "") or "-"


_TEXTS = {str(o): o for o in (Options(False, False), Options(True, False), Options(False, True),
                              Options(True, True))}
OPTIONS = tuple(_TEXTS.values())     # every combination, none first
