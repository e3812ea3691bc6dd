"""Matches: agents of any kind (play/specs.py) play seeded, paired games in worker
processes; the results become ratings (run/ratings.py) as the games come in, in order.

Game i of a match is opening i // R played with seat rotation i % R, where R is the number
of agents in its pairing: every opening (K random plies from the start) is played from
every seat. Game i depends only on the seed and i (and, for engines and unseeded Python
agents, on what they do), so built-in agents give the same games whatever the workers.
A tournament is a match of several pairings, each playing the same openings.
"""

import itertools
import random

from photocore._game import Game
from photocore.play import harness, specs
from photocore.play.protocol import DEFAULT_GRACE, DEFAULT_MOVETIME, Engine
from photocore.facts import Options
from photocore.records import record_line, to_record
from photocore.run import ratings


class Match:
    """A seeded series of games between agents (specs or spec texts).

    `pairings` lists tuples of agent indices that meet (default: all agents at once);
    each plays `games` games (rounded up to a whole number of openings, one game per
    seat rotation). `players` defaults to the size of a pairing and may be a multiple of
    it (two agents in a 4-player game hold two seats each). `openings` is the number of
    random plies that start each game (default: one per player, so every player's first
    tree is placed at random).
    """

    def __init__(self, agents, games=100, players=None, seed=0, openings=None,
                 movetime=DEFAULT_MOVETIME, grace=DEFAULT_GRACE, fourth_revolution=False,
                 shade_blocks=False, pairings=None):
        self.specs = [a if isinstance(a, specs.Spec) else specs.parse(a) for a in agents]
        self.labels = specs.labels(self.specs)
        self.pairings = [tuple(p) for p in (pairings or [range(len(self.specs))])]
        size = len(self.pairings[0])
        if any(len(p) != size for p in self.pairings) or not 2 <= size <= 4:
            raise ValueError(f"a match is between 2 to 4 agents, got {size}")
        self.players = size if players is None else players
        if self.players not in (2, 3, 4) or self.players % size:
            raise ValueError(f"{size} agents cannot share {self.players} seats evenly "
                             "(players must be 2 to 4 and a multiple of the agents)")
        if games < 0:
            raise ValueError(f"games must be >= 0, got {games}")
        self.rotations = size
        self.per_pairing = -(-games // size) * size
        self.games = self.per_pairing * len(self.pairings)
        self.seed = seed
        self.openings = self.players if openings is None else openings
        if self.openings < 0:
            raise ValueError(f"openings must be >= 0 random plies, got {self.openings}")
        self.movetime, self.grace = movetime, grace
        self.options = Options(fourth_revolution, shade_blocks)

    def seating(self, index):
        """(the agent of each seat, the opening) of game `index`."""
        pairing = self.pairings[index // self.per_pairing]
        within = index % self.per_pairing
        rotation = within % self.rotations
        seats = [pairing[(s - rotation) % self.rotations] for s in range(self.players)]
        return seats, within // self.rotations

    def opening(self, number):
        """The game after opening `number`: K uniformly random legal plies from the start,
        from a generator seeded by the match's seed and the number only."""
        rng = random.Random(f"photocore opening {self.seed} {number}")
        game = Game(self.players, options=self.options)
        for _ in range(self.openings):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves().ids()))
        return game

    def batch(self, start, count):
        """Games start .. start + count - 1 as (record lines, Outcomes), in order."""
        lines, outcomes = [], []
        for index in range(start, start + count):
            seats, number = self.seating(index)
            game = self.opening(number)
            players = []
            for seat, agent in enumerate(seats):
                player = harness.player(self.specs[agent], (agent, seat // self.rotations))
                if isinstance(player, Engine):
                    player.movetime, player.grace = self.movetime, self.grace
                players.append(player)
            played = harness.play_game(game, players, [harness.seed_for(self.seed, index, s)
                                                       for s in range(self.players)])
            rec = to_record(game, {"agents": [self.labels[a] for a in seats], "seed": self.seed,
                                  "game": index, "opening": self.openings, **played.metadata()})
            lines.append(record_line(rec))
            outcome = outcome_of(rec, self.labels)
            if played.forfeit is not None:
                outcome.detail = played.forfeit[2]
            outcomes.append(outcome)
        return lines, outcomes

    def check(self):
        """Fails early (ValueError) on an agent that would fail in every game."""
        for spec in dict.fromkeys(self.specs):
            spec.check()

    def describe(self):
        """One line: who plays, how many games, from which openings."""
        if len(self.pairings) == 1:
            who = " vs ".join(self.labels) + f": {self.games} games"
        else:
            who = (f"round robin of {len(self.labels)} agents: {len(self.pairings)} pairings "
                   f"of {self.per_pairing} games")
        return (f"{who} of {self.players} players, {self.per_pairing // self.rotations} "
                f"openings of {self.openings} random plies each played from every seat, "
                f"seed {self.seed}")


class Outcome:
    """What the ratings need of one game: the agent of each seat, the winners, the scores
    (None for a forfeited game) and the seat that forfeited (None if none) with why."""

    __slots__ = ("seats", "winners", "scores", "forfeit", "reason", "detail")

    def __init__(self, seats, winners, scores, forfeit=None, reason="", detail=""):
        self.seats, self.winners, self.scores = seats, winners, scores
        self.forfeit, self.reason, self.detail = forfeit, reason, detail

    def result(self, a, b):
        """Seat a's result against seat b: 1, 1/2 or 0.

        A forfeit loses to every other seat, and the others tie among themselves; else a
        winner beats a non-winner, winners tie, and non-winners compare their scores.
        """
        if self.forfeit is not None:
            return 0.0 if a == self.forfeit else 1.0 if b == self.forfeit else 0.5
        won_a, won_b = a in self.winners, b in self.winners
        if won_a != won_b:
            return 1.0 if won_a else 0.0
        if won_a or self.scores[a] == self.scores[b]:
            return 0.5
        return 1.0 if self.scores[a] > self.scores[b] else 0.0


def outcome_of(rec, labels):
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

    Games must be added in order (as run_local yields them). For each pairing of two
    agents, the score of a game is the first agent's mean result against the second's
    seats, and the score of an opening the mean over its games; those per-opening scores
    are the observations of the Elo estimate and the SPRT.
    """

    def __init__(self, match, sprt=None):
        self.match = match
        n = len(match.labels)
        self.games = 0
        self.played = [0] * n                    # games per agent
        self.points = [0.0] * n                  # a win is a point, shared by co-winners
        self.forfeits = [0] * n
        self.versus = [[0.0] * n for _ in range(n)]   # pairwise points of i against j
        self.meetings = [[0] * n for _ in range(n)]   # pairwise meetings of i and j
        self.record = {}        # pairing -> [wins, losses, ties] of its first agent
        self.paired = {}        # pairing -> {opening score: count}
        self._opening = {}      # pairing -> [opening, score sum, games]
        self.sprt = sprt
        self.llr = 0.0
        self.decision = None    # 'H0' or 'H1' once the SPRT decides
        if sprt is not None and (len(match.pairings) != 1 or len(match.pairings[0]) != 2):
            raise ValueError("the SPRT needs a match of two agents")

    def add(self, index, outcome):
        """Counts game `index`; True when the SPRT has just decided (stop the match)."""
        self.games += 1
        seats, players = outcome.seats, len(outcome.seats)
        for seat, agent in enumerate(seats):
            self.played[agent] += 1
            if seat in outcome.winners:
                self.points[agent] += 1 / len(outcome.winners)
        if outcome.forfeit is not None:
            self.forfeits[seats[outcome.forfeit]] += 1
        for a, b in itertools.permutations(range(players), 2):
            if seats[a] != seats[b]:
                self.versus[seats[a]][seats[b]] += outcome.result(a, b)
                self.meetings[seats[a]][seats[b]] += 1
        pairing = self.match.pairings[index // self.match.per_pairing]
        if len(pairing) == 2:
            return self._add_pair(pairing, index, outcome)
        return False

    def _add_pair(self, pairing, index, outcome):
        first, second = pairing
        results = [outcome.result(a, b) for a, agent in enumerate(outcome.seats) if agent == first
                   for b, other in enumerate(outcome.seats) if other == second]
        score = sum(results) / len(results)
        record = self.record.setdefault(pairing, [0, 0, 0])
        record[0 if score > 0.5 else 1 if score < 0.5 else 2] += 1
        opening = (index % self.match.per_pairing) // self.match.rotations
        current = self._opening.get(pairing)
        if current is None or current[0] != opening:
            current = self._opening[pairing] = [opening, 0.0, 0]
        current[1] += score
        current[2] += 1
        if current[2] < self.match.rotations:
            return False
        counts = self.paired.setdefault(pairing, {})
        value = round(current[1] / current[2], 9)
        counts[value] = counts.get(value, 0) + 1
        if self.sprt is None or self.decision is not None:
            return False
        self.llr = self.sprt.llr(counts)
        self.decision = self.sprt.decision(self.llr)
        return self.decision is not None

    def estimate(self, pairing=None):
        """The Elo estimate of a pairing's first agent against its second (by default the
        match's only pairing), from its whole openings."""
        pairing = pairing or self.match.pairings[0]
        return ratings.estimate(self.paired.get(tuple(pairing), {}))

    def bradley_terry(self):
        """Bradley–Terry ratings of all agents from every pairwise result."""
        return ratings.bradley_terry(self.versus)


def kept_outcomes(records, match):
    """The Outcomes of the games a stopped match already wrote (records, in file order),
    after checking that each is the game of this match it claims to be."""
    outcomes = []
    for index, rec in enumerate(records):
        meta = rec["metadata"]
        seats, _ = match.seating(index) if index < match.games else (None, None)
        if (meta.get("game") != index or meta.get("seed") != match.seed
                or meta.get("opening") != match.openings or rec["players"] != match.players
                or rec["options"] != match.options._asdict()
                or seats is None or meta["agents"] != [match.labels[a] for a in seats]):
            raise ValueError(f"game {index} of the file is not game {index} of this match "
                             "(other agents, seed, openings, players, options or --games); "
                             "cannot resume")
        outcomes.append(outcome_of(rec, match.labels))
    return outcomes
