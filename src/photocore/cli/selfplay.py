"""`photocore selfplay`: many games by the C agents, written as records."""

import os
import time

import click
from tqdm import tqdm

from photocore.cli.options import game_options
from photocore.records import RecordWriter, read_games
from photocore.selfplay import Series, Tally, run_local


@click.command()
@click.option("--games", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Games to play.")
@game_options
@click.option("--agents", default="random", show_default=True,
              help="Comma-separated agents, one for every seat or one per seat: random, "
                   "greedy, mcts or mcts:SIMULATIONS (default budget 200). Seats rotate "
                   "from game to game so every agent plays every seat.")
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
    all, and --resume finishes it.
    """
    try:
        series = Series(games, players, agents.split(","), seed, fourth_revolution, shade_blocks)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--agents") from None
    skip = _kept_games(out, series) if resume else 0
    if not resume and os.path.exists(out):
        raise click.UsageError(f"{out} exists: choose another --out, remove it, or --resume")
    if backend == "ray":
        from photocore.ray_backend import run_ray
        records = run_ray(series, address=address, batch=batch, skip=skip)
    else:
        records = run_local(series, workers=workers, batch=batch, skip=skip)
    tally = Tally(players)
    start = time.perf_counter()
    bar = tqdm(total=games, initial=skip, unit="game", dynamic_ncols=True,
               disable=None if progress is None else not progress)
    with bar, RecordWriter(out, append=resume) as writer:
        for lines, counts in records:
            writer.write_lines(lines)
            for game in counts:
                tally.add(game)
            bar.update(len(lines))
            seconds = max(time.perf_counter() - start, 1e-9)
            bar.set_postfix_str(f"{tally.moves / seconds:,.0f} moves/s", refresh=False)
    _print_summary(tally.summary(), time.perf_counter() - start, out, skip)


def _kept_games(out, series):
    """How many games an interrupted run already wrote, after checking they belong to it."""
    if not os.path.exists(out):
        return 0
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
