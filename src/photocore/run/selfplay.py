"""Self-play at volume: seeded series of games played by the C agents in worker processes
or Ray tasks, streamed back to one writer in game order.

Game i of a run depends only on (seed, i) (see photocore.play._agents.play_games), so a run
gives the same games whatever the number of workers, the batch size or the backend.
Workers return finished JSON lines: encoding records is Python work, and separate
processes let it scale with the cores along with the (GIL-free) play.
"""

import multiprocessing
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import photocore
from photocore.play import harness, specs as agent_specs
from photocore.play._agents import play_games
from photocore._game import Game
from photocore.facts import Options
from photocore.records import record_line


def seat_agents(agents, players):
    """The agent specs of a run (play/specs.py): one per seat, or one for all seats."""
    specs = [a if isinstance(a, agent_specs.Spec) else agent_specs.parse(a) for a in agents]
    if len(specs) == 1:
        specs *= players
    if len(specs) != players:
        raise ValueError(f"{players} players need 1 or {players} agents, got {len(specs)}")
    return specs


def batches(games, size):
    """(start, count) pairs covering range(games)."""
    return [(start, min(size, games - start)) for start in range(0, games, size)]


def default_batch(specs, games, workers):
    # searching agents take milliseconds a game: small batches keep every worker busy and
    # the progress bar moving; random and greedy games take microseconds
    searching = any(spec.kind not in ("random", "greedy") for spec in specs)
    per_worker = max(1, games // (4 * max(workers, 1)))
    return max(1, min(per_worker, 4 if searching else 512))


class SelfPlayError(RuntimeError):
    """A run could not go on (a worker died, a task kept failing): the message says what
    happened. The games before the failed batch were all yielded, in order."""


def _ignore_interrupts():
    # pool workers leave Ctrl-C to the parent, which stops them itself: a SIGINT sent to
    # the whole process group (the terminal's Ctrl-C) must not kill them mid-batch or
    # spray tracebacks
    signal.signal(signal.SIGINT, signal.SIG_IGN)


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
        self.options = Options(fourth_revolution, shade_blocks)

    def play(self, start, count):
        """Games start .. start + count - 1 of built-in agents as (moves, offsets) arrays."""
        agents = [(spec.kind, spec.simulations or agent_specs.DEFAULT_SIMULATIONS)
                  for spec in self.specs]
        return play_games(agents, self.players, self.options.flags, self.seed, start, count)

    def batch(self, start, count):
        """Games start .. start + count - 1 as (record lines in order, their Tally).

        The tally is summed here, in the worker, so the one writing process only merges a
        few numbers per batch. Built-in agents play in C; with a Python or engine agent
        among them, the games are played move by move (play/harness.py).
        """
        if not all(spec.builtin for spec in self.specs):
            return self._batch_in_python(start, count)
        moves, offsets = self.play(start, count)
        lines, tally = [], Tally(self.players)
        for k in range(count):
            index = start + k
            game = Game(self.players, options=self.options)
            for action in moves[offsets[k]:offsets[k + 1]].tolist():
                game.play(action)
            seats = self.seats(index)
            lines.append(record_line(
                game, {"agents": seats, "seed": self.seed, "game": index}))
            tally.add(len(game.history), game.scores(), game.winners(), seats)
        return lines, tally

    def seats(self, index):
        """The agents' names by seat in game `index`, as its record's metadata holds them:
        the agents rotate one seat per game, so each plays every seat."""
        names = [spec.label for spec in self.specs]
        return [names[(seat - index) % self.players] for seat in range(self.players)]

    def defining(self, index):
        """What game `index` of this run is defined by, as its record holds it: each field
        that, changed, would give other games (the order is the one a mismatch is told in)."""
        return {"rules_version": photocore.RULES_VERSION,
                "players": self.players,
                "options": self.options._asdict(),
                "seed": self.seed,
                "game": index,
                "agents": self.seats(index)}

    def mismatch(self, rec, index):
        """None when record `rec` is game `index` of this run, else the first field that
        differs as (field, the record's value, this run's value); fields as in defining().

        >>> rec = {"rules_version": photocore.RULES_VERSION, "players": 2,
        ...        "options": {"fourth_revolution": False, "shade_blocks": False},
        ...        "metadata": {"seed": 7, "agents": ["random", "greedy"], "game": 1}}
        >>> Series(10, agents=["greedy", "random"], seed=7).mismatch(rec, 1) is None
        True
        >>> Series(10, agents=["greedy", "mcts:50"], seed=7).mismatch(rec, 1)
        ('agents', ['random', 'greedy'], ['mcts:50', 'greedy'])
        """
        meta = rec.get("metadata") or {}
        for field, expected in self.defining(index).items():
            found = meta.get(field) if field in ("seed", "agents", "game") else rec.get(field)
            if found != expected:
                return field, found, expected
        return None

    @staticmethod
    def describe(field, value):
        """A field of defining() in words, as the command line sets it."""
        if field == "agents" and isinstance(value, list):
            return ",".join(map(str, value)) + " by seat"
        if field == "options" and isinstance(value, dict):
            try:
                return Options(**value).name
            except TypeError:
                pass
        return "none" if value is None else str(value)

    def _batch_in_python(self, start, count):
        lines, tally = [], Tally(self.players)
        for index in range(start, start + count):
            agents = [(agent - index) % self.players for agent in range(self.players)]
            players = [harness.player(self.specs[a], a) for a in agents]
            game = Game(self.players, options=self.options)
            played = harness.play_game(game, players, [harness.seed_for(self.seed, index, a)
                                                       for a in agents])
            seats = self.seats(index)
            if played.forfeit is not None and played.forfeit[2]:
                print(f"game {index}: {seats[played.forfeit[0]]} forfeits: "
                      f"{played.forfeit[1]}\n{played.forfeit[2]}", file=sys.stderr)
            lines.append(record_line(game, {
                "agents": seats, "seed": self.seed, "game": index, **played.metadata()}))
            tally.add(len(game.history), game.scores(), played.winners(game), seats)
        return lines, tally


def run_local(series, workers=None, batch=None, skip=0):
    """Yields (record lines, Tally) per batch for games skip .. games - 1, in order, from
    `workers` processes (default: this machine's cores).

    A worker that dies (killed, out of memory) ends the run with SelfPlayError after the
    batches before it; an exception in the consumer, KeyboardInterrupt or closing the
    generator early stop the workers at once (queued batches cancelled, running ones
    terminated), so nothing is left running.
    """
    workers = workers or os.cpu_count() or 1
    size = batch or default_batch(series.specs, series.games - skip, workers)
    todo = [(start + skip, count) for start, count in batches(series.games - skip, size)]
    # forkserver: workers start clean, whatever threads the caller (or tqdm) runs
    context = multiprocessing.get_context("forkserver")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context,
                               initializer=_ignore_interrupts)
    finished = False
    try:
        # a bounded window of batches in flight keeps memory flat on long runs
        window = 4 * workers
        futures = [pool.submit(series.batch, *todo[i])
                   for i in range(min(window, len(todo)))]
        for i in range(len(todo)):
            try:
                lines, tally = futures[i].result()
            except BrokenProcessPool:
                start, count = todo[i]
                raise SelfPlayError(
                    f"a self-play worker process {_how_workers_died(pool)} (BrokenProcessPool): "
                    f"the run stopped before games {start}..{start + count - 1}") from None
            except Exception as e:      # the batch raised in its worker (no retries here)
                start, count = todo[i]
                raise SelfPlayError(
                    f"the batch of games {start}..{start + count - 1} failed in its worker "
                    f"({type(e).__name__}: {e}): the run stopped there") from e
            futures[i] = None
            if i + window < len(todo):
                futures.append(pool.submit(series.batch, *todo[i + window]))
            yield lines, tally
        finished = True
    finally:
        _stop(pool, finished)


def _how_workers_died(pool, patience=5.0):
    """How the pool's dead workers ended, in words, as far as it can be told."""
    # the pool's own thread reaps the workers of a broken pool: let it finish first, as
    # two threads reading one worker's exit status through the forkserver race (the loser
    # reads 255)
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(patience)
    how = set()
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        code = process.exitcode if manager is None or not manager.is_alive() else None
        if code is None or code == 0 or code == -signal.SIGTERM:
            continue   # alive, or terminated by the pool itself once another one died
        if code < 0:
            try:
                how.add(f"was killed by {signal.Signals(-code).name}")
            except ValueError:
                how.add(f"was killed by signal {-code}")
        else:
            how.add(f"exited with status {code}")
    if not how:
        return "died unexpectedly (killed, or out of memory?)"
    return " and another ".join(sorted(how))


def _stop(pool, finished):
    """Shuts the pool down: waits for it after a whole run, else cancels what is queued
    and terminates the workers still playing (a Ctrl-C must not wait for their batches)."""
    if finished:
        pool.shutdown(wait=True)
        return
    # shutdown(wait=False) drops the pool's references to these: take them first
    processes = list((getattr(pool, "_processes", None) or {}).values())
    results = getattr(pool, "_result_queue", None)
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=10)
    # a worker stopped while sending its batch leaves half a message in the pool's result
    # pipe, and the pool's thread would wait for the rest for ever (and the interpreter with
    # it, at exit): with every worker gone, closing this end of the pipe gives it an EOF
    if not any(process.is_alive() for process in processes):
        if results is not None:
            results._writer.close()
        # and lets the pool's thread finish now: ending while the interpreter exits races
        # with its exit hook, which then writes to the thread's closed wake-up pipe
        if manager is not None:
            manager.join(timeout=10)


class Tally:
    """Running totals of games of one player count, for summaries: games, moves, mean
    scores, win rates by seat and by agent. `photocore selfplay` and `photocore stats` both
    count with it.

    Ties: the winners of a game share its win, 1 / (number of winners) each, so the win
    rates of the seats of a game add up to 1 (as the zero-sum returns share the pot).
    An agent's win rate is its share of wins over the seats it played.

    >>> t = Tally(2)
    >>> t.add(100, [30, 30], [0, 1], ["greedy", "random"])   # a tie
    >>> t.add(90, [40, 20], [0], ["random", "greedy"])
    >>> s = t.summary()
    >>> s["seat_win_rate"], s["agent_win_rate"]
    ([0.75, 0.25], {'greedy': 0.25, 'random': 0.75})
    """

    def __init__(self, players):
        self.games = 0
        self.moves = 0
        self.scores = [0] * players
        self.seat_wins = [0.0] * players
        self.agent_games = {}
        self.agent_wins = {}

    def add(self, moves, scores, winners, agents):
        """Counts one finished game: its length, scores, winners and agent per seat."""
        self.games += 1
        self.moves += moves
        for seat, score in enumerate(scores):
            self.scores[seat] += score
        for seat in winners:
            self.seat_wins[seat] += 1 / len(winners)
        for seat, name in enumerate(agents):
            self.agent_games[name] = self.agent_games.get(name, 0) + 1
            if seat in winners:
                self.agent_wins[name] = self.agent_wins.get(name, 0) + 1 / len(winners)

    def merge(self, other):
        """Adds the counts of another Tally of the same number of players."""
        self.games += other.games
        self.moves += other.moves
        for seat in range(len(self.scores)):
            self.scores[seat] += other.scores[seat]
            self.seat_wins[seat] += other.seat_wins[seat]
        for name, games in other.agent_games.items():
            self.agent_games[name] = self.agent_games.get(name, 0) + games
            self.agent_wins[name] = self.agent_wins.get(name, 0) + other.agent_wins.get(name, 0)

    def summary(self):
        games = max(self.games, 1)
        return {
            "games": self.games,
            "moves": self.moves,
            "mean_scores": [s / games for s in self.scores],
            "seat_win_rate": [w / games for w in self.seat_wins],
            "agent_win_rate": {n: self.agent_wins.get(n, 0) / g
                               for n, g in self.agent_games.items()},
        }
