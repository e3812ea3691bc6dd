"""The judges: what values an analysis's positions (docs/analysis.md, "Values, losses,
classes").

A judge is a `Judge` (`judge(spec)` makes one): the built-in UCT search (`MctsJudge`), a
network's PUCT search (`SearchJudge`) or a user's agent with `analyze(game)` (`AgentJudge`);
its `evaluation(game, seed)` is its `Evaluation` of a position, searched with the seed
`position_seed` gives. Values are on the scale of `Game.returns()`.
"""

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from photocore._game import Game, Move
from photocore._kernel import stream_seed
from photocore.budget import Limit, check_limit
from photocore.play._agents import DEFAULT_GRAPH, MAX_SIMULATIONS, Agent, search_root
from photocore.play.player import Forfeit, as_move
from photocore.play.settings import Network
from photocore.play.specs import parse as parse_spec

__all__ = ["DEFAULT_JUDGE", "Evaluation", "Judge", "MctsJudge", "SearchJudge", "AgentJudge",
           "judge", "position_seed", "mover", "round_value", "round_values"]

DEFAULT_JUDGE = "mcts:1000"
"""The judge's agent spec when none is named: an analysis looks deeper than an agent plays (`mcts`
alone is mcts:DEFAULT_SIMULATIONS, as everywhere)."""


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
        return {"player": self.player, "values": round_values(self.values),
                "moves": {m: round_value(v) for m, v in self.moves.items()},
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
        player = mover(game)
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

        player = mover(game)
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
        player = mover(game)
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


def mover(game: Game) -> int:
    """The player to move in `game` (ValueError for a game that is over: no move to
    evaluate)."""
    player = game.current_player
    if player is None:
        raise ValueError("the game is over: there is no move to evaluate")
    return player


def round_value(value: float) -> float:
    """A value as an analysis's JSON holds it (a record's, a query's answer): 4 decimals."""
    return round(value, 4)


def round_values(values: Iterable[float]) -> list[float]:
    """Values as an analysis's JSON holds them (round_value)."""
    return [round_value(v) for v in values]
