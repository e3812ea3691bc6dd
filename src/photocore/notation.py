"""Cell names and the move notation of RULES.md §9, mapped to action ids (docs/engine.md)."""

from photocore.errors import InvalidMoveError

CELLS = tuple(
    f"{'abcdefg'[r + 3]}{q + 4}"
    for r in range(-3, 4)
    for q in range(-3, 4)
    if max(abs(q), abs(r), abs(q + r)) <= 3
)
CELL_INDEX = {name: i for i, name in enumerate(CELLS)}
COLUMNS = ("seed", "small", "medium", "large")
SIZES = ("seed", "small tree", "medium tree", "large tree")


def _axial(cell):
    name = CELLS[cell]
    return int(name[1]) - 4, "abcdefg".index(name[0]) - 3


def distance(a, b):
    """Hex distance between two cell indices."""
    (q1, r1), (q2, r2) = _axial(a), _axial(b)
    return max(abs(q1 - q2), abs(r1 - r2), abs(q1 + r1 - q2 - r2))


PLANT_PAIRS = tuple((s, t) for s in range(37) for t in range(37) if 1 <= distance(s, t) <= 3)

MOVE_TEXTS = (
    tuple(f"place {c}" for c in CELLS)
    + tuple(f"buy {c}" for c in COLUMNS)
    + tuple(f"plant {CELLS[s]} {CELLS[t]}" for s, t in PLANT_PAIRS)
    + tuple(f"grow {c}" for c in CELLS)
    + tuple(f"collect {c}" for c in CELLS)
    + ("end",)
)
NUM_ACTIONS = len(MOVE_TEXTS)
_ACTION_OF_TEXT = {text: a for a, text in enumerate(MOVE_TEXTS)}


def parse_move_text(text):
    """The action id of a move written in notation; InvalidMoveError says what is wrong."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"move text must be a str, not {type(text).__name__}")
    words = text.lower().split()
    action = _ACTION_OF_TEXT.get(" ".join(words))
    if action is not None:
        return action
    raise InvalidMoveError(f"{text!r}: {_why_malformed(words)}")


def _why_malformed(words):
    arity = {"place": 1, "buy": 1, "plant": 2, "grow": 1, "collect": 1, "end": 0}
    if not words:
        return "empty move"
    verb, args = words[0], words[1:]
    if verb not in arity:
        return f"unknown move {verb!r} (expected one of {', '.join(arity)})"
    if len(args) != arity[verb]:
        return f"{verb} takes {arity[verb]} argument{'s' if arity[verb] != 1 else ''}, got {len(args)}"
    if verb == "buy":
        return f"unknown column {args[0]!r} (expected seed, small, medium or large)"
    for word in args:
        if word not in CELL_INDEX:
            return f"{word!r} is not a cell of the board"
    src, tgt = (CELL_INDEX[w] for w in args)
    return f"{args[1]} is {distance(src, tgt)} cells from {args[0]}: a plant reaches 1 to 3"
