"""`photocore repair`: the whole games of a damaged record file, kept; the rest dropped."""

import click

from photocore import records
from photocore.cli.output import check_writable, writing

__all__ = ["repair"]


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Write the kept games here instead of replacing FILE.")
def repair(file: str, out: str | None) -> None:
    """Keep the whole games of FILE and drop its damaged lines.

    FILE is a game-record file (.jsonl or .jsonl.gz). A run killed outright (SIGKILL, the
    out-of-memory killer) leaves an unfinished last write, which --resume cuts off itself;
    a file damaged otherwise (a disk error, a file cut short by a copy) cannot be resumed.
    repair keeps every record that is whole and well formed (its fields checked; the moves
    are not replayed: `photocore verify` does that), drops the rest, and writes the kept
    ones to a temporary file renamed over FILE (or to --out) only once complete (through a
    link, keeping FILE's permissions). A file with nothing to drop (an empty one too), or
    with no whole game at all, is left as it is. Then `photocore selfplay ... --resume`
    finishes the run.

    \b
    Example:  photocore repair games.jsonl.gz
    """
    target = out or file
    check_writable(target)
    reader = records.read_games(file, on_error="skip")
    kept = sum(1 for _ in reader)
    # an empty file: 0 games, as to verify
    if not kept and not reader.errors and not reader.damaged and out is None:
        click.echo(f"{file}: 0 games, nothing to repair")
        return
    if not kept:       # not a record file at all, most likely: leave it be
        first = f": {reader.errors[0]}" if reader.errors else ""
        raise click.ClickException(f"{file} holds no whole game{first}: nothing to keep, "
                                   "the file is left as it is")
    if not reader.errors and out is None:
        click.echo(f"{file}: {_games(kept)}, nothing to repair")
        return
    reader = records.read_games(file, on_error="skip")
    with writing(target):
        kept = records.write_games(target, reader)
    for error in reader.errors:
        click.echo(f"dropped {error}")
    dropped = [f"{reader.skipped:,} damaged line{'' if reader.skipped == 1 else 's'}"] * bool(
        reader.skipped) + ["the damaged end of the compressed stream"] * bool(reader.damaged)
    click.echo(f"{target}: kept {_games(kept)}, dropped {' and '.join(dropped) or 'nothing'}")


def _games(n: int) -> str:
    return f"{n:,} whole game{'' if n == 1 else 's'}"
