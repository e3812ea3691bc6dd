"""A game analysed: each position valued by the judge, or the solver where it finishes
(analyze), and each move scored against that value (judged); one position alone
(evaluate_position).
"""

from collections.abc import Sequence

from photocore._game import Game, Move
from photocore._kernel import check_seed
from photocore.analysis.exact import exact_evaluation, solver_nodes
from photocore.analysis.format import GameAnalysis
from photocore.analysis.judges import (
    DEFAULT_JUDGE,
    AgentJudge,
    Evaluation,
    Judge,
    MctsJudge,
    SearchJudge,
    judge,
    mover,
    position_seed,
)
from photocore.analysis.scoring import THRESHOLDS, Thresholds, accuracies, scored
from photocore.budget import Limit
from photocore.records import Record, from_record

__all__ = ["analyze", "judged", "evaluate_position"]


def analyze(game: Game | Record, judge: "str | Judge | object" = DEFAULT_JUDGE,
            limit: Limit | None = None, seed: int = 0,
            thresholds: Thresholds = THRESHOLDS, index: int = 0,
            exact: bool = True) -> GameAnalysis:
    """Every move of `game` (a Game, from its first move on, or a record dict) evaluated
    by `judge` within `limit`'s simulations (see judge()), as a GameAnalysis; by the
    solver instead where it finishes within `limit`'s nodes (solver_nodes(); not at all
    where `exact` is False; see exact_evaluation()). The same seed (any integer, taken
    modulo 2**64: photocore.facts.check_seed; and `index`, the game's number in a run)
    gives the same analysis.
    """
    nodes = solver_nodes(limit, exact)
    seed = check_seed(seed)
    if isinstance(game, dict):
        game = from_record(game)
    if not isinstance(game, Game):
        raise TypeError(f"game must be a photocore.Game or a record dict, got "
                        f"{type(game).__name__}")
    judge = _as_judge(judge, limit)
    position = game.root()
    history = [int(m) for m in game.history]
    games = []
    for action in history:
        games.append(position.copy(history=False))
        position.play(action)
    every = [*games, position]
    # the solver from the end backward, up to the first position it does not finish: those
    # before it, further from the end, are dearer still
    solved: dict[int, Evaluation] = {}
    for k in reversed(range(len(every))):
        if every[k].is_over or len(every[k].legal_moves()) == 1:
            continue        # no move, or a forced one: worth what the next position is
        found = exact_evaluation(every[k], nodes)
        if found is None:
            break
        solved[k] = found

    def look(k: int) -> Evaluation:
        return solved.get(k) or judge.evaluation(every[k], position_seed(seed, index, k))

    # after the last move: the result, or (an unfinished game) the judge's view
    final = position.returns() if position.is_over else look(len(history)).values
    evaluations: list[Evaluation | None] = [
        None if len(g.legal_moves()) == 1 else look(k) for k, g in enumerate(games)]
    return judged(games, history, evaluations, final, judge.name, seed, thresholds, nodes)


def judged(games: Sequence[Game], history: Sequence[int],
           evaluations: Sequence[Evaluation | None], final: tuple[float, ...],
           judge_name: str, seed: int, thresholds: Thresholds = THRESHOLDS,
           solve_nodes: int | None = None) -> GameAnalysis:
    """The analysis of the moves `history` played from `games` (the position before each)
    from the judge's (or the solver's) `evaluations` of them (None where the move was
    forced) and the values of the position after the last move, `final`; `solve_nodes`
    the solver's budget."""
    n = len(history)
    players = len(final)
    # a forced position is worth what the next is
    values: list[tuple[float, ...]] = [()] * (n + 1)
    values[n] = final
    for k in range(n - 1, -1, -1):
        evaluation = evaluations[k]
        values[k] = evaluation.values if evaluation is not None else values[k + 1]
    plies = []
    for k, action in enumerate(history):
        player = mover(games[k])
        plies.append(scored(k + 1, player, str(Move(action)), values[k], values[k + 1][player],
                            evaluations[k], players, thresholds))
    return GameAnalysis(judge_name, seed, thresholds, tuple(plies), tuple(values),
                        accuracies(plies, players), solve_nodes, tuple(evaluations))


def evaluate_position(game: Game, judge: "str | Judge | object" = DEFAULT_JUDGE,
                      limit: Limit | None = None, seed: int = 0,
                      exact: bool = True) -> Evaluation:
    """One position evaluated by `judge` within `limit`'s simulations (see judge()), as an
    Evaluation; by the solver instead where it finishes within `limit`'s nodes (as
    analyze()'s, `exact` too); `seed` as analyze's."""
    nodes = solver_nodes(limit, exact)
    judge = _as_judge(judge, limit)
    seed = check_seed(seed)
    return exact_evaluation(game, nodes) or judge.evaluation(game, seed)


def _as_judge(spec: "str | Judge | object", limit: Limit | None) -> Judge:
    if isinstance(spec, MctsJudge | SearchJudge | AgentJudge):
        return spec
    return judge(spec, limit)
