"""`photocore playouts`: random games in the compiled kernels, with totals and speed."""

import threading
import time
from collections.abc import Callable
from typing import TypeVar

import click

from photocore._game import random_playouts
from photocore.cli.options import MAX_GAMES, SEED, SEED_HELP, Count, players_and_rules
from photocore.facts import Options

__all__ = ["T", "playouts"]

T = TypeVar("T")


@click.command()
@click.option("--games", type=Count(MAX_GAMES), default=100_000, show_default=True,
              help="Games to play.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help=f"The same seed plays the same games ({SEED_HELP}).")
@players_and_rules
def playouts(games: int, seed: int, players: int, options: Options) -> None:
    """Play whole games of uniformly random legal moves in C (one thread).

    Prints the moves, the speed, and per seat the mean score and its win rate, tied winners
    sharing the win (facts.win_share), as in selfplay and stats.
    """
    start = time.perf_counter()
    result = _interruptible(lambda: random_playouts(games, players=players, seed=seed,
                                                              options=options))
    seconds = time.perf_counter() - start
    moves = result["moves"]
    seconds = max(seconds, 1e-9)
    click.echo(f"{games:,} random games, {players} players, seed {seed}: {moves:,} moves in "
               f"{seconds:.2f} s ({games / seconds:,.0f} games/s, {moves / seconds:,.0f} moves/s)")
    for seat in range(players):
        click.echo(f"  seat {seat}: mean score {result['score_sums'][seat] / games:.2f}, "
                   f"wins {result['win_shares'][seat] / games:.1%}")


def _interruptible(function: Callable[[], T]) -> T:
    """function() in a thread: the kernel plays all its games without the GIL, and only
    this (main) thread can take Ctrl-C, which stops the command at once."""
    results: list[T] = []
    errors: list[BaseException] = []

    def call() -> None:
        try:
            results.append(function())
        except BaseException as e:  # noqa: BLE001 (raised again in the main thread)
            errors.append(e)

    worker = threading.Thread(target=call, daemon=True)   # not waited for after Ctrl-C
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        click.echo("\nphotocore playouts: interrupted", err=True)
        raise click.exceptions.Exit(130) from None
    if errors:
        raise errors[0]
    return results[0]
