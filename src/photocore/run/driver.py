"""The one driver of runs of games. Self-play (run/selfplay.py), matches (run/match.py) and
training data (run/train_data.py) are Plans (run/plan.py); `drive` runs any of them:
batches of games in worker processes (run/local_backend.py), as Ray tasks
(run/ray_backend.py) or in this process, handed on in game order to the caller and to a
RecordWriter, with a progress bar, Ctrl-C that never cuts a batch in two, and the workers
stopped at once however the run ends. `resumed` checks the games a stopped run left in
its file before the same run goes on after them.

A plan's game i depends only on the plan and i (its seed), so a run gives the same games
whatever the workers, the batch size or the backend, and a resumed run the same file as
an uninterrupted one.

>>> from photocore.run.selfplay import Series
>>> [(s.start, s.size, len(s.result.lines)) for s in batches(Series(5), workers=0, batch=2)]
[(0, 2, 2), (2, 2, 2), (4, 1, 1)]
"""

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from types import FrameType
from typing import Generic, NamedTuple, overload

from tqdm import tqdm

from photocore.errors import RecordError
from photocore.facts import RULES_VERSION, Options
from photocore.records import Record, RecordWriter, is_compressed, kept_lines, read_games
from photocore.run import ray_backend
from photocore.run.local_backend import run_local
from photocore.run.plan import P, Plan, Resumable
from photocore.run.plan import RunError as RunError  # its name here before run/plan.py

__all__ = [
    "RunError", "BACKENDS", "MAX_WORKERS", "MAX_BATCH", "Span", "ResumeError", "default_batch",
    "Schedule", "check_run", "batches", "drive", "RECORD_FIELDS", "defined_by", "resumed"
]

BACKENDS = ("local", "ray")
"""The backends a run may use: local worker processes, or a ray cluster."""
MAX_WORKERS = 1024
"""The most worker processes of one machine's run."""
MAX_BATCH = 100_000
"""The most games of a batch: a batch's games are held in memory until written."""


class Span(NamedTuple, Generic[P]):
    """A span of the run, played: games start .. start + size - 1 and the Batch the plan
    gave back for them."""

    start: int
    size: int
    result: P


Span.start.__doc__ = "The index of its first game (from 0, as metadata.game)."
Span.size.__doc__ = "How many games it holds."
# (mypy calls a generic field read through its class ambiguous; its property is not generic)
Span.result.__doc__ = "What the plan's batch(start, size) gave back."  # type: ignore[misc]


class ResumeError(ValueError):
    """A run's file cannot be resumed: the message says why and what to do instead."""


# ---- batches ----------------------------------------------------------------------------

def default_batch(plan: Plan[P], games: int, workers: int) -> int:
    """Games per batch for `games` games on `workers` workers: a quarter of a worker's
    share, at most 4 for searching plans (milliseconds a move: small batches keep every
    worker busy and the progress bar moving) and 512 else (microseconds a game)."""
    per_worker = max(1, games // (4 * max(workers, 1)))
    return max(1, min(per_worker, 4 if plan.searches else 512))


class Schedule(Sequence[tuple[int, int]]):
    """The (start, count) batches covering games skip .. games - 1, each made when asked
    for: a run's memory does not grow with its games (10**12 of them hold no list).

    >>> list(Schedule(10, 4, skip=1)), len(Schedule(10**12, 512))
    ([(1, 4), (5, 4), (9, 1)], 1953125000)
    """

    def __init__(self, games: int, size: int, skip: int = 0) -> None:
        self.starts = range(skip, games, size)
        self.games, self.size = games, size

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, i: int) -> tuple[int, int]: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[tuple[int, int]]: ...

    def __getitem__(self, i: int | slice) -> tuple[int, int] | Sequence[tuple[int, int]]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        start = self.starts[i]
        return start, min(self.size, self.games - start)


def check_run(workers: int | None, batch: int | None) -> None:
    """Refuses a number of workers or a batch size out of range (ValueError naming it):
    0 (this process) to MAX_WORKERS workers, 1 to MAX_BATCH games a batch."""
    for name, value, low, high in (("workers", workers, 0, MAX_WORKERS),
                                   ("batch", batch, 1, MAX_BATCH)):
        if value is not None and (isinstance(value, bool) or not low <= value <= high):
            raise ValueError(f"{name} must be from {low} to {high:,}, got {value!r}")


def batches(plan: Plan[P], *, skip: int = 0, workers: int | None = None,
            batch: int | None = None, backend: str = "local",
            address: str | None = None) -> Generator[Span[P], None, None]:
    """Plays games skip .. plan.games - 1 and yields them batch by batch, in game order:
    in `workers` processes (default: this machine's cores; 0: in this process; at most
    MAX_WORKERS), or as Ray tasks on the cluster at `address` (backend="ray"). `batch`
    games a batch (default: default_batch; at most MAX_BATCH). Nothing grows with the
    plan's games: its batches are made as they are played. Closing the generator early
    (or an exception, or Ctrl-C, while it waits) stops every worker at once; a failure
    raises RunError after the batches before.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    check_run(workers, batch)
    left = plan.games - skip
    if backend == "ray":
        ray_backend.connect(address)
        todo = Schedule(plan.games, batch or default_batch(plan, left, ray_backend.cpus()),
                        skip)
        results = ray_backend.run_ray(plan, todo)
    else:
        workers = min(os.cpu_count() or 1, MAX_WORKERS) if workers is None else workers
        todo = Schedule(plan.games, batch or default_batch(plan, left, workers), skip)
        results = (run_local(plan, todo, workers) if workers
                   else (plan.batch(start, count) for start, count in todo))
    with contextlib.closing(results):
        # results first: past the last batch it ends the pool's run (not cut short)
        for result, (start, count) in zip(results, todo):
            yield Span(start, count, result)


# ---- the driver -------------------------------------------------------------------------

def drive(plan: Plan[P], take: Callable[[int, P], int | None] | None = None,
          writer: RecordWriter | None = None, *, skip: int = 0, workers: int | None = None,
          batch: int | None = None, backend: str = "local", address: str | None = None,
          progress: bool | None = False, status: Callable[[], str] | None = None) -> int:
    """Runs `plan` from game `skip` on (see batches) and hands each batch on in game order:
    first to `take(start, result)`, which may return k to keep the batch's first k games
    and stop the run there, then its record lines (those kept) to `writer`. A batch is
    handed on whole: a Ctrl-C meanwhile waits until it is. `progress`: a bar on stderr
    (None: when it is a terminal), followed by `status()`. Returns the games handed on.

    However it stops (KeyboardInterrupt, RunError, a failing write, an exception in
    `take`), the workers are stopped before the exception goes on.
    """
    interrupts = _DeferredInterrupt()
    done = 0
    with (interrupts.installed(),
          contextlib.closing(batches(plan, skip=skip, workers=workers, batch=batch,
                                     backend=backend, address=address)) as played,
          tqdm(total=plan.games, initial=skip, unit="game", dynamic_ncols=True,
               disable=None if progress is None else not progress) as bar):
        for start, size, result in played:
            with interrupts.deferred():
                keep = take(start, result) if take is not None else None
                if writer is not None:
                    writer.write_lines(result.lines[:keep])
            done += size if keep is None else keep
            bar.update(size if keep is None else keep)
            if status is not None:
                bar.set_postfix_str(status(), refresh=False)
            if keep is not None:
                break
    return done


class _DeferredInterrupt:
    """SIGINT (Ctrl-C) raises KeyboardInterrupt as usual, but not while a batch is handed
    on: there it waits until the batch is, so the file gets it whole."""

    def __init__(self) -> None:
        self.deferring = False
        self.pending = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.deferring:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield   # signal handlers are the main thread's: as it was
            return
        previous = signal.signal(signal.SIGINT, self)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        self.deferring = True
        try:
            yield
        finally:
            self.deferring = False
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt


# ---- resuming ---------------------------------------------------------------------------

RECORD_FIELDS = ("rules_version", "players", "options")
"""The fields a resumed run compares at the top level of a record; the others it compares in the
record's metadata."""


def defined_by(players: int, options: Options, metadata: Mapping[str, object],
               fields: Sequence[str]) -> dict[str, object]:
    """What a game is defined by, as Resumable.defining gives it: the RECORD_FIELDS of a
    record of `players` and `options`, then the `fields` of its `metadata` (the plan's, so
    that what is checked is what is written; None for a field it leaves out, as a record
    without it reads), in the order a mismatch is told.

    >>> fields = defined_by(2, Options(), {"agents": ["greedy", "random"], "seed": 7},
    ...                     ["seed", "limit"])
    >>> list(fields), fields["seed"], fields["limit"]
    (['rules_version', 'players', 'options', 'seed', 'limit'], 7, None)
    """
    return {"rules_version": RULES_VERSION, "players": players, "options": options._asdict(),
            **{field: metadata.get(field) for field in fields}}


def resumed(path: str, plan: Resumable[P], set_by: Mapping[str, str],
            take: Callable[[int, Record], object] | None = None) -> int:
    """How many games of `plan` a stopped run already wrote to `path` (0 if there is no
    such file), after checking that they are its first games, in order, and that the file
    can be appended to; each is handed to `take(index, record)`. ResumeError otherwise,
    naming the first field that differs and the option that sets it (`set_by`: field ->
    option), or telling how to repair the file."""
    if not os.path.exists(path):
        return 0
    try:
        # an unfinished last write of a .jsonl.gz, which the writer cuts off: not counted
        last = kept_lines(path) if is_compressed(path) else None
    except RecordError as e:
        raise ResumeError(f"cannot resume from {path}: {e.reason}") from None
    except OSError as e:
        raise ResumeError(f"cannot resume from {path}: {e.strerror or e}") from None
    reader = read_games(path, on_error="skip")
    count = 0
    try:
        for rec in reader:
            if reader.skipped or last is not None and reader.line > last:
                break       # a damaged line before this game, or a game to be cut off
            if count < plan.games:
                wrong = _mismatch(rec, plan.defining(count))
                if wrong is not None:
                    field, found, expected = wrong
                    # games numbered from 1, as lines are; metadata.game is an index
                    name = "game index" if field == "game" else field
                    raise ResumeError(
                        f"cannot resume: {path} is another run: its game on line "
                        f"{reader.line:,} has {name} {_words(field, found)}, game "
                        f"{count + 1:,} of this run has {name} {_words(field, expected)} "
                        f"(set by {set_by.get(field, field)})")
                if take is not None:
                    take(count, rec)
            count += 1
    except OSError as e:
        raise ResumeError(f"cannot resume from {path}: {e.strerror or e}") from None
    errors = [e for e in reader.errors if last is None or (e.line or 0) <= last]
    if errors and not _only_a_cut_last_line(path, errors, reader.line):
        fix = (f"`photocore repair {path}` keeps its whole games and drops the rest; then "
               "run this command again" if reader.games else
               "It holds no whole game: remove it and run this command without --resume")
        raise ResumeError(f"cannot resume from {path}: {errors[0]}. {fix}")
    if count > plan.games:
        raise ResumeError(f"cannot resume: {path} already holds {count:,} games, more than "
                          f"the {plan.games:,} of this run")
    return count


def _mismatch(rec: Record, defining: dict[str, object]) -> tuple[str, object, object] | None:
    """The first field of `defining` that record `rec` holds otherwise, as (field, the
    record's value, the expected value); None when it is that game."""
    meta = rec.get("metadata") or {}
    for field, expected in defining.items():
        found = rec.get(field) if field in RECORD_FIELDS else meta.get(field)
        if found != expected:
            return field, found, expected
    return None


def _words(field: str, value: object) -> str:
    """A value of a record field in words, as the command line sets it.

    >>> _words("agents", ["mcts:5", "greedy"]), _words("options", Options.parse("s")._asdict())
    ('mcts:5,greedy by seat', 'shade blocks')
    """
    if field == "agents" and isinstance(value, list):
        return ",".join(map(str, value)) + " by seat"
    if field == "options" and isinstance(value, dict):
        with contextlib.suppress(TypeError, ValueError):
            return Options(**value).name
    return "none" if value is None else str(value)


def _only_a_cut_last_line(path: str, errors: Sequence[RecordError], line: int) -> bool:
    """Whether the one bad line of `path` (after the line of its last game) is an
    unfinished last line of a .jsonl, which a RecordWriter cuts off before it appends."""
    if is_compressed(path) or len(errors) != 1 or (errors[0].line or 0) <= line:
        return False
    with open(path, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) != b"\n"

