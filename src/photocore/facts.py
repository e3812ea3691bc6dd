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

import importlib.metadata
import operator
from typing import Any, NamedTuple

import numpy

# The build's code path (docs/kernel.md): the kernel's copy that runs (CODE_PATH, one of
# CODE_PATHS or "native") and how it finds the k-th set bit (SELECT, below: "pdep" or
# "broadword").
from photocore._kernel import CODE_PATH as CODE_PATH
from photocore._kernel import CODE_PATHS as CODE_PATHS

# The random playouts' kernel (docs/kernel.md, "Many games at once"): LANES games a step (8,
# or 1 for the scalar kernel) and the copy that plays them (LANE_COPY, one of LANE_COPIES:
# "avx512", "portable" or "scalar"); PHOTOCORE_LANES=1 picks the scalar kernel.
from photocore._kernel import LANE_COPIES as LANE_COPIES
from photocore._kernel import LANE_COPY as LANE_COPY
from photocore._kernel import LANES as LANES

# The rule of seeds (docs/engine.md, "Seeds"): a seed is any integer, taken modulo SEEDS
# (2**64). It is the kernel's, which derives every stream from a seed (stream_seed); every
# function, class and command that takes a seed checks it with check_seed. And a count of
# games is from 0 to 2**63 - 1 (check_count): the kernel's game numbers are long longs.
from photocore._kernel import SEEDS as SEEDS
from photocore._kernel import SELECT as SELECT
from photocore._kernel import check_count as check_count
from photocore._kernel import check_seed as check_seed
from photocore._kernel import tables as _tables

__all__ = [
    "CODE_PATH", "CODE_PATHS", "LANES", "LANE_COPY", "LANE_COPIES", "SEEDS", "SELECT",
    "check_count", "check_seed", "RULES_VERSION",
    "VERSION", "ROWS", "AXIAL", "CELLS", "CELL_INDEX", "RICHNESS", "OUTER_RING", "DIRECTIONS",
    "VECTORS", "NEIGHBOURS", "SUN_POSITIONS", "distance", "shadow_direction", "PLANT_PAIRS",
    "SIZES", "SIZE_NAMES", "OWNED", "PRICES", "SLOTS", "START_AVAILABLE", "GROW_COST",
    "PLANT_COST", "COLLECT_COST", "REACH", "STACK_LEAVES", "TOKENS", "LIGHT_CAP",
    "LIGHT_PER_POINT", "ROUNDS", "ROUNDS_FOURTH_REVOLUTION", "PLAYERS", "MAX_PLAYERS",
    "MIN_PLAYERS", "SETUP_TREES", "MAX_GAME_MOVES", "MAX_LEGAL", "ACTION_BASE", "NUM_ACTIONS",
    "MOVE_KINDS", "ACTION_RANGES", "OBSERVATION", "OBSERVATION_SIZE", "PLAYER_SLOT", "CLOCK_SLOT",
    "OBSERVATION_HIGH", "action_kind", "OptionRule", "OPTION_RULES", "Options", "OPTIONS",
    "max_game_moves"
]

_KERNEL: dict[str, Any] = _tables()

# Bumped whenever any game plays differently: records, perft counts and golden games
# in seeds/ are tied to it.
RULES_VERSION = "1"
VERSION: str = importlib.metadata.version("photocore")    # the installed package's

# ---- the board (docs/rules.md §1, §2) ---------------------------------------------------------

ROWS = "abcdefg"                     # a cell's letter names its row r = -3 .. 3
AXIAL: tuple[tuple[int, int], ...] = _KERNEL["axial"]   # (q, r) of each cell, by cell index
CELLS = tuple(f"{ROWS[r + 3]}{q + 4}" for q, r in AXIAL)   # the digit names q = -3 .. 3
CELL_INDEX = {name: i for i, name in enumerate(CELLS)}
RICHNESS: tuple[int, ...] = _KERNEL["richness"]   # leaves of each cell's soil: 4 centre .. 1
OUTER_RING = tuple(i for i, leaves in enumerate(RICHNESS) if leaves == 1)

# clockwise; the sun at position k stands in DIRECTIONS[k] and casts toward the opposite
DIRECTIONS = ("E", "SE", "SW", "W", "NW", "NE")
VECTORS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
_AT = {qr: i for i, qr in enumerate(AXIAL)}
# NEIGHBOURS[cell][d]: the cell one step in direction d, None off the board
NEIGHBOURS = tuple(tuple(_AT.get((q + dq, r + dr)) for dq, dr in VECTORS) for q, r in AXIAL)
SUN_POSITIONS = len(DIRECTIONS)


def distance(a: int, b: int) -> int:
    """Hex distance between cells `a` and `b` (indices).

    >>> distance(CELL_INDEX["d4"], CELL_INDEX["a7"])
    3
    """
    (q1, r1), (q2, r2) = AXIAL[a], AXIAL[b]
    return max(abs(q1 - q2), abs(r1 - r2), abs(q1 + r1 - q2 - r2))


def shadow_direction(sun: int) -> int:
    """The direction (index into DIRECTIONS) shadows fall with the sun at position `sun`.

    >>> DIRECTIONS[0], DIRECTIONS[shadow_direction(0)]
    ('E', 'W')
    """
    return (sun + 3) % SUN_POSITIONS


# (source, target) of each plant action, in id order
PLANT_PAIRS: tuple[tuple[int, int], ...] = _KERNEL["plants"]

# ---- pieces, player boards, tokens (docs/rules.md §3, §6) -------------------------------------

SIZES = ("seed", "small", "medium", "large")           # sizes 0 .. 3; player-board columns
SIZE_NAMES = ("seed", "small tree", "medium tree", "large tree")
OWNED: tuple[int, ...] = _KERNEL["owned"]   # pieces of each size a player owns
PRICES: tuple[tuple[int, ...], ...] = _KERNEL["prices"]   # each column's slots, cheapest first
SLOTS = tuple(len(p) for p in PRICES)
START_AVAILABLE: tuple[int, ...] = _KERNEL["start_available"]
GROW_COST: tuple[int, ...] = _KERNEL["grow_cost"]   # light to grow size k to k + 1 (§5.2)
PLANT_COST: int = _KERNEL["plant_cost"]
COLLECT_COST: int = _KERNEL["collect_cost"]
REACH: tuple[int, ...] = _KERNEL["reach"]   # how far a piece of each size plants a seed
# The token stacks are listed 4-leaf stack first everywhere in Python, the order of docs/rules.md
# §6 (Game.stacks, the position notation, the observation); the kernel indexes its own array
# by leaves - 1, so its table is turned round here, once.
STACK_LEAVES = (4, 3, 2, 1)
TOKENS: tuple[tuple[int, ...], ...] = tuple(   # each top first
    _KERNEL["tokens"][leaves - 1] for leaves in STACK_LEAVES)
LIGHT_CAP: int = _KERNEL["light_cap"]   # light points a player holds at most
LIGHT_PER_POINT: int = _KERNEL["light_per_point"]   # leftover light scores 1 point per 3 at the end

# ---- the clock (docs/rules.md §2, §4, §8) ------------------------------------------------------

ROUNDS: int = _KERNEL["rounds"]
ROUNDS_FOURTH_REVOLUTION: int = _KERNEL["rounds_fourth_revolution"]
PLAYERS: tuple[int, ...] = _KERNEL["players"]   # the player counts a game is for: 2, 3 and 4
MIN_PLAYERS, MAX_PLAYERS = PLAYERS[0], PLAYERS[-1]
SETUP_TREES: int = _KERNEL["setup_trees"]   # small trees each player places before round 1
MAX_GAME_MOVES: int = _KERNEL["max_game_moves"]   # no game is longer (docs/engine.md)
MAX_LEGAL: int = _KERNEL["max_legal"]   # no position has more legal moves


def win_share(winners: int) -> float:
    """What a game's win is worth to each of its `winners` (tied on score and light): they
    share it, so a game's shares add up to 1, as its zero-sum returns share the pot. The
    rule of every win rate: photocore playouts, selfplay and stats.

    >>> win_share(1), win_share(2), win_share(3)
    (1.0, 0.5, 0.3333333333333333)
    """
    return 1 / winners

# ---- action ids and the observation (docs/engine.md) --------------------------------------

# first id of each kind: place, buy, plant, grow, collect, end
ACTION_BASE: dict[str, int] = _KERNEL["actions"]
NUM_ACTIONS = ACTION_BASE["count"]
MOVE_KINDS = tuple(sorted((kind for kind in ACTION_BASE if kind != "count"),
                         key=ACTION_BASE.__getitem__))
# the ids of each kind of move: ACTION_RANGES["grow"] is range(815, 852)
ACTION_RANGES = {kind: range(ACTION_BASE[kind], ACTION_BASE[after])
                 for kind, after in zip(MOVE_KINDS, MOVE_KINDS[1:] + ("count",))}
OBSERVATION: dict[str, int] = _KERNEL["observation"]   # offset of each part of Game.observation()
OBSERVATION_SIZE = OBSERVATION["size"]
PLAYER_SLOT: dict[str, int] = _KERNEL["player_slot"]   # a player's values in "players"
CLOCK_SLOT: dict[str, int] = _KERNEL["clock"]   # the "clock" part's values, by offset
OBSERVATION_HIGH: tuple[float, ...] = _KERNEL["observation_high"]   # each value's bound (>= 0)


def action_kind(action: int) -> str:
    """The kind of move (one of MOVE_KINDS) of an action id.

    >>> action_kind(0), action_kind(NUM_ACTIONS - 1)
    ('place', 'end')
    """
    for kind in reversed(MOVE_KINDS):
        if action >= ACTION_BASE[kind]:
            return kind
    raise ValueError(f"action {action!r} is not an action id")


# ---- options (docs/rules.md §8, docs/engine.md) ---------------------------------------------

class OptionRule(NamedTuple):
    """One advanced rule, as the kernel's option table lists it."""

    name: str
    letter: str
    flag: int
    words: str
    help: str


OptionRule.name.__doc__ = "The keyword: Options(name=True), the record's options."
OptionRule.letter.__doc__ = 'Its letter in the text form ("fs").'
OptionRule.flag.__doc__ = "Its bit in the kernel's State.options."
OptionRule.words.__doc__ = "The rule in words, for people."
OptionRule.help.__doc__ = "Its line of the command line's help."

OPTION_RULES = tuple(OptionRule(*row) for row in _KERNEL["options"])
_RULE = {rule.name: rule for rule in OPTION_RULES}
_ALL_FLAGS = sum(rule.flag for rule in OPTION_RULES)


def _as_bool(value: object, name: str) -> bool:
    """A rule's value: True or False (numpy's too), or a whole number (anything with
    __index__) 0 or 1; TypeError for any other type, as "no" must not count as True."""
    if value is True or value is False:
        return value
    if isinstance(value, numpy.bool_):
        return bool(value)
    try:
        number = operator.index(value)      # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"option {name} must be True or False, got {value!r}") from None
    if number not in (0, 1):
        raise ValueError(f"option {name} must be True or False (or 0 or 1), got {value!r}")
    return number == 1


class Options:
    """The advanced rules a game is played with (a row of facts.OPTION_RULES each), in every
    form photocore uses:

    - the text form of the position notation, records' summaries, the command line and
      every `options=` argument: "-" for none, else the rules' letters ("f", "s", "fs"):
      str() and parse();
    - the record's dict: `Options(**rec["options"])` and `options._asdict()`;
    - the kernel's bit flags: `.flags` and from_flags();
    - in words, for people: `.name`.

    >>> Options.parse("s"), Options.parse("s").flags
    (Options(fourth_revolution=False, shade_blocks=True), 2)
    >>> Options(**{"fourth_revolution": True, "shade_blocks": False}).name
    'fourth revolution'
    >>> Options.parse("fs").shade_blocks, Options.coerce(None) == Options()
    (True, True)
    """

    __slots__ = ("flags",)
    flags: int
    """The kernel's bit flags: the sum of the rules' OptionRule.flag (from_flags reads them
    back)."""
    _fields = tuple(rule.name for rule in OPTION_RULES)

    def __init__(self, *on: object, **by_name: object) -> None:
        if len(on) > len(OPTION_RULES):
            raise TypeError(f"Options takes at most {len(OPTION_RULES)} positional values, "
                            f"got {len(on)}")
        values = dict(zip(self._fields, on))
        for name, value in by_name.items():
            if name not in _RULE:
                raise TypeError(f"unknown option {name!r} (expected {', '.join(self._fields)})")
            if name in values:
                raise TypeError(f"option {name!r} given twice")
            values[name] = value
        flags = 0
        for name, value in values.items():
            if _as_bool(value, name):
                flags |= _RULE[name].flag
        object.__setattr__(self, "flags", flags)

    def __getattr__(self, name: str) -> bool:
        rule = _RULE.get(name)
        if rule is None:
            raise AttributeError(f"'Options' object has no attribute {name!r}")
        return bool(self.flags & rule.flag)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Options are immutable: use _replace()")

    @classmethod
    def parse(cls, text: str) -> "Options":
        """The options written `text`: "-", or the rules' letters, each once, in any order
        (str() writes them in table order); ValueError otherwise.

        >>> Options.parse("sf") == Options.parse("fs")
        True
        """
        options = _TEXTS.get(text) if isinstance(text, str) else None
        if options is None:
            letters = {rule.letter: rule.name for rule in OPTION_RULES}
            if (not isinstance(text, str) or not text or len(set(text)) != len(text)
                    or not set(text) <= set(letters)):
                raise ValueError(
                    f"options {text!r}: expected - or the letters of the rules, each once ("
                    + ", ".join(f"{r.letter} {r.words}" for r in OPTION_RULES)
                    + f"), e.g. {_TEXTS_ALL}")
            options = cls(**{letters[letter]: True for letter in text})
        return options

    @classmethod
    def from_flags(cls, flags: int) -> "Options":
        """The options of the kernel's bit flags; ValueError for a bit no rule has."""
        options = _OF_FLAGS.get(flags) if isinstance(flags, int) else None
        if options is None:
            raise ValueError(f"option flags {flags!r}: expected bits of {_ALL_FLAGS}")
        return options

    @classmethod
    def coerce(cls, value: "Options | str | None") -> "Options":
        """`value` as Options: an Options, its text, or None for none (what every
        `options=` argument takes)."""
        if isinstance(value, Options):
            return value
        if value is None:
            return _OF_FLAGS[0]
        if isinstance(value, str):
            return cls.parse(value)
        raise TypeError(f"options must be an Options or its text ({', '.join(_TEXTS)}), "
                        f"not {type(value).__name__}")

    @property
    def rounds(self) -> int:
        """The rounds of a game with these options."""
        return ROUNDS_FOURTH_REVOLUTION if self.fourth_revolution else ROUNDS

    @property
    def name(self) -> str:
        """In words, for people: "none", or the rules' words joined by " + "."""
        return " + ".join(r.words for r in OPTION_RULES if self.flags & r.flag) or "none"

    def _asdict(self) -> dict[str, bool]:
        return {rule.name: bool(self.flags & rule.flag) for rule in OPTION_RULES}

    def _replace(self, **changes: object) -> "Options":
        return Options(**{**self._asdict(), **changes})

    def __str__(self) -> str:
        return "".join(r.letter for r in OPTION_RULES if self.flags & r.flag) or "-"

    def __repr__(self) -> str:
        return "Options(" + ", ".join(f"{k}={v}" for k, v in self._asdict().items()) + ")"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Options) and other.flags == self.flags

    def __hash__(self) -> int:
        return hash((Options, self.flags))

    def __reduce__(self) -> tuple[object, tuple[int]]:
        # a module-level function: pickled by reference, also by cloudpickle (Ray)
        return _options_of_flags, (self.flags,)


def _options_of_flags(flags: int) -> Options:
    return Options.from_flags(flags)


# every combination, none first, in the order of their flags
OPTIONS = tuple(Options(*(bool(flags & r.flag) for r in OPTION_RULES))
                for flags in range(_ALL_FLAGS + 1) if not flags & ~_ALL_FLAGS)
_OF_FLAGS = {options.flags: options for options in OPTIONS}
_TEXTS = {str(options): options for options in OPTIONS}
_TEXTS_ALL = str(OPTIONS[-1])


def max_game_moves(players: int, options: Options | str | None = None) -> int:
    """A bound on the moves of any game: the setup placements, then per turn at most
    LIGHT_CAP paid actions (each costs >= 1 light, a turn starts with <= LIGHT_CAP and
    earns none) and `end`.

    >>> max_game_moves(2), max_game_moves(MAX_PLAYERS, "f") == MAX_GAME_MOVES
    (760, True)
    """
    rounds = Options.coerce(options).rounds
    return SETUP_TREES * players + rounds * players * (LIGHT_CAP + 1)
