"""Self-play at volume: a seeded series of games played by agents of any kind
(play/specs.py), a Plan for photocore.run.driver, which plays its batches in worker
processes or Ray tasks and writes them in game order.

Game i of a run depends only on (seed, i) (see photocore.play.play_games), so a run
gives the same games whatever the number of workers, the batch size or the backend.
Workers return finished JSON lines: encoding records is Python work, and separate
processes let it scale with the cores along with the (GIL-free) play.

>>> series = Series(3, agents=["greedy", "random"], seed=7, options="s")
>>> lines, tally = series.batch(0, 3)
>>> len(lines), tally.games, series.seats(1)
(3, 3, ['random', 'greedy'])
"""

import sys
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, TypedDict

import numpy as np
import numpy.typing as npt

from photocore._game import Game
from photocore.facts import Options, check_count, check_seed, win_share
from photocore.play import harness
from photocore.play import specs as agent_specs
from photocore.play._agents import play_games
from photocore.records import record_line
from photocore.run.driver import defined_by

__all__ = ["seat_agents", "SelfPlayBatch", "Series", "Summary", "Tally"]


def seat_agents(agents: Iterable[str | agent_specs.Spec], players: int) -> list[agent_specs.Spec]:
    """The agent specs of a run (play/specs.py): one per seat, or one for all seats."""
    specs = [a if isinstance(a, agent_specs.Spec) else agent_specs.parse(a) for a in agents]
    if len(specs) == 1:
        specs *= players
    if len(specs) != players:
        raise ValueError(f"{players} players need 1 or {players} agents, got {len(specs)}")
    return specs


class SelfPlayBatch(NamedTuple):
    """A batch of self-play."""

    lines: list[bytes]
    tally: "Tally"


SelfPlayBatch.lines.__doc__ = "Its games' record lines, in order."
SelfPlayBatch.tally.__doc__ = ("Their Tally, summed in the worker, so the one writing process "
                               "only merges a few numbers per batch.")


class Series:
    """A self-play run: `games` games (0 to 2**63 - 1) of `players` with `agents` (rotated
    over the seats), seeded `seed` (any integer, taken modulo 2**64: facts.check_seed),
    played with `options` (an Options or its text)."""

    def __init__(self, games: int, players: int = 2,
                 agents: Sequence[str | agent_specs.Spec] = ("random",), seed: int = 0, *,
                 options: Options | str | None = None) -> None:
        self.games = check_count(games, "games")
        self.players = players
        self.specs = seat_agents(agents, players)
        self.seed = check_seed(seed)
        self.options = Options.coerce(options)
        # what records and summaries call the agents: the names py agents declare and
        # engines announce once check() has made them, the specs' labels till then
        self.labels = [spec.label for spec in self.specs]

    @property
    def searches(self) -> bool:
        """Whether an agent searches (or is a Python or engine agent): milliseconds a move."""
        return any(spec.searches for spec in self.specs)

    def check(self) -> None:
        """Fails early (ValueError) on an agent that would fail in every game (one that
        cannot play this run's players or options among them), and labels each agent by
        the name it declares or announces."""
        game = Game(self.players, options=self.options)
        names = {spec: spec.check(game) for spec in dict.fromkeys(self.specs)}
        self.labels = [names[spec] or spec.label for spec in self.specs]

    def games_as_arrays(self, start: int, count: int) -> tuple[npt.NDArray[np.uint16],
                                                               npt.NDArray[np.int64]]:
        """Games start .. start + count - 1 of built-in agents as (moves, offsets) arrays."""
        agents = [spec.params for spec in self.specs]
        return play_games(agents, self.players, self.options, self.seed, start, count)

    def batch(self, start: int, count: int) -> SelfPlayBatch:
        """Games start .. start + count - 1 as record lines in order, with their Tally.

        Built-in agents play in C; with a Python or engine agent among them, the games are
        played move by move (play/harness.py).
        """
        if not all(spec.builtin for spec in self.specs):
            return self._batch_in_python(start, count)
        moves, offsets = self.games_as_arrays(start, count)
        lines, tally = [], Tally(self.players)
        for k in range(count):
            index = start + k
            game = Game(self.players, options=self.options)
            for action in moves[offsets[k]:offsets[k + 1]].tolist():
                game.play(action)
            meta = self.metadata(index)
            lines.append(record_line(game, meta))
            tally.add(len(game.history), game.scores(), game.winners(), meta["agents"])
        return SelfPlayBatch(lines, tally)

    def seats(self, index: int) -> list[str]:
        """The agents' names by seat in game `index`, as its record's metadata holds them:
        the agents rotate one seat per game, so each plays every seat."""
        return [self.labels[(seat - index) % self.players] for seat in range(self.players)]

    def metadata(self, index: int, played: harness.Played | None = None) -> dict[str, Any]:
        """The metadata of game `index`'s record (docs/records.md): its agents by seat, the
        run's seed, the index, then what `played` adds where it was played move by move
        (a forfeit, engines' info lines).

        >>> Series(10, agents=["greedy", "mcts:50"], seed=7).metadata(1)
        {'agents': ['mcts:50', 'greedy'], 'seed': 7, 'game': 1}
        """
        return {"agents": self.seats(index), "seed": self.seed, "game": index,
                **({} if played is None else played.metadata())}

    def defining(self, index: int) -> dict[str, object]:
        """What game `index` of this run is defined by, as its record holds it: each field
        that, changed, would give other games (the order is the one a mismatch is told in).

        >>> Series(10, agents=["greedy", "mcts:50"], seed=7).defining(1)["agents"]
        ['mcts:50', 'greedy']
        """
        return defined_by(self.players, self.options, self.metadata(index),
                          ("seed", "game", "agents"))

    def _batch_in_python(self, start: int, count: int) -> SelfPlayBatch:
        lines, tally = [], Tally(self.players)
        for index in range(start, start + count):
            agents = [(agent - index) % self.players for agent in range(self.players)]
            players = [harness.player(self.specs[a], a) for a in agents]
            game = Game(self.players, options=self.options)
            played = harness.play_game(game, players, [harness.seed_for(self.seed, index, a)
                                                       for a in agents])
            meta = self.metadata(index, played)
            seats = meta["agents"]
            if played.forfeit is not None and played.forfeit[2]:
                print(f"game {index + 1}: {seats[played.forfeit[0]]} forfeits: "
                      f"{played.forfeit[1]}\n{played.forfeit[2]}", file=sys.stderr)
            lines.append(record_line(game, meta))
            tally.add(len(game.history), game.scores(), played.winners(game), seats)
        return SelfPlayBatch(lines, tally)


class Summary(TypedDict):
    """A Tally's figures (Tally.summary)."""

    games: int
    """Games counted."""
    moves: int
    """Moves of all of them."""
    mean_scores: list[float]
    """The mean final score of each seat."""
    seat_win_rate: list[float]
    """Each seat's share of the wins, 0 to 1, a shared win split among its winners."""
    agent_win_rate: dict[str, float]
    """Each agent's share of wins over the seats it played, by its label."""


class Tally:
    """Running totals of games of one player count, for summaries: games, moves, mean
    scores, win rates by seat and by agent. `photocore selfplay` and `photocore stats` both
    count with it.

    Ties: the winners of a game share its win (facts.win_share), so the win rates of the
    seats of a game add up to 1.
    An agent's win rate is its share of wins over the seats it played.

    >>> t = Tally(2)
    >>> t.add(100, [30, 30], [0, 1], ["greedy", "random"])   # a tie
    >>> t.add(90, [40, 20], [0], ["random", "greedy"])
    >>> s = t.summary()
    >>> s["seat_win_rate"], s["agent_win_rate"]
    ([0.75, 0.25], {'greedy': 0.25, 'random': 0.75})
    """

    def __init__(self, players: int) -> None:
        self.games = 0
        self.moves = 0
        self.scores = [0] * players
        self.seat_wins = [0.0] * players
        self.agent_games: dict[str, int] = {}
        """Agent label -> the seats it played."""
        self.agent_wins: dict[str, float] = {}
        """Agent label -> its wins, a shared win counted 1 / (number of winners)."""

    def add(self, moves: int, scores: Sequence[int], winners: Sequence[int],
            agents: Sequence[str]) -> None:
        """Counts one finished game: its length, scores, winners and agent per seat."""
        self.games += 1
        self.moves += moves
        for seat, score in enumerate(scores):
            self.scores[seat] += score
        share = win_share(len(winners))
        for seat in winners:
            self.seat_wins[seat] += share
        for seat, name in enumerate(agents):
            self.agent_games[name] = self.agent_games.get(name, 0) + 1
            if seat in winners:
                self.agent_wins[name] = self.agent_wins.get(name, 0) + share

    def merge(self, other: "Tally") -> None:
        """Adds the counts of another Tally of the same number of players."""
        self.games += other.games
        self.moves += other.moves
        for seat in range(len(self.scores)):
            self.scores[seat] += other.scores[seat]
            self.seat_wins[seat] += other.seat_wins[seat]
        for name, games in other.agent_games.items():
            self.agent_games[name] = self.agent_games.get(name, 0) + games
            self.agent_wins[name] = self.agent_wins.get(name, 0) + other.agent_wins.get(name, 0)

    def summary(self) -> Summary:
        """The totals as figures: means and win rates (zeros before any game)."""
        games = max(self.games, 1)
        return {
            "games": self.games,
            "moves": self.moves,
            "mean_scores": [s / games for s in self.scores],
            "seat_win_rate": [w / games for w in self.seat_wins],
            "agent_win_rate": {n: self.agent_wins.get(n, 0) / g
                               for n, g in self.agent_games.items()},
        }
