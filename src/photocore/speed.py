"""The engine's speed figures, each one checked: the workloads of `photocore bench`.

Every workload checks its result, so a fast wrong answer fails; the checks use photocore
alone (another path through the kernels, a replay through Game.play), so the figures come
out of an installed package as they do out of the source tree. The comparison with the
plain-Python reference, and the floors CI holds the speed-ups to, live in the source tree's
benchmarks/ (benchmarks/bench.py), which times these same workloads.
"""

import dataclasses
import importlib.metadata
import os
import platform
import random
import shutil
import tempfile
import time
import zlib

import numpy as np

import photocore
from photocore._kernel import BUILD
from photocore.facts import Options
from photocore.play._agents import Agent, play_games
from photocore.env._vec import VecGame
from photocore.records import read_games
from photocore.run.selfplay import Series, run_local


class CheckFailed(Exception):
    """A workload's result is wrong."""


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


# ---- inputs ---------------------------------------------------------------------------

def random_game(rng):
    """A new game of 2-4 players with random options."""
    return photocore.Game(rng.choice((2, 3, 4)), rng.random() < 0.5, rng.random() < 0.5)


def mid_game_positions(count, seed, min_moves=1):
    """Games 10-120 uniformly random moves in, not over, with at least min_moves legal."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        game = random_game(rng)
        for _ in range(rng.randrange(10, 120)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over and len(game.legal_moves()) >= min_moves:
            positions.append(game)
    return positions


def closes_round(game):
    """True when `end` now closes a round that is not the last: it runs photosynthesis."""
    return (game.phase == "play" and game.round < game.last_round
            and (game.current_player + 1) % game.players == game.first_player)


def round_end_positions(count, seed):
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        game = random_game(rng)
        plies = rng.randrange(10, 100)
        while not game.is_over and (len(game.history) < plies or not closes_round(game)):
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over:
            positions.append(game)
    return positions


def perft_full_python(game, depth):
    """Leaves of the legal-move tree, visiting every one: recursion over copy + play.

    Game.perft counts the last ply in bulk (the length of the move list) and has no C path
    that visits the leaves, so this is Python.
    """
    if depth == 0 or game.is_over:
        return 1
    total = 0
    for move in game.legal_moves():
        child = game.copy(history=False)
        child.play(move)
        total += perft_full_python(child, depth - 1)
    return total


# ---- workloads --------------------------------------------------------------------------

class Workload:
    """One measured piece of work.

    Subclasses set `name`, `group`, `workload` (what is measured, as data) and `describe`
    (the same in words), and define run() (the timed call: every call returns the same
    value), check(value) (raises CheckFailed unless the value is right; returns what was
    checked) and amounts(value) ({unit: count} done by one call, the headline unit first).
    """

    warmup = True   # an untimed first call (self-play's process start is part of its cost)

    def prepare(self):
        """Builds the inputs, outside the timing."""

    def close(self):
        """Removes what prepare() left on disk."""


class Playouts(Workload):
    group = "playouts"

    def __init__(self, players, options, games, seed=1):
        self.players, self.options, self.games, self.seed = players, options, games, seed
        self.name = f"playouts/{players}p" + ("" if str(options) == "-" else f"-{options}")
        self.workload = {"players": players, "options": str(options), "games": games,
                         "policy": "uniform random legal moves, end included", "seed": seed,
                         "threads": 1}
        self.describe = (f"random_playouts: {games:,} games, {players} players, options "
                         f"{options.name}, uniform random policy, 1 thread")

    def run(self):
        result = photocore.random_playouts(self.games, self.players, self.seed, *self.options)
        return result["moves"], result["score_sums"], result["wins"]

    def amounts(self, value):
        return {"moves": value[0], "games": self.games}

    def replayed(self, start, count):
        """Games start .. start + count - 1 of the run, replayed move by move through
        Game.play (which checks every move)."""
        ids, offsets = play_games([("random", 1)] * self.players, self.players,
                                  self.options.flags, self.seed, start, count)
        games = []
        for k in range(count):
            game = photocore.Game(self.players, *self.options)
            for action in ids[offsets[k]:offsets[k + 1]].tolist():
                game.play(action)
            games.append(game)
        return games

    def check(self, value):
        # play_games draws the same seeded games move by move
        moves, scores, wins = 0, [0] * self.players, [0] * self.players
        for start in range(0, self.games, 1000):
            for k, game in enumerate(self.replayed(start, min(1000, self.games - start))):
                expect(game.is_over, f"game {start + k} is not over after its moves")
                moves += len(game.history)
                for p, score in enumerate(game.scores()):
                    scores[p] += score
                for p in game.winners():
                    wins[p] += 1
        expect(value == (moves, tuple(scores), tuple(wins)),
               f"random_playouts gave {value}, the replayed games {moves, scores, wins}")
        return (f"moves, scores and wins of all {self.games:,} games equal those of the same "
                "games replayed move by move through Game.play")


class PythonLoop(Workload):
    group = "python loop"

    def __init__(self, players, moves, seed=2):
        self.players, self.moves, self.seed = players, moves, seed
        self.name = f"python_loop/{players}p"
        self.workload = {"players": players, "options": "-", "moves": moves, "threads": 1,
                         "policy": f"random.choice(legal_moves()), seed {seed}"}
        self.describe = (f"Python: legal_moves() + random.choice + play(), {moves:,} moves of "
                         f"{players}-player games, new game at each end")

    def run(self):
        rng = random.Random(self.seed)
        played = []
        game = photocore.Game(self.players)
        for _ in range(self.moves):
            if game.is_over:
                played += game.history
                game = photocore.Game(self.players)
            game.play(rng.choice(game.legal_moves()))
        return played + game.history

    def amounts(self, value):
        return {"moves": len(value)}

    def check(self, value):
        expect(len(value) == self.moves, f"{len(value)} moves played, not {self.moves}")
        return f"{self.moves:,} moves played; the same seed plays the same moves every run"


class LegalMoves(Workload):
    name = "legal_moves"
    group = "move generation"

    def __init__(self, positions, seed=11):
        self.positions, self.seed = positions, seed
        self.workload = {"players": "2-4", "options": "random", "positions": positions,
                         "threads": 1}
        self.describe = (f"Game.legal_moves() at {positions} random mid-game positions "
                         "(2-4 players, random options)")

    def prepare(self):
        self.games = mid_game_positions(self.positions, self.seed)

    def run(self):
        listed = 0
        for game in self.games:
            listed += len(game.legal_moves())
        return listed

    def amounts(self, value):
        return {"calls": len(self.games)}

    def check(self, value):
        for k, game in enumerate(self.games):
            ids = game.legal_moves().ids()
            expect(ids == [a for a in range(photocore.NUM_ACTIONS) if game.is_legal(a)],
                   f"position {k}: legal_moves() and is_legal() disagree")
        expect(value == sum(len(g.legal_moves()) for g in self.games), "wrong move count")
        return ("at every position legal_moves() lists exactly the ids is_legal() accepts "
                f"(a separate kernel path) among all {photocore.NUM_ACTIONS}")


class Copy(Workload):
    group = "copy"

    def __init__(self, positions, history=True, seed=12):
        self.positions, self.history, self.seed = positions, history, seed
        self.name = "copy" if history else "copy_no_history"
        self.workload = {"players": "2-4", "options": "random", "positions": positions,
                         "history": history, "threads": 1}
        self.describe = (f"Game.copy({'' if history else 'history=False'}) at {positions} "
                         "random mid-game positions")

    def prepare(self):
        self.games = mid_game_positions(self.positions, self.seed)

    def run(self):
        return [game.copy(history=self.history) for game in self.games]

    def amounts(self, value):
        return {"calls": len(value)}

    def check(self, copies):
        for k, (game, twin) in enumerate(zip(self.games, copies, strict=True)):
            expect(twin is not game and twin == game, f"position {k}: the copy differs")
            expect(twin.history == (game.history if self.history else []),
                   f"position {k}: the copy's history is wrong")
            before = game.position()
            twin.play(twin.legal_moves()[0])
            expect(game.position() == before, f"position {k}: playing on the copy changed "
                   "the original")
        return "every copy equals its original, history as asked, and is independent of it"


class PlayUndo(Workload):
    """play(move) + undo() of a random legal move, or (light=True) of an `end` that closes
    a round, so photosynthesis runs."""

    group = "play+undo"

    def __init__(self, positions, seed=13, light=False):
        self.positions, self.seed, self.light = positions, seed, light
        if light:
            self.name, self.group = "light", "light"
            self.describe = (f"play(end) + undo() at {positions} random positions where the "
                             "end closes a round, so photosynthesis runs")
        else:
            self.name = "play_undo"
            self.describe = (f"play(move) + undo() of a random legal move at {positions} "
                             "random mid-game positions")
        self.workload = {"players": "2-4", "options": "random", "positions": positions,
                         "threads": 1}

    def prepare(self):
        rng = random.Random(self.seed)
        if self.light:
            games = round_end_positions(self.positions, self.seed)
            self.pairs = [(game, photocore.Move.parse("end")) for game in games]
        else:
            games = mid_game_positions(self.positions, self.seed)
            self.pairs = [(game, rng.choice(game.legal_moves())) for game in games]

    def run(self):
        for game, move in self.pairs:
            game.play(move)
            game.undo()
        return len(self.pairs)

    def amounts(self, value):
        return {"pairs": value}

    def check(self, value):
        gained = 0
        for k, (game, move) in enumerate(self.pairs):
            before, plies, light, rnd = game.position(), len(game.history), game.light, game.round
            game.play(move)
            expect(game.position() != before, f"position {k}: {move} changed nothing")
            if self.light:
                expect(game.round == rnd + 1, f"position {k}: end did not start a round")
                gained += sum(game.light) - sum(light)
                expect(all(a >= b for a, b in zip(game.light, light)),
                       f"position {k}: photosynthesis took light away")
            game.undo()
            expect(game.position() == before and len(game.history) == plies,
                   f"position {k}: undo did not restore the position")
        if self.light:
            expect(gained > 0, "no position gained light: photosynthesis never ran")
            return ("undo restores every position exactly; each end starts the next round "
                    "and photosynthesis gives light")
        return "undo restores every position exactly"


class Perft(Workload):
    """Leaf counts of the legal-move trees of `cases`: (name, game, depth) triples."""

    group = "perft"

    def __init__(self, cases, bulk):
        self.cases, self.bulk = cases, bulk
        self.name = "perft_bulk" if bulk else "perft_full_python"
        how = ("Game.perft in C, the last ply counted in bulk (the length of its move list)"
               if bulk else "every leaf visited: Python recursion over Game.copy + play "
               "(there is no C path that visits leaves)")
        self.describe = how + ": " + ", ".join(f"{name} depth {depth}"
                                               for name, _, depth in cases)
        self.workload = {"positions": [c[0] for c in cases], "depths": [c[2] for c in cases],
                         "bulk": bulk, "threads": 1}

    def run(self):
        if self.bulk:
            return [game.perft(depth) for _, game, depth in self.cases]
        return [perft_full_python(game, depth) for _, game, depth in self.cases]

    def amounts(self, value):
        return {"leaves": sum(value)}

    def check(self, value):
        # the other way of counting: each first move played in Python, the rest in bulk
        # (for the bulk figure); every leaf visited against the bulk count (for the other)
        for (name, game, depth), count in zip(self.cases, value, strict=True):
            if self.bulk:
                children = 0
                for move in game.legal_moves():
                    child = game.copy(history=False)
                    child.play(move)
                    children += child.perft(depth - 1) if depth > 1 else 1
                expect(count == children, f"{name}: perft({depth}) = {count}, its first "
                       f"moves' subtrees hold {children} leaves")
            else:
                expect(count == game.perft(depth), f"{name}: {count} leaves visited, "
                       f"Game.perft({depth}) counts {game.perft(depth)}")
        return (f"{sum(value):,} leaves; each count equals "
                + ("the sum over its first moves, played in Python" if self.bulk
                   else "Game.perft's"))


class Verify(Workload):
    name = "verify"
    group = "records"

    def __init__(self, games, seed=3):
        self.games, self.seed = games, seed
        self.workload = {"players": [2, 3, 4], "options": "-", "games": 3 * games,
                         "policy": "random agents (photocore selfplay)", "threads": 1}
        self.describe = (f"read_games(verify=True) of a .jsonl of {3 * games:,} self-play "
                         f"games ({games:,} each of 2, 3 and 4 players, random agents): "
                         "parse, replay and check every move and result")

    def prepare(self):
        self.folder = tempfile.mkdtemp(prefix="photocore-bench-")
        self.path = os.path.join(self.folder, "games.jsonl")
        self.moves = 0
        self.lines = {}
        with open(self.path, "wb") as out:
            for players in (2, 3, 4):
                lines, tally = Series(self.games, players, ["random"], self.seed).batch(
                    0, self.games)
                out.writelines(lines)
                self.moves += tally.moves
                self.lines[players] = lines

    def close(self):
        shutil.rmtree(self.folder, ignore_errors=True)

    def run(self):
        reader = read_games(self.path, verify=True)
        for _ in reader:
            pass
        return reader.games, reader.moves

    def amounts(self, value):
        return {"moves": value[1], "games": value[0]}

    def check(self, value):
        expect(value == (3 * self.games, self.moves),
               f"verified {value[0]} games and {value[1]} moves, wrote {3 * self.games} "
               f"and {self.moves}")
        return f"every one of the {3 * self.games:,} games written ({self.moves:,} moves) verified"


class VecStep(Workload):
    name = "vec_step"
    group = "VecGame"

    def __init__(self, steps, games=1024, players=2, seed=4, watched=8):
        self.steps, self.games, self.players, self.seed, self.watched = (
            steps, games, players, seed, watched)
        self.workload = {"players": players, "options": "-", "games": games, "steps": steps,
                         "policy": "VecGame.random_actions", "threads": 1}
        self.describe = (f"VecGame({games:,}).random_actions + step, {steps} steps, "
                         f"{players} players, observations and masks written each step")

    def prepare(self):
        self.env = VecGame(self.games, self.players)
        self.obs = np.empty((self.games, photocore.OBSERVATION_SIZE), np.float32)
        self.mask = np.empty((self.games, photocore.NUM_ACTIONS), np.bool_)
        self.rewards = np.empty((self.games, self.players), np.float32)
        self.done = np.empty(self.games, np.bool_)
        self.actions = np.empty(self.games, np.int64)

    def run(self):
        env = self.env
        env.reset(seed=self.seed, obs=self.obs, mask=self.mask)
        for _ in range(self.steps):
            env.random_actions(out=self.actions)
            env.step(self.actions, self.obs, self.mask, self.rewards, self.done)
        return env.episodes, zlib.crc32(self.obs), zlib.crc32(self.mask)

    def amounts(self, value):
        return {"moves": self.steps * self.games, "steps": self.steps}

    def check(self, value):
        # the same seeded run again, checking each step; `watched` games replayed in Game
        env = VecGame(self.games, self.players)
        obs, mask = env.reset(seed=self.seed)
        rows = np.arange(self.games)
        mirrors = [photocore.Game(self.players) for _ in range(self.watched)]
        for step in range(self.steps):
            actions = env.random_actions()
            expect(mask[rows, actions].all(), f"step {step}: an action outside its mask")
            obs, mask, rewards, done = env.step(actions)
            for i, game in enumerate(mirrors):
                game.play(int(actions[i]))
                expect(done[i] == game.is_over, f"step {step}: game {i} done is wrong")
                if game.is_over:
                    expect(np.array_equal(rewards[i], np.float32(game.returns())),
                           f"step {step}: game {i} rewards are not its returns")
                    game = mirrors[i] = photocore.Game(self.players)
                expect(np.array_equal(obs[i], game.observation())
                       and np.array_equal(mask[i], game.legal_moves().mask()),
                       f"step {step}: game {i} observation or mask differs from Game's")
        expect(value == (env.episodes, zlib.crc32(obs), zlib.crc32(mask)),
               "the timed run ended in another state than the checked one")
        return (f"every action legal by its mask; {self.watched} games replayed in Game have "
                f"the same observations, masks, ends and rewards; {env.episodes} games ended")


class Mcts(Workload):
    name = "mcts"
    group = "mcts"

    def __init__(self, positions, simulations, seed=5):
        self.positions, self.simulations, self.seed = positions, simulations, seed
        self.workload = {"players": "2-4", "options": "random", "positions": positions,
                         "simulations": simulations, "policy": "UCT, random playouts",
                         "threads": 1}
        self.describe = (f"Agent('mcts', simulations={simulations}).select at {positions} "
                         "random mid-game positions with 2 or more legal moves")

    def prepare(self):
        self.games = mid_game_positions(self.positions, self.seed, min_moves=2)

    def run(self):
        agent = Agent("mcts", seed=self.seed, simulations=self.simulations)
        return [agent.select(game).id for game in self.games]

    def amounts(self, value):
        return {"simulations": len(value) * self.simulations, "moves": len(value)}

    def check(self, value):
        for k, (game, action) in enumerate(zip(self.games, value, strict=True)):
            expect(game.is_legal(action), f"position {k}: mcts chose an illegal move")
        return "every move chosen is legal; the same seed chooses the same moves every run"


class SelfPlay(Workload):
    group = "self-play"
    warmup = False

    def __init__(self, games, workers, players=2, seed=6):
        self.games, self.workers, self.players, self.seed = games, workers, players, seed
        self.name = f"selfplay/{workers}_worker{'s' if workers > 1 else ''}"
        self.workload = {"players": players, "options": "-", "games": games,
                         "policy": "random agents", "workers": workers,
                         "threads": "1 per worker process"}
        self.describe = (f"selfplay.Series + run_local: {games:,} {players}-player games of "
                         f"random agents as record lines, {workers} worker "
                         f"process{'es' if workers > 1 else ''} (their start included)")

    def prepare(self):
        lines, tally = Series(self.games, self.players, ["random"], self.seed).batch(
            0, self.games)
        self.expected = (len(lines), tally.moves, zlib.crc32(b"".join(lines)))

    def run(self):
        series = Series(self.games, self.players, ["random"], self.seed)
        games = moves = crc = 0
        for lines, tally in run_local(series, workers=self.workers):
            games += len(lines)
            moves += tally.moves
            crc = zlib.crc32(b"".join(lines), crc)
        return games, moves, crc

    def amounts(self, value):
        return {"games": value[0], "moves": value[1]}

    def check(self, value):
        expect(value == self.expected, "the workers' records differ from the same series "
               "played in this process")
        return "the records equal those of the same series played in this process"


# ---- what runs ------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Sizes:
    playout_games: int
    loop_moves: int
    positions: int
    perft_depth: int
    verify_games: int         # per player count
    vec_steps: int
    mcts_positions: int
    mcts_simulations: int
    selfplay_games: int
    rounds: int               # timed rounds, the best one kept
    min_round: float          # seconds: short calls repeat until a round lasts this long


FULL = Sizes(playout_games=20_000, loop_moves=200_000, positions=200, perft_depth=5,
             verify_games=2_000, vec_steps=500, mcts_positions=50, mcts_simulations=1_000,
             selfplay_games=100_000, rounds=5, min_round=0.2)
QUICK = Sizes(playout_games=1_000, loop_moves=20_000, positions=50, perft_depth=4,
              verify_games=100, vec_steps=50, mcts_positions=10, mcts_simulations=200,
              selfplay_games=2_000, rounds=3, min_round=0.02)


def perft_cases(depth, count=3, seed=7):
    """(name, game, depth) of `count` random mid-game positions."""
    return [(f"mid-{game.players}p-{Options(game.fourth_revolution, game.shade_blocks)}-"
             f"{len(game.history)}", game, depth) for game in mid_game_positions(count, seed)]


def workloads(sizes):
    """The workloads of `photocore bench`, at these sizes."""
    cases = perft_cases(sizes.perft_depth)
    return [
        *(Playouts(players, Options(), sizes.playout_games) for players in (2, 3, 4)),
        Playouts(2, Options(True, True), sizes.playout_games),
        PythonLoop(2, sizes.loop_moves),
        LegalMoves(sizes.positions),
        Copy(sizes.positions),
        PlayUndo(sizes.positions),
        PlayUndo(sizes.positions, light=True),
        Perft(cases, bulk=True),
        Perft(cases, bulk=False),
        Verify(sizes.verify_games),
        VecStep(sizes.vec_steps),
        Mcts(sizes.mcts_positions, sizes.mcts_simulations),
        SelfPlay(sizes.selfplay_games, workers=1),
        SelfPlay(sizes.selfplay_games, workers=2),
    ]


# ---- timing -----------------------------------------------------------------------------

def time_runs(run, rounds, min_round, warmup=True):
    """(seconds of one call in the fastest round, first value, last value).

    A round repeats the call, doubling the count until it lasts min_round; then `rounds`
    rounds of that count are timed.
    """
    first = run() if warmup else None
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            value = run()
        elapsed = time.perf_counter() - start
        if first is None:
            first = value
        if elapsed >= min_round:
            break
        number *= 2
    times = [elapsed]
    for _ in range(rounds - 1):
        start = time.perf_counter()
        for _ in range(number):
            value = run()
        times.append(time.perf_counter() - start)
    return min(times) / number, first, value


def measure(workload, timer, extra=None):
    """The result of one workload (a JSON-ready dict); a wrong result is reported in it, not
    raised. timer(run, warmup) -> (seconds per call, first value, last value);
    extra(workload, result), if given, adds to the result after the check (and may raise
    CheckFailed too)."""
    result = {"name": workload.name, "group": workload.group, "workload": workload.workload,
              "describe": workload.describe, "figures": {}, "seconds": None}
    try:
        workload.prepare()
        seconds, first, value = timer(workload.run, workload.warmup)
        expect(value == first, "two runs of the same work gave different results")
        checked = [workload.check(value)]
        result["seconds"] = seconds
        result["figures"] = {f"{unit}/s": count / seconds
                             for unit, count in workload.amounts(value).items()}
        if extra is not None:
            checked += extra(workload, result)
        result["check"] = {"passed": True, "detail": "; ".join(checked)}
    except CheckFailed as e:
        result["check"] = {"passed": False, "detail": str(e)}
    finally:
        workload.close()
    return result


def run(works, sizes, start=None, progress=None, extra=None, **about):
    """The report of `works` (JSON-ready). start(report) is called before the first
    workload, progress(result) after each one; `about` adds to the report's fields and
    `extra` is measure()'s."""
    report = {"format": "photocore-bench", "version": 2, "sizes": dataclasses.asdict(sizes),
              "machine": machine(), **about, "results": []}
    if start:
        start(report)

    def timer(call, warmup):
        return time_runs(call, sizes.rounds, sizes.min_round, warmup)

    for workload in works:
        result = measure(workload, timer, extra)
        report["results"].append(result)
        if progress:
            progress(result)
    report["passed"] = all(r["check"]["passed"] for r in report["results"])
    return report


# ---- the machine and the report ----------------------------------------------------------

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "Hardware"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine():
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    return {"cpu": cpu_model(), "cores": cores, "system": f"{platform.system()} "
            f"{platform.machine()}", "python": f"{platform.python_implementation()} "
            f"{platform.python_version()}", "photocore": importlib.metadata.version("photocore"),
            "build": BUILD}


def si(x):
    for factor, prefix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if x >= factor:
            return f"{x / factor:.3g}{prefix}"
    return f"{x:.3g}"


PER_CALL = {"calls/s": "call", "pairs/s": "pair"}   # figures shown as time per call


def figure_text(figures, both=True):
    """The headline figure (and, if `both`, the second one) as text."""
    texts = []
    for unit, rate in list(figures.items())[:2 if both else 1]:
        if unit in PER_CALL:
            texts.append(f"{1e9 / rate:,.0f} ns/{PER_CALL[unit]}")
        else:
            texts.append(f"{si(rate)} {unit}")
    return ", ".join(texts)


def header(report):
    m = report["machine"]
    return [f"photocore {m['photocore']} ({m['build']} build)",
            f"machine: {m['cpu']}, {m['cores']} cores, {m['system']}, {m['python']}", "",
            f"{'workload':<19} {'figure':<34} check"]


def row(result):
    """Two lines of the table: the figures, then what was measured."""
    ok = "ok" if result["check"]["passed"] else "FAILED: " + result["check"]["detail"]
    figure = figure_text(result["figures"]) if result["figures"] else "-"
    return [f"{result['name']:<19} {figure:<34} {ok}", f"    {result['describe']}"]


def failures(report):
    """The wrong results of a report, as text."""
    return [f"{r['name']}: wrong result: {r['check']['detail']}"
            for r in report["results"] if not r["check"]["passed"]]
