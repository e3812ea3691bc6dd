"""`photocore match` and `photocore tournament`: agents of any kind play paired games, and
the results come out as ratings with their error (docs/matches.md)."""

import itertools
import math
import os
import sys

import click
from tqdm import tqdm

from photocore.cli.selfplay import _DeferredInterrupt
from photocore.errors import RecordError
from photocore.play.protocol import DEFAULT_GRACE, DEFAULT_MOVETIME
from photocore.records import RecordWriter, read_games
from photocore.run.match import Match, Standings, kept_outcomes
from photocore.run.ratings import SPRT
from photocore.run.selfplay import SelfPlayError, run_local


def _common(command):
    """The options match and tournament share."""
    options = [
        click.option("--players", type=click.IntRange(2, 4), default=None,
                     help="Seats per game: the number of agents (a tournament: 2), or a "
                          "multiple of it.  [default: the number of agents]"),
        click.option("--fourth-revolution", is_flag=True,
                     help="Advanced rule: play 4 revolutions (24 rounds)."),
        click.option("--shade-blocks", is_flag=True,
                     help="Advanced rule: no planting into or growing in shadow."),
        click.option("--workers", type=click.IntRange(min=1), default=None,
                     help="Processes playing games, each with its own engines  "
                          "[default: this machine's cores]"),
        click.option("--seed", type=int, default=0, show_default=True,
                     help="The same seed gives the same openings, and the same games for "
                          "built-in agents, whatever --workers."),
        click.option("--movetime", type=click.IntRange(min=1), default=DEFAULT_MOVETIME,
                     show_default=True, help="Milliseconds an engine may think per move."),
        click.option("--grace", type=click.IntRange(min=0), default=DEFAULT_GRACE,
                     show_default=True,
                     help="Milliseconds past --movetime before a silent engine forfeits."),
        click.option("--openings", type=click.IntRange(min=0), default=None,
                     help="Random plies from the start that open each game, every opening "
                          "played from every seat  [default: one per player]"),
        click.option("--out", type=click.Path(dir_okay=False), default=None,
                     help="Write every game as a record to this .jsonl or .jsonl.gz file."),
        click.option("--resume", is_flag=True,
                     help="Finish a stopped match: keep the games in --out, play the rest."),
        click.option("--progress/--no-progress", default=None,
                     help="Live line  [default: when stderr is a terminal]"),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.command()
@click.argument("agents", nargs=-1, required=True)
@click.option("--games", type=click.IntRange(min=1), default=None,
              help="Games to play, rounded up to whole openings  [default: 100; with "
                   "--sprt 100,000, a cap]")
@click.option("--sprt", default=None, metavar="elo0=E0,elo1=E1[,alpha=A,beta=B]",
              help="Stop as soon as the sequential probability ratio test accepts H0 (the "
                   "first agent is elo0 stronger) or H1 (elo1 stronger); two agents only.")
@_common
def match(agents, games, sprt, **settings):
    """Play AGENTS (2 to 4) against each other and rate them.

    An agent is random, greedy, mcts, mcts:N, py:module:Class, py:file.py:Class[?key=value&...]
    or cmd:"PROGRAM ARGS" (an engine speaking docs/protocol.md). Seats rotate over every
    agent and every random opening is played from every seat. Two agents: wins, losses,
    ties, score, Elo with a 95% confidence interval and the likelihood of superiority.
    Three or four: points, win share and Bradley-Terry ratings from every pairwise result.
    """
    if not 2 <= len(agents) <= 4:
        raise click.UsageError(f"a match is between 2 to 4 agents, got {len(agents)} "
                               "(photocore tournament plays more)")
    test = None
    if sprt is not None:
        try:
            test = SPRT.parse(sprt)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--sprt") from None
        if len(agents) != 2:
            raise click.BadParameter("the SPRT needs two agents", param_hint="--sprt")
    if games is None:
        games = 100_000 if test else 100
    _play(agents, games, None, test, **settings)


@click.command()
@click.argument("agents", nargs=-1, required=True)
@click.option("--games", type=click.IntRange(min=1), default=20, show_default=True,
              help="Games per pairing, rounded up to whole openings.")
@_common
def tournament(agents, games, **settings):
    """A round robin: every pair of AGENTS plays a match (the same openings for all), then
    a cross table of scores and Bradley-Terry ratings from all the games."""
    if len(agents) < 3:
        raise click.UsageError("a tournament needs 3 agents or more (photocore match plays 2)")
    _play(agents, games, list(itertools.combinations(range(len(agents)), 2)), None,
          **settings)


def _play(agents, games, pairings, sprt, players, fourth_revolution, shade_blocks, workers,
          seed, movetime, grace, openings, out, resume, progress):
    try:
        plan = Match(agents, games, players, seed, openings, movetime, grace,
                     fourth_revolution, shade_blocks, pairings)
        standings = Standings(plan, sprt)
        plan.check()
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="AGENTS") from None
    if resume and out is None:
        raise click.UsageError("--resume needs --out")
    if out is not None and not resume and os.path.exists(out):
        raise click.UsageError(f"{out} exists: choose another --out, remove it, or --resume")
    skip = _resume(out, plan, standings) if resume else 0
    click.echo(plan.describe() + (" (at most: the SPRT stops it)" if sprt else ""))
    if skip == plan.games or standings.decision:
        click.echo(f"{out} already holds the whole match ({skip} games)", err=True)
        _summary(plan, standings)
        return
    try:
        writer = RecordWriter(out, append=resume) if out else None
    except (OSError, RecordError) as e:
        raise click.ClickException(f"cannot write {out}: {e}") from None
    interrupts = _DeferredInterrupt()
    records = None
    done = skip
    try:
        with interrupts.installed():
            records = run_local(plan, workers=workers, skip=skip)
            bar = tqdm(total=plan.games, initial=skip, unit="game", dynamic_ncols=True,
                       disable=None if progress is None else not progress)
            with bar:
                for lines, outcomes in records:
                    stop = None
                    for k, outcome in enumerate(outcomes):
                        if outcome.forfeit is not None:
                            _tell_forfeit(plan, done + k, outcome, bar)
                        if standings.add(done + k, outcome):
                            stop = k + 1
                            break
                    lines = lines[:stop]
                    if writer is not None:
                        with interrupts.deferred():   # a batch reaches OUT whole or not at all
                            writer.write_lines(lines)
                    done += len(lines)
                    bar.update(len(lines))
                    bar.set_postfix_str(_live(plan, standings), refresh=False)
                    if stop is not None:
                        break
    except KeyboardInterrupt:
        _close(records, writer)
        click.echo(f"\nphotocore: interrupted after {done} games. {_kept(out, done)}", err=True)
        _summary(plan, standings)
        raise click.exceptions.Exit(130) from None
    except SelfPlayError as e:
        _close(records, writer)
        raise click.ClickException(f"{e}. {_kept(out, done)}") from None
    finally:
        _close(records, writer)
    _summary(plan, standings)


def _resume(out, plan, standings):
    if not os.path.exists(out):
        return 0
    try:
        outcomes = kept_outcomes(read_games(out, on_error="skip"), plan)
    except (OSError, RecordError) as e:
        raise click.ClickException(f"cannot resume from {out}: {e}") from None
    except ValueError as e:
        raise click.UsageError(f"{out}: {e}") from None
    if len(outcomes) > plan.games:
        raise click.UsageError(f"{out} already holds {len(outcomes)} games, more than the "
                               f"{plan.games} of this match")
    for index, outcome in enumerate(outcomes):
        standings.add(index, outcome)
    return len(outcomes)


def _close(records, writer):
    """Stops the workers (and their engines) and closes OUT."""
    if records is not None:
        records.close()
    if writer is not None:
        writer.close()


def _kept(out, done):
    if out is None:
        return "No games were written (no --out)."
    return (f"{out} holds the first {done} games, whole lines only: the same command with "
            "--resume plays the rest")


def _tell_forfeit(plan, index, outcome, bar):
    agent = plan.labels[outcome.seats[outcome.forfeit]]
    text = f"game {index}: {agent} (seat {outcome.forfeit}) forfeits: {outcome.reason}"
    if outcome.detail.strip():
        text += "\n" + outcome.detail.rstrip()
    bar.write(text, file=sys.stderr)      # above the live line


def _live(plan, standings):
    if len(plan.pairings) == 1 and len(plan.labels) == 2:
        e = standings.estimate()
        text = f"{plan.labels[0]} {_percent(e.score)} Elo {_elo(e.elo)} ±{_size(e.error)}"
        if standings.sprt is not None:
            text += (f" LLR {standings.llr:.2f} ({standings.sprt.lower:.2f}, "
                     f"{standings.sprt.upper:.2f})")
    else:
        text = "points " + ", ".join(f"{label} {points:g}"
                                     for label, points in zip(plan.labels, standings.points))
    forfeits = sum(standings.forfeits)
    return text + (f", {forfeits} forfeits" if forfeits else "")


def _summary(plan, standings):
    if standings.games == 0:
        click.echo("no games played")
        return
    if len(plan.pairings) > 1:
        _cross_table(plan, standings)
    elif len(plan.labels) == 2:
        _pair_summary(plan, standings)
    else:
        _table(plan, standings)


def _pair_summary(plan, standings):
    first, second = plan.labels
    wins, losses, ties = standings.record.get(plan.pairings[0], [0, 0, 0])
    click.echo(f"{first} vs {second}: {standings.games} games, {first} {wins} wins, "
               f"{losses} losses, {ties} ties{_forfeits(plan, standings)}")
    e = standings.estimate()
    if e.n:
        spread = f" ± {_size(e.error)}" if math.isfinite(e.error) else ""
        click.echo(f"score {_percent(e.score)} over {e.n} whole openings: Elo {_elo(e.elo)}"
                   f"{spread} (95% CI {_elo(e.low)} .. {_elo(e.high)}), LOS {_percent(e.los)}")
    if standings.sprt is not None:
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "no decision yet"}
        click.echo(f"{standings.sprt}: LLR {standings.llr:.2f} (bounds "
                   f"{standings.sprt.lower:.2f} .. {standings.sprt.upper:.2f}): "
                   f"{verdict[standings.decision]} after {standings.games} games")


def _table(plan, standings):
    fit = standings.bradley_terry()
    width = max(len(label) for label in plan.labels)
    click.echo(f"{'agent':<{width}}  games  points  win share  Bradley-Terry Elo")
    for k, label in enumerate(plan.labels):
        games = standings.played[k]
        click.echo(f"{label:<{width}}  {games:5}  {standings.points[k]:6.1f}  "
                   f"{_percent(standings.points[k] / max(games, 1)):>9}  "
                   f"{_elo(fit.elo[k]):>7} ± {_size(fit.error[k])}")
    click.echo(f"{standings.games} games{_forfeits(plan, standings)}; points: a win is one "
               "point, shared by co-winners; ratings from every pairwise result in the games")


def _cross_table(plan, standings):
    fit = standings.bradley_terry()
    names = [f"{k + 1} {label}" for k, label in enumerate(plan.labels)]
    width = max(len(name) for name in names)
    cells = 16
    click.echo(" " * width + "  " + "".join(f"{k + 1:>{cells}}" for k in range(len(names)))
               + "   points  Bradley-Terry Elo")
    for i, label in enumerate(names):
        row = []
        for j in range(len(plan.labels)):
            meetings = standings.meetings[i][j]
            if i == j or not meetings:
                row.append(f"{'-':>{cells}}")
                continue
            pairing = (i, j) if (i, j) in standings.record else (j, i)
            w, l, t = standings.record.get(pairing, [0, 0, 0])
            if pairing != (i, j):
                w, l = l, w
            row.append(f"{_percent(standings.versus[i][j] / meetings)} {w}-{l}-{t}"
                       .rjust(cells))
        click.echo(f"{label:<{width}}  {''.join(row)}   {standings.points[i]:6.1f}  "
                   f"{_elo(fit.elo[i]):>7} ± {_size(fit.error[i])}")
    click.echo(f"{standings.games} games{_forfeits(plan, standings)}; a cell is the row's "
               "score against the column, then its wins-losses-ties")


def _forfeits(plan, standings):
    lost = [f"{label} {n}" for label, n in zip(plan.labels, standings.forfeits) if n]
    return f"; forfeits: {', '.join(lost)}" if lost else "; no forfeits"


def _percent(value):
    return "n/a" if math.isnan(value) else f"{value:.1%}"


def _elo(value):
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{round(value, 1) + 0.0:+.1f}"      # + 0.0: no -0.0


def _size(value):
    return "inf" if math.isinf(value) else "n/a" if math.isnan(value) else f"{value:.1f}"
