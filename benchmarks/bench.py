"""photocore's speed beside the plain-Python reference, and CI's regression check.

    python benchmarks/bench.py [--quick] [--json artifacts/bench.json]
                               [--check benchmarks/baseline.json]

The workloads are photocore.run.speed's (`photocore bench`: playouts, perft, verify, VecGame,
MCTS, self-play) and, here, those of single calls from Python (legal_moves, copy, play +
undo, light, the Python move loop, perft visiting every leaf, examples/own_search's UCT);
each checks its result, and pyperf times them as `photocore bench` does. The reference
(python/photoref.py) runs the same work in the same run (once: it is slow; timed by pyperf
too) and is checked against photocore, so each speed-up is a ratio measured side by side,
which holds on a noisy machine where an absolute figure does not; own_uct's reference is
the same search with its playouts in Python, so its speed-up is Game.playout's. The perft
workloads count the positions of seeds/perft.txt and must give its counts. --check fails
when a speed-up drops under its floor in benchmarks/baseline.json. The pytest-benchmark
suite (benchmarks/test_*.py) times the same workloads under pytest-benchmark (conftest.py).
"""

import dataclasses
import json
import os
import pathlib
import random
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import click

import photocore
from photocore.facts import Options
from photocore.notation import MOVE_TEXTS
from photocore.run import speed
from photocore.run.speed import CheckFailed, expect

ROOT = pathlib.Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "python" / "photoref.py"
OWN_SEARCH = ROOT / "examples" / "own_search"
PERFT_SEEDS = ROOT / "seeds" / "perft.txt"
BASELINE = ROOT / "benchmarks" / "baseline.json"

sys.path.insert(0, str(REFERENCE.parent))
sys.path.insert(0, str(OWN_SEARCH))
import compare as own_search  # noqa: E402  (examples/own_search, found through the path above)
import photoref  # noqa: E402

# what a reference() gives: ({unit: count} of its work, its seconds, what it did and checked)
Measured = tuple[dict[str, int], float, str]


def once(call: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, value) of one call, timed by pyperf: photoref's side runs once, being slow."""
    seconds, _, value = speed.pyperf_timer(values=1, loops=1)("photoref", call)
    return seconds, value


# ---- the reference's side of each workload ---------------------------------------------

def reference_game(game):
    """The photoref game of the same players, options and moves as `game`."""
    out = photoref.ReferenceGame(game.players, **game.options._asdict())
    for move in game.history:
        out.play(str(move))
    return out


def same_state(game, ref_game):
    """True when a Game and a photoref game show the same position."""
    return (game.phase == ref_game.phase and game.round == ref_game.round
            and game.sun == ref_game.sun and game.current_player == ref_game.current_player
            and game.light == ref_game.light and game.stacks == ref_game.stacks
            and game.board() == ref_game.board() and game.activated() == ref_game.activated()
            and all(game.available(p) == ref_game.available(p)
                    and game.player_board(p) == ref_game.player_board(p)
                    and game.tokens(p) == ref_game.tokens(p) for p in range(game.players)))


class Playouts(speed.Playouts):
    def __init__(self, players, options, games, reference_games):
        super().__init__(players, options, games)
        self.reference_games = reference_games

    def reference(self):
        sample = self.replayed(0, self.reference_games)

        def play():
            for k, game in enumerate(sample):
                mirror = photoref.ReferenceGame(self.players, **self.options._asdict())
                for ply, move in enumerate(map(str, game.history)):
                    if move not in mirror.legal_moves():
                        raise CheckFailed(f"game {k} ply {ply}: photoref does not list {move}")
                    mirror.play(move)
                expect(mirror.is_over and mirror.scores() == game.scores(),
                       f"game {k}: photoref ends with {mirror.scores()}, not {game.scores()}")

        seconds, _ = once(play)
        return ({"moves": sum(len(g.history) for g in sample), "games": len(sample)}, seconds,
                f"photoref plays the first {len(sample)} of these games: legal_moves() "
                "and play() each move, same moves and scores")


class PythonLoop(speed.Workload):
    def __init__(self, players, moves, reference_moves, seed=2):
        self.players, self.moves, self.seed = players, moves, seed
        self.reference_moves = reference_moves
        self.name = f"python_loop/{players}p"
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

    def check(self, value):
        expect(len(value) == self.moves, f"{len(value)} moves played, not {self.moves}")
        self.played = [str(m) for m in value[:self.reference_moves]]
        return ({"moves": len(value)},
                f"{self.moves:,} moves played; the same seed plays the same moves every run")

    def reference(self):
        # legal moves are listed in action-id order in both, so one seed picks the same games
        def play():
            rng = random.Random(self.seed)
            played = []
            game = photoref.ReferenceGame(self.players)
            for _ in range(self.reference_moves):
                moves = game.legal_moves()
                if not moves:
                    game = photoref.ReferenceGame(self.players)
                    moves = game.legal_moves()
                move = rng.choice(moves)
                game.play(move)
                played.append(move)
            return played

        seconds, played = once(play)
        if played != self.played:
            first = next(i for i, (a, b) in enumerate(zip(played, self.played)) if a != b)
            raise CheckFailed(f"photoref's loop played other moves from move {first} on")
        return ({"moves": len(played)}, seconds,
                f"the same loop over photoref for the first {len(played):,} moves, "
                "the same moves")


class AtPositions(speed.Workload):
    """A call at each of `count` random mid-game positions (2-4 players, random options)."""

    def __init__(self, count, seed):
        self.count, self.seed = count, seed

    def prepare(self):
        self.games = speed.positions(self.count, self.seed)


class LegalMoves(AtPositions):
    name = "legal_moves"

    def __init__(self, positions, seed=11):
        super().__init__(positions, seed)
        self.describe = (f"Game.legal_moves() at {positions} random mid-game positions (2-4 "
                         "players, random options)")

    def run(self):
        return sum(len(game.legal_moves()) for game in self.games)

    def check(self, value):
        for k, game in enumerate(self.games):
            expect(game.legal_moves().ids() == [a for a in range(photocore.NUM_ACTIONS)
                                                if game.is_legal(a)],
                   f"position {k}: legal_moves() and is_legal() disagree")
        expect(value == sum(len(g.legal_moves()) for g in self.games), "wrong move count")
        return {"calls": len(self.games)}, (
            "at every position legal_moves() lists exactly the ids is_legal() accepts (a "
            f"separate kernel path) among all {photocore.NUM_ACTIONS}")

    def reference(self):
        mirrors = [reference_game(g) for g in self.games]
        seconds, listed = once(lambda: [mirror.legal_moves() for mirror in mirrors])
        for k, (game, moves) in enumerate(zip(self.games, listed)):
            expect([str(m) for m in game.legal_moves()] == moves,
                   f"position {k}: photoref lists other moves")
        return ({"calls": len(listed)}, seconds,
                "photoref legal_moves() at the same positions, the same moves")


class Copy(AtPositions):
    def __init__(self, positions, history=True, seed=12):
        super().__init__(positions, seed)
        self.history = history
        self.name = "copy" if history else "copy_no_history"
        self.describe = (f"Game.copy({'' if history else 'history=False'}) at {positions} "
                         "random mid-game positions")

    def run(self):
        return [game.copy(history=self.history) for game in self.games]

    def check(self, copies):
        for k, (game, twin) in enumerate(zip(self.games, copies, strict=True)):
            expect(twin is not game and twin == game, f"position {k}: the copy differs")
            expect(twin.history == (game.history if self.history else []),
                   f"position {k}: the copy's history is wrong")
            before = game.position()
            twin.play(twin.legal_moves()[0])
            expect(game.position() == before, f"position {k}: playing on the copy changed "
                   "the original")
        return ({"calls": len(copies)},
                "every copy equals its original, history as asked, and is independent of it")

    def reference(self):
        if not self.history:
            return None   # photoref copies always carry the history
        mirrors = [reference_game(g) for g in self.games]
        seconds, copies = once(lambda: [mirror.copy() for mirror in mirrors])
        expect(all(same_state(g, c) for g, c in zip(self.games, copies)),
               "a photoref copy differs")
        return {"calls": len(copies)}, seconds, "photoref copy() at the same positions"


def closes_round(game):
    """True when `end` now closes a round that is not the last: it runs photosynthesis."""
    return (game.phase == "play" and game.round < game.last_round
            and (game.current_player + 1) % game.players == game.first_player)


def round_end_positions(count, seed):
    """Random games 10-100 moves in, where `end` closes a round that is not the last."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        game = photocore.Game(rng.choice((2, 3, 4)),
                              options=Options(rng.random() < 0.5, rng.random() < 0.5))
        plies = rng.randrange(10, 100)
        while not game.is_over and (len(game.history) < plies or not closes_round(game)):
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over:
            positions.append(game)
    return positions


class PlayUndo(AtPositions):
    """play(move) + undo() of a random legal move, or (light=True) of an `end` that closes
    a round, so photosynthesis runs. photoref has no undo: its figure is copy() + play(move)."""

    def __init__(self, positions, seed=13, light=False):
        super().__init__(positions, seed)
        self.light = light
        if light:
            self.name = "light"
            self.describe = (f"play(end) + undo() at {positions} random positions where the "
                             "end closes a round, so photosynthesis runs")
        else:
            self.name = "play_undo"
            self.describe = (f"play(move) + undo() of a random legal move at {positions} "
                             "random mid-game positions")

    def prepare(self):
        rng = random.Random(self.seed)
        if self.light:
            games = round_end_positions(self.count, self.seed)
            self.pairs = [(game, photocore.Move.parse("end")) for game in games]
        else:
            games = speed.positions(self.count, self.seed)
            self.pairs = [(game, rng.choice(game.legal_moves())) for game in games]

    def run(self):
        for game, move in self.pairs:
            game.play(move)
            game.undo()
        return len(self.pairs)

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
            return {"pairs": value}, ("undo restores every position exactly; each end starts "
                                      "the next round and photosynthesis gives light")
        return {"pairs": value}, "undo restores every position exactly"

    def reference(self):
        mirrors = [reference_game(game) for game, _ in self.pairs]
        for k, ((game, move), mirror) in enumerate(zip(self.pairs, mirrors)):
            twin = mirror.copy()
            twin.play(str(move))
            game.play(move)
            try:
                expect(same_state(game, twin), f"position {k}: after {move} photoref shows "
                       "another position")
            finally:
                game.undo()
        moves = [str(move) for _, move in self.pairs]

        def play():
            for mirror, move in zip(mirrors, moves):
                mirror.copy().play(move)

        seconds, _ = once(play)
        return ({"pairs": len(moves)}, seconds,
                "every position played equals photoref's; photoref copy() + play(move) at "
                "the same positions (it has no undo)")


def perft_lines(path=PERFT_SEEDS):
    """(name, players, options, moves, counts by depth) of each line of seeds/perft.txt."""
    lines = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, config, moves, counts = (part.strip() for part in line.split("|"))
            players, options = config.split()
            lines.append((name, int(players), Options.parse(options),
                          [m for m in moves.split(", ") if m], [int(c) for c in counts.split()]))
    return lines


# the positions timed against photoref: quick to count for it, far from the start
PERFT_POSITIONS = ("mid-2p---40", "mid-3p---40", "mid-4p-s-70")


def perft_cases(depth, names=PERFT_POSITIONS):
    """(name, game, depth, expected count) of the seeds/perft.txt lines `names` at `depth`
    (at its deepest count when depth is None)."""
    cases = []
    for name, players, options, moves, counts in perft_lines():
        if names is None or name in names:
            game = photocore.Game(players, options=options)
            for move in moves:
                game.play(move)
            at = len(counts) if depth is None else depth
            cases.append((name, game, at, counts[at - 1]))
    return cases


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


class ReferencePerft:
    """photoref's perft over a set of cases, run once for both perft workloads."""

    def __init__(self, cases):
        self.cases = cases
        self.measured = None

    def measure(self):
        if self.measured is None:
            mirrors = [reference_game(game) for _, game, _, _ in self.cases]
            seconds, counts = once(lambda: [photoref.perft(mirror, depth) for mirror, (
                _, _, depth, _) in zip(mirrors, self.cases)])
            for (name, _, depth, expected), count in zip(self.cases, counts):
                expect(count == expected, f"photoref perft({depth}) of {name} = {count}, "
                       f"seeds/perft.txt has {expected}")
            self.measured = ({"leaves": sum(counts)}, seconds,
                             "photoref perft (copy + play to every leaf) of the same "
                             "positions and depths, the same counts")
        return self.measured


class Perft(speed.Perft):
    """The counts of seeds/perft.txt: cases are (name, game, depth, expected count); bulk:
    Game.perft (speed.Perft), else every leaf visited by Python recursion over copy + play."""

    def __init__(self, cases, bulk, reference_perft=None):
        """reference_perft: photoref's run of the same cases (shared by the bulk and full
        workloads), None where photoref would take too long."""
        super().__init__([case[:3] for case in cases])
        self.bulk = bulk
        self.expected = [case[3] for case in cases]
        self.reference_perft = reference_perft
        if not bulk:
            self.name = "perft_full_python"
            self.describe = ("every leaf visited: Python recursion over Game.copy + play "
                             "(there is no C path that visits leaves): " + ", ".join(
                                 f"{name} depth {depth}" for name, _, depth in self.cases))

    def run(self):
        if self.bulk:
            return super().run()
        return [perft_full_python(game, depth) for _, game, depth in self.cases]

    def check(self, value):
        expect(value == self.expected, f"leaf counts {value}, seeds/perft.txt has "
               f"{self.expected}")
        if self.bulk:
            amounts, checked = super().check(value)
        else:   # the other way: Game.perft's bulk count
            for (name, game, depth), count in zip(self.cases, value):
                expect(count == game.perft(depth), f"{name}: {count} leaves visited, "
                       f"Game.perft({depth}) counts {game.perft(depth)}")
            amounts, checked = {"leaves": sum(value)}, (f"{sum(value):,} leaves; each count "
                                                        "equals Game.perft's")
        return amounts, f"leaf counts equal seeds/perft.txt's; {checked}"

    def reference(self):
        return self.reference_perft.measure() if self.reference_perft else None


class Verify(speed.Verify):
    def __init__(self, games, reference_games):
        super().__init__(games)
        self.reference_games = reference_games

    def reference(self):
        sample = [line for lines in self.lines.values() for line in lines[:self.reference_games]]

        def replay():
            for line in sample:
                rec = json.loads(line)
                game = photoref.ReferenceGame(rec["players"], **rec["options"])
                for move in rec["moves"]:
                    game.play(move)   # raises on an illegal move
                result = rec["result"]
                expect(game.is_over and list(game.scores()) == result["scores"]
                       and list(game.winners()) == result["winners"]
                       and list(game.light) == result["light"]
                       and [list(game.tokens(p)) for p in range(game.players)]
                       == result["tokens"],
                       "photoref replays a game to another result than its record's")

        seconds, _ = once(replay)
        moves = sum(len(json.loads(line)["moves"]) for line in sample)
        return ({"moves": moves, "games": len(sample)}, seconds,
                f"photoref parses and replays {len(sample)} of these records (the first "
                f"{self.reference_games} of each player count), checking each result")


class VecStep(speed.VecStep):
    def reference(self):
        # what a step does, in plain Python: photoref plays each game's action and lists the
        # legal moves (its mask) for `watched` games, restarting the ones that end
        env = photocore.VecGame(self.watched, self.players)
        env.reset(seed=self.seed)
        steps = []
        for _ in range(self.steps):
            actions = env.random_actions()
            steps.append([MOVE_TEXTS[a] for a in actions.tolist()])
            env.step(actions)

        def play():
            games = [photoref.ReferenceGame(self.players) for _ in range(self.watched)]
            for texts in steps:
                for i, text in enumerate(texts):
                    games[i].play(text)
                    if games[i].phase == "over":
                        games[i] = photoref.ReferenceGame(self.players)
                    games[i].legal_moves()

        seconds, _ = once(play)
        return ({"moves": self.steps * self.watched}, seconds,
                f"photoref playing the same kind of steps in {self.watched} games, listing "
                "the legal moves after each (no observation)")


class Mcts(speed.Mcts):
    def __init__(self, positions, simulations, seed=5):   # benchmarks/ name it positions
        super().__init__(positions, simulations, seed)

    def reference(self):
        # a simulation is mostly a random playout: photoref plays them from the same
        # positions (a handful: each takes it milliseconds)
        starts = [reference_game(game) for game in self.games[:5]]

        def play():
            rng = random.Random(self.seed)
            for mirror in starts:
                for _ in range(2):
                    game = mirror.copy()
                    while game.phase != "over":
                        game.play(rng.choice(game.legal_moves()))

        seconds, _ = once(play)
        return ({"simulations": 2 * len(starts)}, seconds,
                "photoref random playouts to the end from the same positions (a simulation "
                "without the tree)")


class OwnSearch(speed.Workload):
    """examples/own_search's plain-Python UCT with Game.playout. Its reference is not
    photoref: it is the same search with its playouts in Python (random.choice and
    Game.play to the end), as a search had to play them without Game.playout, so the
    speed-up is what Game.playout gives a search written in Python."""

    name = "own_uct"

    def __init__(self, positions, simulations, seed=39):
        self.count, self.simulations, self.seed = positions, simulations, seed
        self.describe = (f"examples/own_search: UCT in plain Python, {simulations} "
                         f"simulations a move with Game.playout, at {positions} mid-game "
                         "2-player positions")

    def prepare(self):
        self.games = own_search.positions(self.count, self.seed)

    def search(self, playout):
        agent = own_search.UCT(self.simulations, playout=playout)
        agent.reset(self.seed)
        return [agent.select(game).id for game in self.games]

    def run(self):
        return self.search("engine")

    def check(self, value):
        expect(all(map(photocore.Game.is_legal, self.games, value)), "an illegal move chosen")
        return ({"simulations": len(value) * self.simulations, "moves": len(value)},
                "every move chosen is legal; the same seed chooses the same moves every run")

    def reference(self):
        seconds, moves = once(lambda: self.search("python"))
        expect(all(map(photocore.Game.is_legal, self.games, moves)),
               "the Python playouts' search chose an illegal move")
        return ({"simulations": len(moves) * self.simulations}, seconds,
                "not photoref: the same UCT with its playouts in Python (random.choice and "
                "Game.play to the end) at the same positions")


# ---- what runs ------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Sizes:
    playout_games: int
    loop_moves: int
    positions: int
    perft_depth: int
    verify_games: int           # per player count
    vec_steps: int
    mcts_positions: int
    mcts_simulations: int
    uct_positions: int          # examples/own_search's UCT
    uct_simulations: int
    selfplay_games: int
    playout_reference_games: int
    loop_reference_moves: int
    verify_reference_games: int
    values: int = 3             # pyperf's timed values per workload, the fastest counting
    min_time: float = 0.2       # seconds: pyperf repeats a short call until a value lasts this


FULL = Sizes(playout_games=20_000, loop_moves=200_000, positions=200, perft_depth=6,
             verify_games=2_000, vec_steps=500, mcts_positions=50, mcts_simulations=1_000,
             uct_positions=20, uct_simulations=300,
             selfplay_games=100_000, playout_reference_games=10, loop_reference_moves=5_000,
             verify_reference_games=10)
QUICK = Sizes(playout_games=1_000, loop_moves=20_000, positions=50, perft_depth=5,
              verify_games=100, vec_steps=50, mcts_positions=10, mcts_simulations=200,
              uct_positions=5, uct_simulations=300,
              selfplay_games=2_000, playout_reference_games=2, loop_reference_moves=500,
              verify_reference_games=2, min_time=0.02)

PLAYOUT_OPTIONS = ((2, "-"), (2, "f"), (2, "s"), (2, "fs"), (3, "-"), (4, "-"))


def workloads(sizes):
    """Every workload, at these sizes: those with a reference first."""
    cases = perft_cases(sizes.perft_depth)
    shared = ReferencePerft(cases)
    return [
        *(Playouts(players, Options.parse(options), sizes.playout_games,
                   sizes.playout_reference_games) for players, options in PLAYOUT_OPTIONS),
        PythonLoop(2, sizes.loop_moves, sizes.loop_reference_moves),
        LegalMoves(sizes.positions),
        Copy(sizes.positions),
        Copy(sizes.positions, history=False),
        PlayUndo(sizes.positions),
        PlayUndo(sizes.positions, light=True),
        Perft(cases, bulk=True, reference_perft=shared),
        Perft(cases, bulk=False, reference_perft=shared),
        Verify(sizes.verify_games, sizes.verify_reference_games),
        VecStep(sizes.vec_steps),
        Mcts(sizes.mcts_positions, sizes.mcts_simulations),
        OwnSearch(sizes.uct_positions, sizes.uct_simulations),
        speed.SelfPlay(sizes.selfplay_games, workers=1),
        speed.SelfPlay(sizes.selfplay_games, workers=2),
    ]


def measure(workload, timer):
    """speed.measure, then photoref on the same work where it has it (reference()): its
    figures, checked against photocore's, and the speed-up. A wrong result of either side
    fails the workload."""
    result = speed.measure(workload, timer)
    result["reference"] = result["ratio"] = None
    measured = None
    if result["check"]["passed"] and hasattr(workload, "reference"):
        try:
            measured = workload.reference()
        except CheckFailed as e:
            result["check"] = {"passed": False, "detail": str(e)}
    if measured is not None:
        amounts, seconds, describe = measured
        figures = {f"{unit}/s": count / seconds for unit, count in amounts.items()}
        result["reference"] = {"figures": figures, "seconds": seconds, "describe": describe}
        unit = next(iter(figures))
        result["ratio"] = result["figures"][unit] / figures[unit]
        result["check"]["detail"] += f"; {describe}"
    return result


def commit():
    """The source tree's commit (git describe), or None outside a git checkout."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty",
                              "--abbrev=12"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def run(works, sizes, progress=lambda lines: None):
    """The report of `works` (JSON-ready); progress(lines) gets the table as it grows."""
    report = {"format": "photocore-bench", "version": 3, "timer": "pyperf",
              "sizes": dataclasses.asdict(sizes), "machine": speed.machine(),
              "reference": str(REFERENCE), "commit": commit(), "results": []}
    progress(header(report))
    timer = speed.pyperf_timer(sizes.values, sizes.min_time)
    for workload in works:
        report["results"].append(measure(workload, timer))
        progress(row(report["results"][-1]))
    report["passed"] = all(r["check"]["passed"] for r in report["results"])
    return report


# ---- the report -----------------------------------------------------------------------

PER_CALL = {"calls/s": "call", "pairs/s": "pair"}   # figures shown as time per call


def figure_text(figures, both=True):
    """speed.figure_text, but a time per call for calls and pairs."""
    unit, rate = next(iter(figures.items()))
    if unit in PER_CALL:
        return f"{1e9 / rate:,.0f} ns/{PER_CALL[unit]}"
    return speed.figure_text(figures, both)


def header(report):
    m = report["machine"]
    return [f"photocore {m['photocore']} ({m['build']} build), commit "
            f"{report['commit'] or 'unknown'}, timed by pyperf",
            f"machine: {m['cpu']}, {m['cores']} cores, {m['system']}, {m['python']}",
            f"reference: {report['reference']} (plain Python), timed on the same work in "
            "this run; speed-up = photocore / reference", "",
            f"{'workload':<19} {'figure':<34} {'reference':<18} {'speed-up':>9}  check"]


def row(result):
    """Two lines of the table: the figures, then what was measured."""
    ref = result.get("reference")   # none where photoref has no such work, or a check failed
    ok = "ok" if result["check"]["passed"] else "FAILED: " + result["check"]["detail"]
    figure = figure_text(result["figures"]) if result["figures"] else "-"
    reference = figure_text(ref["figures"], both=False) if ref else "-"
    ratio = f"{result['ratio']:,.0f} x" if result.get("ratio") else "-"
    return [f"{result['name']:<19} {figure:<34} {reference:<18} {ratio:>9}  {ok}",
            f"    {result['describe']}"]


def failures(report):
    """The wrong results of a report, as text."""
    return [f"{r['name']}: wrong result: {r['check']['detail']}"
            for r in report["results"] if not r["check"]["passed"]]


def check_baseline(report, floors):
    """Failures (text) of the report against {workload name: the least speed-up}."""
    failures = []
    results = {r["name"]: r for r in report["results"]}
    for name, floor in floors.items():
        ratio = results[name].get("ratio") if name in results else None
        if ratio is None:
            failures.append(f"{name}: no speed-up measured (floor {floor:,})")
        elif ratio < floor:
            failures.append(f"{name}: speed-up {ratio:,.0f} x is under its floor {floor:,} x")
    return failures


def write_report(report, path):
    """Writes the report as JSON to `path` (its folder made), if a path is given."""
    if path:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
        click.echo(f"report written to {path}")


@click.command()
@click.option("--quick", is_flag=True,
              help="Small workloads (seconds on 2 cores); every workload still runs and "
                   "checks its result.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False),
              help="Also write the report as JSON to this file.")
@click.option("--check", "baseline", type=click.Path(exists=True, dir_okay=False),
              help="Fail unless each speed-up is at least its floor in this JSON file "
                   "(benchmarks/baseline.json).")
def main(quick, json_path, baseline):
    """Measure photocore beside the plain-Python reference and print a table.

    Exits non-zero when a result is wrong or, with --check, a speed-up falls under its
    floor.
    """
    sizes = QUICK if quick else FULL
    click.echo(f"benchmarks/bench.py{' --quick' if quick else ''}")
    report = run(workloads(sizes), sizes, lambda lines: click.echo("\n".join(lines)))
    wrong = failures(report)
    if baseline:
        with open(baseline) as f:
            floors = json.load(f)["min_speedup"]
        below = check_baseline(report, floors)
        report["baseline"] = {"path": baseline, "min_speedup": floors, "failures": below}
        wrong += below
        click.echo(f"\nregression check against {baseline}: "
                   + ("every speed-up at or above its floor" if not below else
                      f"{len(below)} under the floor"))
    write_report(report, json_path)
    if wrong:
        for failure in wrong:
            click.echo(f"FAILED {failure}", err=True)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
