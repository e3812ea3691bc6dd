"""`photocore replay`: a recorded game as an HTML page to step through."""

import os

import click

from photocore import records, viewer
from photocore.cli.output import check_writable, html_file, writing
from photocore.errors import RecordError

__all__ = ["replay"]


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--game", "line", type=click.IntRange(min=1), default=1, show_default=True,
              help="The game on line N of FILE (games are numbered by their line, from 1).")
@click.option("--html", "out", required=True, type=click.Path(dir_okay=False),
              callback=html_file,
              help="The .html file to write (replaced only once it is complete).")
def replay(file: str, line: int, out: str) -> None:
    """Write one game of FILE as a self-contained HTML page to step through.

    FILE is a game-record file (.jsonl or .jsonl.gz). The page shows the board of every
    position with a slider, buttons and the left/right arrow keys to step, the move list
    (click a move to go there), each player's score and light over the game, and the final
    result. It needs no network: open it from disk in any browser.

    \b
    Example:  photocore replay seeds/golden.jsonl --game 25 --html game25.html
    """
    check_writable(out, inputs=[file])
    try:
        rec = records.read_game(file, line)
        with writing(out):
            viewer.write_html(rec, out)
    except RecordError as e:
        raise click.ClickException(str(e.at(file, line) if e.path is None else e)) from None
    click.echo(f"{out}: the game on line {line} of {file}, {len(rec['moves'])} moves, "
               f"{os.path.getsize(out):,} bytes")
