"""`photocore bench`: the engine's speed figures, each checked."""

import json
import os

import click

from photocore import speed


def report_options(command):
    """The --quick and --json options of a speed report (here and benchmarks/bench.py)."""
    command = click.option("--json", "json_path", type=click.Path(dir_okay=False),
                           help="Also write the report as JSON to this file.")(command)
    return click.option("--quick", is_flag=True,
                        help="Small workloads (a minute or less on 2 cores); every workload "
                             "still runs and checks its result.")(command)


@click.command()
@report_options
def bench(quick, json_path):
    """Measure photocore and print a table: each figure names its workload and machine.

    Every workload checks its result with photocore alone, so this runs from an installed
    package; exits non-zero when a result is wrong. The speed-ups over the plain-Python
    reference and CI's floors for them are the source tree's: python benchmarks/bench.py.
    """
    sizes = speed.QUICK if quick else speed.FULL

    def start(report):
        click.echo(f"photocore bench{' --quick' if quick else ''}")
        for line in speed.header(report):
            click.echo(line)

    def progress(result):
        for line in speed.row(result):
            click.echo(line)

    report = speed.run(speed.workloads(sizes), sizes, start, progress)
    write_report(report, json_path)
    fail_on(speed.failures(report))


def write_report(report, path):
    """Writes the report as JSON to `path` (its folder made), if a path is given."""
    if path:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
        click.echo(f"report written to {path}")


def fail_on(failures):
    """Exits 1 naming each failure, if there is one."""
    if failures:
        for failure in failures:
            click.echo(f"FAILED {failure}", err=True)
        raise SystemExit(1)
