"""photocore's speed beside the plain-Python reference, and CI's regression check.

    python benchmarks/bench.py [--quick] [--json artifacts/bench.json] [--check benchmarks/baseline.json]

The workloads are photocore.speed's (`photocore bench`), each checking its result; here the
reference (python/photoref.py) runs the same work in the same run and is checked against
the kernels, so each speed-up is a ratio measured side by side, which holds on a noisy
machine where an absolute figure does not. The perft workloads count the positions of
seeds/perft.txt and must give its counts. --check fails when a speed-up drops under its
floor in benchmarks/baseline.json. The pytest-benchmark suite (benchmarks/test_*.py) times
the same workloads.
"""

import dataclasses
import json
import pathlib
import random
import subprocess
import sys
import time

import click

import photocore
from photocore import speed
from photocore.cli.bench import fail_on, report_options, write_report
from photocore.facts import Options
from photocore.notation import MOVE_TEXTS
from photocore.speed import CheckFailed, expect

ROOT = pathlib.Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "python" / "photoref.py"
PERFT_SEEDS = ROOT / "seeds" / "perft.txt"
BASELINE = ROOT / "benchmarks" / "baseline.json"

sys.path.insert(0, str(REFERENCE.parent))
import photoref  # noqa: E402  (found through the path above)


# ---- the reference's side of each workload ---------------------------------------------

def reference_game(game):
    """The photoref game of the same players, options and moves as `game`."""
    out = photoref.ReferenceGame(game.players, game.fourth_revolution, game.shade_blocks)
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
        moves = 0
        start = time.perf_counter()
        for k, game in enumerate(sample):
            mirror = photoref.ReferenceGame(self.players, *self.options)
            for ply, move in enumerate(map(str, game.history)):
                if move not in mirror.legal_moves():
                    raise CheckFailed(f"game {k} ply {ply}: photoref does not list {move}")
                mirror.play(move)
            expect(mirror.is_over and mirror.scores() == game.scores(),
                   f"game {k}: photoref ends with {mirror.scores()}, not {game.scores()}")
            moves += len(game.history)
        seconds = time.perf_counter() - start
        return ({"moves": moves, "games": len(sample)}, seconds,
                f"photoref plays the first {len(sample)} of these games: legal_moves() "
                "and play() each move, same moves and scores")


class PythonLoop(speed.PythonLoop):
    def __init__(self, players, moves, reference_moves):
        super().__init__(players, moves)
        self.reference_moves = reference_moves

    def check(self, value):
        self.played = [str(m) for m in value[:self.reference_moves]]
        return super().check(value)

    def reference(self):
        # legal moves are listed in action-id order in both, so one seed picks the same games
        rng = random.Random(self.seed)
        played = []
        game = photoref.ReferenceGame(self.players)
        start = time.perf_counter()
        for _ in range(self.reference_moves):
            moves = game.legal_moves()
            if not moves:
                game = photoref.ReferenceGame(self.players)
                moves = game.legal_moves()
            move = rng.choice(moves)
            game.play(move)
            played.append(move)
        seconds = time.perf_counter() - start
        if played != self.played:
            first = next(i for i, (a, b) in enumerate(zip(played, self.played)) if a != b)
            raise CheckFailed(f"photoref's loop played other moves from move {first} on")
        return ({"moves": len(played)}, seconds,
                f"the same loop over photoref for the first {len(played):,} moves, "
                "the same moves")


class LegalMoves(speed.LegalMoves):
    def reference(self):
        mirrors = [reference_game(g) for g in self.games]
        start = time.perf_counter()
        listed = [mirror.legal_moves() for mirror in mirrors]
        seconds = time.perf_counter() - start
        for k, (game, moves) in enumerate(zip(self.games, listed)):
            expect([str(m) for m in game.legal_moves()] == moves,
                   f"position {k}: photoref lists other moves")
        return ({"calls": len(listed)}, seconds,
                "photoref legal_moves() at the same positions, the same moves")


class Copy(speed.Copy):
    def reference(self):
        if not self.history:
            return None   # photoref copies always carry the history
        mirrors = [reference_game(g) for g in self.games]
        start = time.perf_counter()
        copies = [mirror.copy() for mirror in mirrors]
        seconds = time.perf_counter() - start
        expect(all(same_state(g, c) for g, c in zip(self.games, copies)),
               "a photoref copy differs")
        return {"calls": len(copies)}, seconds, "photoref copy() at the same positions"


class PlayUndo(speed.PlayUndo):
    """photoref has no undo: its figure is copy() + play(move)."""

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
        start = time.perf_counter()
        for mirror, move in zip(mirrors, moves):
            mirror.copy().play(move)
        seconds = time.perf_counter() - start
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
            game = photocore.Game(players, *options)
            for move in moves:
                game.play(move)
            at = len(counts) if depth is None else depth
            cases.append((name, game, at, counts[at - 1]))
    return cases


class ReferencePerft:
    """photoref's perft over a set of cases, run once for both perft workloads."""

    def __init__(self, cases):
        self.cases = cases
        self.measured = None

    def measure(self):
        if self.measured is None:
            leaves = 0
            seconds = 0.0
            for name, game, depth, expected in self.cases:
                mirror = reference_game(game)
                start = time.perf_counter()
                count = photoref.perft(mirror, depth)
                seconds += time.perf_counter() - start
                expect(count == expected, f"photoref perft({depth}) of {name} = {count}, "
                       f"seeds/perft.txt has {expected}")
                leaves += count
            self.measured = ({"leaves": leaves}, seconds,
                             "photoref perft (copy + play to every leaf) of the same "
                             "positions and depths, the same counts")
        return self.measured


class Perft(speed.Perft):
    """The counts of seeds/perft.txt: cases are (name, game, depth, expected count)."""

    def __init__(self, cases, bulk, reference_perft=None):
        """reference_perft: photoref's run of the same cases (shared by the bulk and full
        workloads), None where photoref would take too long."""
        super().__init__([case[:3] for case in cases], bulk)
        self.expected = [case[3] for case in cases]
        self.reference_perft = reference_perft

    def check(self, value):
        expect(value == self.expected, f"leaf counts {value}, seeds/perft.txt has "
               f"{self.expected}")
        return f"leaf counts equal seeds/perft.txt's; {super().check(value)}"

    def reference(self):
        return self.reference_perft.measure() if self.reference_perft else None


class Verify(speed.Verify):
    def __init__(self, games, reference_games):
        super().__init__(games)
        self.reference_games = reference_games

    def reference(self):
        sample = [line for lines in self.lines.values() for line in lines[:self.reference_games]]
        moves = 0
        start = time.perf_counter()
        for line in sample:
            rec = json.loads(line)
            game = photoref.ReferenceGame(rec["players"], **rec["options"])
            for move in rec["moves"]:
                game.play(move)   # raises on an illegal move
            result = rec["result"]
            expect(game.is_over and list(game.scores()) == result["scores"]
                   and list(game.winners()) == result["winners"]
                   and list(game.light) == result["light"]
                   and [list(game.tokens(p)) for p in range(game.players)] == result["tokens"],
                   "photoref replays a game to another result than its record's")
            moves += len(rec["moves"])
        seconds = time.perf_counter() - start
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
        games = [photoref.ReferenceGame(self.players) for _ in range(self.watched)]
        start = time.perf_counter()
        for texts in steps:
            for i, text in enumerate(texts):
                games[i].play(text)
                if games[i].phase == "over":
                    games[i] = photoref.ReferenceGame(self.players)
                games[i].legal_moves()
        seconds = time.perf_counter() - start
        return ({"moves": self.steps * self.watched}, seconds,
                f"photoref playing the same kind of steps in {self.watched} games, listing "
                "the legal moves after each (no observation)")


class Mcts(speed.Mcts):
    def reference(self):
        # a simulation is mostly a random playout: photoref plays them from the same
        # positions (a handful: each takes it milliseconds)
        rng = random.Random(self.seed)
        starts = [reference_game(game) for game in self.games[:5]]
        playouts = 0
        start = time.perf_counter()
        for mirror in starts:
            for _ in range(2):
                game = mirror.copy()
                while game.phase != "over":
                    game.play(rng.choice(game.legal_moves()))
                playouts += 1
        seconds = time.perf_counter() - start
        return ({"simulations": playouts}, seconds,
                "photoref random playouts to the end from the same positions (a simulation "
                "without the tree)")


# ---- what runs ------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Sizes(speed.Sizes):
    playout_reference_games: int = 0
    loop_reference_moves: int = 0
    verify_reference_games: int = 0


FULL = Sizes(**{**dataclasses.asdict(speed.FULL), "perft_depth": 6},
             playout_reference_games=10, loop_reference_moves=5_000, verify_reference_games=10)
QUICK = Sizes(**{**dataclasses.asdict(speed.QUICK), "perft_depth": 5},
              playout_reference_games=2, loop_reference_moves=500, verify_reference_games=2)

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
        speed.SelfPlay(sizes.selfplay_games, workers=1),
        speed.SelfPlay(sizes.selfplay_games, workers=2),
    ]


def with_reference(workload, result):
    """speed.measure's extra: photoref on the same work, its figures and the speed-up."""
    result["reference"] = result["ratio"] = None
    measured = workload.reference() if hasattr(workload, "reference") else None
    if measured is None:
        return []
    amounts, seconds, describe = measured
    figures = {f"{unit}/s": count / seconds for unit, count in amounts.items()}
    result["reference"] = {"figures": figures, "seconds": seconds, "describe": describe}
    unit = next(iter(figures))
    result["ratio"] = result["figures"][unit] / figures[unit]
    return [describe]


def commit():
    """The source tree's commit (git describe), or None outside a git checkout."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty",
                              "--abbrev=12"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def run(works, sizes, start=None, progress=None):
    return speed.run(works, sizes, start, progress, extra=with_reference,
                     reference=str(REFERENCE), commit=commit())


# ---- the report -----------------------------------------------------------------------

def header(report):
    m = report["machine"]
    return [f"photocore {m['photocore']} ({m['build']} build), commit "
            f"{report['commit'] or 'unknown'}",
            f"machine: {m['cpu']}, {m['cores']} cores, {m['system']}, {m['python']}",
            f"reference: {report['reference']} (plain Python), timed on the same work in "
            "this run; speed-up = photocore / reference", "",
            f"{'workload':<19} {'figure':<34} {'reference':<18} {'speed-up':>9}  check"]


def row(result):
    """Two lines of the table: the figures, then what was measured."""
    ref = result.get("reference")   # none where photoref has no such work, or a check failed
    ok = "ok" if result["check"]["passed"] else "FAILED: " + result["check"]["detail"]
    figure = speed.figure_text(result["figures"]) if result["figures"] else "-"
    reference = speed.figure_text(ref["figures"], both=False) if ref else "-"
    ratio = f"{result['ratio']:,.0f} x" if result.get("ratio") else "-"
    return [f"{result['name']:<19} {figure:<34} {reference:<18} {ratio:>9}  {ok}",
            f"    {result['describe']}"]


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


@click.command()
@report_options
@click.option("--check", "baseline", type=click.Path(exists=True, dir_okay=False),
              help="Fail unless each speed-up is at least its floor in this JSON file "
                   "(benchmarks/baseline.json).")
def main(quick, json_path, baseline):
    """Measure photocore beside the plain-Python reference and print a table.

    Exits non-zero when a result is wrong or, with --check, a speed-up falls under its
    floor.
    """
    sizes = QUICK if quick else FULL

    def start(report):
        click.echo(f"benchmarks/bench.py{' --quick' if quick else ''}")
        for line in header(report):
            click.echo(line)

    def progress(result):
        for line in row(result):
            click.echo(line)

    report = run(workloads(sizes), sizes, start, progress)
    failures = speed.failures(report)
    if baseline:
        with open(baseline) as f:
            floors = json.load(f)["min_speedup"]
        below = check_baseline(report, floors)
        report["baseline"] = {"path": baseline, "min_speedup": floors, "failures": below}
        failures += below
        click.echo(f"\nregression check against {baseline}: "
                   + ("every speed-up at or above its floor" if not below else
                      f"{len(below)} under the floor"))
    write_report(report, json_path)
    fail_on(failures)


if __name__ == "__main__":
    main()
