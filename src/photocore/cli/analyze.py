"""`photocore analyze`: every move of recorded games evaluated by an engine, written back as
records that hold their analysis (metadata.analysis, docs/analysis.md); with --serve, an
analysis engine for tools: JSON-line queries on standard input, answers on standard output.
"""

import json
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, BinaryIO, NamedTuple

import click

from photocore import analysis
from photocore._game import Game
from photocore.cli.options import (
    SEED,
    SEED_HELP,
    backend_options,
    check_backend,
    connect_backend,
    workers_option,
)
from photocore.cli.output import check_writable, record_file, resume_from, run_output
from photocore.errors import InvalidMoveError, InvalidPositionError, RecordError
from photocore.play._agents import MAX_SIMULATIONS
from photocore.play._solver import MAX_NODES
from photocore.play.specs import Allowed, split
from photocore.play.specs import parse as parse_spec
from photocore.records import Record, check_record, is_compressed, loads, read_games, record_line
from photocore.run.driver import ResumeError, drive

MAX_QUERY_VISITS = 1_000_000   # a query's visits at most, unless --max-visits says otherwise
MAX_QUERY = 1024 * 1024        # bytes in one query line

# the option that sets each field a resumed game must match
SET_BY = {"rules_version": "GAMES", "players": "GAMES", "options": "GAMES",
          "agents": "GAMES", "moves": "GAMES", "engine": "--engine", "seed": "--seed",
          "solve": "--solve"}


class AnalysisBatch(NamedTuple):
    """A batch of analysed games."""

    lines: list[bytes]
    positions: int


AnalysisBatch.lines.__doc__ = "The analysed games' record lines, in order."
AnalysisBatch.positions.__doc__ = "The positions valued."


class AnalysisRun:
    """The games of the record file `path` analysed by `engine` (a spec, see
    photocore.analysis.judge; `budget` its simulations) and the solver within `solve`
    positions a position (None: not used), seeded `seed`: a Plan of photocore.run.driver.
    Game i's analysis depends only on the game, the engine, the solver's budget and
    (seed, i). The file is read first as `photocore verify` reads it, every game replayed:
    a bad game stops the run before it starts (RecordError naming its line and ply)."""

    def __init__(self, path: str, engine: str, budget: int | None = None, seed: int = 0,
                 thresholds: analysis.Thresholds = analysis.THRESHOLDS,
                 solve: int | None = analysis.DEFAULT_SOLVE_NODES) -> None:
        self.path, self.spec, self.budget, self.seed = path, engine, budget, seed
        self.thresholds, self.solve = thresholds, solve
        self.engine_name = analysis.judge(engine, budget).name     # fails early
        self._defining: list[dict[str, object]] = []
        lines = []
        # replayed here, not first in a worker, whose failure would only repeat on --resume
        reader = read_games(path, verify=True)
        for rec in reader:
            lines.append(reader.line)
            self._defining.append({
                "rules_version": rec["rules_version"], "players": rec["players"],
                "options": rec["options"], "agents": rec["metadata"]["agents"]})
        self.games = len(self._defining)
        # where each game's line starts, for the batches to read it (a .gz: read through)
        starts = None if is_compressed(path) else _line_starts(path)
        self.offsets = None if starts is None else [starts[line - 1] for line in lines]

    @property
    def searches(self) -> bool:
        return True

    def __getstate__(self) -> dict[str, object]:
        # the batches need not the identities of every game, which only resuming reads
        return dict(self.__dict__, _defining=[])

    def batch(self, start: int, count: int) -> AnalysisBatch:
        judge = analysis.judge(self.spec, self.budget)
        lines, positions = [], 0
        for index, rec in enumerate(self._read(start, count), start):
            result = analysis.analyze(rec, judge, seed=self.seed, thresholds=self.thresholds,
                                      index=index, solve_nodes=self.solve)
            positions += len(result.plies)
            lines.append(record_line(analysis.with_analysis(rec, result)))
        return AnalysisBatch(lines, positions)

    def defining(self, index: int) -> dict[str, object]:
        """What game `index` of the output is defined by (the input's game): the fields
        a resumed run checks (the moves, engine, seed and solver: `check_resumed`)."""
        return self._defining[index]

    def check_resumed(self, index: int, rec: Record) -> None:
        """ResumeError unless the output's game `index` is the analysis this run makes."""
        data = rec["metadata"].get("analysis") or {}
        expected = {"engine": self.engine_name, "seed": self.seed, "solve": self.solve}
        for name, value in expected.items():
            if data.get(name) != value:
                raise ResumeError(f"cannot resume: game {index:,} of the output was analysed "
                                  f"with {name} {data.get(name)!r}, this run's is {value!r} "
                                  f"(set by {SET_BY[name]})")

    def _read(self, start: int, count: int) -> Iterator[Record]:
        if self.offsets is not None:
            with open(self.path, "rb") as f:
                for index in range(start, start + count):
                    f.seek(self.offsets[index])
                    rec = loads(f.readline())
                    check_record(rec)       # read as every reader reads it (2.0 -> 2)
                    yield rec
            return
        for index, rec in enumerate(read_games(self.path)):
            if index >= start + count:
                return
            if index >= start:
                yield rec


def _line_starts(path: str) -> list[int]:
    """The byte offset of each line of a file (line n at index n - 1), as read_games
    numbers them."""
    starts, offset = [], 0
    with open(path, "rb") as f:
        for data in f:
            starts.append(offset)
            offset += len(data)
    return starts


@click.command()
@click.argument("games", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--engine", default=analysis.DEFAULT_ENGINE, show_default=True,
              help="The engine: mcts:N (UCT, N playouts a position), or a py: agent spec "
                   "whose class is a SearchAgent (the AlphaZero checkpoint: "
                   "py:examples/alphazero/agent.py:AlphaZeroAgent?simulations=200) or has "
                   "analyze(game).")
@click.option("--out", type=click.Path(dir_okay=False), callback=record_file, default=None,
              help="The analysed records: .jsonl or .jsonl.gz  [default: GAMES with "
                   ".analysed before its suffix]")
@workers_option("Processes (with --serve: threads) analysing  [default: this machine's "
                "cores]")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="The same seed gives the same analysis, whatever --workers and --backend "
                   f"({SEED_HELP}).")
@click.option("--solve", type=click.IntRange(1, MAX_NODES), default=None, metavar="NODES",
              help="Where the solver finishes a position within NODES positions (two "
                   "players, the last two rounds, from the end back), its exact values "
                   "stand for the engine's.  [default: "
                   f"{analysis.DEFAULT_SOLVE_NODES:,}]")
@click.option("--no-solve", is_flag=True, help="The engine alone: no solver.")
@click.option("--resume", is_flag=True,
              help="Continue an interrupted run: keep the games already in --out.")
@backend_options
@click.option("--progress/--no-progress", default=None,
              help="Progress bar  [default: when stderr is a terminal]")
@click.option("--serve", is_flag=True,
              help="Answer JSON-line queries on standard input instead (docs/analysis.md).")
@click.option("--allow", metavar="SPECS", default=None,
              help="With --serve: further engines a query may name (comma-separated specs). "
                   "A query may name --engine, these, and the built-in ones among them at "
                   "any budget up to --max-visits; nothing else.")
@click.option("--max-visits", type=click.IntRange(1, MAX_SIMULATIONS),
              default=MAX_QUERY_VISITS, show_default=True,
              help="With --serve: the most visits a query may ask for.")
def analyze(games: str | None, engine: str, out: str | None, workers: int | None, seed: int,
            solve: int | None, no_solve: bool, resume: bool, backend: str,
            address: str | None, connect_timeout: float, progress: bool | None, serve: bool,
            allow: str | None, max_visits: int) -> None:
    """Evaluate every move of the games in GAMES and write them, with their analysis, to
    OUT: each position's value for every player, the engine's best move, the loss of the
    move played, inaccuracies, mistakes and blunders, and each player's accuracy
    (docs/analysis.md); exactly, by the solver, where it finishes (--solve). `photocore
    replay` shows them; `photocore stats` sums them up by agent. Ctrl-C keeps every
    finished game in OUT, and --resume finishes the run.

    \b
    Example:  photocore analyze games.jsonl --engine mcts:1000 --out analysed.jsonl
              photocore analyze --serve --engine mcts:1000 < queries.jsonl
    """
    check_backend(backend)
    if no_solve and solve is not None:
        raise click.UsageError("--solve NODES or --no-solve: not both")
    nodes = None if no_solve else solve or analysis.DEFAULT_SOLVE_NODES
    if not serve and allow is not None:
        raise click.UsageError("--allow names the engines queries may choose: only with --serve")
    if serve:
        if games is not None or out is not None or resume or backend != "local":
            raise click.UsageError("--serve reads queries on standard input: no GAMES, "
                                   "--out, --resume or --backend ray")
        try:
            analysis.judge(engine)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--engine") from None
        try:
            engines = Allowed([engine, *split(allow)] if allow else [engine], max_visits)
            for spec in engines.by_label.values():
                analysis.judge(spec.text)          # each loads once, and fails now
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--allow") from None
        try:
            serve_queries(query_lines(sys.stdin.buffer), sys.stdout, engine,
                          workers or os.cpu_count() or 1, seed, engines, nodes)
        except KeyboardInterrupt:
            raise SystemExit(130) from None
        return
    if games is None:
        raise click.UsageError("Missing argument 'GAMES' (or --serve).")
    out = out or _analysed_name(games)
    try:
        inputs = [games, *parse_spec(engine).files]
    except ValueError:
        inputs = [games]        # (a bad --engine is told below)
    check_writable(out, append=resume, inputs=inputs)
    try:
        run = AnalysisRun(games, engine, seed=seed, solve=nodes)
    except RecordError as e:   # told now, not by a worker: --resume would not get past it
        fix = (f"`photocore repair {games}` keeps its whole games and drops the rest"
               if e.ply is None else      # a damaged line, which repair drops
               f"`photocore verify {games}` lists every bad game; leave them out of {games} "
               "(or mend them)")
        raise click.ClickException(f"{e}. No game was analysed: {fix}, and run again") \
            from None
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--engine") from None
    skip = resume_from(out, resume, run, SET_BY, run.check_resumed, inputs)
    if skip == run.games:
        click.echo(f"{out} already holds all {run.games:,} games: nothing to analyse")
        return
    connect_backend("analyze", backend, address, connect_timeout)
    positions = 0
    start = time.perf_counter()

    def take(first: int, played: AnalysisBatch) -> None:
        nonlocal positions
        positions += played.positions

    def speed() -> str:
        return f"{positions / max(time.perf_counter() - start, 1e-9):,.1f} positions/s"

    with run_output("analyze", out, resume, skip) as writer:
        drive(run, take, writer, skip=skip, workers=workers, backend=backend, address=address,
              progress=progress, status=speed)
    seconds = time.perf_counter() - start
    solver = "" if nodes is None else f" and the solver (--solve {nodes:,})"
    click.echo(f"{run.games - skip:,} games, {positions:,} moves analysed by "
               f"{run.engine_name}{solver} in {seconds:.1f} s ({speed()}) -> {out}")
    _print_summary(analysis.summarise(read_games(out)))


def _analysed_name(path: str) -> str:
    """games.jsonl.gz -> games.analysed.jsonl.gz"""
    for suffix in (".jsonl.gz", ".jsonl"):
        if path.endswith(suffix):
            return path[:-len(suffix)] + ".analysed" + suffix
    return path + ".analysed.jsonl"


def _print_summary(rows: dict[str, dict[str, float | int]]) -> None:
    for name, row in rows.items():
        click.echo(f"{name}: {row['moves']:,} moves, accuracy {row['accuracy']:.1f}, loss "
                   f"{row['win_loss']:.2%} of a win a move, {row['inaccuracy']} inaccuracies, "
                   f"{row['mistake']} mistakes, {row['blunder']} blunders")


# ---- --serve ----------------------------------------------------------------------------

class QueryError(ValueError):
    """A query that cannot be answered: the message says why."""


def answer(query: object, engines: Allowed, engine: str, seed: int,
           solve: int | None = analysis.DEFAULT_SOLVE_NODES) -> dict[str, Any]:
    """The answer to one query (a parsed JSON object, see docs/analysis.md): by `engine`
    unless it names another of `engines`, the only ones a query may choose; exact, by the
    solver, where it finishes within `solve` positions (analysis.exact_evaluation)."""
    if not isinstance(query, dict):
        raise QueryError(f"a query is a JSON object, not {type(query).__name__}")
    unknown = set(query) - {"id", "position", "moves", "engine", "visits", "seed"}
    if unknown:
        raise QueryError(f"unknown field {sorted(unknown)[0]!r}")
    spec = query.get("engine", engine)
    visits = query.get("visits")
    if not isinstance(spec, str):
        raise QueryError(f"engine must be a string, got {spec!r}")
    chosen = engines.find(spec)      # before anything is loaded
    limit = engines.max_simulations or MAX_SIMULATIONS
    if visits is not None and (type(visits) is not int or not 1 <= visits <= limit):
        raise QueryError(f"visits must be an integer from 1 to {limit:,}, got {visits!r}")
    query_seed = query.get("seed", seed)
    if type(query_seed) is not int:
        raise QueryError(f"seed must be an integer, got {query_seed!r}")
    game = _game(query)
    if game.is_over:
        raise QueryError("the game is over: there is no move to evaluate")
    judge = analysis.judge(chosen.text, visits)
    evaluation = analysis.exact_evaluation(game, solve) or judge.evaluation(game, query_seed)
    return {"id": query.get("id"), "engine": judge.name, **evaluation.to_json()}


def _game(query: dict[str, Any]) -> Game:
    position, moves = query.get("position"), query.get("moves", [])
    if position is not None and not isinstance(position, str):
        raise QueryError(f"position must be position text, got {position!r}")
    if not isinstance(moves, list):
        raise QueryError(f"moves must be a list of move texts, got {moves!r}")
    try:
        game = Game() if position is None else Game.from_position(position)
    except InvalidPositionError as e:
        raise QueryError(f"bad position: {e}") from None
    for ply, move in enumerate(moves, 1):
        try:
            game.play(move)
        except (InvalidMoveError, ValueError, TypeError) as e:
            raise QueryError(f"move {ply} ({move!r}): {e}") from None
    return game


def serve_queries(source: Iterable[str | bytes | None], sink: Any, engine: str, workers: int,
                  seed: int, engines: Allowed | None = None,
                  solve: int | None = analysis.DEFAULT_SOLVE_NODES) -> None:
    """Answers the JSON-line queries of `source` on `sink`, each as soon as it is ready
    (out of order), `workers` at a time, by `engine` or another of `engines` (default:
    `engine` alone, built-ins up to MAX_QUERY_VISITS), or exactly by the solver where it
    finishes within `solve` positions. `source` gives lines (text, or bytes of UTF-8; None
    for a line too long to read, as query_lines gives them). Every line but a blank one gets
    exactly one answer: a bad query, {"id", "error"}, and the rest go on. Returns at the end
    of `source`, once every query is answered; on Ctrl-C, once the queries being answered
    are, without starting the others. At most 4 x `workers` queries wait: a client that
    writes faster than they are answered waits too."""
    engines = engines or Allowed([engine], MAX_QUERY_VISITS)
    lock = threading.Lock()
    room = threading.BoundedSemaphore(4 * workers)

    def send(message: dict[str, Any]) -> None:
        try:
            line = json.dumps(message, separators=(",", ":"), allow_nan=False)
        except (ValueError, RecursionError) as e:     # an id nested too deeply to write
            line = json.dumps({"id": None, "error": f"the answer cannot be written as JSON "
                                                    f"({e})"}, separators=(",", ":"))
        with lock:
            sink.write(line + "\n")
            sink.flush()

    def run(query: Any) -> None:
        ident = query.get("id") if isinstance(query, dict) else None
        try:
            send(answer(query, engines, engine, seed, solve))
        except Exception as e:  # noqa: BLE001 (a bad query, or the engine's error: said, not fatal)
            send({"id": ident, "error": str(e) if isinstance(e, ValueError)
                  else f"{type(e).__name__}: {e}"})
        finally:
            room.release()

    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        for line in source:
            try:
                query = _query(line)
            except QueryError as e:
                send({"id": None, "error": str(e)})
                continue
            if query is _BLANK:
                continue
            room.acquire()
            pool.submit(run, query)
    except BaseException:
        # Ctrl-C (or a broken input): the queries under way are answered, no other starts
        pool.shutdown(cancel_futures=True)
        raise
    pool.shutdown()     # every query answered


_BLANK = object()


def _query(line: str | bytes | None) -> Any:
    """A query line parsed (_BLANK for a blank line), or QueryError saying what is wrong
    with it."""
    if line is None:
        raise QueryError(f"a query line longer than {MAX_QUERY // 1024} KiB")
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as e:
            raise QueryError(f"the line is not UTF-8 ({e.reason} at byte {e.start})") from None
    if not line.strip():
        return _BLANK
    try:
        return loads(line)          # strictly JSON, as every record and message is read
    except RecordError as e:
        raise QueryError(str(e)) from None


def query_lines(stream: BinaryIO, limit: int = MAX_QUERY) -> Iterator[bytes | None]:
    """The lines of `stream`, None for one longer than `limit` bytes (read past, not kept:
    a client's endless line does not fill the memory)."""
    while line := stream.readline(limit + 1):
        if len(line) > limit:
            while line and not line.endswith(b"\n"):
                line = stream.readline(65536)
            yield None
        else:
            yield line
