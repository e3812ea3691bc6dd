"""The solver in place of the judge (docs/analysis.md, "Exact moves: the solver"): where it
is cheap (the last SOLVE_ROUNDS rounds) and finishes within a budget of positions (a Limit's
`nodes`, DEFAULT_SOLVE_NODES without one), photocore.solve values a position exactly
(`exact_evaluation`): each move's value the mover's return under best play.
"""

from photocore._game import Game
from photocore.analysis.judges import Evaluation
from photocore.budget import Limit, check_limit
from photocore.play._solver import DEFAULT_MEMORY, MAX_NODES
from photocore.play._solver import solve as solve_position

__all__ = ["DEFAULT_SOLVE_NODES", "SOLVE_ROUNDS", "solvable", "exact_evaluation",
           "solver_nodes"]

DEFAULT_SOLVE_NODES = 1_000_000
"""The positions the solver may visit in a position (a Limit's `nodes` in an analysis).
Measured (docs/analysis.md, "Exact moves: the solver"): 0.02 to 0.11 s more a 2-player game than
mcts:1000's 0.3 s, for 7 exact moves a game; 100,000 gives 0.3 to 0.9 fewer, 3,000,000 at
most 0.4 more for 2 to 4 times the cost."""
SOLVE_ROUNDS = 2
"""The last rounds of the game (a count of rounds) where the solver is tried: before them it seldom
finishes within DEFAULT_SOLVE_NODES."""
# the solver's clock, never reached: its positions alone stop a solve here, so that an
# analysis is the same on any machine (photocore.solve wants a finite time: a day)
_SOLVE_SECONDS = 86_400.0
# the bytes of the solver's table at least: a byte per position of the budget beyond (an
# entry per 16), up to photocore.solve's default. The first touch of each page of a table
# costs more than the search in most solves here: with 64 MiB, 50 positions of the last two
# rounds took 1.4 s, 0.25 s with 1 MiB for 10% more positions searched
_SOLVE_MEMORY = 1 << 20


def solvable(game: Game) -> bool:
    """Whether photocore.solve takes `game`: a game going on (two players by alpha-beta,
    three and four by max^n)."""
    return not game.is_over


def exact_evaluation(game: Game, nodes: int | None = DEFAULT_SOLVE_NODES) -> Evaluation | None:
    """`game`'s position solved (photocore.solve), as an exact Evaluation: each move's
    value the mover's return under best play after it (for two players its result, +1, 0
    or -1), `margins` their final score margin. None where the solver is not tried
    (`nodes` None, a game it does not take, a round before the last SOLVE_ROUNDS: there it
    seldom finishes) or where `nodes` positions did not finish it: never an estimate.

    >>> game = Game.from_position("2 - 18 5 1 0 - a4:1:1,a5:1:1,b4:0:1 3/1110/2220/- "
    ...                           "0/2200/4432/- 0579")
    >>> exact = exact_evaluation(game)
    >>> exact.best, exact.moves["end"], exact.margins["end"], exact.values
    ('end', 1.0, 1, (1.0, -1.0))
    """
    nodes = _solve_budget(nodes)
    if nodes is None or not solvable(game) or game.last_round - game.round >= SOLVE_ROUNDS:
        return None
    solution = solve_position(game, Limit(nodes=nodes, seconds=_SOLVE_SECONDS,
                                          memory=min(DEFAULT_MEMORY, max(_SOLVE_MEMORY, nodes))))
    if not solution.solved:
        return None
    assert solution.returns is not None, "a solved position has its returns"
    texts = {str(m): value for m, value in solution.moves.items()}
    return Evaluation(solution.player, solution.returns,
                      {m: float(result) for m, (result, _) in texts.items()}, {},
                      str(solution.best[0]), tuple(map(str, solution.principal)), True,
                      {m: margin for m, (_, margin) in texts.items()})


def _solve_budget(nodes: object) -> int | None:
    """`nodes` checked: None (no solver) or the positions a solve may visit."""
    if nodes is None:
        return None
    if isinstance(nodes, bool) or not isinstance(nodes, int) or not 1 <= nodes <= MAX_NODES:
        raise ValueError(f"nodes: the positions the solver may visit must be a whole "
                         f"number from 1 to 2**63 - 1 (None: no solver), got {nodes!r}")
    return nodes


def solver_nodes(limit: Limit | None = None, exact: bool = True) -> int | None:
    """The positions the solver may visit in a position of an analysis: `limit`'s nodes,
    DEFAULT_SOLVE_NODES where it gives none; None (no solver) where `exact` is False.

    >>> solver_nodes(), solver_nodes(Limit(nodes=5000)), solver_nodes(exact=False)
    (1000000, 5000, None)
    """
    checked = check_limit(limit)
    if not exact:
        return None
    nodes = DEFAULT_SOLVE_NODES if checked is None or checked.nodes is None else checked.nodes
    return _solve_budget(nodes)
