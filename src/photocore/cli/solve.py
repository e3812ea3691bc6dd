"""`photocore solve`: the exact value of a position under best play."""

import sys

import click

from photocore import records
from photocore._game import Game
from photocore.budget import Limit
from photocore.cli.options import (
    SEED,
    SEED_HELP,
    Count,
    FiniteRange,
    agent_option,
    summary_option,
)
from photocore.cli.output import check_writable, write_summary
from photocore.errors import InvalidPositionError, RecordError
from photocore.play import _solver, ground_truth, specs
from photocore.play._solver import (
    DEFAULT_MEMORY,
    DEFAULT_SECONDS,
    MACHINE_MEMORY,
    MAX_NODES,
    Solution,
)

__all__ = ["RESULTS", "solve", "as_dict", "describe"]

RESULTS = {1: "win", 0: "shared win", -1: "loss"}


@click.command()
@click.argument("source", metavar="POSITION|FILE")
@click.option("--game", "line", type=click.IntRange(min=1), default=1, show_default=True,
              help="With a record FILE: the game on line N.")
@click.option("--ply", type=click.IntRange(min=0), default=None,
              help="With a record FILE: the position after K moves.  [default: the last]")
# the solver's own range (photocore.solve: 1e-9 at least): a usage error here, its range in --help
@click.option("--seconds", type=FiniteRange(min=1e-9), default=DEFAULT_SECONDS,
              show_default=True, help="Wall-clock time the search may take.")
@click.option("--nodes", type=Count(MAX_NODES), default=None,
              help="Positions the search may visit.  [default: no limit]")
@click.option("--memory", type=click.IntRange(min=1), default=DEFAULT_MEMORY >> 20,
              show_default=True, callback=lambda ctx, param, mib: _memory(mib),
              help="MiB of transposition table, at most this machine's memory"
                   + (f" ({MACHINE_MEMORY >> 20:,} MiB here)." if MACHINE_MEMORY else "."))
@summary_option("the solution (with --agent, the score)")
@agent_option("With a FILE of solved positions (seeds/solved.jsonl): score this agent, how "
              "often it keeps their result, instead of solving.")
@click.option("--positions", type=click.IntRange(min=1), default=None,
              help="With --agent: the first N positions only.  [default: all]")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="With --agent: the agent's seed at the first position (+1 each next; "
                   f"{SEED_HELP}).")
def solve(source: str, line: int, ply: int | None, seconds: float, nodes: int | None,
          memory: int, summary: str | None, agent: str | None, positions: int | None,
          seed: int) -> None:
    """Solve a position: its result under best play (two players: win, shared win or
    loss for the player to move; three and four: every player's return, each maximising
    their own), the final score margin, every move's exact result and a line of best
    play (docs/searching.md, "Exact endgames").

    POSITION is a position in notation (Game.position(), the `position` command of
    photocore play); FILE a game
    record (.jsonl or .jsonl.gz), of which --game and --ply choose the position. Nothing
    is guessed: when a budget runs out first the answer is "unsolved", with how far the
    search got (exit status 3). Ctrl-C stops the search at once (exit status 130).

    With --agent SPEC, FILE is a set of solved positions (seeds/solved.jsonl, made by
    seeds/make_solved.py) and the agent SPEC plays a move in each: the share of the
    positions where some move loses the result in which its move kept it, and the share
    where it kept the margin too, with 95% intervals (docs/searching.md, "A ground truth").

    \b
    Examples:
    photocore solve games.jsonl --game 4 --ply 150 --seconds 60
    photocore solve "2 - 18 5 1 0 - a4:1:1,a5:1:1,b4:0:1 3/1110/2220/- 0/2200/4432/- 0579"
    photocore solve seeds/solved.jsonl --agent mcts:1000
    """
    if summary is not None:
        check_writable(summary, inputs=[source])
    if agent is not None:
        _score(source, agent, positions, seed, summary)
        return
    game = _position(source, line, ply)
    try:
        solution = _solver.solve(game, Limit(nodes=nodes, seconds=seconds, memory=memory << 20))
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    except MemoryError as e:       # the system would not give the table
        raise click.ClickException(f"{e} (--memory {memory:,}): ask for less") from None
    except KeyboardInterrupt:
        click.echo("\nphotocore solve: interrupted; no answer", err=True)
        raise click.exceptions.Exit(130) from None
    click.echo(describe(solution))
    if summary is not None:
        write_summary(summary, as_dict(solution))
    sys.exit(0 if solution.solved else 3)


def _memory(mib: int) -> int:
    """--memory checked: no more than this machine's memory (the solver's own bound, in
    MiB)."""
    if MACHINE_MEMORY is not None and mib << 20 > MACHINE_MEMORY:
        raise click.BadParameter(f"{mib:,} MiB is more than this machine's memory "
                                 f"({MACHINE_MEMORY >> 20:,} MiB)", param_hint="--memory")
    return mib


def _score(source: str, spec: str, count: int | None, seed: int, summary: str | None) -> None:
    try:
        parsed = specs.parse(spec)
        chosen = ground_truth.read(source)[:count]
        result = ground_truth.score(parsed, chosen, seed)
    except OSError as e:
        raise click.ClickException(f"{source}: {e.strerror or e}") from None
    except (RecordError, ValueError) as e:
        raise click.ClickException(str(e)) from None
    except KeyboardInterrupt:
        click.echo("\nphotocore solve: interrupted; no score", err=True)
        raise click.exceptions.Exit(130) from None
    share, low, high = result.accuracy()
    optimal, optimal_low, optimal_high = result.optimal_accuracy()
    click.echo(str(result))
    if summary is not None:
        write_summary(summary, {
            "player": result.player, "positions": result.positions,
            "contested": result.contested, "kept": result.kept, "accuracy": share,
            "interval": [low, high], "optimal": result.optimal, "optimal_accuracy": optimal,
            "optimal_interval": [optimal_low, optimal_high],
            "ms_a_move": 1000 * result.seconds / result.positions})


def _position(source: str, line: int, ply: int | None) -> Game:
    if source.endswith((".jsonl", ".jsonl.gz", ".json")):
        try:
            rec = records.read_game(source, line)
            if ply is not None and ply > len(rec["moves"]):
                raise click.BadParameter(f"the game on line {line} has {len(rec['moves'])} "
                                         "moves", param_hint="--ply")
            return records.from_record(rec, ply)
        except OSError as e:
            raise click.ClickException(f"{source}: {e.strerror or e}") from None
        except RecordError as e:
            raise click.ClickException(str(e.at(source, line) if e.path is None else e)) \
                from None
    try:
        return Game.from_position(source)
    except InvalidPositionError as e:
        raise click.BadParameter(f"{e} (give a position in notation or a record file)",
                                 param_hint="POSITION") from None


def as_dict(solution: Solution) -> dict[str, object]:
    """The solution as JSON-ready values: moves in notation."""
    return {"solved": solution.solved, "player": solution.player, "result": solution.result,
            "margin": solution.margin,
            "returns": list(solution.returns) if solution.returns else None,
            "moves": {str(m): list(v) for m, v in solution.moves.items()},
            "best": [str(m) for m in solution.best],
            "principal": [str(m) for m in solution.principal],
            "nodes": solution.nodes, "seconds": round(solution.seconds, 6),
            "table_hit_rate": round(solution.table_hit_rate, 4)}


def describe(solution: Solution) -> str:
    """The solution in words, a line each."""
    speed = (f"{solution.nodes:,} positions in {solution.seconds:.3g} s "
             f"({solution.nodes / max(solution.seconds, 1e-9):,.0f}/s), "
             f"table hits {solution.table_hit_rate:.0%}")
    if not solution.solved:
        return f"unsolved: the budget ran out after {speed}"
    assert solution.result is not None and solution.margin is not None and solution.returns
    two = len(solution.returns) == 2
    result = (RESULTS[int(solution.result)] if two else f"return {solution.result:+.3g} "
              f"(returns {', '.join(f'{r:+.3g}' for r in solution.returns)})")
    lines = [f"player {solution.player} to move: {result} by {solution.margin:+d} points "
             f"under best play ({speed})",
             "best: " + ", ".join(str(m) for m in solution.best),
             "line: " + " ".join(f"[{m}]" for m in solution.principal)]
    ranked = sorted(solution.moves.items(), key=lambda item: (-item[1][0], -item[1][1]))
    lines += [f"  {str(m):<14} {RESULTS[int(r)] if two else f'{r:+.3g}':<10} {d:+d}"
              for m, (r, d) in ranked]
    return "\n".join(lines)
