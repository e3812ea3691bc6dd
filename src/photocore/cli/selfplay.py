"""`photocore selfplay`: many games by the agents, written as records."""

import contextlib
import os
import signal
import threading
import time
import warnings

import click
from tqdm import tqdm

from photocore.cli.options import game_options
from photocore.cli.output import check_writable, missing, reason
from photocore.errors import RecordError
from photocore.play.specs import split as split_specs
from photocore.records import RecordWriter, read_games
from photocore.run.ray_backend import CONNECT_TIMEOUT
from photocore.run.selfplay import SelfPlayError, Series, Tally, run_local


@click.command()
@click.option("--games", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Games to play (with --resume: in all, those in OUT included).")
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
                   "the rest. Refused unless they are this run's (same players, options, "
                   "--seed, --agents, order).")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local",
              show_default=True,
              help="local worker processes, or Ray tasks (pip install 'photocore[ray]').")
@click.option("--address", default=None,
              help="Ray cluster address, HOST:PORT of its head (ray backend)  [default: "
                   "RAY_ADDRESS, else a new local Ray instance]")
@click.option("--connect-timeout", type=click.FloatRange(min=1), default=CONNECT_TIMEOUT,
              show_default=True, metavar="SECONDS",
              help="Give up on the Ray cluster at --address if it has not answered by then.")
@click.option("--batch", type=click.IntRange(min=1), default=None,
              help="Games per task  [default: chosen from the agents and workers]")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar  [default: when stderr is a terminal]")
def selfplay(games, players, fourth_revolution, shade_blocks, agents, workers, seed, out,
             resume, backend, address, connect_timeout, batch, progress):
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
    ctx = click.get_current_context()
    for name, backend_of in (("address", "ray"), ("connect_timeout", "ray"), ("workers", "local")):
        given = ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT
        if given and backend != backend_of:
            raise click.BadParameter(f"it is for --backend {backend_of}, not {backend}",
                                     param_hint=f"--{name.replace('_', '-')}")
    try:
        series = Series(games, players, split_specs(agents), seed, fourth_revolution,
                        shade_blocks)
        for spec in dict.fromkeys(series.specs):
            spec.check()        # a py class that does not import, an engine that does not start
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--agents") from None
    if not resume and os.path.exists(out):
        raise click.UsageError(f"{out} exists: choose another --out, remove it, or --resume")
    check_writable(out, append=resume)
    skip = _kept_games(out, series) if resume else 0
    if skip == games:
        click.echo(f"{out} already holds all {games:,} games of this run: nothing to play")
        return
    interrupts = _DeferredInterrupt()
    if backend == "ray":
        _connect(address, connect_timeout, interrupts)
    created = not os.path.exists(out)
    # open OUT before any game is played: an unwritable path fails here, at once
    with warnings.catch_warnings(record=True) as cut:
        warnings.simplefilter("always")
        try:
            writer = RecordWriter(out, append=resume)
        except (OSError, RecordError) as e:
            raise click.ClickException(f"cannot write {out}: {reason(e)}") from None
    for warning in cut:      # a truncated last line cut off: say so in one line
        click.echo(f"photocore selfplay: {warning.message}", err=True)
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
        click.echo(f"\nphotocore selfplay: interrupted. {_kept(out, skip, writer, created)}",
                   err=True)
        raise click.exceptions.Exit(130) from None
    except SelfPlayError as e:
        _close(records)
        raise click.ClickException(f"{e}. {_kept(out, skip, writer, created)}") from None
    except OSError as e:
        _close(records)
        if writer.failed is not e:
            raise
        raise click.ClickException(f"cannot write {out}: {reason(e)}. "
                                   f"{_kept(out, skip, writer, created)}") from None
    finally:
        _close(records)
    _print_summary(tally.summary(), time.perf_counter() - start, out, skip)


def _connect(address, timeout, interrupts):
    """Connects to Ray before OUT is opened: a failure leaves no file behind."""
    try:
        with interrupts.installed():
            from photocore.run.ray_backend import connect
            connect(address, timeout)
    except ImportError as e:
        raise missing("--backend ray", "ray", e) from None
    except ConnectionError as e:      # RayConnectError, or Ray's own
        raise click.ClickException((str(e).strip().splitlines() or [repr(e)])[-1]) from None
    except KeyboardInterrupt:
        click.echo("\nphotocore selfplay: interrupted while connecting to Ray; nothing "
                   "written", err=True)
        raise click.exceptions.Exit(130) from None


def _kept(out, skip, writer, created):
    """What OUT holds after a stopped run, and how to finish it. A file this run created
    and wrote no game to is removed: the same command then starts afresh."""
    if created and writer.count == 0:
        writer.close()
        with contextlib.suppress(OSError):
            os.unlink(out)
        return f"No game was finished; {out} was removed: run the same command again"
    return (f"{out} holds the {skip + writer.count:,} games finished before "
            f"({writer.count:,} from this run), whole lines only: run the same command with "
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
    """How many games an interrupted run already wrote, after checking they belong to it
    and that the file can be appended to."""
    if not os.path.exists(out):
        return 0
    reader = read_games(out, on_error="skip")
    count = 0
    try:
        for rec in reader:
            if reader.skipped:
                break       # a damaged line before this game
            wrong = series.mismatch(rec, count)
            if wrong is not None:
                raise click.ClickException(_not_this_run(out, reader.line, count, *wrong))
            count += 1
    except OSError as e:
        raise click.ClickException(f"cannot resume from {out}: {reason(e)}") from None
    if reader.errors and not _only_a_cut_last_line(out, reader):
        fix = (f"`photocore repair {out}` keeps its whole games and drops the rest; then run "
               "this command again" if reader.games else
               "It holds no whole game: remove it and run this command without --resume")
        raise click.ClickException(f"cannot resume from {out}: {reader.errors[0]}. {fix}")
    if count > series.games:
        raise click.ClickException(f"cannot resume: {out} already holds {count:,} games, "
                                   f"more than --games {series.games:,}")
    return count


def _only_a_cut_last_line(out, reader):
    """Whether the one bad line of `out` is an unfinished last line of a .jsonl, which a
    RecordWriter cuts off before it appends (a .jsonl.gz cut short cannot be appended to)."""
    if out.endswith(".gz") or len(reader.errors) != 1 or reader.errors[0].line <= reader.line:
        return False
    with open(out, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) != b"\n"


_FLAGS = {"rules_version": "the photocore rules version", "players": "--players",
          "options": "--fourth-revolution / --shade-blocks", "seed": "--seed",
          "agents": "--agents", "game": "the order of the games"}


def _not_this_run(out, line, index, field, found, expected):
    return (f"cannot resume: {out} is another run: its game on line {line:,} has {field} "
            f"{Series.describe(field, found)}, game {index:,} of this run has {field} "
            f"{Series.describe(field, expected)} (set by {_FLAGS[field]})")


def _print_summary(summary, seconds, out, skip):
    games, moves = summary["games"], summary["moves"]
    click.echo(f"{games:,} games{f' (after {skip:,} already in the file)' if skip else ''}, "
               f"{moves:,} moves in {seconds:.2f} s: {games / max(seconds, 1e-9):,.1f} games/s, "
               f"{moves / max(seconds, 1e-9):,.0f} moves/s -> {out}")
    click.echo("mean score by seat: " + ", ".join(f"{s:.2f}" for s in summary["mean_scores"]))
    click.echo("win rate by seat:   " + ", ".join(f"{w:.1%}" for w in summary["seat_win_rate"]))
    click.echo("win rate by agent:  " + ", ".join(
        f"{name} {rate:.1%}" for name, rate in sorted(summary["agent_win_rate"].items())))
