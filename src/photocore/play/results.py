"""The values the compiled players trade with Python: `Solution` (what `photocore.solve`
finds), `RootStats` (what `search_root` finds at a search's root), `AgentKind` (a built-in
agent that `photocore.Agent` plays, a row of `BUILTIN_AGENTS`) and `AgentParams` (the
parameters of one built-in agent, each default written once). All four are public as
`photocore.play.Solution`, `photocore.play.RootStats`, `photocore.play.AgentKind` and
`photocore.play.AgentParams`.

They are written here, in Python, and not in the compiled modules that make them: Cython
keeps a class body's annotations as text, which `help()` showed as `ForwardRef('bool')`.

>>> import typing
>>> typing.get_type_hints(Solution)["solved"], Solution.solved.__doc__[:31]
(<class 'bool'>, 'False: a budget ran out first, ')
"""

import dataclasses
from typing import Any, NamedTuple

from photocore._game import Move

__all__ = ["AgentKind", "AgentParams", "RootStats", "Solution"]


class Solution(NamedTuple):
    """What `photocore.solve` found. `solved` False: a budget ran out first, and only
    `nodes` and `seconds` say how far it got (the other fields are empty, never a guess).
    Otherwise, for the player to move, `result` (their return under best play) and
    `margin` (their final score minus the best of the others') under best play, and
    every legal move's."""

    solved: bool
    player: int
    result: float | None
    margin: int | None
    returns: tuple[float, ...] | None
    moves: dict[Move, tuple[float, int]]
    best: list[Move]
    principal: list[Move]
    nodes: int
    seconds: float
    table_hit_rate: float


class RootStats(NamedTuple):
    """What one UCT search found at its root (`search_root`): per legal move, in ascending
    id order, its visits and its mean returns; the root's own; the principal line; the
    nodes the search made and the bytes they took."""

    actions: list[int]
    visits: list[int]
    values: list[tuple[float, ...]]
    root_visits: int
    root_values: tuple[float, ...]
    principal: list[int]
    nodes: int
    memory: int


class AgentKind(NamedTuple):
    """A built-in agent, in C: a row of `BUILTIN_AGENTS`, the registry that agent specs,
    `VecGame`'s opponents, self-play's batch sizing and the command line's help read.
    `photocore.Agent(kind)` plays the row named `kind`."""

    name: str
    kind: int
    budget: bool
    searches: bool
    help: str
    options: tuple[tuple[str, object], ...] = ()


@dataclasses.dataclass(frozen=True)
class AgentParams:
    """A built-in agent's parameters, one value passed whole (as SearchSettings is for
    photocore.Search): `photocore.Agent`, `play_games` and VecGame's opponents each turn
    one into their C agent by the same conversion, which checks the fields (ValueError, or
    TypeError for a value of the wrong type). An agent spec's is `Spec.params`.

    >>> AgentParams("mcts", 50).graph, AgentParams("greedy").simulations
    (False, 200)
    """

    kind: str = "random"
    """Its row of BUILTIN_AGENTS: "random", "greedy" or "mcts"."""
    simulations: int | None = 200
    """mcts: playouts a move, 1 to MAX_SIMULATIONS; the agents without a budget take any,
    0 or None."""
    graph: bool = False
    """mcts: whether it searches over positions (`?graph=1`), not over orders of moves."""
    prove: bool = False
    """mcts: whether, in the last round, it plays a move the solver proves keeps a win
    (`?prove=1`)."""
    exploration: float = 1.0
    """mcts: the UCT constant, a finite number >= 0."""


def _document(cls: Any, **fields: str) -> None:
    """Gives each field of a named tuple its description, which help() and the reference
    show (else "Alias for field number k")."""
    assert set(fields) == set(cls._fields)
    for name, text in fields.items():
        getattr(cls, name).__doc__ = text


_document(
    Solution,
    solved="False: a budget ran out first, and only `nodes` and `seconds` are set.",
    player="The player to move, whose `result` and `margin` these are.",
    result="Their return under best play, on `Game.returns()`'s scale (two players: +1 a "
           "win, 0 a shared win, -1 a loss); None unsolved.",
    margin="Their final score minus the best of the others' under best play; None "
           "unsolved.",
    returns="Every seat's return under best play, by seat; None unsolved.",
    moves="{Move: (result, margin)} of every legal move, for the player to move.",
    best="The moves that keep the best result, those with the best margin first.",
    principal="A line of best play to the end (as far as the table kept it), Moves.",
    nodes="Positions searched.",
    seconds="Wall-clock time taken.",
    table_hit_rate="The share of the transposition table's probes that found their "
                   "position.")

_document(
    RootStats,
    actions="The legal action ids, ascending.",
    visits="The visits of each move (over positions: its edge's).",
    values="The mean return by seat of each move, a tuple each (NaN before a visit; over "
           "positions: of the position it reaches, by every path).",
    root_visits="The root's visits: its moves share one fewer (the first expands it).",
    root_values="The root's mean return by seat.",
    principal="The most visited move from the root down while its node was visited, as "
              "action ids.",
    nodes="The nodes the search made (tree nodes, or positions when it searches over "
          "positions).",
    memory="The bytes they took.")

_document(
    AgentKind,
    name="Its name, as agent specs spell it (`mcts` in `mcts:200`).",
    kind="Its C kind (`AgentSpec.kind`).",
    budget="Whether it takes a budget of simulations: `name:N`.",
    searches="Whether it searches each move (milliseconds a move, not microseconds).",
    help="Its line of the command line's help.",
    options="The `?key=value` options it takes, as (key, default) pairs.")
