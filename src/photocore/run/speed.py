"""The figures of `photocore bench`: workloads that pyperf times and that check their results.

A check uses photocore alone (another path through the kernels, a replay through Game.play),
so a fast wrong answer fails and the figures come out of an installed package. These are the
first workloads of the one registry: the source tree's benchmarks/bench.py (CI's speed
report) times them, each beside the plain-Python reference, with the rest of its workloads.
"""

import contextlib
import fnmatch
import io
import os
import platform
import random
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from photocore._game import Game, random_playouts
from photocore._kernel import BUILD, CODE_PATH, LANE_COPY, LANES
from photocore.env._vec import VecGame
from photocore.facts import NUM_ACTIONS, OBSERVATION_SIZE, OPTIONS, PLAYERS, VERSION, Options
from photocore.play._agents import Agent, play_games
from photocore.records import read_games
from photocore.run.driver import batches
from photocore.run.selfplay import Series

__all__ = [
    "T", "Report", "Amounts", "Timer", "Totals", "PerftCase", "CheckFailed", "expect", "positions",
    "Workload", "Playouts", "perft_cases", "Perft", "Verify", "VecStep", "Mcts", "SelfPlay",
    "workloads", "chosen", "pyperf_timer", "measure", "machine", "figure_text", "row"
]

#: What a Workload's run gives back, for its check.
T = TypeVar("T")
#: The result of one workload, as measure() gives it (JSON-ready).
Report = dict[str, Any]
#: {unit: count} done by one call, the headline unit first.
Amounts = dict[str, int]
#: timer(name, call) -> (seconds of one call, first value, last value), as pyperf_timer()
#: makes one.
Timer = Callable[[str, Callable[[], Any]], tuple[float, Any, Any]]
#: What a Playouts run gives back for its check: moves, score sums, wins.
Totals = tuple[int, tuple[int, ...], tuple[int, ...]]
#: A perft case: a name, a position, a depth.
PerftCase = tuple[str, Game, int]


class CheckFailed(Exception):
    """A workload's result is wrong."""


def expect(condition: object, message: str) -> None:
    """Raises CheckFailed(message) unless `condition` holds: a check's assertion, kept
    under python -O."""
    if not condition:
        raise CheckFailed(message)


def positions(count: int, seed: int, min_moves: int = 1) -> list[Game]:
    """Unfinished games of 2-4 players, random options, 10-120 random moves in, with at least
    `min_moves` legal moves."""
    rng = random.Random(seed)
    games: list[Game] = []
    while len(games) < count:
        game = Game(rng.choice(PLAYERS), options=rng.choice(OPTIONS))
        for _ in range(rng.randrange(10, 120)):
            if not game.is_over:
                game.play(rng.choice(game.legal_moves()))
        if not game.is_over and len(game.legal_moves()) >= min_moves:
            games.append(game)
    return games


class Workload(Generic[T]):
    """One measured piece of work: run() is the timed call (each call returns the same
    value); check(value) raises CheckFailed unless the value is right, else returns the
    Amounts of one call and what it checked."""

    name: str
    """Its name in bench's table and report: "playouts/2p", "perft_bulk", ..."""
    describe: str
    """What it measures, in words: the calls, the sizes, the players."""

    def prepare(self) -> None:
        """Builds the inputs, outside the timing."""

    def close(self) -> None:
        """Removes what prepare() left on disk."""

    def run(self) -> T:
        """The timed work; it returns the same value at each call, for check()."""
        raise NotImplementedError

    def check(self, value: T) -> tuple[Amounts, str]:
        """Checks run()'s value another way: the Amounts of one call ({unit: count}, the
        headline unit first) and what was checked, in words.

        Raises:
            CheckFailed: the value is wrong.
        """
        raise NotImplementedError


class Playouts(Workload[Totals]):
    """random_playouts of `games` games of `players` with `options`, checked against the
    same seeded games replayed through Game.play: moves, score sums and wins."""

    def __init__(self, players: int, options: Options, games: int, seed: int = 1) -> None:
        self.players, self.options, self.games, self.seed = players, options, games, seed
        self.name = f"playouts/{players}p" + ("" if options == Options() else f"-{options}")
        self.describe = (f"random_playouts: {games:,} games, {players} players, options "
                         f"{options.name}, uniform random policy, 1 thread")

    def run(self) -> Totals:
        r = random_playouts(self.games, self.players, self.seed, options=self.options)
        return r["moves"], tuple(r["score_sums"]), tuple(r["wins"])

    def replayed(self, start: int, count: int) -> list[Game]:
        """Games start .. start + count - 1 of the run (play_games draws the same seeded
        games), replayed move by move through Game.play, which checks every move."""
        ids, offsets = play_games([("random", 1)] * self.players, self.players,
                                  self.options, self.seed, start, count)
        games = [Game(self.players, options=self.options) for _ in range(count)]
        for k, game in enumerate(games):
            for action in ids[offsets[k]:offsets[k + 1]].tolist():
                game.play(action)
        return games

    def check(self, value: Totals) -> tuple[Amounts, str]:
        moves, scores, wins = 0, [0] * self.players, [0] * self.players
        for start in range(0, self.games, 1000):
            for game in self.replayed(start, min(1000, self.games - start)):
                expect(game.is_over, f"a game from {start} on is not over after its moves")
                moves += len(game.history)
                scores = [a + b for a, b in zip(scores, game.scores())]
                wins = [w + (p in game.winners()) for p, w in enumerate(wins)]
        expect(value == (moves, tuple(scores), tuple(wins)),
               f"random_playouts gave {value}, the replayed games {moves, scores, wins}")
        return {"moves": moves, "games": self.games}, (
            f"moves, scores and wins of all {self.games:,} games equal those of the same "
            "games replayed move by move through Game.play")


def perft_cases(depth: int, count: int = 3, seed: int = 7) -> list[PerftCase]:
    """`count` random mid-game positions at `depth`."""
    return [(f"mid-{g.players}p-{g.options}-{len(g.history)}", g, depth)
            for g in positions(count, seed)]


class Perft(Workload[list[int]]):
    """Game.perft of each (name, position, depth) case, checked against the sum of its
    first moves' subtrees, each first move played in Python."""

    name = "perft_bulk"

    def __init__(self, cases: list[PerftCase]) -> None:
        self.cases = cases
        self.describe = ("Game.perft in C, the last ply counted in bulk (the length of its "
                         "move list): " + ", ".join(f"{n} depth {d}" for n, _, d in cases))

    def run(self) -> list[int]:
        return [game.perft(depth) for _, game, depth in self.cases]

    def check(self, value: list[int]) -> tuple[Amounts, str]:
        for (name, game, depth), count in zip(self.cases, value):
            other = 0   # counted the other way: each first move played in Python
            for move in game.legal_moves():
                child = game.copy(history=False)
                child.play(move)
                other += child.perft(depth - 1) if depth > 1 else 1
            expect(count == other, f"{name}: perft({depth}) = {count}, its first moves' "
                   f"subtrees hold {other} leaves")
        return {"leaves": sum(value)}, (f"{sum(value):,} leaves; each count equals the sum "
                                        "over its first moves, played in Python")


class Verify(Workload[tuple[int, int]]):
    """read_games(verify=True) of a file of `games` self-play games each of 2, 3 and 4
    players, checked against the games and moves written."""

    name = "verify"

    def __init__(self, games: int, seed: int = 3) -> None:
        self.games, self.seed = games, seed
        self.describe = (f"read_games(verify=True) of a .jsonl of {3 * games:,} self-play "
                         f"games ({games:,} each of 2, 3 and 4 players, random agents): "
                         "parse, replay and check every move and result")

    def prepare(self) -> None:
        self.folder = tempfile.TemporaryDirectory(prefix="photocore-bench-")
        self.path, self.lines, self.moves = os.path.join(self.folder.name, "games.jsonl"), {}, 0
        with open(self.path, "wb") as out:
            for players in PLAYERS:
                lines, tally = Series(self.games, players, ["random"], self.seed).batch(
                    0, self.games)
                self.lines[players], self.moves = lines, self.moves + tally.moves
                out.writelines(lines)

    def close(self) -> None:
        self.folder.cleanup()

    def run(self) -> tuple[int, int]:
        reader = read_games(self.path, verify=True)
        return sum(1 for _ in reader), reader.moves   # games read (all verified), moves

    def check(self, value: tuple[int, int]) -> tuple[Amounts, str]:
        expect(value == (3 * self.games, self.moves), f"verified {value[0]} games, "
               f"{value[1]} moves; wrote {3 * self.games} and {self.moves}")
        return {"moves": value[1], "games": value[0]}, (
            f"every one of the {value[0]:,} games written ({value[1]:,} moves) verified")


class VecStep(Workload[tuple[int, int, int]]):
    """`steps` steps of random actions in a VecGame of `games` games, checked by running it
    again step by step, with `watched` of its games replayed in Game."""

    name = "vec_step"

    def __init__(self, steps: int, games: int = 1024, players: int = 2, seed: int = 4,
                 watched: int = 8) -> None:
        self.steps, self.games, self.players, self.seed = steps, games, players, seed
        self.watched = watched
        self.describe = (f"VecGame({games:,}).random_actions + step, {steps} steps, "
                         f"{players} players, observations and masks written each step")

    def prepare(self) -> None:
        n, self.env = self.games, VecGame(self.games, self.players)
        self.out = (np.empty((n, OBSERVATION_SIZE), np.float32),
                    np.empty((n, NUM_ACTIONS), np.bool_),
                    np.empty((n, self.players), np.float32), np.empty(n, np.bool_))
        self.actions = np.empty(n, np.int64)

    def run(self) -> tuple[int, int, int]:
        obs, mask, rewards, done = self.out
        self.env.reset(seed=self.seed, obs=obs, mask=mask)
        for _ in range(self.steps):
            self.env.step(self.env.random_actions(out=self.actions), obs, mask, rewards, done)
        return self.env.episodes, zlib.crc32(obs.data), zlib.crc32(mask.data)

    def check(self, value: tuple[int, int, int]) -> tuple[Amounts, str]:
        # the same seeded run again, checking each step; `watched` games replayed in Game
        env = VecGame(self.games, self.players)
        obs, mask = env.reset(seed=self.seed)
        mirrors = [Game(self.players) for _ in range(self.watched)]
        for step in range(self.steps):
            actions = env.random_actions()
            expect(mask[np.arange(self.games), actions].all(), f"step {step}: an illegal action")
            obs, mask, rewards, done = env.step(actions)
            for i, game in enumerate(mirrors):
                game.play(int(actions[i]))
                same = done[i] == game.is_over and (not done[i] or np.array_equal(
                    rewards[i], np.array(game.returns(), np.float32)))
                game = mirrors[i] = Game(self.players) if game.is_over else game
                expect(same and np.array_equal(obs[i], game.observation())
                       and np.array_equal(mask[i], game.legal_moves().mask()),
                       f"step {step}: game {i} differs from the same game in Game")
        expect(value == (env.episodes, zlib.crc32(obs.data), zlib.crc32(mask.data)),
               "the timed run ended in another state than the checked one")
        return {"moves": self.steps * self.games, "steps": self.steps}, (
            f"every action legal by its mask; {self.watched} games replayed in Game have the "
            f"same observations, masks, ends and rewards; {env.episodes} games ended")


class Mcts(Workload[list[int]]):
    """The mcts agent's choice at `count` random positions, `simulations` each, checked
    legal."""

    name = "mcts"

    def __init__(self, count: int, simulations: int, seed: int = 5) -> None:
        self.count, self.simulations, self.seed = count, simulations, seed
        self.describe = (f"Agent('mcts', simulations={simulations}).select at {count} "
                         "random mid-game positions with 2 or more legal moves")

    def prepare(self) -> None:
        self.games = positions(self.count, self.seed, min_moves=2)

    def run(self) -> list[int]:
        agent = Agent("mcts", seed=self.seed, simulations=self.simulations)
        return [agent.select(game).id for game in self.games]

    def check(self, value: list[int]) -> tuple[Amounts, str]:
        expect(all(map(Game.is_legal, self.games, value)), "an illegal move chosen")
        return ({"simulations": len(value) * self.simulations, "moves": len(value)},
                "every move chosen is legal; the same seed chooses the same moves every run")


class SelfPlay(Workload[tuple[int, int, int]]):
    """A self-play series of `games` games of random agents through the driver on `workers`
    processes, checked against the same series played in this process."""

    def __init__(self, games: int, workers: int, players: int = 2, seed: int = 6) -> None:
        self.series, self.workers = Series(games, players, ["random"], seed), workers
        self.name = f"selfplay/{workers}_worker{'s' * (workers > 1)}"
        self.describe = (f"selfplay.Series + driver.batches: {games:,} {players}-player games "
                         f"of random agents as record lines, {workers} worker "
                         f"process{'es' * (workers > 1)} (their start included)")

    def prepare(self) -> None:
        lines, tally = self.series.batch(0, self.series.games)
        self.expected = (len(lines), tally.moves, zlib.crc32(b"".join(lines)))

    def run(self) -> tuple[int, int, int]:
        games = moves = crc = 0
        for batch in batches(self.series, workers=self.workers):
            lines, tally = batch.result
            games, moves = games + len(lines), moves + tally.moves
            crc = zlib.crc32(b"".join(lines), crc)
        return games, moves, crc

    def check(self, value: tuple[int, int, int]) -> tuple[Amounts, str]:
        expect(value == self.expected, "the workers' records differ from the same series "
               "played in this process")
        return ({"games": value[0], "moves": value[1]},
                "the records equal those of the same series played in this process")


def workloads(quick: bool = False) -> Iterator[Workload[Any]]:
    """The workloads of `photocore bench`; quick: small ones (seconds in all)."""
    for players, options in ((2, "-"), (3, "-"), (4, "-"), (2, "fs")):
        yield Playouts(players, Options.parse(options), 1_000 if quick else 20_000)
    yield Perft(perft_cases(4 if quick else 5))
    yield Verify(100 if quick else 2_000)
    yield VecStep(50 if quick else 500)
    yield Mcts(10 if quick else 50, simulations=200 if quick else 1_000)
    for workers in (1, 2):
        yield SelfPlay(2_000 if quick else 100_000, workers)


def chosen(works: Iterable[Workload[Any]], patterns: Sequence[str]) -> list[Workload[Any]]:
    """The workloads whose names match one of `patterns` (shell-style: `"playouts/*"`), all
    of them when there are none: the --workload of `photocore bench` and benchmarks/bench.py.

    Raises:
        ValueError: a pattern matches no workload.
    """
    works = list(works)
    for pattern in patterns:
        if not any(fnmatch.fnmatchcase(w.name, pattern) for w in works):
            raise ValueError(f"no workload matches {pattern!r}: "
                             + ", ".join(w.name for w in works))
    return [w for w in works
            if not patterns or any(fnmatch.fnmatchcase(w.name, p) for p in patterns)]


def pyperf_timer(values: int = 3, min_time: float = 0.2, loops: int = 0) -> Timer:
    """timer(name, call) -> (seconds of one call, first value, last value), timed by pyperf
    in this process: `loops` calls a value (0: as many as make a value last min_time, found
    by a calibration run first), then `values` values; a call's time is the fastest value's."""
    import pyperf  # type: ignore[import-untyped, unused-ignore]

    # pyperf allows one Runner per class and process: a class of its own for each timer
    runner = type("Runner", (pyperf.Runner,), {"_created": set()})()
    runner.parse_args(["--in-process", "--quiet", "--processes=1", "--warmups=0",
                       f"--values={values}", f"--min-time={min_time}", f"--loops={loops}"])

    def timer(name: str, call: Callable[[], Any]) -> tuple[float, Any, Any]:
        seen: list[Any] = []

        def timed() -> None:
            seen[1:] = [call()]   # keeps the first value and the last

        with contextlib.redirect_stdout(io.StringIO()):   # pyperf's own summary
            bench = runner.bench_func(name, timed)
        return float(min(bench.get_values())), seen[0], seen[-1]

    return timer


def measure(workload: Workload[Any], timer: Timer,
            beside: Callable[[Report], None] | None = None) -> Report:
    """The result of one workload (JSON-ready); a wrong result is reported in it, not raised.
    beside(result), if given, runs after a right result, before close(): benchmarks/bench.py
    times the workload's baseline there, on its prepared inputs; it may raise CheckFailed."""
    result: Report = {"name": workload.name, "describe": workload.describe, "figures": {},
                      "seconds": None}
    try:
        workload.prepare()
        seconds, first, value = timer(workload.name, workload.run)
        expect(value == first, "two runs of the same work gave different results")
        amounts, checked = workload.check(value)
        result["seconds"] = seconds
        result["figures"] = {f"{unit}/s": count / seconds for unit, count in amounts.items()}
        result["check"] = {"passed": True, "detail": checked}
        if beside is not None:
            beside(result)
    except CheckFailed as e:
        result["check"] = {"passed": False, "detail": str(e)}
    finally:
        workload.close()
    return result


def machine() -> dict[str, Any]:
    """The machine the figures come from, for the report: its CPU model, the cores this
    process may use, the system, Python, photocore's version, the kernel's build and code
    path, and the random playouts' lanes (facts.LANES, LANE_COPY)."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        cpu = next((value.strip() for key, _, value in (line.partition(":") for line in f)
                    if key.strip() in ("model name", "Model", "Hardware")), cpu)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": cpu, "cores": cores, "system": f"{platform.system()} {platform.machine()}",
            "python": f"{platform.python_implementation()} {platform.python_version()}",
            "photocore": VERSION, "build": BUILD, "code_path": CODE_PATH, "lanes": LANES,
            "lane_copy": LANE_COPY}


def figure_text(figures: dict[str, float], both: bool = True) -> str:
    """The headline figure (and, if `both`, the second one) as text, with an SI prefix."""
    texts = []
    for unit, rate in list(figures.items())[:2 if both else 1]:
        scale, prefix = next(((f, p) for f, p in ((1e9, " G"), (1e6, " M"), (1e3, " k"))
                              if rate >= f), (1.0, ""))
        texts.append(f"{rate / scale:.3g}{prefix} {unit}")
    return ", ".join(texts)


def row(result: Report) -> list[str]:
    """Two lines of the table: the figures, then what was measured."""
    ok = "ok" if result["check"]["passed"] else "FAILED: " + result["check"]["detail"]
    figure = figure_text(result["figures"]) if result["figures"] else "-"
    return [f"{result['name']:<19} {figure:<34} {ok}", f"    {result['describe']}"]
