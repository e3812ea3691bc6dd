"""The analysis server for tools (`photocore analyze --serve`, docs/analysis.md): JSON-line
queries, each a position to evaluate, answered as they finish by a pool of threads, an
answer or an error for every line, out of order, with a bounded queue."""

import json
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, BinaryIO

from photocore import analysis
from photocore._game import Game
from photocore.budget import Limit
from photocore.errors import InvalidMoveError, InvalidPositionError, RecordError
from photocore.limits import QUERY_LINE_CAP, READ_CHUNK
from photocore.play._agents import MAX_SIMULATIONS, interrupt_searches
from photocore.play.allowed import Allowed
from photocore.strictjson import loads

__all__ = ["MAX_QUERY_VISITS", "MAX_QUERY", "QueryError", "answer", "serve_queries", "query_lines"]

MAX_QUERY_VISITS = 1_000_000
"""A query's visits at most, unless the server says otherwise."""
MAX_QUERY = QUERY_LINE_CAP
"""Bytes in one query line at most (photocore.limits)."""


class QueryError(ValueError):
    """A query that cannot be answered: the message says why."""


def answer(query: object, judges: Allowed, judge: str, seed: int,
           limit: Limit | None = None, exact: bool = True) -> dict[str, Any]:
    """The answer to one query (a parsed JSON object, see docs/analysis.md): by `judge`
    (an agent spec, the query's "judge" field) unless it names another of `judges`, the
    only ones a query may choose, with the query's visits; exact, by the solver, where it
    finishes within `limit`'s nodes (analysis.solver_nodes: `exact` False, no solver)."""
    nodes = analysis.solver_nodes(limit, exact)
    if not isinstance(query, dict):
        raise QueryError(f"a query is a JSON object, not {type(query).__name__}")
    unknown = set(query) - {"id", "position", "moves", "judge", "visits", "seed"}
    if unknown:
        raise QueryError(f"unknown field {sorted(unknown)[0]!r}")
    spec = query.get("judge", judge)
    visits = query.get("visits")
    if not isinstance(spec, str):
        raise QueryError(f"judge must be a string, got {spec!r}")
    chosen = judges.find(spec)      # before anything is loaded
    most = judges.max_simulations or MAX_SIMULATIONS
    if visits is not None and (type(visits) is not int or not 1 <= visits <= most):
        raise QueryError(f"visits must be an integer from 1 to {most:,}, got {visits!r}")
    query_seed = query.get("seed", seed)
    if type(query_seed) is not int:
        raise QueryError(f"seed must be an integer, got {query_seed!r}")
    game = _game(query)
    if game.is_over:
        raise QueryError("the game is over: there is no move to evaluate")
    chosen_judge = analysis.judge(chosen.text,
                                  None if visits is None else Limit(simulations=visits))
    evaluation = (analysis.exact_evaluation(game, nodes)
                  or chosen_judge.evaluation(game, query_seed))
    return {"id": query.get("id"), "judge": chosen_judge.name, **evaluation.to_json()}


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


def serve_queries(source: Iterable[str | bytes | None], sink: Any, judge: str, workers: int,
                  seed: int, judges: Allowed | None = None, limit: Limit | None = None,
                  exact: bool = True) -> None:
    """Answers the JSON-line queries of `source` on `sink`, each as soon as it is ready
    (out of order), `workers` at a time, by `judge` or another of `judges` (default:
    `judge` alone, built-ins up to MAX_QUERY_VISITS), or exactly by the solver where it
    finishes within `limit`'s nodes (as answer()'s, `exact` too). `source` gives lines
    (text, or bytes of UTF-8; None for a line too long to read, as query_lines gives
    them). Every line but a blank one gets exactly one answer: a bad query, {"id",
    "error"}, and the rest go on. Returns at the end of `source`, once every query is
    answered; on Ctrl-C at once: the searches under way stop (interrupt_searches), their
    queries and the waiting ones get no answer, and the KeyboardInterrupt goes on. At most
    4 x `workers` queries wait: a client that writes faster than they are answered waits
    too."""
    judges = judges or Allowed([judge], MAX_QUERY_VISITS)
    lock = threading.Lock()
    room = threading.BoundedSemaphore(4 * workers)
    stopping = False

    def send(message: dict[str, Any]) -> None:
        if stopping:
            return              # Ctrl-C: no more answers (a stopped search's least of all)
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
            send(answer(query, judges, judge, seed, limit, exact))
        except KeyboardInterrupt:
            pass                # stopped by the main thread's Ctrl-C: no answer
        except Exception as e:  # noqa: BLE001 (a bad query, or the judge's error: said, not fatal)
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
    except KeyboardInterrupt:
        # Ctrl-C: the searches under way stop at their next look (some ms), no other query
        # starts, none is answered
        stopping = True
        previous = interrupt_searches(True)
        try:
            pool.shutdown(cancel_futures=True)
        finally:
            interrupt_searches(previous)
        raise
    except BaseException:
        # a broken input: the queries under way are answered, no other starts
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
                line = stream.readline(READ_CHUNK)
            yield None
        else:
            yield line
