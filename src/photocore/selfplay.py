"""Self-play at volume: seeded series of games played by the C agents, on local threads or
on a Ray cluster, streamed back in game order.

Game i of a run depends only on (seed, i) (see photocore._agents.play_games), so a run
gives the same games whatever the number of workers, the batch size or the backend.
"""

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from photocore._agents import parse_agent, play_games
from photocore._game import Game


def seat_agents(agents, players):
    """The agent specs of a run: one per seat, or one for all seats."""
    specs = [parse_agent(a) for a in agents]
    if len(specs) == 1:
        specs *= players
    if len(specs) != players:
        raise ValueError(f"{players} players need 1 or {players} agents, got {len(specs)}")
    return specs


def agent_name(kind, simulations):
    return f"mcts:{simulations}" if kind == "mcts" else kind


def batches(games, size):
    """(start, count) pairs covering range(games)."""
    return [(start, min(size, games - start)) for start in range(0, games, size)]


def default_batch(specs, games, workers):
    # searching agents take milliseconds a game: small batches keep every worker busy and
    # the progress bar moving; random and greedy games take microseconds
    budget = sum(s for kind, s in specs if kind == "mcts")
    per_worker = max(1, games // (4 * max(workers, 1)))
    return max(1, min(per_worker, 4 if budget else 512))


class Series:
    """A self-play run: `games` games of `players` with `agents` (rotated over the seats)."""

    def __init__(self, games, players=2, agents=("random",), seed=0, fourth_revolution=False,
                 shade_blocks=False):
        if games < 0:
            raise ValueError(f"games must be >= 0, got {games}")
        self.games = games
        self.players = players
        self.specs = seat_agents(agents, players)
        self.seed = seed
        self.fourth_revolution = fourth_revolution
        self.shade_blocks = shade_blocks
        self.options = (1 if fourth_revolution else 0) | (2 if shade_blocks else 0)

    def play(self, start, count):
        """Games start .. start + count - 1 as (moves, offsets) arrays."""
        return play_games(self.specs, self.players, self.options, self.seed, start, count)

    def records(self, start, moves, offsets):
        """The record dicts of a played batch."""
        names = [agent_name(*spec) for spec in self.specs]
        out = []
        for k in range(len(offsets) - 1):
            index = start + k
            game = Game(self.players, self.fourth_revolution, self.shade_blocks)
            for action in moves[offsets[k]:offsets[k + 1]].tolist():
                game.play(action)
            seats = [None] * self.players
            for agent, name in enumerate(names):
                seats[(agent + index) % self.players] = name
            out.append(game.to_record(metadata={"agents": seats, "seed": self.seed,
                                                "game": index}))
        return out


def run_local(series, workers=None, batch=None, skip=0):
    """Yields the record dicts of games skip .. games - 1, in order, played on threads."""
    workers = workers or os.cpu_count() or 1
    size = batch or default_batch(series.specs, series.games - skip, workers)
    todo = [(start + skip, count) for start, count in batches(series.games - skip, size)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        # a bounded window of batches in flight keeps memory flat on long runs
        window = 4 * workers
        futures = [pool.submit(series.play, *todo[i]) for i in range(min(window, len(todo)))]
        for i, (start, _) in enumerate(todo):
            moves, offsets = futures[i].result()
            futures[i] = None
            if i + window < len(todo):
                futures.append(pool.submit(series.play, *todo[i + window]))
            yield from series.records(start, moves, offsets)


class Tally:
    """Running totals of a run for its summary: games, moves, mean scores, win rates."""

    def __init__(self, players):
        self.games = 0
        self.moves = 0
        self.scores = np.zeros(players)
        self.seat_wins = np.zeros(players)
        self.agent_games = {}
        self.agent_wins = {}

    def add(self, rec):
        winners = rec["result"]["winners"]
        self.games += 1
        self.moves += len(rec["moves"])
        self.scores += rec["result"]["scores"]
        for seat in winners:
            self.seat_wins[seat] += 1 / len(winners)   # co-winners share a win
        for seat, name in enumerate(rec["metadata"]["agents"]):
            self.agent_games[name] = self.agent_games.get(name, 0) + 1
            if seat in winners:
                self.agent_wins[name] = self.agent_wins.get(name, 0) + 1 / len(winners)

    def summary(self):
        games = max(self.games, 1)
        return {
            "games": self.games,
            "moves": self.moves,
            "mean_scores": (self.scores / games).tolist(),
            "seat_win_rate": (self.seat_wins / games).tolist(),
            "agent_win_rate": {n: self.agent_wins.get(n, 0) / g
                               for n, g in self.agent_games.items()},
        }
