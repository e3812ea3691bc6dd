"""`photocore playouts`: random games in the compiled kernels, with totals and speed."""

import time

import click

import photocore
from photocore.cli.options import game_options


@click.command()
@click.option("--games", type=click.IntRange(min=0), default=100_000, show_default=True,
              help="Games to play.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="The same seed plays the same games.")
@game_options
def playouts(games, seed, players, fourth_revolution, shade_blocks):
    """Play whole games of uniformly random legal moves in C (one thread)."""
    start = time.perf_counter()
    result = photocore.random_playouts(games, players=players, seed=seed,
                                       fourth_revolution=fourth_revolution,
                                       shade_blocks=shade_blocks)
    seconds = time.perf_counter() - start
    moves = result["moves"]
    click.echo(f"{games} random games, {players} players, seed {seed}: {moves} moves in "
               f"{seconds:.2f} s ({games / seconds:,.0f} games/s, {moves / seconds:,.0f} moves/s)")
    for seat in range(players):
        click.echo(f"  seat {seat}: mean score {result['score_sums'][seat] / max(games, 1):.2f}, "
                   f"wins {result['wins'][seat] / max(games, 1):.1%}")
