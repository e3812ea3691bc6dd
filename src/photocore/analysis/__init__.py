"""Analysis: every move of a game evaluated by a judge, its loss told and classified.

A judge values a position for every player, on the scale of `Game.returns()` (a win +1,
a loss -1 with two players), and each legal move it looks at for the player to move
(docs/analysis.md). Engines:

- `mcts` / `mcts:N`: the built-in UCT search (N playouts; the analysis's default judge,
  DEFAULT_JUDGE, looks deeper than an agent plays), its root statistics
  (`photocore.play.search_root`, a `photocore.play.RootStats`): a move's value is its mean
  return.
- `py:...` naming a `photocore.play.search.SearchAgent` (the AlphaZero checkpoint of
  examples/alphazero): `photocore.Search` at the root for the visits and the position's
  value, and over the positions after each legal move for the moves' values.
- `py:...` (or an object) with `analyze(game) -> {move: value for the player to move}`.

A judge is a `Judge` (`judge(spec)` makes one; `MctsJudge`, `SearchJudge`, `AgentJudge`),
never called an engine: an engine is a program (`photocore.play.protocol.Engine`). A judge's
`evaluation(game, seed)` is its Evaluation of a position, as `evaluate_position(game)`
gives one.

A move's loss is the best move's value minus the played move's, for the mover, never
below 0: in value units, and as a win probability (a value v of n players is a win
chance of (v * (n - 1) + 1) / n). A move the judge barely looked at is valued by the
position it leads to instead. Losses from THRESHOLDS up are inaccuracies, mistakes and
blunders; a forced move (the only legal one) loses nothing. A player's accuracy is the mean
over their unforced moves of lichess's curve 103.1668 e^(-0.04354 d) - 3.1669 (d: the win
chance lost, in percent), clipped to 0..100.

Where it is cheap (the last SOLVE_ROUNDS rounds, from the end back) and it finishes within
a budget of positions (the Limit's `nodes`, DEFAULT_SOLVE_NODES without one; `exact=False`:
no solver), the solver (photocore.solve)
replaces the judge: the position's values and every move's are then exact, the mover's
return under best play, and the ply is marked `exact`, its loss exact (`exact_evaluation`;
`solvable` says which games the solver takes).

The package by concern: `judges` (the judges, DEFAULT_JUDGE, Evaluation), `exact` (the
solver in their place), `scoring` (a move's loss, its class, accuracy), `format` (a game's
analysis, GameAnalysis, as its record's field), `game` (analyze, judged,
evaluate_position) and `summaries` (by agent across games). Every name is reached here,
`photocore.analysis.X`.

>>> from photocore import Game
>>> game = Game()
>>> for _ in range(6):
...     game.play(game.legal_moves()[0])
>>> result = analyze(game, judge="mcts:50", seed=1)
>>> len(result.plies), result.judge, result.plies[0].forced
(6, 'mcts:50', False)
>>> data = result.to_json()
>>> GameAnalysis.from_json(data, 2, [str(m) for m in game.history]).to_json() == data
True
"""

from photocore.analysis.exact import (
    DEFAULT_SOLVE_NODES,
    SOLVE_ROUNDS,
    exact_evaluation,
    solvable,
    solver_nodes,
)
from photocore.analysis.format import ANALYSIS_VERSION, GameAnalysis, of_record, with_analysis
from photocore.analysis.game import analyze, evaluate_position, judged
from photocore.analysis.judges import (
    DEFAULT_JUDGE,
    AgentJudge,
    Evaluation,
    Judge,
    MctsJudge,
    SearchJudge,
    judge,
    position_seed,
)
from photocore.analysis.scoring import (
    LABELS,
    MIN_VISITS,
    THRESHOLDS,
    PlyAnalysis,
    Thresholds,
    move_accuracy,
    win_chance,
)
from photocore.analysis.summaries import AgentSummary, summarise

__all__ = [
    "ANALYSIS_VERSION", "DEFAULT_JUDGE", "MIN_VISITS", "LABELS", "DEFAULT_SOLVE_NODES",
    "SOLVE_ROUNDS", "Thresholds", "THRESHOLDS", "win_chance", "move_accuracy", "Evaluation",
    "Judge", "MctsJudge", "SearchJudge", "AgentJudge", "judge", "position_seed", "solvable",
    "exact_evaluation", "solver_nodes", "PlyAnalysis", "GameAnalysis", "analyze", "judged",
    "evaluate_position",
    "with_analysis", "of_record", "AgentSummary", "summarise"
]
