"""`photocore bench`: the speed figures, each checked, beside the plain-Python reference."""

import json
import os

import click

from photocore import bench as measuring


@click.command()
@click.option("--quick", is_flag=True,
              help="Small workloads (well under a minute on 2 cores); every workload still "
                   "runs and checks its result.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False),
              help="Also write the report as JSON to this file.")
@click.option("--reference", type=click.Path(file_okay=False),
              help="Folder holding photoref.py, the plain-Python reference  [default: "
                   "python/ of the source tree photocore runs from, or of the working "
                   "directory]")
@click.option("--check", "baseline", type=click.Path(exists=True, dir_okay=False),
              help="Fail unless each speed-up is at least its floor in this JSON file "
                   "(benchmarks/baseline.json).")
def bench(quick, json_path, reference, baseline):
    """Measure photocore and print a table: each figure names its workload and machine.

    The plain-Python reference (python/photoref.py) runs the same work in the same run, so
    each speed-up is a ratio measured side by side. Exits non-zero when a result is wrong
    or, with --check, a speed-up falls under its floor.
    """
    folder = measuring.find_reference(reference)
    if reference is not None and folder is None:
        raise click.BadParameter(f"no photoref.py in {reference}", param_hint="--reference")
    floors = None
    if baseline:
        if folder is None:
            raise click.UsageError("--check compares speed-ups measured against the "
                                   "reference, which was not found: pass --reference")
        with open(baseline) as f:
            floors = json.load(f)["min_speedup"]
    sizes = measuring.QUICK if quick else measuring.FULL

    def start(report):
        click.echo(f"photocore bench{' --quick' if quick else ''}")
        for line in measuring.header(report):
            click.echo(line)

    def progress(result):
        for line in measuring.row(result):
            click.echo(line)

    report = measuring.run(measuring.workloads(sizes), sizes, folder, start, progress)
    failures = [f"{r['name']}: wrong result: {r['check']['detail']}"
                for r in report["results"] if not r["check"]["passed"]]
    if floors is not None:
        below = measuring.check_baseline(report, floors)
        report["baseline"] = {"path": baseline, "min_speedup": floors, "failures": below}
        failures += below
        click.echo(f"\nregression check against {baseline}: "
                   + ("every speed-up at or above its floor" if not below else
                      f"{len(below)} under the floor"))
    if json_path:
        os.makedirs(os.path.dirname(os.path.abspath(json_path)), exist_ok=True)
        with open(json_path, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
        click.echo(f"report written to {json_path}")
    if failures:
        for failure in failures:
            click.echo(f"FAILED {failure}", err=True)
        raise SystemExit(1)
