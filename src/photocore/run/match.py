"""Matches: agents of any kind (play/specs.py) play seeded, paired games in worker
processes; the results become ratings (photocore/stats.py) as the games come in, in order.

Game i of a match is opening i // R played with seat rotation i % R, where R is the number
of agents in its pairing: every opening (K random plies from the start) is played from
every seat. Game i depends only on the seed and i (and, for engines and unseeded Python
agents, on what they do), so built-in agents give the same games whatever the workers.
A tournament is a match of several pairings, each playing the same openings.
"""

import dataclasses
import itertools
import math
import random
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

from photocore import stats
from photocore._game import Game
from photocore.budget import Limit, check_limit
from photocore.facts import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    PLAYERS,
    Options,
    check_count,
    check_seed,
)
from photocore.play import harness, specs
from photocore.play._agents import MAX_SIMULATIONS
from photocore.play.player import Player
from photocore.play.protocol import DEFAULT_GRACE, Engine, check_grace, movetime
from photocore.records import Record, record_line, to_record
from photocore.run.driver import defined_by

__all__ = ["MatchBatch", "Match", "counted", "Outcome", "outcome_of", "Standings"]


class MatchBatch(NamedTuple):
    """A batch of a match."""

    lines: list[bytes]
    outcomes: list["Outcome"]


MatchBatch.lines.__doc__ = "Its games' record lines, in order."
MatchBatch.outcomes.__doc__ = "Its games' Outcomes, in the same order."


class Match:
    """A seeded series of games between agents (specs or spec texts): a Plan of
    photocore.run.driver.

    `pairings` lists tuples of agent indices that meet (default: all agents at once);
    each plays `games` games (rounded up to a whole number of openings, one game per
    seat rotation). `players` defaults to the size of a pairing and may be a multiple of
    it (two agents in a 4-player game hold two seats each). `openings` is the number of
    random plies that start each game (default: one per player, so every player's first
    tree is placed at random). `options`: the advanced rules, an Options or its text.
    `seed` is any integer, taken modulo 2**64 (facts.check_seed); `limit`, a
    photocore.Limit, bounds every move of every kind of player (None: each its own
    budget; an engine's move time is its seconds, a day at most: protocol.movetime); an
    engine's `grace` is milliseconds, a day at most (protocol.check_grace); games in all
    at most 2**63 - 1.
    """

    def __init__(self, agents: Sequence[str | specs.Spec], games: int = 100,
                 players: int | None = None, seed: int = 0, openings: int | None = None,
                 limit: Limit | None = None, grace: int = DEFAULT_GRACE, *,
                 options: Options | str | None = None,
                 pairings: Sequence[Sequence[int]] | None = None) -> None:
        self.specs = [a if isinstance(a, specs.Spec) else specs.parse(a) for a in agents]
        # what tables and records call the agents: engines by the names they announce
        # once check() has started them, short forms of the specs till then
        self.labels = specs.labels(self.specs)
        self.pairings = [tuple(p) for p in (pairings or [range(len(self.specs))])]
        size = len(self.pairings[0])
        if any(len(p) != size for p in self.pairings) or size not in PLAYERS:
            raise ValueError(f"a match is between {MIN_PLAYERS} to {MAX_PLAYERS} agents, "
                             f"got {size}")
        self.players = size if players is None else players
        if self.players not in PLAYERS or self.players % size:
            raise ValueError(f"{size} agents cannot share {self.players} seats evenly "
                             f"(players must be {MIN_PLAYERS} to {MAX_PLAYERS} and a "
                             "multiple of the agents)")
        self.rotations = size
        self.per_pairing = -(-check_count(games, "games") // size) * size
        self.games = check_count(self.per_pairing * len(self.pairings),
                                 "games (of every pairing, rounded up to whole openings)")
        self.seed = check_seed(seed)
        self.openings = self.players if openings is None else openings
        if self.openings < 0:
            raise ValueError(f"openings must be >= 0 random plies, got {self.openings}")
        self.limit = check_limit(limit)
        # as records hold it (metadata.limit): the fields given, None without a limit
        self.limit_fields = None if self.limit is None else {
            k: v for k, v in dataclasses.asdict(self.limit).items() if v is not None}
        movetime(self.limit)                    # an engine takes its seconds (ValueError)
        if self.limit is not None and (self.limit.simulations or 0) > MAX_SIMULATIONS:
            raise ValueError(f"limit simulations must be from 1 to {MAX_SIMULATIONS:,} "
                             f"(mcts's most), got {self.limit.simulations:,}")
        self.grace = check_grace(grace)
        self.options = Options.coerce(options)

    @property
    def searches(self) -> bool:
        """Whether an agent searches (or is a Python or engine agent): milliseconds a move."""
        return any(spec.searches for spec in self.specs)

    def seating(self, index: int) -> tuple[list[int], int]:
        """(the agent of each seat, the opening) of game `index`."""
        pairing = self.pairings[index // self.per_pairing]
        within = index % self.per_pairing
        rotation = within % self.rotations
        seats = [pairing[(s - rotation) % self.rotations] for s in range(self.players)]
        return seats, within // self.rotations

    def opening(self, number: int) -> Game:
        """The game after opening `number`: K uniformly random legal plies from the start,
        from a generator seeded by the match's seed and the number only."""
        rng = random.Random(f"photocore opening {self.seed} {number}")
        game = Game(self.players, options=self.options)
        for _ in range(self.openings):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves().ids()))
        return game

    def batch(self, start: int, count: int) -> MatchBatch:
        """Games start .. start + count - 1 as record lines and Outcomes, in order."""
        lines, outcomes = [], []
        for index in range(start, start + count):
            seats, number = self.seating(index)
            game = self.opening(number)
            players: list[Player] = []
            for seat, agent in enumerate(seats):
                player = harness.player(self.specs[agent], (agent, seat // self.rotations))
                if isinstance(player, Engine):
                    player.grace = self.grace
                players.append(player)
            played = harness.play_game(game, players, [harness.seed_for(self.seed, index, s)
                                                       for s in range(self.players)],
                                       self.limit)
            rec = to_record(game, self.metadata(index, played))
            lines.append(record_line(rec))
            outcome = outcome_of(rec, self.labels)
            if played.forfeit is not None:
                outcome.detail = played.forfeit[2]
            outcome.seconds, outcome.choices = played.seconds, played.choices
            outcomes.append(outcome)
        return MatchBatch(lines, outcomes)

    def metadata(self, index: int, played: harness.Played | None = None) -> dict[str, Any]:
        """The metadata of game `index`'s record (docs/records.md): its agents by seat (by
        label) and their full specs, the seed, the index, the opening's random plies, the
        limit where one bounds every move, then what `played` adds (a forfeit, engines'
        info lines).

        >>> meta = Match(["greedy", "random"], seed=3).metadata(1)
        >>> list(meta), meta["agents"]
        (['agents', 'specs', 'seed', 'game', 'opening'], ['random', 'greedy'])
        """
        seats, _ = self.seating(index)
        return {"agents": [self.labels[a] for a in seats],
                "specs": [self.specs[a].text for a in seats],
                "seed": self.seed, "game": index, "opening": self.openings,
                **({} if self.limit_fields is None else {"limit": self.limit_fields}),
                **({} if played is None else played.metadata())}

    def defining(self, index: int) -> dict[str, object]:
        """What game `index` of this match is defined by, as its record holds it (the
        order is the one a mismatch is told in)."""
        return defined_by(self.players, self.options, self.metadata(index),
                          ("seed", "opening", "game", "agents", "limit"))

    def check(self) -> None:
        """Fails early (ValueError) on an agent that would fail in every game (one that
        cannot play this match's players or options among them), and labels each engine
        by the name it announces (specs.labels)."""
        game = Game(self.players, options=self.options)
        names = {spec: spec.check(game) for spec in dict.fromkeys(self.specs)}
        self.labels = specs.labels(self.specs, [names[spec] for spec in self.specs])

    def describe(self) -> str:
        """One line: who plays, how many games, from which openings."""
        if len(self.pairings) == 1:
            who = " vs ".join(self.labels) + f": {self.games} games"
        else:
            size = len(self.pairings[0])
            kind = "pairings" if size == 2 else f"groups of {size}"
            who = (f"round robin of {len(self.labels)} agents: {len(self.pairings)} {kind} "
                   f"of {self.per_pairing} games")
        openings = counted(self.per_pairing // self.rotations, "opening")
        plies = counted(self.openings, "random ply", "random plies")
        return (f"{who} of {self.players} players, {openings} of {plies} each played from "
                f"every seat, seed {self.seed}")


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun, singular for 1.

    >>> counted(1, "opening"), counted(0, "loss", "losses"), counted(2, "game")
    ('1 opening', '0 losses', '2 games')
    """
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


class Outcome:
    """What the ratings need of one game: the agent of each seat, the winners, the scores
    (None for a forfeited game) and the seat that forfeited (None if none) with why; for a
    game played in this run (not one read back from a record), each seat's seconds in
    `select` and its number of chosen moves (harness.Played)."""

    __slots__ = ("seats", "winners", "scores", "forfeit", "reason", "detail", "seconds",
                 "choices")

    def __init__(self, seats: Sequence[int], winners: Sequence[int],
                 scores: Sequence[int] | None, forfeit: int | None = None, reason: str = "",
                 detail: str = "") -> None:
        self.seats, self.winners, self.scores = seats, winners, scores
        """The agent of each seat (its index in the match), the winning seats, the final
        scores by seat (None for a forfeited game)."""
        self.forfeit, self.reason, self.detail = forfeit, reason, detail
        """The seat that forfeited (None if none), why in a line ("illegal move ...",
        "select() raised ...") and the details, a traceback say ("" without)."""
        self.seconds: Sequence[float] = ()
        """Each seat's seconds in `select` on its chosen moves (empty for a game read back
        from a record)."""
        self.choices: Sequence[int] = ()
        """Each seat's number of chosen (not forced) moves (empty for a game read back)."""

    def result(self, a: int, b: int) -> float:
        """Seat a's result against seat b: 1, 1/2 or 0.

        A forfeit loses to every other seat, and the others tie among themselves; else a
        winner beats a non-winner, winners tie, and non-winners compare their scores.
        """
        if self.forfeit is not None:
            return 0.0 if a == self.forfeit else 1.0 if b == self.forfeit else 0.5
        won_a, won_b = a in self.winners, b in self.winners
        if won_a != won_b:
            return 1.0 if won_a else 0.0
        assert self.scores is not None     # a game without a forfeit has its scores
        if won_a or self.scores[a] == self.scores[b]:
            return 0.5
        return 1.0 if self.scores[a] > self.scores[b] else 0.0


def outcome_of(rec: Record, labels: Sequence[str]) -> Outcome:
    """The Outcome of a match record, its agents found by label."""
    meta = rec["metadata"]
    seats = [labels.index(name) for name in meta["agents"]]
    forfeit = meta.get("forfeit")
    if forfeit is not None:
        seat = forfeit["seat"]
        others = tuple(p for p in range(rec["players"]) if p != seat)
        return Outcome(seats, others, None, seat, forfeit["reason"])
    result = rec["result"]
    return Outcome(seats, tuple(result["winners"]), tuple(result["scores"]))


class Standings:
    """The running results of a match: points, pairwise results, paired scores, the SPRT.

    Games must be added in order (as the driver hands them on). For each pairing of two
    agents, the score of a game is the first agent's mean result against the second's
    seats, and the score of an opening the mean over its games; those per-opening scores
    are the observations of the Elo estimate and the SPRT.
    """

    def __init__(self, match: Match, sprt: stats.SPRT | None = None) -> None:
        self.match = match
        n = len(match.labels)
        self.games = 0
        self.played = [0] * n                    # games per agent
        self.points = [0.0] * n                  # a win is a point, shared by co-winners
        self.forfeits = [0] * n
        self.versus = [[0.0] * n for _ in range(n)]   # pairwise points of i against j
        self.meetings = [[0] * n for _ in range(n)]   # pairwise meetings of i and j
        # pairwise [wins, losses, ties] of i against j (a tournament of groups of 3 or 4)
        self.pairwise = [[[0, 0, 0] for _ in range(n)] for _ in range(n)]
        self.seconds = [0.0] * n                 # time in select on chosen moves, per agent
        self.choices = [0] * n                   # moves chosen (not forced), per agent
        # pairing -> [wins, losses, ties] of its first agent
        self.record: dict[tuple[int, ...], list[int]] = {}
        """Pairing (agent indices) -> [wins, losses, ties] of its first agent."""
        self.paired: dict[tuple[int, ...], dict[float, int]] = {}  # -> {opening score: count}
        """Pairing -> {an opening's score for its first agent: the number of openings}."""
        self._opening: dict[tuple[int, ...], _Opening] = {}
        self.sprt = sprt
        self.llr = 0.0
        self.decision: Literal["H0", "H1"] | None = None    # once the SPRT decides
        """The SPRT's decision, "H0" or "H1", once made (None till then, and without an
        SPRT)."""
        if sprt is not None and (len(match.pairings) != 1 or len(match.pairings[0]) != 2):
            raise ValueError("the SPRT needs a match of two agents")

    def add(self, index: int, outcome: Outcome) -> bool:
        """Counts game `index`; True when the SPRT has just decided (stop the match)."""
        self.games += 1
        seats, players = outcome.seats, len(outcome.seats)
        for seat, agent in enumerate(seats):
            self.played[agent] += 1
            if seat in outcome.winners:
                self.points[agent] += 1 / len(outcome.winners)
        if outcome.forfeit is not None:
            self.forfeits[seats[outcome.forfeit]] += 1
        for seat, (seconds, choices) in enumerate(zip(outcome.seconds, outcome.choices)):
            self.seconds[seats[seat]] += seconds
            self.choices[seats[seat]] += choices
        for a, b in itertools.permutations(range(players), 2):
            if seats[a] != seats[b]:
                result = outcome.result(a, b)
                self.versus[seats[a]][seats[b]] += result
                self.meetings[seats[a]][seats[b]] += 1
                self.pairwise[seats[a]][seats[b]][0 if result > 0.5 else 1 if result < 0.5
                                                  else 2] += 1
        pairing = self.match.pairings[index // self.match.per_pairing]
        if len(pairing) == 2:
            return self._add_pair(pairing, index, outcome)
        return False

    def _add_pair(self, pairing: tuple[int, ...], index: int, outcome: Outcome) -> bool:
        first, second = pairing
        results = [outcome.result(a, b) for a, agent in enumerate(outcome.seats) if agent == first
                   for b, other in enumerate(outcome.seats) if other == second]
        score = sum(results) / len(results)
        record = self.record.setdefault(pairing, [0, 0, 0])
        record[0 if score > 0.5 else 1 if score < 0.5 else 2] += 1
        opening = (index % self.match.per_pairing) // self.match.rotations
        current = self._opening.get(pairing)
        if current is None or current.number != opening:
            current = self._opening[pairing] = _Opening(opening)
        current.score += score
        current.games += 1
        if current.games < self.match.rotations:
            return False
        counts = self.paired.setdefault(pairing, {})
        value = round(current.score / current.games, 9)
        counts[value] = counts.get(value, 0) + 1
        if self.sprt is None or self.decision is not None:
            return False
        self.llr = self.sprt.llr(counts)
        self.decision = self.sprt.decision(self.llr)
        return self.decision is not None

    def estimate(self, pairing: Sequence[int] | None = None) -> stats.Estimate:
        """The Elo estimate of a pairing's first agent against its second (by default the
        match's only pairing), from its whole openings."""
        pairing = pairing or self.match.pairings[0]
        return stats.estimate(self.paired.get(tuple(pairing), {}))

    def bradley_terry(self, anchor: int | None = None) -> stats.Ratings:
        """Bradley–Terry ratings of all agents from every pairwise result, centred on 0 or,
        with `anchor`, with that agent at 0."""
        return stats.bradley_terry(self.versus, anchor=anchor)

    def time_per_move(self, agent: int) -> float:
        """An agent's mean seconds in `select` per move it chose (forced moves left out),
        over the games played in this run; nan if none."""
        return self.seconds[agent] / self.choices[agent] if self.choices[agent] else math.nan


class _Opening:
    """The games of a pairing's current opening so far: their score sum and number."""

    __slots__ = ("number", "score", "games")

    def __init__(self, number: int) -> None:
        self.number, self.score, self.games = number, 0.0, 0
