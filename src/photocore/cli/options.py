"""Command-line options that several commands share, generated from the tables they come
from: one flag per advanced rule (facts.OPTION_RULES) and the built-in agents' names
(BUILTIN_AGENTS), so a new rule or agent reaches every command's options and help; and
the one vocabulary of the command line (docs/contributing.md, "The command line"): `--agents
SPEC,...` or `--agent SPEC`, SEED and the Ray options."""

import functools
import math
from collections.abc import Callable
from typing import Any

import click

from photocore.cli.output import missing
from photocore.facts import MAX_PLAYERS, MIN_PLAYERS, OPTION_RULES, OPTIONS, Options, check_seed
from photocore.play._agents import BUILTIN_AGENTS, DEFAULT_SIMULATIONS
from photocore.play.specs import split
from photocore.run.driver import BACKENDS, MAX_BATCH, MAX_WORKERS
from photocore.run.ray_backend import CONNECT_TIMEOUT, MAX_CONNECT_TIMEOUT

__all__ = [
    "Command", "RULE_FLAGS", "SET_BY", "FiniteRange", "SeedType", "SEED", "SEED_HELP", "MAX_GAMES",
    "workers_option", "batch_option", "parse_agents", "agents_option", "agent_option",
    "builtin_agents", "RULE_LETTERS", "parse_options",
    "rule_options", "players_and_rules", "backend_options", "check_backend", "connect_backend"
]

Command = Callable[..., Any]

# the rule flags, as a message names them: "--fourth-revolution / --shade-blocks"
RULE_FLAGS = " / ".join(f"--{rule.name.replace('_', '-')}" for rule in OPTION_RULES)

SET_BY = {"rules_version": "the photocore rules version", "players": "--players",
          "options": RULE_FLAGS, "seed": "--seed", "opening": "--openings",
          "game": "the order of the games", "agents": "--agents",
          "limit": "--seconds and --simulations"}
"""The option that sets each field a resumed run's games must match (the Resumable plans'
`defining`: selfplay's, match's and tournament's --resume), as the refusal names it."""


class FiniteRange(click.FloatRange):
    """A FloatRange without inf and nan, which a range lets through (nan fails no
    comparison with its bounds): seconds and minutes are finite."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


class SeedType(click.types.IntParamType):
    """A seed, as every command takes one: any integer, taken modulo 2**64 (-1 is
    18446744073709551615), the rule of facts.check_seed; the command gets the reduced
    value, which its records hold."""

    name = "seed"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        return check_seed(super().convert(value, param, ctx))


class Count(click.IntRange):
    """A count from 1 up to `max`, a long long's 2**63 - 1 (games, positions): the range is
    enforced, but its help says x>=1, as no one reaches the upper bound and its 19 digits
    read as a limit."""

    def __init__(self, max: int) -> None:
        super().__init__(1, max)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        number = click.INT.convert(value, param, ctx)
        if self.max is not None and number > self.max:
            self.fail(f"{number} is more than {self.max:,}, the most it can be", param, ctx)
        return super().convert(number, param, ctx)

    def _describe_range(self) -> str:
        return "x>=1"


SEED = SeedType()
SEED_HELP = "any integer, taken modulo 2**64"
# the most games of a command: game numbers are the kernel's long longs
MAX_GAMES = (1 << 63) - 1


def summary_option(what: str) -> Callable[[Command], Command]:
    """--summary FILE, the one way a command writes JSON (`what` it holds): handed to the
    command as `summary` (None when not given), to check with check_writable before any
    work and to write with output.write_summary."""
    return click.option("--summary", type=click.Path(dir_okay=False), default=None,
                        metavar="FILE", help=f"Also write {what} as JSON to this file.")


def workers_option(help: str) -> Callable[[Command], Command]:
    """--workers, 1 to MAX_WORKERS: processes (or threads) of one machine."""
    return click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=None,
                        help=help)


def batch_option(command: Command) -> Command:
    """--batch: games a task plays, 1 to MAX_BATCH."""
    return click.option("--batch", type=click.IntRange(1, MAX_BATCH), default=None,
                        help="Games per task  [default: chosen from the agents and workers]")(
                            command)


def parse_agents(ctx: click.Context, param: click.Parameter,
                 value: str | None) -> tuple[str, ...] | None:
    """--agents: comma-separated specs, commas inside quotes kept (specs.split)."""
    try:
        return None if value is None else tuple(split(value))
    except ValueError as e:
        raise click.BadParameter(str(e), ctx, param) from None


def agents_option(help: str, default: str | None = None) -> Callable[[Command], Command]:
    """--agents SPEC,...: the agents of a command that takes several, handed to it as a
    tuple of spec texts (None when not given and there is no default)."""
    return click.option("--agents", metavar="SPEC,...", default=default,
                        show_default=default is not None, callback=parse_agents, help=help)


def agent_option(help: str, default: str | None = None) -> Callable[[Command], Command]:
    """--agent SPEC: the agent of a command that takes one."""
    return click.option("--agent", metavar="SPEC", default=default,
                        show_default=default is not None, help=help)


def builtin_agents() -> str:
    """The built-in agents as --agents and AGENTS take them, for help texts.

    >>> builtin_agents()
    'random, greedy, mcts or mcts:SIMULATIONS[?graph=0|1&prove=0|1] (default budget 200)'
    """
    forms = [(f"{agent.name} or {agent.name}:SIMULATIONS" if agent.budget else agent.name)
             + ("[?" + "&".join(f"{key}=0|1" if isinstance(default, bool) else f"{key}=VALUE"
                                 for key, default in agent.options) + "]"
                if agent.options else "")
             for agent in BUILTIN_AGENTS.values()]
    budget = (f" (default budget {DEFAULT_SIMULATIONS})"
              if any(agent.budget for agent in BUILTIN_AGENTS.values()) else "")
    return ", ".join(forms) + budget


# the rules' letters, for help texts: "f fourth revolution, s shade blocks; e.g. fs"
RULE_LETTERS = (", ".join(f"{rule.letter} {rule.words}" for rule in OPTION_RULES)
                + f"; e.g. {OPTIONS[-1]}")


def parse_options(ctx: click.Context, param: click.Parameter,
                  value: str | None) -> Options | None:
    """--options: the advanced rules in their text form ("-", "f", "fs" ...)."""
    try:
        return None if value is None else Options.parse(value)
    except ValueError as e:
        raise click.BadParameter(str(e), ctx, param) from None


def rule_options(command: Command, given_only: bool = False) -> Command:
    """One flag per advanced rule (`--shade-blocks` ...) and `--options TEXT`, handed to
    the command as one value, `options` (an Options): the rules given either way. With
    `given_only`, `options` is None when neither is given (the rules then come from
    elsewhere: a position, a record)."""

    @functools.wraps(command)
    def with_options(*args: object, options: Options | None, **kwargs: object) -> object:
        flags = {rule.name: bool(kwargs.pop(rule.name)) for rule in OPTION_RULES}
        given = (options or Options())._replace(**{k: v for k, v in flags.items() if v})
        if given_only and options is None and not any(flags.values()):
            return command(*args, options=None, **kwargs)
        return command(*args, options=given, **kwargs)

    with_options = click.option(
        "--options", default=None, metavar="TEXT", callback=parse_options,
        help=f"The advanced rules by letter ({RULE_LETTERS}), or - for none: the same as "
             "their flags." + ("  [default: -, or the position's or record's]"
                               if given_only else ""))(with_options)
    for rule in reversed(OPTION_RULES):
        with_options = click.option(f"--{rule.name.replace('_', '-')}", rule.name,
                                    is_flag=True, help=f"Advanced rule: {rule.help}.")(
                                        with_options)
    return with_options


def players_and_rules(command: Command) -> Command:
    """--players, and the advanced rules as rule_options gives them (`options`)."""
    command = rule_options(command)
    return click.option("--players", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS), default=2,
                        show_default=True, help="Number of players.")(command)


def backend_options(command: Command) -> Command:
    """--backend, --address and --connect-timeout: where a run's batches are played (local
    worker processes or Ray tasks); check_backend() and connect_backend() use them."""
    for option in reversed((
            click.option("--backend", type=click.Choice(BACKENDS), default="local",
                         show_default=True, help="local worker processes, or Ray tasks "
                                                 "(pip install 'photocore[ray]')."),
            click.option("--address", default=None,
                         help="Ray cluster address, HOST:PORT of its head (ray backend)  "
                              "[default: RAY_ADDRESS, else a new local Ray instance]"),
            click.option("--connect-timeout", type=FiniteRange(1, MAX_CONNECT_TIMEOUT),
                         default=CONNECT_TIMEOUT, show_default=True, metavar="SECONDS",
                         help="Give up on the Ray cluster at --address if it has not "
                              "answered by then (a day at most)."))):
        command = option(command)
    return command


def check_backend(backend: str) -> None:
    """Refuses an option of the other backend: --address without --backend ray, --workers
    with it."""
    ctx = click.get_current_context()
    for name, backend_of in (("address", "ray"), ("connect_timeout", "ray"),
                             ("workers", "local")):
        given = ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT
        if given and backend != backend_of:
            raise click.BadParameter(f"it is for --backend {backend_of}, not {backend}",
                                     param_hint=f"--{name.replace('_', '-')}")


def connect_backend(command: str, backend: str, address: str | None,
                    connect_timeout: float) -> None:
    """Connects to Ray for --backend ray, before the command opens its output: a failure
    leaves no file behind."""
    if backend != "ray":
        return
    try:
        from photocore.run.ray_backend import connect
        connect(address, connect_timeout)
    except ImportError as e:
        raise missing("--backend ray", "ray", e) from None
    except ConnectionError as e:      # RayConnectError, or Ray's own
        raise click.ClickException((str(e).strip().splitlines() or [repr(e)])[-1]) from None
    except KeyboardInterrupt:
        click.echo(f"\nphotocore {command}: interrupted while connecting to Ray; nothing "
                   "written", err=True)
        raise click.exceptions.Exit(130) from None
