"""`photocore match` and `photocore tournament`: agents of any kind play paired games, and
the results come out as ratings with their error (docs/matches.md)."""

import itertools
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click
from tqdm import tqdm

from photocore.budget import Limit
from photocore.cli.options import (
    MAX_GAMES,
    SEED,
    SEED_HELP,
    SET_BY,
    Command,
    Count,
    agents_option,
    backend_options,
    builtin_agents,
    check_backend,
    connect_backend,
    rule_options,
    summary_option,
    workers_option,
)
from photocore.cli.output import (
    check_writable,
    needs,
    record_file,
    resume_from,
    run_output,
    write_summary,
)
from photocore.facts import MAX_PLAYERS, MIN_PLAYERS, Options
from photocore.play._agents import MAX_SIMULATIONS
from photocore.play.protocol import DEFAULT_GRACE, DEFAULT_MOVETIME, MAX_MILLISECONDS
from photocore.records import Record
from photocore.run.driver import drive
from photocore.run.match import Match, MatchBatch, Outcome, Standings, counted, outcome_of
from photocore.stats import SPRT, Estimate

__all__ = ["AGENTS_HELP", "match", "tournament", "command_of", "rated"]

# a match's seats come from its pairings, which the number of games places too
MATCH_SET_BY = {**SET_BY, "agents": "--agents and --games"}
AGENTS_HELP = (f"{builtin_agents()}, py:module:Class, py:file.py:Class[?key=value&...] or "
               'cmd:"PROGRAM ARGS" (an engine speaking docs/protocol.md)')


def _common(command_name: str) -> Callable[[Command], Command]:
    """The options match and tournament share."""
    options: list[Callable[[Command], Command]] = [
        click.option("--players", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS), default=None,
                     help="Seats per game: the number of agents "
                          f"{'in a group ' * (command_name == 'tournament')}or a multiple of "
                          "it.  [default: the number of agents"
                          f"{' in a group' * (command_name == 'tournament')}]"),
        rule_options,
        workers_option("Processes playing games, each with its own engines  "
                       "[default: this machine's cores]"),
        click.option("--seed", type=SEED, default=0, show_default=True,
                     help="The same seed gives the same openings, and the same games for "
                          f"built-in agents, whatever --workers and --backend ({SEED_HELP})."),
        click.option("--seconds", type=click.FloatRange(0, MAX_MILLISECONDS / 1000,
                                                         min_open=True),
                     default=None, metavar="S",
                     help="Seconds each move of every agent may take, as a photocore.Limit: "
                          "searches stop at it, py: agents whose select() takes a limit get "
                          "it, engines are told it (a day at most).  [default: mcts and py: "
                          f"agents their own budget, engines {DEFAULT_MOVETIME} ms]"),
        click.option("--simulations", type=click.IntRange(1, MAX_SIMULATIONS), default=None,
                     metavar="N",
                     help="Simulations of every searching agent's move, replacing its own "
                          "(mcts:N, search agents, py: agents whose select() takes a limit).  "
                          "[default: each its own]"),
        click.option("--grace", type=click.IntRange(0, MAX_MILLISECONDS), default=DEFAULT_GRACE,
                     show_default=True,
                     help="Milliseconds past an engine's move time (--seconds) before a "
                          "silent engine forfeits (a day at most)."),
        click.option("--openings", type=click.IntRange(min=0), default=None,
                     help="Random plies from the start that open each game, every opening "
                          "played from every seat  [default: one per player]"),
        click.option("--max-forfeits", type=Count(MAX_GAMES), default=None,
                     metavar="N",
                     help="Stop once an agent has forfeited N games (exit status 1): a "
                          "broken agent's games measure nothing.  [default: no limit; an "
                          "agent that forfeits every game it plays exits 1 anyway]"),
        click.option("--out", type=click.Path(dir_okay=False), default=None,
                     callback=record_file,
                     help="Write every game as a record to this .jsonl or .jsonl.gz file."),
        click.option("--resume", is_flag=True,
                     help=f"Finish a stopped {command_name}: keep the games in --out, play "
                          "the rest."),
        backend_options,
        click.option("--progress/--no-progress", default=None,
                     help="Live line  [default: when stderr is a terminal]"),
        summary_option("the standings (each agent's games, points, rating with its 95% "
                       "interval, time per move)"),
    ]

    def decorate(command: Command) -> Command:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


@click.command(help=f"""Play agents ({MIN_PLAYERS} to {MAX_PLAYERS}) against each other and
    rate them.

    Seats rotate over every agent and every random opening is played from every seat. Two
    agents: wins, losses, ties, score, Elo with a 95% confidence interval and the
    likelihood of superiority. Three or four: points, win share and Bradley-Terry ratings
    from every pairwise result. An agent that forfeits every game it plays (it crashes, or
    never answers) ends the match with exit status 1, after the summary.

    \b
    Example:  photocore match --agents mcts:200,greedy --games 400
    """)
@agents_option(f"The agents, comma-separated: {AGENTS_HELP}.")
@click.option("--games", type=Count(MAX_GAMES), default=None,
              help="Games to play, rounded up to whole openings  [default: 100; with "
                   "--sprt 100,000, a cap]")
@click.option("--sprt", default=None, metavar="elo0=E0,elo1=E1[,alpha=A,beta=B]",
              help="Stop as soon as the sequential probability ratio test accepts H0 (the "
                   "first agent is elo0 stronger) or H1 (elo1 stronger); two agents only.")
@_common("match")
def match(agents: tuple[str, ...] | None, games: int | None, sprt: str | None,
          **settings: Any) -> None:
    agents = _given(agents)
    if not MIN_PLAYERS <= len(agents) <= MAX_PLAYERS:
        raise click.UsageError(f"a match is between {MIN_PLAYERS} to {MAX_PLAYERS} agents, "
                               f"got {len(agents)} (photocore tournament plays more)")
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
@agents_option(f"The agents, comma-separated: {AGENTS_HELP}.")
@click.option("--games-per-group", type=Count(MAX_GAMES), default=20,
              show_default=True, metavar="N",
              help="Games each pairing (or group) plays, rounded up to whole openings.")
@click.option("--group", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS), default=2,
              show_default=True,
              help="Agents in each game: every group of this many agents plays a match "
                   "(--players defaults to it).")
@click.option("--anchor", default=None, metavar="AGENT",
              help="Rate this agent (as written in --agents) 0, the others from it  "
                   "[default: ratings centred on 0]")
@_common("tournament")
def tournament(agents: tuple[str, ...] | None, games_per_group: int, group: int,
               anchor: str | None, **settings: Any) -> None:
    """A round robin: every pair (or --group of 3 or 4) of the agents plays a match (the
    same openings for all), then a cross table of scores and Bradley-Terry ratings from
    all the games, with each agent's time per move. An agent that forfeits every game it
    plays ends it with exit status 1, after the table.

    \b
    Example:  photocore tournament --agents random,greedy,mcts:200 --games-per-group 40
    """
    agents = _given(agents)
    if len(agents) <= group:
        raise click.UsageError(f"a tournament of groups of {group} needs {group + 1} agents "
                               f"or more (photocore match plays {group})")
    if anchor is not None and anchor not in agents:
        raise click.BadParameter(f"{anchor!r} is not one of --agents", param_hint="--anchor")
    _play(agents, games_per_group, list(itertools.combinations(range(len(agents)), group)),
          None, **settings, anchor=None if anchor is None else agents.index(anchor))


def _given(agents: tuple[str, ...] | None) -> tuple[str, ...]:
    """--agents, which match and tournament need."""
    if agents is None:
        ctx = click.get_current_context()
        raise click.MissingParameter(ctx=ctx, param=next(
            p for p in ctx.command.params if p.name == "agents"))
    return agents


def _play(agents: Sequence[str], games: int, pairings: list[tuple[int, ...]] | None,
          sprt: SPRT | None, players: int | None, options: Options, workers: int | None,
          seed: int, seconds: float | None, simulations: int | None, grace: int,
          openings: int | None, max_forfeits: int | None, out: str | None, resume: bool,
          backend: str, address: str | None, connect_timeout: float, progress: bool | None,
          anchor: int | None = None, summary: str | None = None) -> None:
    check_backend(backend)
    try:
        limit = (None if seconds is None and simulations is None
                 else Limit(simulations=simulations, seconds=seconds))
        plan = Match(agents, games, players, seed, openings, limit, grace,
                     options=options, pairings=pairings)
        standings = Standings(plan, sprt)
        plan.check()
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--agents") from None
    if rated(plan):     # before any game: the summary after them needs scipy
        needs("scipy.optimize", f"photocore {command_of(plan)} (its Bradley-Terry ratings)",
              "ratings", "scipy")
    if resume and out is None:
        raise click.UsageError("--resume needs --out")
    inputs = [f for spec in plan.specs for f in spec.files]
    if summary is not None:     # (the record file too: not one file for both)
        check_writable(summary, inputs=[*inputs, *([out] if out else [])])

    def kept(index: int, rec: Record) -> None:
        standings.add(index, outcome_of(rec, plan.labels))

    skip = resume_from(out, resume, plan, MATCH_SET_BY, kept, inputs) if out is not None else 0
    click.echo(plan.describe() + (" (at most: the SPRT stops it)" if sprt else ""))
    if skip == plan.games or standings.decision or _too_many(standings, max_forfeits):
        click.echo(f"{out} already holds the whole match ({skip} games)"
                   if not _too_many(standings, max_forfeits) else
                   f"{out} holds {skip} games, and --max-forfeits {max_forfeits} in them",
                   err=True)
        _end(plan, standings, anchor, summary, max_forfeits)
        return

    def take(start: int, played: MatchBatch) -> int | None:
        for k, outcome in enumerate(played.outcomes):
            if outcome.forfeit is not None:
                _tell_forfeit(plan, start + k, outcome)
            if standings.add(start + k, outcome) or _too_many(standings, max_forfeits):
                return k + 1       # decided, or broken: the match ends with this game
        return None

    command = command_of(plan)
    connect_backend(command, backend, address, connect_timeout)
    with run_output(command, out, resume, skip,
                    interrupted=lambda: _summary(plan, standings, anchor)) as writer:
        drive(plan, take, writer, skip=skip, workers=workers, backend=backend,
              address=address, progress=progress, status=lambda: _live(plan, standings))
    _end(plan, standings, anchor, summary, max_forfeits)


def _too_many(standings: Standings, max_forfeits: int | None) -> bool:
    """Whether an agent has forfeited --max-forfeits games."""
    return max_forfeits is not None and max(standings.forfeits) >= max_forfeits


def _end(plan: Match, standings: Standings, anchor: int | None, summary: str | None,
         max_forfeits: int | None) -> None:
    """The summary (and --summary), then exit status 1 when the games measured nothing:
    an agent forfeited every game it played, or --max-forfeits of them."""
    _summary(plan, standings, anchor)
    if summary is not None:
        _write_summary(summary, plan, standings, anchor)
    for k, label in enumerate(plan.labels):
        forfeits, played = standings.forfeits[k], standings.played[k]
        if max_forfeits is not None and forfeits >= max_forfeits:
            raise click.ClickException(
                f"{label} forfeited {forfeits} of its {counted(played, 'game')} (--max-forfeits "
                f"{max_forfeits}): the {command_of(plan)} stopped after {standings.games} of "
                f"{plan.games} games")
    for k, label in enumerate(plan.labels):
        forfeits = standings.forfeits[k]
        if forfeits and forfeits == standings.played[k]:
            raise click.ClickException(
                f"{label} forfeited every game it played ({counted(forfeits, 'game')}): "
                "the results measure nothing (its reasons are above)")


def command_of(plan: Match) -> str:
    """The command that plays `plan`: a match, or a tournament of several pairings."""
    return "match" if len(plan.pairings) == 1 else "tournament"


def _tell_forfeit(plan: Match, index: int, outcome: Outcome) -> None:
    assert outcome.forfeit is not None
    agent = plan.labels[outcome.seats[outcome.forfeit]]
    # numbered from 1, as a record file's lines are (metadata.game is the 0-based index)
    text = f"game {index + 1}: {agent} (seat {outcome.forfeit}) forfeits: {outcome.reason}"
    if outcome.detail.strip():
        text += "\n" + outcome.detail.rstrip()
    tqdm.write(text, file=sys.stderr)      # above the live line


def _live(plan: Match, standings: Standings) -> str:
    if len(plan.pairings) == 1 and len(plan.labels) == 2:
        e = standings.estimate()
        text = f"{plan.labels[0]} {_percent(e.score)} Elo " + (
            f"< {_elo(e.high)}" if e.score == 0 else f"> {_elo(e.low)}" if e.score == 1
            else f"{_elo(e.elo)} (too few games)" if e.error == 0
            else f"{_elo(e.elo)} ±{_size(e.error)}")
        if standings.sprt is not None:
            text += (f" LLR {standings.llr:.2f} ({standings.sprt.lower:.2f}, "
                     f"{standings.sprt.upper:.2f})")
    else:
        text = "points " + ", ".join(f"{label} {points:g}"
                                     for label, points in zip(plan.labels, standings.points))
    forfeits = sum(standings.forfeits)
    return text + (f", {forfeits} forfeits" if forfeits else "")


def rated(plan: Match) -> bool:
    """Whether the summary of `plan` has Bradley-Terry ratings (scipy, the `ratings`
    extra): a tournament's cross table, a match of 3 or 4 agents; not a match of 2."""
    return len(plan.pairings) > 1 or len(plan.labels) != 2


def _summary(plan: Match, standings: Standings, anchor: int | None = None) -> None:
    if standings.games == 0:
        click.echo("no games played")
        return
    if len(plan.pairings) > 1:
        _cross_table(plan, standings, anchor)
    elif not rated(plan):
        _pair_summary(plan, standings)
    else:
        _table(plan, standings)


def _pair_summary(plan: Match, standings: Standings) -> None:
    first, second = plan.labels
    wins, losses, ties = standings.record.get(plan.pairings[0], [0, 0, 0])
    click.echo(f"{first} vs {second}: {counted(standings.games, 'game')}, {first} "
               f"{counted(wins, 'win')}, {counted(losses, 'loss', 'losses')}, "
               f"{counted(ties, 'tie')}{_forfeits(plan, standings)}")
    e = standings.estimate()
    if e.n:
        # no spread (one opening, or all alike): the normal interval has no width, and
        # the likelihood of superiority would be 0 or 1: neither is known
        los = "n/a" if e.error == 0 else _percent(e.los)
        click.echo(f"score {_percent(e.score)} over {counted(e.n, 'whole opening')}: "
                   f"{_rating(e)}, LOS {los}")
    if standings.sprt is not None:
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "no decision yet"}
        click.echo(f"{standings.sprt}: LLR {standings.llr:.2f} (bounds "
                   f"{standings.sprt.lower:.2f} .. {standings.sprt.upper:.2f}): "
                   f"{verdict[standings.decision]} after {standings.games} games")


def _rating(e: Estimate) -> str:
    """The Elo estimate in words: with its 95% interval, or, when every game was won (or
    every game lost), what is known: a one-sided bound."""
    if e.score == 0:
        return f"no wins or ties: Elo below {_elo(e.high)} (95% one-sided bound)"
    if e.score == 1:
        return f"no losses or ties: Elo above {_elo(e.low)} (95% one-sided bound)"
    if e.error == 0:
        alike = ("one whole opening" if e.n == 1
                 else f"every one of the {e.n} whole openings scored {_percent(e.score)}")
        return f"Elo {_elo(e.elo)} (95% CI not bounded: {alike}, too few games to tell)"
    if math.isinf(e.low) and math.isinf(e.high):
        interval = "not bounded yet"
    elif math.isinf(e.low) or math.isinf(e.high):  # the normal interval passes a score of 0 or 1
        interval = f"below {_elo(e.high)}" if math.isinf(e.low) else f"above {_elo(e.low)}"
    else:
        interval = f"{_elo(e.low)} .. {_elo(e.high)}"
    spread = f" ± {_size(e.error)}" if math.isfinite(e.error) else ""
    return f"Elo {_elo(e.elo)}{spread} (95% CI {interval})"


def _table(plan: Match, standings: Standings) -> None:
    fit = standings.bradley_terry()
    width = max(len(label) for label in plan.labels)
    click.echo(f"{'agent':<{width}}  games  points  win share  Bradley-Terry Elo")
    for k, label in enumerate(plan.labels):
        games = standings.played[k]
        click.echo(f"{label:<{width}}  {games:5}  {standings.points[k]:6.1f}  "
                   f"{_percent(standings.points[k] / max(games, 1)):>9}  "
                   f"{_elo(fit.elo[k]):>7} ± {_size(fit.error[k])}")
    click.echo(f"{counted(standings.games, 'game')}{_forfeits(plan, standings)}; points: "
               "a win is one point, shared by co-winners; ratings from every pairwise result "
               "in the games")


def _cross_table(plan: Match, standings: Standings, anchor: int | None) -> None:
    fit = standings.bradley_terry(anchor)
    names = [f"{k + 1} {label}" for k, label in enumerate(plan.labels)]
    width = max(len(name) for name in names)
    cells = 16
    click.echo(" " * width + "  " + "".join(f"{k + 1:>{cells}}" for k in range(len(names)))
               + "   points  Bradley-Terry Elo  ms/move")
    for i, label in enumerate(names):
        row = []
        for j in range(len(plan.labels)):
            meetings = standings.meetings[i][j]
            if i == j or not meetings:
                row.append(f"{'-':>{cells}}")
                continue
            won, lost, tied = _versus(standings, i, j)
            row.append(f"{_percent(standings.versus[i][j] / meetings)} {won}-{lost}-{tied}"
                       .rjust(cells))
        click.echo(f"{label:<{width}}  {''.join(row)}   {standings.points[i]:6.1f}  "
                   f"{_elo(fit.elo[i]):>7} ± {_size(fit.error[i]):<5}  "
                   f"{_milliseconds(standings.time_per_move(i)):>7}")
    groups = len(plan.pairings[0]) > 2
    click.echo(f"{counted(standings.games, 'game')}{_forfeits(plan, standings)}; a cell "
               f"is the row's score against the column, then its wins-losses-ties"
               f"{' between their seats' * groups}; ratings"
               f"{f' from {plan.labels[anchor]} = 0' if anchor is not None else ''}"
               " ± a standard error; ms/move: time per chosen move (forced ones left out)")


def _versus(standings: Standings, i: int, j: int) -> list[int]:
    """Wins, losses, ties of agent i against agent j: of their games in a pairing of two
    (each game's score), or of their seats' pairwise results in groups of 3 or 4."""
    pairing = (i, j) if (i, j) in standings.record else (j, i)
    if pairing not in standings.record:
        return standings.pairwise[i][j]
    won, lost, tied = standings.record[pairing]
    return [lost, won, tied] if pairing != (i, j) else [won, lost, tied]


def _write_summary(path: str, plan: Match, standings: Standings, anchor: int | None) -> None:
    """The standings as JSON (--summary): each agent's rating is the summary's, Bradley-Terry
    or, in a match of two agents, the Elo of the first against the second (the second's the
    same, negated)."""
    if rated(plan):
        fit = standings.bradley_terry(anchor)
        ratings = [(fit.elo[k], fit.error[k], *fit.interval(k)) for k in range(len(plan.labels))]
    else:
        e = standings.estimate()
        ratings = [(e.elo, e.error, e.low, e.high), (-e.elo, e.error, -e.high, -e.low)]
    agents = []
    for k, label in enumerate(plan.labels):
        elo, error, low, high = ratings[k]
        seconds = standings.time_per_move(k)
        agents.append({"name": label, "spec": plan.specs[k].text,
                       "games": standings.played[k], "points": standings.points[k],
                       "elo": _finite(elo), "error": _finite(error),
                       "low": _finite(low), "high": _finite(high),
                       "seconds_per_move": _finite(seconds),
                       "moves_timed": standings.choices[k]})
    data = {"format": f"photocore-{command_of(plan)}", "players": plan.players,
            "group": len(plan.pairings[0]), "options": str(plan.options), "seed": plan.seed,
            "openings": plan.openings, "games": standings.games,
            "games_per_group": plan.per_pairing, "forfeits": sum(standings.forfeits),
            "anchor": None if anchor is None else plan.labels[anchor],
            "confidence": 0.95, "agents": agents}
    write_summary(path, data)


def _finite(value: float) -> float | None:
    """A figure as the summary holds it: null where it is not finite (JSON has no inf)."""
    return value + 0.0 if math.isfinite(value) else None      # + 0.0: no -0.0


def _forfeits(plan: Match, standings: Standings) -> str:
    lost = [f"{label} {n}" for label, n in zip(plan.labels, standings.forfeits) if n]
    return f"; forfeits: {', '.join(lost)}" if lost else "; no forfeits"


def _percent(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.1%}"


def _elo(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{round(value, 1) + 0.0:+.1f}"      # + 0.0: no -0.0


def _milliseconds(seconds: float) -> str:
    return "n/a" if math.isnan(seconds) else f"{1000 * seconds:.2f}"


def _size(value: float) -> str:
    return "inf" if math.isinf(value) else "n/a" if math.isnan(value) else f"{value:.1f}"
