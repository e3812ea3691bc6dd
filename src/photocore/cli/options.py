"""Command-line options that several commands share."""

import click


def game_options(command):
    """--players, --fourth-revolution and --shade-blocks."""
    command = click.option("--shade-blocks", is_flag=True,
                           help="Advanced rule: no planting into or growing in shadow.")(command)
    command = click.option("--fourth-revolution", is_flag=True,
                           help="Advanced rule: play 4 revolutions (24 rounds).")(command)
    return click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True,
                        help="Number of players.")(command)
