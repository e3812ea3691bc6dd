"""`photocore verify | show | stats | export`: the commands on files of game records."""

import collections
import itertools
import os
import sys
import time
from typing import TYPE_CHECKING

import click

from photocore import npz, records, render
from photocore.cli.output import check_writable, needs, npz_file, png_file, writing
from photocore.errors import RecordError
from photocore.facts import MAX_PLAYERS, OPTION_RULES, Options
from photocore.records import OnError, Record
from photocore.run.selfplay import Tally

if TYPE_CHECKING:   # imported by --plot only: it needs matplotlib
    from photocore.plots import Charts

__all__ = ["RECORD_FILES", "FILES_HELP", "verify", "show", "stats", "EXPORT_HELP", "export"]

RECORD_FILES = click.Path(exists=True, dir_okay=False)
FILES_HELP = "FILES are game records, one game per line (.jsonl, or .jsonl.gz compressed)."


@click.command(epilog=FILES_HELP)
@click.argument("files", nargs=-1, required=True, type=RECORD_FILES)
def verify(files: tuple[str, ...]) -> None:
    """Replay every game of FILES, checking each move and each stored result.

    Prints every problem as FILE:LINE: ply K: what is wrong (a game's number is its line),
    then a summary. Exits with status 1 if there was any problem, 0 if all is well.

    \b
    Example:  photocore verify seeds/golden.jsonl
    """
    start = time.perf_counter()
    games = moves = problems = 0
    for path in files:
        reader = records.read_games(path, on_error="skip", verify=True)
        for _ in reader:
            pass
        for error in reader.errors:
            click.echo(str(error))
        games += reader.games + reader.skipped
        moves += reader.moves
        problems += reader.skipped
    seconds = time.perf_counter() - start
    click.echo(f"{_count(len(files), 'file')}, {_count(games, 'game')}, "
               f"{_count(moves, 'move')} replayed, {_count(problems, 'problem')} "
               f"({moves / max(seconds, 1e-9):,.0f} moves/s)")
    sys.exit(1 if problems else 0)


@click.command()
@click.argument("file", type=RECORD_FILES)
@click.option("--game", "line", type=click.IntRange(min=1), default=1, show_default=True,
              help="The game on line N of FILE (games are numbered by their line, from 1).")
@click.option("--ply", type=click.IntRange(min=0), default=None,
              help="Show the position after K moves (0: before the first move).  "
                   "[default: the end of the game]")
@click.option("--color/--no-color", default=None,
              help="Colour the players, shaded pieces and the sun.  [default: colour only "
                   "when printing to a terminal]")
def show(file: str, line: int, ply: int | None, color: bool | None) -> None:
    """Print the board of one position of a recorded game.

    FILE is a game-record file (.jsonl or .jsonl.gz). The drawing shows each cell's owner
    and size, shade, the sun's corner and each player's light, pieces, tokens and score;
    a legend under it explains the letters.

    \b
    Example:  photocore show seeds/golden.jsonl --game 3 --ply 40
    """
    try:
        rec = records.read_game(file, line)
        moves = len(rec["moves"])
        if ply is not None and ply > moves:
            raise click.BadParameter(f"the game on line {line} has {moves} moves",
                                     param_hint="--ply")
        game = records.from_record(rec, ply)
    except RecordError as e:   # the replay's errors are told where, as read_game's are
        raise click.ClickException(str(e.at(file, line) if e.path is None else e)) from None
    shown = moves if ply is None else ply
    last = f", last move {rec['moves'][shown - 1]}" if shown else ""
    click.echo(f"{file}, game on line {line}: {rec['players']} players, {moves} moves; "
               f"after ply {shown}{last}")
    colour = sys.stdout.isatty() if color is None else color
    click.echo(render.text(game, color=colour), color=colour)


@click.command(epilog=FILES_HELP)
@click.argument("files", nargs=-1, required=True, type=RECORD_FILES)
@click.option("--plot", type=click.Path(dir_okay=False), callback=png_file,
              help="Also draw score distributions by seat and by agent, and mean light by "
                   "round, into this PNG file (needs matplotlib: pip install "
                   "'photocore[plot]').")
def stats(files: tuple[str, ...], plot: str | None) -> None:
    """Summarise the games of FILES: lengths, scores and wins by seat and by agent, and,
    for analysed games (`photocore analyze`), each agent's accuracy and mistakes.

    Bad lines are skipped and counted (run `photocore verify` to see why); an empty file
    is 0 games, but a file of bad lines only, no game record at all, is an error. Scores
    and wins count finished games only; tied winners share the win (two winners: half a
    win each), as in `photocore selfplay`'s summary. With --plot every game is replayed
    (for its light), so games with an illegal move are skipped too.

    \b
    Example:  photocore stats seeds/golden.jsonl --plot golden.png
    """
    if plot:
        check_writable(plot, inputs=files)
    charts: Charts | None = (needs("photocore.plots", "--plot", "plot", "matplotlib").Charts()
                             if plot else None)
    tally = _Tally()
    skipped = 0
    analysed: list[Record] = []
    for path in files:
        reader = records.read_games(path, on_error="skip", verify=bool(plot))
        for rec in reader:
            tally.add(rec)
            if "analysis" in (rec.get("metadata") or {}):
                analysed.append(rec)
            if charts:
                charts.add(rec)
        if not reader.games and reader.skipped:
            raise click.ClickException(f"{path} holds no game: "
                                       f"{_count(reader.skipped, 'bad line')}, none a game "
                                       f"record (`photocore verify {path}` says why)")
        skipped += reader.skipped
    click.echo("\n".join(tally.lines(len(files), skipped)))
    if analysed:
        from photocore import analysis
        for name, row in analysis.summarise(analysed).items():
            click.echo(f"analysis, {name}: {row['moves']:,} moves, accuracy "
                       f"{row['accuracy']:.1f}, loss {row['win_loss']:.2%} of a win a move, "
                       f"{row['inaccuracy']} inaccuracies, {row['mistake']} mistakes, "
                       f"{row['blunder']} blunders")
    if charts and plot:
        with writing(plot):
            charts.save(plot, title=f"{', '.join(map(os.path.basename, files))}: "
                                    f"{_count(charts.games, 'game')}")
        click.echo(f"{plot}: charts written")


class _Tally:
    """What `stats` counts, game by game; finished games by player count in a Tally, the
    one self-play's summary counts with (so both agree, ties included)."""

    def __init__(self) -> None:
        self.lengths: list[int] = []
        self.by_players: collections.Counter[int] = collections.Counter()
        self.by_options: collections.Counter[str] = collections.Counter()
        self.finished: dict[int, Tally] = {}               # players -> Tally

    def add(self, rec: Record) -> None:
        players, result = rec["players"], rec["result"]
        self.lengths.append(len(rec["moves"]))
        self.by_players[players] += 1
        self.by_options[Options(**rec["options"]).name] += 1
        if result is None:
            return
        if players not in self.finished:
            self.finished[players] = Tally(players)
        self.finished[players].add(len(rec["moves"]), result["scores"], result["winners"],
                                   rec["metadata"]["agents"])

    def lines(self, files: int, skipped: int) -> list[str]:
        games = len(self.lengths)
        finished = sum(t.games for t in self.finished.values())
        out = [f"{_count(files, 'file')}: {_count(games, 'game')} ({finished:,} finished, "
               f"{games - finished:,} unfinished), {_count(skipped, 'bad line')} skipped"]
        if not games:
            return out
        out.append(f"length: {sum(self.lengths) / games:,.1f} moves on average (shortest "
                   f"{min(self.lengths):,}, longest {max(self.lengths):,})")
        out.append("players: " + ", ".join(f"{n}: {_count(self.by_players[n], 'game')}"
                                           for n in sorted(self.by_players)))
        out.append("options: " + ", ".join(f"{name}: {count:,}" for name, count
                                           in sorted(self.by_options.items())))
        agent_seats: collections.Counter[str] = collections.Counter()
        agent_wins: collections.Counter[str] = collections.Counter()
        for players in sorted(self.finished):
            tally = self.finished[players]
            summary = tally.summary()
            out += ["", f"{players} players, {_count(tally.games, 'finished game')}:",
                    "  seat  mean score  wins"]
            out += [f"  {seat:<4}  {score:10.2f}  {wins:5.1%}" for seat, (score, wins)
                    in enumerate(zip(summary["mean_scores"], summary["seat_win_rate"]))]
            agent_seats.update(tally.agent_games)
            agent_wins.update(tally.agent_wins)
        if agent_seats:
            out += ["", "agents (seats in finished games):", "  agent           seats  wins"]
            out += [f"  {agent:<14}  {seats:>5,}  {agent_wins[agent] / seats:5.1%}"
                    for agent, seats in sorted(agent_seats.items())]
        return out


# export's help: the arrays, with each rule's flag from the option table
_OPTION_FLAGS = ", ".join(f"{rule.flag} {rule.words}" for rule in OPTION_RULES)
EXPORT_HELP = f"""Write the games of FILES as numpy arrays for training.

    Every game is replayed and checked first. The arrays (numpy.load(OUT)): moves (uint16
    action ids, all games one after the other), offsets (game g is
    moves[offsets[g]:offsets[g + 1]]), players, options (flags: {_OPTION_FLAGS}), scores
    (games x {MAX_PLAYERS}, -1 beyond the players or when unfinished), winners (bitmask of
    seats, 0 when unfinished), agents with agent_names, and rules_version.
    photocore.npz.read_records turns them back into records.

    \b
    Example:  photocore export seeds/golden.jsonl --npz golden.npz
    """


@click.command(epilog=FILES_HELP, help=EXPORT_HELP)
@click.argument("files", nargs=-1, required=True, type=RECORD_FILES)
@click.option("--npz", "out", required=True, type=click.Path(dir_okay=False),
              callback=npz_file,
              help="The .npz file to write (replaced only once it is complete).")
@click.option("--skip-bad", is_flag=True,
              help="Leave bad games out (and count them) instead of stopping at the first.")
def export(files: tuple[str, ...], out: str, skip_bad: bool) -> None:
    """Write the games of FILES as numpy arrays for training (EXPORT_HELP)."""
    check_writable(out, inputs=files)
    on_error: OnError = "skip" if skip_bad else "raise"
    readers = [records.read_games(path, on_error=on_error, verify=True) for path in files]
    try:
        with writing(out):
            games = npz.write(out, itertools.chain.from_iterable(readers))
    except RecordError as e:
        raise click.ClickException(f"{e} (nothing written; --skip-bad leaves bad games out)") \
            from None
    moves = sum(r.moves for r in readers)
    size = os.path.getsize(out)
    per_move = f" ({size / moves:.2f} bytes per move)" if moves else ""
    click.echo(f"{out}: {_count(games, 'game')}, {_count(moves, 'move')}, {size:,} bytes"
               + per_move)
    for error in itertools.chain.from_iterable(r.errors for r in readers):
        click.echo(f"skipped {error}")


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
