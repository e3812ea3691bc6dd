"""`photocore selfplay`: many games by the agents, written as records."""

import time

import click

from photocore.cli.options import (
    MAX_GAMES,
    SEED,
    SEED_HELP,
    SET_BY,
    Count,
    agents_option,
    backend_options,
    batch_option,
    builtin_agents,
    check_backend,
    connect_backend,
    players_and_rules,
    workers_option,
)
from photocore.cli.output import record_file, resume_from, run_output
from photocore.facts import Options
from photocore.records import Record
from photocore.run.driver import drive
from photocore.run.selfplay import SelfPlayBatch, Series, Summary, Tally

__all__ = ["selfplay"]


@click.command()
@click.option("--games", type=Count(MAX_GAMES), default=1000, show_default=True,
              help="Games to play (with --resume: in all, those in OUT included).")
@players_and_rules
@agents_option(f"Comma-separated agents, one for every seat or one per seat: "
               f"{builtin_agents()}, py:module:Class, py:file.py:Class or cmd:PROGRAM "
               "(docs/matches.md). Seats rotate from game to game so every agent plays "
               "every seat.", default="random")
@workers_option("Processes playing games  [default: this machine's cores]")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="The same seed gives the same games, whatever --workers and --backend "
                   f"({SEED_HELP}).")
@click.option("--out", "out", type=click.Path(dir_okay=False), required=True,
              callback=record_file, help="Output records: .jsonl or .jsonl.gz.")
@click.option("--resume", is_flag=True,
              help="Continue an interrupted run: keep the games already in --out and play "
                   "the rest. Refused unless they are this run's (same players, options, "
                   "--seed, --agents, order).")
@backend_options
@batch_option
@click.option("--progress/--no-progress", default=None,
              help="Progress bar  [default: when stderr is a terminal]")
def selfplay(games: int, players: int, options: Options, agents: tuple[str, ...],
             workers: int | None, seed: int, out: str, resume: bool, backend: str,
             address: str | None, connect_timeout: float, batch: int | None,
             progress: bool | None) -> None:
    """Play GAMES games with the given agents and write them as records to OUT.

    Every finished game reaches OUT at once, one line each; an interrupted run keeps them
    all, and --resume finishes it. A run that cannot go on (Ctrl-C, a worker process that
    dies, a Ray task that keeps failing, a full disk) stops with a message saying what
    happened: OUT then holds whole games only, and the same command with --resume plays
    the rest, to the same file as an uninterrupted run; a new OUT that got no game is
    removed. `photocore repair OUT` saves the whole games of an OUT damaged otherwise (a
    .jsonl.gz whose writer was killed). In the win rates, tied winners share the win.

    \b
    Example:  photocore selfplay --games 1000 --agents mcts:100,greedy --out games.jsonl.gz
    """
    check_backend(backend)
    try:
        series = Series(games, players, agents, seed, options=options)
        series.check()      # a py class that does not import, an engine that does not start
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--agents") from None
    # the whole file's games: those a resumed run keeps, then this run's, so that the
    # summary is the file's, as an uninterrupted run's would be
    whole = Tally(players)

    def kept(index: int, rec: Record) -> None:
        if rec["result"] is not None:
            whole.add(len(rec["moves"]), rec["result"]["scores"], rec["result"]["winners"],
                      rec["metadata"]["agents"])

    skip = resume_from(out, resume, series, SET_BY, kept,
                       inputs=[f for spec in series.specs for f in spec.files])
    if skip == games:
        click.echo(f"{out} already holds all {games:,} games of this run: nothing to play")
        return
    connect_backend("selfplay", backend, address, connect_timeout)
    tally = Tally(players)          # this run's, for its speed
    start = time.perf_counter()

    def take(first: int, played: SelfPlayBatch) -> None:
        tally.merge(played.tally)
        whole.merge(played.tally)

    def speed() -> str:
        return f"{tally.moves / max(time.perf_counter() - start, 1e-9):,.0f} moves/s"

    with run_output("selfplay", out, resume, skip) as writer:
        drive(series, take, writer, skip=skip, workers=workers, batch=batch, backend=backend,
              address=address, progress=progress, status=speed)
    _print_summary(tally.summary(), whole.summary(), time.perf_counter() - start, out, skip)


def _print_summary(run: Summary, summary: Summary, seconds: float, out: str,
                   skip: int) -> None:
    """This run's speed (`run`), then the scores and win rates of the whole file."""
    games, moves = run["games"], run["moves"]
    click.echo(f"{games:,} games{f' (after {skip:,} already in the file)' if skip else ''}, "
               f"{moves:,} moves in {seconds:.2f} s: {games / max(seconds, 1e-9):,.1f} games/s, "
               f"{moves / max(seconds, 1e-9):,.0f} moves/s -> {out}")
    if skip:
        click.echo(f"the whole file, {summary['games']:,} games:")
    click.echo("mean score by seat: " + ", ".join(f"{s:.2f}" for s in summary["mean_scores"]))
    click.echo("win rate by seat:   " + ", ".join(f"{w:.1%}" for w in summary["seat_win_rate"]))
    click.echo("win rate by agent:  " + ", ".join(
        f"{name} {rate:.1%}" for name, rate in sorted(summary["agent_win_rate"].items())))
