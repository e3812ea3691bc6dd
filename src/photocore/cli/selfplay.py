"""`photocore selfplay`: many games by the agents, written as records."""

import contextlib
import os
import signal
import threading
import time

import click
from tqdm import tqdm

from photocore.cli.options import game_options
from photocore.errors import RecordError
from photocore.play.specs import split as split_specs
from photocore.records import RecordWriter, read_games
from photocore.run.selfplay import SelfPlayError, Series, Tally, run_local


@click.command()
@click.option("--games", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Games to play.")
@game_options
@click.option("--agents", default="random", show_default=True,
              help="Comma-separated agents, one for every seat or one per seat: random, "
                   "greedy, mcts or mcts:SIMULATIONS (default budget 200), "
                   "py:module:Class, py:file.py:Class or cmd:PROGRAM (docs/matches.md). "
                   "Seats rotate from game to game so every agent plays every seat.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Processes playing games  [default: this machine's cores]")
@click.option("--seed", type=int, default=0, show_default=True,
              help="The same seed gives the same games, whatever --workers and --backend.")
@click.option("--out", "out", type=click.Path(dir_okay=False), required=True,
              help="Output records: .jsonl or .jsonl.gz.")
@click.option("--resume", is_flag=True,
              help="Continue an interrupted run: keep the games already in --out and play "
                   "the rest (same --games, --seed, agents and options).")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local",
              show_default=True, help="local worker processes, or Ray tasks (pip install photocore[ray]).")
@click.option("--address", default=None,
              help="Ray cluster address (ray backend); default: start a local Ray instance.")
@click.option("--batch", type=click.IntRange(min=1), default=None,
              help="Games per task  [default: chosen from the agents and workers]")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar  [default: when stderr is a terminal]")
def selfplay(games, players, fourth_revolution, shade_blocks, agents, workers, seed, out,
             resume, backend, address, batch, progress):
    """Play GAMES games with the given agents and write them as records to OUT.

    Every finished game reaches OUT at once, one line each; an interrupted run keeps them
    all, and --resume finishes it. A run that cannot go on (Ctrl-C, a worker process that
    dies, a Ray task that keeps failing, a full disk) stops with a message saying what
    happened: OUT then holds whole games only, and the same command with --resume plays
    the rest, to the same file as an uninterrupted run.
    """
    try:
        series = Series(games, players, split_specs(agents), seed, fourth_revolution,
                        shade_blocks)
        for spec in dict.fromkeys(series.specs):
            spec.check()        # a py class that does not import, an engine that does not start
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--agents") from None
    skip = _kept_games(out, series) if resume else 0
    if not resume and os.path.exists(out):
        raise click.UsageError(f"{out} exists: choose another --out, remove it, or --resume")
    # open OUT before any game is played: an unwritable path fails here, at once
    try:
        writer = RecordWriter(out, append=resume)
    except (OSError, RecordError) as e:
        raise click.ClickException(f"cannot write {out}: {_reason(e)}") from None
    interrupts = _DeferredInterrupt()
    tally = Tally(players)
    start = time.perf_counter()
    records = None
    try:
        with interrupts.installed(), writer:
            if backend == "ray":
                from photocore.run.ray_backend import run_ray
                records = run_ray(series, address=address, batch=batch, skip=skip)
            else:
                records = run_local(series, workers=workers, batch=batch, skip=skip)
            bar = tqdm(total=games, initial=skip, unit="game", dynamic_ncols=True,
                       disable=None if progress is None else not progress)
            with bar:
                for lines, counts in records:
                    with interrupts.deferred():     # a batch goes to OUT whole or not at all
                        writer.write_lines(lines)
                    tally.merge(counts)
                    bar.update(len(lines))
                    seconds = max(time.perf_counter() - start, 1e-9)
                    bar.set_postfix_str(f"{tally.moves / seconds:,.0f} moves/s", refresh=False)
    except KeyboardInterrupt:
        _close(records)
        click.echo(f"\nphotocore selfplay: interrupted. {_kept(out, skip, writer)}", err=True)
        raise click.exceptions.Exit(130) from None
    except SelfPlayError as e:
        _close(records)
        raise click.ClickException(f"{e}. {_kept(out, skip, writer)}") from None
    except OSError as e:
        _close(records)
        if writer.failed is not e:
            raise
        raise click.ClickException(f"cannot write {out}: {_reason(e)}. "
                                   f"{_kept(out, skip, writer)}") from None
    finally:
        _close(records)
    _print_summary(tally.summary(), time.perf_counter() - start, out, skip)


def _reason(error):
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)


def _kept(out, skip, writer):
    """What OUT holds after a stopped run, and how to finish it."""
    return (f"{out} holds the {skip + writer.count} games finished before "
            f"({writer.count} from this run), whole lines only: run the same command with "
            "--resume to play the rest")


def _close(records):
    """Stops the games still being played (workers, Ray tasks), if any."""
    if records is not None:
        records.close()


class _DeferredInterrupt:
    """SIGINT (Ctrl-C) raises KeyboardInterrupt as usual, but not in the middle of writing
    a batch: there it waits until the batch is written, so OUT gets it whole."""

    def __init__(self):
        self.deferring = False
        self.pending = False

    def __call__(self, signum, frame):
        if self.deferring:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def installed(self):
        if threading.current_thread() is not threading.main_thread():
            yield   # signal handlers are the main thread's: as it was
            return
        previous = signal.signal(signal.SIGINT, self)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    @contextlib.contextmanager
    def deferred(self):
        self.deferring = True
        try:
            yield
        finally:
            self.deferring = False
        if self.pending:
            raise KeyboardInterrupt


def _kept_games(out, series):
    """How many games an interrupted run already wrote, after checking they belong to it."""
    if not os.path.exists(out):
        return 0
    try:
        return _count_kept(out, series)
    except (OSError, RecordError) as e:
        raise click.ClickException(f"cannot resume from {out}: {_reason(e)}") from None


def _count_kept(out, series):
    count = 0
    for rec in read_games(out, on_error="skip"):
        meta = rec["metadata"]
        if (meta.get("game") != count or meta.get("seed") != series.seed
                or rec["players"] != series.players
                or rec["options"] != {"fourth_revolution": series.fourth_revolution,
                                      "shade_blocks": series.shade_blocks}):
            raise click.UsageError(f"{out}: game {count} is not game {count} of this run "
                                   "(other seed, players, options or order); cannot resume")
        count += 1
    if count > series.games:
        raise click.UsageError(f"{out} already holds {count} games, more than --games")
    return count


def _print_summary(summary, seconds, out, skip):
    games, moves = summary["games"], summary["moves"]
    click.echo(f"{games} games{f' (after {skip} already in the file)' if skip else ''}, "
               f"{moves} moves in {seconds:.2f} s: {games / max(seconds, 1e-9):,.1f} games/s, "
               f"{moves / max(seconds, 1e-9):,.0f} moves/s -> {out}")
    click.echo("mean score by seat: " + ", ".join(f"{s:.2f}" for s in summary["mean_scores"]))
    click.echo("win rate by seat:   " + ", ".join(f"{w:.1%}" for w in summary["seat_win_rate"]))
    click.echo("win rate by agent:  " + ", ".join(
        f"{name} {rate:.1%}" for name, rate in sorted(summary["agent_win_rate"].items())))
