"""`photocore analyze`: every move of recorded games evaluated by a judge (the agent
--agent names), written back as records that hold their analysis (metadata.analysis,
docs/analysis.md): the plan is run/analysis.py's; with --serve, an analysis server for
tools (serve/queries.py): JSON-line queries on standard input, answers on standard output.
"""

import functools
import os
import sys
import time

import click

from photocore import analysis
from photocore.budget import Limit
from photocore.cli.options import (
    SEED,
    SEED_HELP,
    Count,
    agent_option,
    backend_options,
    check_backend,
    connect_backend,
    workers_option,
)
from photocore.cli.output import check_writable, record_file, resume_from, run_output
from photocore.errors import RecordError
from photocore.play._agents import MAX_SIMULATIONS
from photocore.play._solver import MAX_NODES
from photocore.play.allowed import Allowed
from photocore.play.specs import parse as parse_spec
from photocore.play.specs import split
from photocore.records import read_games
from photocore.run.analysis import AnalysisBatch, AnalysisRun
from photocore.run.driver import drive
from photocore.serve.queries import MAX_QUERY_VISITS, query_lines, serve_queries

__all__ = ["SET_BY", "analyze"]

# the option that sets each field a resumed game must match
SET_BY = {"rules_version": "FILE", "players": "FILE", "options": "FILE",
          "agents": "FILE", "moves": "FILE", "judge": "--agent", "seed": "--seed",
          "solve_nodes": "--nodes"}


@click.command()
@click.argument("games", metavar="FILE", required=False,
                type=click.Path(exists=True, dir_okay=False))
@agent_option("The judge: the agent that values every position, mcts:N (UCT, N simulations a "
              "position), or a py: agent whose class is a SearchAgent (the AlphaZero "
              "checkpoint: py:examples/alphazero/agent.py:AlphaZeroAgent?simulations=200) "
              "or has analyze(game).", default=analysis.DEFAULT_JUDGE)
@click.option("--out", type=click.Path(dir_okay=False), callback=record_file, default=None,
              help="The analysed records: .jsonl or .jsonl.gz  [default: FILE with "
                   ".analysed before its suffix]")
@workers_option("Processes (with --serve: threads) analysing  [default: this machine's "
                "cores]")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="The same seed gives the same analysis, whatever --workers and --backend "
                   f"({SEED_HELP}).")
@click.option("--nodes", type=Count(MAX_NODES), default=None, metavar="N",
              help="Where the solver finishes a position within N positions (two "
                   "players, the last two rounds, from the end back), its exact values "
                   "stand for the agent's.  [default: "
                   f"{analysis.DEFAULT_SOLVE_NODES:,}]")
@click.option("--no-solve", is_flag=True, help="The agent alone: no solver.")
@click.option("--resume", is_flag=True,
              help="Continue an interrupted run: keep the games already in --out.")
@backend_options
@click.option("--progress/--no-progress", default=None,
              help="Progress bar  [default: when stderr is a terminal]")
@click.option("--serve", is_flag=True,
              help="Answer JSON-line queries on standard input instead (docs/analysis.md).")
@click.option("--allow", metavar="SPEC,...", default=None,
              help="With --serve: further judges a query may name (its \"judge\" field). "
                   "A query may name --agent, these, and the built-in ones among them at "
                   "any budget up to --max-visits; nothing else.")
@click.option("--max-visits", type=click.IntRange(1, MAX_SIMULATIONS),
              default=MAX_QUERY_VISITS, show_default=True,
              help="With --serve: the most visits a query may ask for.")
def analyze(games: str | None, agent: str, out: str | None, workers: int | None, seed: int,
            nodes: int | None, no_solve: bool, resume: bool, backend: str,
            address: str | None, connect_timeout: float, progress: bool | None, serve: bool,
            allow: str | None, max_visits: int) -> None:
    """Evaluate every move of the games in FILE and write them, with their analysis, to
    OUT: each position's value for every player, the judge's best move, the loss of the
    move played, inaccuracies, mistakes and blunders, and each player's accuracy
    (docs/analysis.md); exactly, by the solver, where it finishes (--nodes). `photocore
    replay` shows them; `photocore stats` sums them up by agent. Ctrl-C keeps every
    finished game in OUT, and --resume finishes the run.

    \b
    Example:  photocore analyze games.jsonl --agent mcts:1000 --out analysed.jsonl
              photocore analyze --serve --agent mcts:1000 < queries.jsonl
    """
    check_backend(backend)
    if no_solve and nodes is not None:
        raise click.UsageError("--nodes N or --no-solve: not both")
    limit = None if nodes is None else Limit(nodes=nodes)
    if not serve and allow is not None:
        raise click.UsageError("--allow names the agents queries may choose: only with --serve")
    if serve:
        if games is not None or out is not None or resume or backend != "local":
            raise click.UsageError("--serve reads queries on standard input: no FILE, "
                                   "--out, --resume or --backend ray")
        try:
            analysis.judge(agent)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--agent") from None
        try:
            judges = Allowed([agent, *split(allow)] if allow else [agent], max_visits)
            for spec in judges.by_label.values():
                analysis.judge(spec.text)          # each loads once, and fails now
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--allow") from None
        try:
            serve_queries(query_lines(sys.stdin.buffer), sys.stdout, agent,
                          workers or os.cpu_count() or 1, seed, judges, limit, not no_solve)
        except KeyboardInterrupt:
            raise SystemExit(130) from None
        return
    if games is None:
        raise click.UsageError("Missing argument 'FILE' (or --serve).")
    out = out or _analysed_name(games)
    try:
        inputs = [games, *parse_spec(agent).files]
    except ValueError:
        inputs = [games]        # (a bad --agent is told below)
    check_writable(out, append=resume, inputs=inputs)
    try:
        run = AnalysisRun(games, agent, limit, seed, exact=not no_solve)
    except RecordError as e:   # told now, not by a worker: --resume would not get past it
        fix = (f"`photocore repair {games}` keeps its whole games and drops the rest"
               if e.ply is None else      # a damaged line, which repair drops
               f"`photocore verify {games}` lists every bad game; leave them out of {games} "
               "(or mend them)")
        raise click.ClickException(f"{e}. No game was analysed: {fix}, and run again") \
            from None
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--agent") from None
    if not run.games:        # an empty file: 0 games, as to every command
        click.echo(f"{games}: 0 games, nothing to analyse")
        return
    skip = resume_from(out, resume, run, SET_BY,
                       functools.partial(run.check_resumed, set_by=SET_BY), inputs)
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
    solver = "" if nodes is None else f" and the solver (--nodes {nodes:,})"
    click.echo(f"{run.games - skip:,} games, {positions:,} moves analysed by "
               f"{run.judge_name}{solver} in {seconds:.1f} s ({speed()}) -> {out}")
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


