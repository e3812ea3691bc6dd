"""`photocore bench`: the engine's speed figures, timed by pyperf, each checked (run/speed.py)."""

from typing import Any

import click

from photocore.cli.options import summary_option
from photocore.cli.output import check_writable, needs, write_summary
from photocore.run import speed

__all__ = ["bench"]


@click.command()
@click.option("--quick", is_flag=True, help="Small workloads (seconds); each still checked.")
@click.option("--workload", "patterns", multiple=True, metavar="PATTERN",
              help="Only the workloads whose names match (shell-style: 'playouts/*'); "
                   "repeatable.")
@summary_option("the report (once complete)")
def bench(quick: bool, patterns: tuple[str, ...], summary: str | None) -> None:
    """Measure photocore and print a table: each figure names its workload and machine.

    pyperf times each workload; each checks its result with photocore alone, so this runs
    from an installed package; exits 1 when a result is wrong. The source tree's
    benchmarks/bench.py times these workloads beside the plain-Python reference, with the
    rest of its registry, and holds CI's floors.
    """
    needs("pyperf", "photocore bench", "bench")
    if summary is not None:
        check_writable(summary)
    try:
        works = speed.chosen(speed.workloads(quick), patterns)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    m = speed.machine()
    report: dict[str, Any] = {"format": "photocore-bench", "version": 3, "machine": m,
                              "timer": "pyperf", "results": []}
    click.echo(f"photocore bench{' --quick' * quick}: photocore {m['photocore']} ({m['build']} "
               f"build), timed by pyperf\nkernel: {m['code_path']}, random playouts in "
               f"{m['lanes']} lane{'s' * (m['lanes'] > 1)} ({m['lane_copy']})\n"
               f"machine: {m['cpu']}, {m['cores']} cores, "
               f"{m['system']}, {m['python']}\n\n{'workload':<19} {'figure':<34} check")
    timer = speed.pyperf_timer(min_time=0.02 if quick else 0.2)
    for workload in works:
        report["results"].append(speed.measure(workload, timer))
        click.echo("\n".join(speed.row(report["results"][-1])))
    report["passed"] = all(r["check"]["passed"] for r in report["results"])
    if summary is not None:
        write_summary(summary, report)
        click.echo(f"report written to {summary}")
    for r in report["results"]:
        if not r["check"]["passed"]:
            click.echo(f"FAILED {r['name']}: wrong result: {r['check']['detail']}", err=True)
    if not report["passed"]:
        raise SystemExit(1)
