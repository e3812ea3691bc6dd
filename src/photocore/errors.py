"""The exceptions photocore raises for bad input; all are ValueErrors."""


class InvalidMoveError(ValueError):
    """Text or an id that is not a move at all (malformed notation, an off-board cell)."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in the position."""


class InvalidPositionError(ValueError):
    """Position notation that is malformed or describes an impossible state."""


class InvariantError(AssertionError):
    """The engine broke one of its own invariants: a bug, reported with the position."""
