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

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from photocore._game import Game, Move
from photocore._kernel import check_seed, stream_seed
from photocore.budget import Limit, check_limit
from photocore.errors import RecordError
from photocore.play._agents import DEFAULT_GRAPH, MAX_SIMULATIONS, Agent, search_root
from photocore.play._solver import DEFAULT_MEMORY, MAX_NODES
from photocore.play._solver import solve as solve_position
from photocore.play.player import Forfeit, as_move
from photocore.play.settings import Network
from photocore.play.specs import parse as parse_spec
from photocore.records import ANALYSIS_VERSIONS, Record, check_analysis, check_record, from_record

__all__ = [
    "ANALYSIS_VERSION", "DEFAULT_JUDGE", "MIN_VISITS", "LABELS", "DEFAULT_SOLVE_NODES",
    "SOLVE_ROUNDS", "Thresholds", "THRESHOLDS", "win_chance", "move_accuracy", "Evaluation",
    "Judge", "MctsJudge", "SearchJudge", "AgentJudge", "judge", "position_seed", "solvable",
    "exact_evaluation", "solver_nodes", "PlyAnalysis", "GameAnalysis", "analyze", "judged",
    "evaluate_position",
    "with_analysis", "of_record", "AgentSummary", "summarise"
]

ANALYSIS_VERSION = ANALYSIS_VERSIONS[-1]
"""The version of the `analysis` field of a record (metadata.analysis) this module writes: the last
of records.ANALYSIS_VERSIONS, all of which are read."""
DEFAULT_JUDGE = "mcts:1000"
"""The judge's agent spec when none is named: an analysis looks deeper than an agent plays (`mcts`
alone is mcts:DEFAULT_SIMULATIONS, as everywhere)."""
MIN_VISITS = 50
"""Visits of a root move below which it is valued by the position it leads to rather than by its
own mean."""
LABELS = ("inaccuracy", "mistake", "blunder")
"""The classes of a move that loses win chance, mildest first, as Thresholds.label() names them."""
DEFAULT_SOLVE_NODES = 1_000_000
"""The positions the solver may visit in a position (a Limit's `nodes` in an analysis).
Measured (docs/analysis.md, "Exact moves"): 0.02 to 0.11 s more a 2-player game than
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


@dataclass(frozen=True)
class Thresholds:
    """The win chance (0..1) a move must lose to be an inaccuracy, a mistake, a blunder.

    The defaults were measured (docs/analysis.md): mcts:1000 judging 200 games of greedy
    against mcts:1000 (seed 21), they are about the 97.5th, 99.7th and 99.9th percentiles
    of the losses it finds in mcts:1000's own moves (its noise, and its own slips), which
    greedy's moves reach 5, 9 and 7 times as often.
    """

    inaccuracy: float = 0.10
    """The least win chance an inaccuracy loses."""
    mistake: float = 0.15
    """The least win chance a mistake loses."""
    blunder: float = 0.20
    """The least win chance a blunder loses."""

    def label(self, win_loss: float) -> str | None:
        """The class of a move that loses `win_loss` (None: a good move).

        >>> Thresholds().label(0.16), Thresholds().label(0.05)
        ('mistake', None)
        """
        for name, bound in zip(reversed(LABELS), (self.blunder, self.mistake,
                                                  self.inaccuracy)):
            if win_loss >= bound:
                return name
        return None


THRESHOLDS = Thresholds()
"""The default Thresholds, measured as its own text says: what an analysis labels moves by unless
given others."""


def win_chance(value: float, players: int) -> float:
    """The win probability a value on the returns' scale stands for.

    >>> win_chance(0.0, 2), win_chance(1.0, 3), win_chance(-0.5, 3)
    (0.5, 1.0, 0.0)
    """
    return (value * (players - 1) + 1) / players


def move_accuracy(win_loss: float) -> float:
    """lichess's accuracy of a move that loses `win_loss` (0..1) of a win, 0..100.

    >>> round(move_accuracy(0.0)), round(move_accuracy(0.1)), round(move_accuracy(0.5))
    (100, 64, 9)
    """
    return min(100.0, max(0.0, 103.1668 * math.exp(-4.354 * win_loss) - 3.1669))


# ---- one position ---------------------------------------------------------------------

@dataclass(frozen=True)
class Evaluation:
    """A judge's view of one position (values on the returns' scale: Game.returns())."""

    player: int
    """The player to move."""
    values: tuple[float, ...]
    """The position's value for each player."""
    moves: dict[str, float]
    """The moves it valued: move text -> its value for the player to move."""
    visits: dict[str, int]
    """Move text -> its visits (empty for a judge that does not count them)."""
    best: str
    """Its best move, as text."""
    principal: tuple[str, ...]
    """Its principal line from the position, as move texts."""
    exact: bool = False
    """Whether it is the solver's (exact_evaluation): every legal move valued exactly."""
    margins: dict[str, int] = field(default_factory=dict)
    """An exact one's: move text -> the mover's final score margin under best play after
    it."""

    @property
    def best_value(self) -> float:
        """The best move's value for the player to move."""
        return self.moves[self.best]

    def to_json(self) -> dict[str, Any]:
        """Its fields as a JSON object, values rounded (`photocore analyze --serve`'s
        answers)."""
        return {"player": self.player, "values": _rounded(self.values),
                "moves": {m: _round(v) for m, v in self.moves.items()},
                "visits": self.visits, "best": self.best, "principal": list(self.principal),
                "exact": self.exact, "margins": self.margins}


@runtime_checkable
class Judge(Protocol):
    """Values positions: `evaluation(game, seed)` of a game still going on."""

    @property
    def name(self) -> str:
        """Its name in analyses and records (`mcts:1000`)."""

    def evaluation(self, game: Game, seed: int) -> Evaluation:
        """Its Evaluation of `game`'s position, searched with `seed` (ValueError for a game
        that is over)."""


class MctsJudge:
    """The built-in UCT search, `simulations` random playouts a position, over a tree of
    move orders or, with `graph`, over positions (mcts:N?graph=1)."""

    def __init__(self, simulations: int, exploration: float = 1.0,
                 graph: bool = DEFAULT_GRAPH) -> None:
        if not 1 <= simulations <= MAX_SIMULATIONS:
            raise ValueError(f"mcts judge: simulations must be from 1 to "
                             f"{MAX_SIMULATIONS:,}, got {simulations}")
        self.simulations, self.exploration, self.graph = simulations, exploration, graph

    @property
    def name(self) -> str:
        """The agent spec of the search: `mcts:N`, `mcts:N?graph=1`."""
        return Agent("mcts", 0, self.simulations, graph=self.graph).name

    def evaluation(self, game: Game, seed: int) -> Evaluation:
        """The search's values, visits and principal line at the root; its best move the
        most visited (the lowest id among equals), the one the mcts agent plays."""
        stats = search_root(game, self.simulations, seed, self.exploration, self.graph)
        player = _to_move(game)
        texts = [str(Move(a)) for a in stats.actions]
        moves = {t: v[player] for t, v, n in zip(texts, stats.values, stats.visits) if n}
        visits = dict(zip(texts, stats.visits))
        # the move the agent plays: the most visited, the lowest id among equals
        best = texts[max(range(len(texts)), key=lambda i: (stats.visits[i], -i))]
        return Evaluation(player, tuple(stats.root_values), moves, visits, best,
                          tuple(str(Move(a)) for a in stats.principal))


class SearchJudge:
    """A network's PUCT search (photocore.Search; the network `evaluate(obs, mask) ->
    (logits, values)` as docs/searching.md has it): `simulations` visits at the root give
    the visits, the best move and the position's value; a search of simulations / (legal
    moves) visits (at least 2) after each legal move gives that move's value."""

    def __init__(self, evaluate: Network, simulations: int, name: str = "search") -> None:
        if simulations < 2:
            raise ValueError(f"search judge: simulations must be at least 2, got {simulations}")
        self.evaluate, self.simulations, self.label = evaluate, simulations, name

    @property
    def name(self) -> str:
        """`name:simulations` (`search:800`)."""
        return f"{self.label}:{self.simulations}"

    def evaluation(self, game: Game, seed: int) -> Evaluation:
        """The root search's values, visits, best move (the most visited) and principal
        line, and each legal move's value from its own search; no root noise."""
        import numpy as np

        from photocore.play._search import Search

        player = _to_move(game)
        root = Search([game], simulations=self.simulations, seed=seed, dirichlet_fraction=0.0)
        root.run(self.evaluate)
        legal = game.legal_moves().ids()
        counts = root.visits()[0]
        visits = {str(Move(a)): int(counts[a]) for a in legal}
        values = tuple(float(v) for v in root.root_values()[0])
        best_id = max(legal, key=lambda a: (int(counts[a]), -a))
        children = []
        for a in legal:
            child = game.copy()
            child.play(a)
            children.append(child)
        each = Search(children, simulations=max(2, self.simulations // len(legal)), seed=seed,
                      dirichlet_fraction=0.0)
        each.run(self.evaluate)
        child_values = each.root_values()
        moves = {str(Move(a)): float(child_values[i, player]) for i, a in enumerate(legal)}
        principal = []
        while True:     # down the most visited moves, the root's search moved along them
            counts = root.visits()[0]
            if int(counts.sum()) == 0:
                break
            step = int(np.argmax(counts))
            principal.append(str(Move(step)))
            root.advance(np.array([step]))
            if root.game(0).is_over:
                break
        return Evaluation(player, values, moves, visits, str(Move(best_id)), tuple(principal))


class AgentJudge:
    """A user's agent with `analyze(game) -> {move: value}` (a Move, an action id or move
    text -> its value for the player to move, on the returns' scale). The position is worth
    the best move's value to the mover; the others share the rest of the zero sum."""

    def __init__(self, agent: Any, name: str = "agent") -> None:
        analyze = getattr(agent, "analyze", None)
        if not callable(analyze):
            raise ValueError(f"judge {name!r}: {type(agent).__name__} has no "
                             "analyze(game) method")
        self.agent, self._name, self._analyze = agent, name, analyze

    @property
    def name(self) -> str:
        """The agent's name (its `name`, or its spec)."""
        return self._name

    def evaluation(self, game: Game, seed: int) -> Evaluation:
        """The agent's analyze() of a copy of the game, checked (ValueError naming the
        judge for a move that is not legal or a value that is not a finite number); no
        visits, the best move its whole line. `seed` is not used."""
        answer = self._analyze(game.copy())
        if not isinstance(answer, Mapping) or not answer:
            raise ValueError(f"judge {self.name!r}: analyze() must return a non-empty "
                             f"dict {{move: value}}, got {answer!r:.80}")
        legal = game.legal_moves()
        moves: dict[str, float] = {}
        for key, value in answer.items():
            try:
                move = as_move(key)
            except Forfeit as e:
                raise ValueError(f"judge {self.name!r}: analyze() {e.reason}") from None
            if move not in legal:
                raise ValueError(f"judge {self.name!r}: analyze() valued {move}, not a "
                                 "legal move")
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not math.isfinite(value):
                raise ValueError(f"judge {self.name!r}: the value of {move} must be a "
                                 f"finite number, got {value!r}")
            moves[str(move)] = float(value)
        player = _to_move(game)
        best = max(moves, key=lambda m: moves[m])
        share = -moves[best] / (game.players - 1)
        values = tuple(moves[best] if p == player else share for p in range(game.players))
        return Evaluation(player, values, moves, {}, best, (best,))


_JUDGES: dict[tuple[str, int | None], Judge] = {}


def judge(spec: "str | Judge | object", limit: Limit | None = None) -> Judge:
    """The judge `spec` names, as a Judge: `mcts` or `mcts:N`, a `py:` agent spec
    (docs/matches.md) whose class is a SearchAgent or has `analyze`, a Judge, or an object
    with `analyze`. The `simulations` of `limit` (a photocore.Limit) replace those of mcts
    and of a SearchAgent. Engines made from text are kept for the process (a checkpoint
    loads once).

    >>> judge("mcts:300").name, judge("mcts", Limit(simulations=80)).name
    ('mcts:300', 'mcts:80')
    >>> judge("mcts:50?graph=1").name
    'mcts:50?graph=1'
    """
    simulations = _simulations(limit)
    if not isinstance(spec, str):
        return _judge_of_object(spec, simulations, getattr(spec, "name", type(spec).__name__))
    key = (spec, simulations)
    if key not in _JUDGES:
        parsed = parse_spec(spec)
        if parsed.kind == "mcts":
            _JUDGES[key] = MctsJudge(simulations or parsed.simulations, graph=parsed.params.graph)
        elif parsed.kind == "py":
            agent = parsed.python_class()(**dict(parsed.options))
            _JUDGES[key] = _judge_of_object(agent, simulations, spec)
        else:
            raise ValueError(f"judge {spec!r} cannot evaluate positions: use mcts:N, or a "
                             "py: agent that is a SearchAgent or has analyze(game)")
    return _JUDGES[key]


def _simulations(limit: object) -> int | None:
    """The simulations a judge searches within `limit` (None: its own)."""
    checked = check_limit(limit)
    return None if checked is None else checked.simulations


def _judge_of_object(agent: object, simulations: int | None, name: str) -> Judge:
    from photocore.play.search import SearchAgent

    if isinstance(agent, SearchAgent):
        label = agent.name.rsplit(":", 1)[0]
        return SearchJudge(agent.evaluate, simulations or agent.simulations, label)
    if callable(getattr(agent, "analyze", None)):
        return AgentJudge(agent, str(getattr(agent, "name", name)))
    if isinstance(agent, Judge):
        return agent
    raise ValueError(f"judge {name!r} cannot evaluate positions: it is no SearchAgent and "
                     "has no analyze(game) method")


def position_seed(seed: int, game: int, ply: int) -> int:
    """The seed of the search of position `ply` of game `game` in a run seeded `seed`
    (stream `ply` of the game's seed, stream `game` of the run's: the kernel's stream_seed).

    >>> position_seed(0, 1, 2) == position_seed(0, 1, 2) != position_seed(0, 2, 1)
    True
    """
    return stream_seed(stream_seed(seed, game), ply)


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


def _to_move(game: Game) -> int:
    player = game.current_player
    if player is None:
        raise ValueError("the game is over: there is no move to evaluate")
    return player


# ---- one game -------------------------------------------------------------------------

@dataclass(frozen=True)
class PlyAnalysis:
    """A move of a game as the judge saw it (values on the returns' scale)."""

    ply: int
    """Its number, 1 the first."""
    player: int
    """The player who made it."""
    move: str
    """The move played, as text."""
    values: tuple[float, ...]
    """The position's values by player before it."""
    best: str
    """The judge's best move there."""
    best_value: float
    """The best move's value for the mover."""
    played_value: float
    """The played move's value for the mover."""
    loss: float
    """What the move lost for the mover: best_value - played_value, in value units."""
    win_loss: float
    """The same loss as a win chance, 0 to 1 (win_chance)."""
    label: str | None
    """Its class by the thresholds: None, or one of LABELS."""
    forced: bool
    """Whether it was the only legal move."""
    exact: bool = False
    """Whether the solver valued it: its values are exact."""
    best_margin: int | None = None
    """An exact move's: the mover's final score margin under best play after the best
    move (None else)."""
    played_margin: int | None = None
    """An exact move's: the same after the move played (None else)."""


@dataclass(frozen=True)
class GameAnalysis:
    """A game analysed (its record's metadata.analysis: to_json, from_json)."""

    judge: str
    """The judge's name (Judge.name)."""
    seed: int
    """The run's seed: each position's search is seeded by position_seed."""
    thresholds: Thresholds
    """The thresholds the moves were classed by."""
    plies: tuple[PlyAnalysis, ...]
    """Each move, in order."""
    values: tuple[tuple[float, ...], ...]
    """The values by player of every position: before each move, then the end."""
    accuracy: tuple[float | None, ...]
    """Each player's accuracy, 0 to 100 (None for a player who made no unforced move)."""
    solve_nodes: int | None = None
    """The positions the solver might visit in a position (None: not used; the record's
    field `solve`)."""
    positions: tuple[Evaluation | None, ...] = field(default=(), compare=False, repr=False)
    """Each position's Evaluation (None for a forced move) when the analysis was made
    here; empty when read from a record."""

    @property
    def players(self) -> int:
        """The game's number of players."""
        return len(self.accuracy)

    def mistakes(self, at_least: str = "inaccuracy") -> list[PlyAnalysis]:
        """The moves classed `at_least` that bad (an inaccuracy, a mistake or a blunder)."""
        worse = LABELS[LABELS.index(at_least):]
        return [p for p in self.plies if p.label in worse]

    def to_json(self) -> dict[str, Any]:
        """The `analysis` field of a record (metadata.analysis; docs/records.md)."""
        return {
            "version": ANALYSIS_VERSION, "judge": self.judge, "seed": self.seed,
            "thresholds": {name: getattr(self.thresholds, name) for name in LABELS},
            "values": [_rounded(v) for v in self.values],
            "player": [p.player for p in self.plies],
            "best": [p.best for p in self.plies],
            "best_value": [_round(p.best_value) for p in self.plies],
            "played_value": [_round(p.played_value) for p in self.plies],
            "loss": [_round(p.loss) for p in self.plies],
            "labels": [p.label for p in self.plies],
            "forced": [p.forced for p in self.plies],
            "accuracy": [None if a is None else round(a, 2) for a in self.accuracy],
            "solve_nodes": self.solve_nodes,
            "exact": [p.exact for p in self.plies],
            "best_margin": [p.best_margin for p in self.plies],
            "played_margin": [p.played_margin for p in self.plies],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], players: int,
                  moves: Sequence[str] | None = None) -> "GameAnalysis":
        """The analysis a record holds (to_json's dict), for a game of `players` whose
        moves were `moves` (the record's; None: the best moves stand in for them). Version
        1, from before the solver, has no exact ply. RecordError (a ValueError) naming the
        field if `data` is not such an analysis (records.check_analysis)."""
        if not isinstance(data, Mapping):
            check_analysis(data, players)       # says what it is instead
        version = data.get("version")
        if version not in ANALYSIS_VERSIONS:
            raise RecordError(f"analysis version {version!r}: this photocore reads versions "
                              f"{_versions()}")
        check_analysis(data, players, None if moves is None else len(moves))
        values = tuple(tuple(float(x) for x in v) for v in data["values"])
        played = list(moves) if moves is not None else list(data["best"])
        count = len(data["best"])
        exact = data.get("exact", [False] * count)
        margins = [data.get(name, [None] * count) for name in ("best_margin", "played_margin")]
        plies = tuple(PlyAnalysis(
            ply=k + 1, player=data["player"][k], move=played[k], values=values[k],
            best=data["best"][k], best_value=data["best_value"][k],
            played_value=data["played_value"][k], loss=data["loss"][k],
            win_loss=data["loss"][k] * (players - 1) / players, label=data["labels"][k],
            forced=data["forced"][k], exact=exact[k], best_margin=margins[0][k],
            played_margin=margins[1][k]) for k in range(count))
        return cls(data["judge"], data["seed"], Thresholds(**data["thresholds"]), plies,
                   values, tuple(data["accuracy"]), data.get("solve_nodes"))


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
        player, move = _to_move(games[k]), str(Move(action))
        evaluation = evaluations[k]
        after = values[k + 1][player]
        if evaluation is None:
            plies.append(PlyAnalysis(k + 1, player, move, values[k], move, after, after,
                                     0.0, 0.0, None, True))
            continue
        counted = evaluation.visits.get(move, MIN_VISITS) >= MIN_VISITS
        played = evaluation.moves[move] if counted and move in evaluation.moves else after
        best, best_value = evaluation.best, evaluation.best_value
        loss = 0.0 if move == best else max(0.0, best_value - played)
        win_loss = loss * (players - 1) / players
        plies.append(PlyAnalysis(k + 1, player, move, values[k], best, best_value, played,
                                 loss, win_loss, thresholds.label(win_loss), False,
                                 evaluation.exact, evaluation.margins.get(best),
                                 evaluation.margins.get(move)))
    accuracy = tuple(_accuracy([p.win_loss for p in plies if p.player == q and not p.forced])
                     for q in range(players))
    return GameAnalysis(judge_name, seed, thresholds, tuple(plies), tuple(values), accuracy,
                        solve_nodes, tuple(evaluations))


def _accuracy(losses: Sequence[float]) -> float | None:
    return sum(map(move_accuracy, losses)) / len(losses) if losses else None


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


def _round(value: float) -> float:
    return round(value, 4)


def _rounded(values: Iterable[float]) -> list[float]:
    return [round(v, 4) for v in values]


# ---- records --------------------------------------------------------------------------

def with_analysis(rec: Record, analysis: GameAnalysis) -> Record:
    """A copy of record `rec` holding `analysis` (metadata.analysis), checked."""
    out = dict(rec, metadata={**rec["metadata"], "analysis": analysis.to_json()})
    check_record(out)
    return out


def of_record(rec: Record) -> GameAnalysis | None:
    """The analysis a record holds (None if it has none); RecordError if the record does
    not pass check_record (an analysis not of this game: another number of moves...) or
    its analysis is of an unknown version."""
    check_record(rec)
    data = rec["metadata"].get("analysis")
    if data is None:
        return None
    return GameAnalysis.from_json(data, rec["players"], rec["moves"])   # refuses other versions


def _versions() -> str:
    return " and ".join(map(str, ANALYSIS_VERSIONS))


# ---- summaries ------------------------------------------------------------------------

@dataclass
class AgentSummary:
    """One agent's moves across analysed games, as running sums (summarise)."""

    games: int = 0
    """The analysed games it played in."""
    moves: int = 0
    """Its unforced moves."""
    loss: float = 0.0
    """The sum of their losses, in value units."""
    win_loss: float = 0.0
    """The sum of their losses as a win chance."""
    accuracy: float = 0.0
    """The sum of their accuracies (move_accuracy)."""
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LABELS, 0))
    """Its moves of each class: label -> count."""

    def as_row(self) -> dict[str, float | int]:
        """A row of the summary: games, moves, the means per move of loss, win_loss and
        accuracy, and the count of each class."""
        moves = max(self.moves, 1)
        return {"games": self.games, "moves": self.moves, "loss": self.loss / moves,
                "win_loss": self.win_loss / moves, "accuracy": self.accuracy / moves,
                **{name: self.counts[name] for name in LABELS}}


def summarise(records: Iterable[Record]) -> dict[str, dict[str, float | int]]:
    """Per agent (metadata.agents), over the analysed games of `records` (the others, and
    those analysed by a version this photocore does not read, are passed over): games,
    unforced moves, mean loss per move (value units and win chance), mean accuracy and the
    counts of inaccuracies, mistakes and blunders.

    >>> summarise([])
    {}
    """
    agents: dict[str, AgentSummary] = {}
    for rec in records:
        data = rec["metadata"].get("analysis")
        analysis = (of_record(rec) if data is not None and data["version"] in ANALYSIS_VERSIONS
                    else None)
        if analysis is None:
            continue
        names = rec["metadata"]["agents"]
        for name in set(names):
            agents.setdefault(name, AgentSummary()).games += 1
        for ply in analysis.plies:
            if ply.forced:
                continue
            summary = agents[names[ply.player]]
            summary.moves += 1
            summary.loss += ply.loss
            summary.win_loss += ply.win_loss
            summary.accuracy += move_accuracy(ply.win_loss)
            if ply.label is not None:
                summary.counts[ply.label] += 1
    return {name: s.as_row() for name, s in sorted(agents.items())}
