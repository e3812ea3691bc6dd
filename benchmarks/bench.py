"""photocore's speed: every workload of the one registry, each beside its baseline timed in
the same run, and CI's regression check.

    python benchmarks/bench.py [--quick] [--workload PATTERN ...] [--list]
                               [--json artifacts/bench.json] [--check benchmarks/baseline.json]

The registry (workloads() here) is photocore.run.speed's workloads (`photocore bench`, what
an installed package measures: playouts, perft, verify, VecGame, MCTS, self-play) with their
plain-Python side, then those of the source tree: single calls from Python (engine.py),
examples/own_search's UCT and playouts (own_search.py), record files (record_files.py), the
match harness and the Cython example searcher (players.py), the adapters, Gymnasium
environments, masked sampling and photocore.Search (frameworks.py), the AlphaZero example's
forward pass (networks.py). Each workload checks its result, pyperf times it as `photocore
bench` does, and its baseline runs the same work in the same run: the plain-Python
reference (python/photoref.py) for the engine's, else the native loop, plain VecGame.step,
torch's sampling, OpenSpiel's MCTSBot, an untrained network, a bare loop. A speed-up is
that ratio, measured side by side, which holds on a noisy machine where an absolute figure
does not.

--quick runs the engine's workloads, small (CI's set: `.ci/run`); a full run, or --workload
(shell patterns over the names: --workload 'gym_*'), runs the others too, a workload whose
framework is missing reported skipped. --check fails when a speed-up drops under its floor
in benchmarks/baseline.json. --list prints the names and what each runs.
"""

import dataclasses
import json
import os
import pathlib
import subprocess

import click
import engine
import frameworks
import networks
import own_search
import players
import record_files

from photocore.run import speed

ROOT = pathlib.Path(__file__).resolve().parent.parent
BASELINE = ROOT / "benchmarks" / "baseline.json"


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
    quick: bool = False         # the other workloads' own small sizes too


FULL = Sizes(playout_games=20_000, loop_moves=200_000, positions=200, perft_depth=6,
             verify_games=2_000, vec_steps=500, mcts_positions=50, mcts_simulations=1_000,
             uct_positions=20, uct_simulations=300,
             selfplay_games=100_000, playout_reference_games=10, loop_reference_moves=5_000,
             verify_reference_games=10)
QUICK = Sizes(playout_games=1_000, loop_moves=20_000, positions=50, perft_depth=5,
              verify_games=100, vec_steps=50, mcts_positions=10, mcts_simulations=200,
              uct_positions=5, uct_simulations=300,
              selfplay_games=2_000, playout_reference_games=2, loop_reference_moves=500,
              verify_reference_games=2, min_time=0.02, quick=True)


def workloads(sizes, everything=True):
    """The registry at these sizes, in the order it runs: the engine's (CI's floors), own
    search's and self-play (no baseline), then, if `everything`, the record files', the
    players', the frameworks' and the example network's."""
    works = [*engine.workloads(sizes), *own_search.workloads(sizes, everything),
             *(speed.SelfPlay(sizes.selfplay_games, workers) for workers in (1, 2))]
    if everything:
        for group in (record_files, players, frameworks, networks):
            works += group.workloads(sizes.quick)
    return works


def measure(workload, timer):
    """speed.measure, then the baseline on the same work where it has one (reference()):
    its figures, checked against photocore's, and the ratio. A wrong result of either side
    fails the workload; one whose framework is not installed (missing()) is skipped."""
    skipped = workload.missing() if hasattr(workload, "missing") else None
    if skipped:
        return {"name": workload.name, "describe": workload.describe, "figures": {},
                "seconds": None, "check": {"passed": True, "detail": f"skipped: {skipped}"},
                "skipped": skipped, "reference": None, "ratio": None}

    def beside(result):
        measured = workload.reference() if hasattr(workload, "reference") else None
        if measured is not None:
            amounts, seconds, describe = measured
            figures = {f"{unit}/s": count / seconds for unit, count in amounts.items()}
            result["reference"] = {"figures": figures, "seconds": seconds,
                                   "describe": describe}
            result["ratio"] = result["figures"][next(iter(figures))] / next(iter(
                figures.values()))
            result["check"]["detail"] += f"; {describe}"

    result = speed.measure(workload, timer, beside)
    result.setdefault("reference", None)
    result.setdefault("ratio", None)
    if not result["check"]["passed"]:
        result["reference"] = result["ratio"] = None
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
              "reference": str(engine.REFERENCE), "commit": commit(), "results": []}
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
            f"reference: {report['reference']} (plain Python) unless a row names its own "
            "baseline, timed on the same work in this run; speed-up = photocore / reference",
            "", f"{'workload':<25} {'figure':<34} {'reference':<18} {'speed-up':>9}  check"]


def ratio_text(ratio):
    return f"{ratio:,.0f} x" if ratio >= 10 else f"{ratio:.3g} x"


def row(result):
    """Two lines of the table: the figures, then what was measured."""
    ref = result.get("reference")   # none where there is no baseline, or a check failed
    ok = "ok" if result["check"]["passed"] else "FAILED: " + result["check"]["detail"]
    if result.get("skipped"):
        ok = f"skipped: {result['skipped']}"
    figure = figure_text(result["figures"]) if result["figures"] else "-"
    reference = figure_text(ref["figures"], both=False) if ref else "-"
    ratio = ratio_text(result["ratio"]) if result.get("ratio") else "-"
    return [f"{result['name']:<25} {figure:<34} {reference:<18} {ratio:>9}  {ok}",
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
            failures.append(f"{name}: speed-up {ratio_text(ratio)} is under its floor {floor:,} x")
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
              help="Small workloads (seconds on 2 cores), the engine's alone unless "
                   "--workload names others; each still checks its result.")
@click.option("--workload", "patterns", multiple=True, metavar="PATTERN",
              help="Only the workloads whose names match (shell-style: 'playouts/*'); "
                   "repeatable.")
@click.option("--list", "listing", is_flag=True, help="List the workloads and exit.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False),
              help="Also write the report as JSON to this file.")
@click.option("--check", "baseline", type=click.Path(exists=True, dir_okay=False),
              help="Fail unless each speed-up is at least its floor in this JSON file "
                   "(benchmarks/baseline.json); with --workload, the floors of those run.")
def main(quick, patterns, listing, json_path, baseline):
    """Measure photocore beside its baselines and print a table.

    Exits non-zero when a result is wrong or, with --check, a speed-up falls under its
    floor.
    """
    sizes = QUICK if quick else FULL
    try:
        works = speed.chosen(workloads(sizes, everything=not quick or bool(patterns)),
                             patterns)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    if listing:
        for workload in works:
            click.echo(f"{workload.name:<25} {workload.describe}")
        return
    click.echo(f"benchmarks/bench.py{' --quick' if quick else ''}"
               + "".join(f" --workload {p}" for p in patterns))
    report = run(works, sizes, lambda lines: click.echo("\n".join(lines)))
    wrong = failures(report)
    if baseline:
        with open(baseline) as f:
            floors = json.load(f)["min_speedup"]
        if patterns:
            floors = {name: f for name, f in floors.items()
                      if any(w.name == name for w in works)}
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
