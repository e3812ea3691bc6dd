"""Agent specs: one text form for every agent, in `photocore match`, `photocore selfplay
--agents` and Python, and the players they load into (each a photocore.play.Player)::

    random | greedy | mcts | mcts:N                  the built-in agents, in C (BUILTIN_AGENTS;
                                                      N simulations, default 200)
    mcts:N?graph=1                                    a built-in agent with its options
    py:package.module:Class[?key=value&...]          a Python class, imported
    py:path/to/file.py:Class[?key=value&...]         a Python class from a file
    cmd:"./engine --flag"[?startup=SECONDS]          a program speaking docs/protocol.md
    cmd:./engine                                      (the quotes are needed only for spaces)

`?key=value&key=value` passes keyword arguments to the Python class (values are read as
integers, numbers, true/false/none, 'quoted' or "quoted" text, else bare text; nothing is
evaluated). A Python agent is any object with `select(game)` returning a Move, an action id
or move text; `reset()` (optionally `reset(seed=...)`), `name` and `check(game)` are
optional. `check(game)` raises ValueError when the agent cannot play games such as `game`
(their number of players, their options): a match or self-play asks it once, before the
first game, and refuses the agent with its reason.

>>> spec = parse("py:bots/mine.py:Searcher?checkpoint=ckpt.pt&simulations=64")
>>> spec.kind, spec.cls, dict(spec.options)
('py', 'Searcher', {'checkpoint': 'ckpt.pt', 'simulations': 64})
>>> parse("mcts").label, parse("cmd:'./engine --fast'").argv
('mcts:200', ('./engine', '--fast'))
>>> split('mcts:50,cmd:"./a --x,y",greedy')
['mcts:50', 'cmd:"./a --x,y"', 'greedy']
>>> BUILTIN_FORMS                       # the registry's agents (the list above is tested)
('random', 'greedy', 'mcts', 'mcts:N')
"""

import dataclasses
import importlib
import importlib.util
import inspect
import itertools
import os
import re
import shlex
import sys
import traceback
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any, Protocol, SupportsIndex, cast

from photocore._game import Game, Move
from photocore.budget import Limit, check_limit
from photocore.play._agents import (
    BUILTIN_AGENTS,
    DEFAULT_SIMULATIONS,
    MAX_SIMULATIONS,
    Agent,
    AgentKind,
    option_suffix,
)
from photocore.play.player import Forfeit, Player, as_move, one_line, printable
from photocore.play.protocol import DEFAULT_STARTUP, Engine, check_startup
from photocore.play.results import AgentParams

__all__ = [
    "BUILTIN_FORMS", "DEFAULT_SIMULATIONS", "MAX_SIMULATIONS", "OptionValue", "PythonAgent",
    "PythonAgentPlayer", "Spec", "labels", "load", "parse", "per_seat", "split",
]


#: Every way to write a built-in agent, in the registry's order: random, greedy, mcts, mcts:N.
BUILTIN_FORMS = tuple(form for agent in BUILTIN_AGENTS.values()
                      for form in ((agent.name, f"{agent.name}:N") if agent.budget
                                   else (agent.name,)))
_BUDGETED = [agent.name for agent in BUILTIN_AGENTS.values() if agent.budget]

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*\Z")
_INTEGER = re.compile(r"[+-]?\d+\Z")

#: An option's value in `?key=value`, as the module's docstring says it is read (never
#: evaluated).
OptionValue = int | float | bool | str | None


class PythonAgent(Protocol):
    """An agent played in Python, what a `py:` spec's class makes and what the RL
    environments take as an opponent: `select(game)` returning a Move, an action id or move
    text (`select(game, limit=None)`, given each move's photocore.Limit, `reset()` or
    `reset(seed=...)`, `name` and `check(game)` are optional)."""

    def select(self, game: Game, /) -> Move | SupportsIndex | str:
        """The agent's move in `game` (a copy of the game played: the agent may change it),
        as a Move, an action id or move text; an exception or an illegal move forfeits the
        game."""


class _Checking(PythonAgent, Protocol):
    """A Python agent with the optional `check(game)`."""

    def check(self, game: Game, /) -> object: ...


@dataclasses.dataclass(frozen=True)
class Spec:
    """A parsed agent spec (see the module's docstring); `load()` makes its player."""
    text: str
    """The spec as written."""
    kind: str
    """A built-in agent's name (BUILTIN_AGENTS), "py" or "cmd"."""
    simulations: int = 0
    """The budget of a built-in agent that takes one (`mcts:N`); 0: its default, or none."""
    target: str = ""
    """py: the module's name or the absolute path of its .py file."""
    cls: str = ""
    """py: the class's name in that module."""
    argv: tuple[str, ...] = ()
    """cmd: the program and its arguments."""
    options: tuple[tuple[str, OptionValue], ...] = ()
    """The `?key=value` options, in order: a built-in search's settings, a py class's
    keyword arguments, a cmd engine's settings."""
    cwd: str = ""
    """py and cmd: the folder relative names are resolved in."""

    @property
    def agent_kind(self) -> AgentKind | None:
        """The registry's row of a built-in agent (BUILTIN_AGENTS); None for py and cmd."""
        return BUILTIN_AGENTS.get(self.kind)

    @property
    def builtin(self) -> bool:
        """True for the C agents, which self-play runs without Python in the loop."""
        return self.kind in BUILTIN_AGENTS

    @property
    def searches(self) -> bool:
        """True when a move may take milliseconds rather than microseconds: a searching
        built-in agent, or any Python or engine agent."""
        agent = self.agent_kind
        return True if agent is None else agent.searches

    @property
    def label(self) -> str:
        """The name that tells the agent apart: `mcts:200` for a built-in agent with a
        budget, its name for the other built-in ones, the spec as written else."""
        agent = self.agent_kind
        if agent is None:
            return printable(self.text)
        if not agent.budget:
            return agent.name
        return f"{agent.name}:{self.simulations}{option_suffix(agent.options, dict(self.options))}"

    @property
    def params(self) -> AgentParams:
        """A built-in agent's parameters, as photocore.Agent, play_games and VecGame's
        opponents take them (`mcts:50?graph=1`: AgentParams("mcts", 50, graph=True));
        ValueError for a py or cmd agent."""
        if not self.builtin:
            raise ValueError(f"agent {self.text!r} is not a built-in agent: it has no "
                             "AgentParams")
        options: dict[str, Any] = dict(self.options)     # the row's options: fields
        return AgentParams(self.kind, self.simulations or DEFAULT_SIMULATIONS, **options)

    @property
    def short(self) -> str:
        """The label in a table when no better name is known: a cmd agent's command with
        the folders of its paths left out (`python3 engine.py --fast` for
        `cmd:"/usr/bin/python3 /home/me/engine.py --fast"`), the label else."""
        if self.kind != "cmd":
            return self.label
        return printable(" ".join(os.path.basename(arg.rstrip(os.sep)) or arg
                                  if os.sep in arg else arg for arg in self.argv))

    @property
    def files(self) -> tuple[str, ...]:
        """The files the agent reads, which no command may write over: a py agent's .py
        file, a cmd agent's program where it is named by a path (not found on PATH)."""
        if self.kind == "py" and self.target.endswith(".py"):
            return (self.target,)
        if self.kind == "cmd" and os.sep in self.argv[0]:
            return (os.path.join(self.cwd, self.argv[0]),)
        return ()

    def load(self) -> Player:
        """A new player for this spec (for cmd, the program starts on its first game)."""
        if self.builtin:
            return Agent(**dataclasses.asdict(self.params))
        if self.kind == "py":
            agent = self.python_class()(**dict(self.options))
            if not callable(getattr(agent, "select", None)):
                raise TypeError(f"agent {self.text!r}: {self.cls} has no select(game) method")
            return PythonAgentPlayer(agent)
        return self._engine()

    def python_class(self) -> Callable[..., PythonAgent]:
        """The class of a py spec, imported (ValueError when it cannot be)."""
        try:
            if self.target.endswith(".py"):
                module = _import_file(self.target)
            else:
                if self.cwd and self.cwd not in sys.path:
                    sys.path.append(self.cwd)      # as `python -m` would find it
                module = importlib.import_module(self.target)
        except Exception as e:  # noqa: BLE001 (any error of the user's module)
            raise ValueError(f"agent {self.text!r}: cannot import {self.target} "
                             f"({type(e).__name__}: {e})") from e
        cls = getattr(module, self.cls, None)
        if cls is None:
            raise ValueError(f"agent {self.text!r}: {self.target} has no {self.cls}")
        return cast(Callable[..., PythonAgent], cls)

    def check(self, game: Game | None = None) -> str | None:
        """Fails early, with a clear ValueError, on what would fail in every game: a py
        class that does not import or does not take the options, a cmd program that does
        not start or does not answer the greeting; given `game` (a new game of the run's
        players and options), a py agent whose `check(game)` refuses to play such games
        (the agent is made for it, so its constructor's errors show here too). Returns
        the name a cmd program announced (`ready name=...`) or a py agent declares (its
        `name`, of the class or of an agent made to read it), else None."""
        if self.kind == "py":
            cls = self.python_class()
            try:
                inspect.signature(cls).bind(**dict(self.options))
            except TypeError as e:
                raise ValueError(f"agent {self.text!r}: {self.cls} does not take these "
                                 f"options ({e})") from None
            except ValueError:
                pass   # no signature to check (a builtin class): the first game will tell
            name = getattr(cls, "name", None)
            checks = game is not None and callable(getattr(cls, "check", None))
            if checks or not isinstance(name, str):    # a property, or set by __init__
                try:
                    agent = cast(_Checking, cls(**dict(self.options)))
                    if checks:
                        assert game is not None
                        agent.check(game.copy())
                    name = getattr(agent, "name", None)
                except Exception as e:  # noqa: BLE001 (any error of the user's class)
                    raise ValueError(f"agent {self.text!r}: {one_line(e)}") from None
            return printable(name) if isinstance(name, str) and name.strip() else None
        elif self.kind == "cmd":
            engine = self._engine()
            try:
                engine.start()
                return engine.announced
            except Forfeit as e:
                raise ValueError(f"agent {self.text!r}: {e.reason}") from None
            finally:
                engine.close()
        return None

    def _engine(self) -> Engine:
        # parse() lets only startup=SECONDS, a number > 0 up to a day, through
        startup = cast(float, dict(self.options).get("startup", DEFAULT_STARTUP))
        return Engine(self.argv, cwd=self.cwd, label=self.label, startup=startup)


def parse(text: str) -> Spec:
    """The Spec of `text` (ValueError naming the spec and what is wrong). A built-in agent
    that takes a budget and is written without one has DEFAULT_SIMULATIONS, wherever it is
    written (a match, self-play, the served page, an analysis).

    >>> parse("mcts").label, parse("mcts:50").label
    ('mcts:200', 'mcts:50')
    """
    if not isinstance(text, str):
        raise TypeError(f"an agent spec is text, not {type(text).__name__}")
    text = text.strip()
    kind, colon, rest = text.partition(":")
    name, _, query = text.partition("?")
    name, colon_, budget = name.partition(":")
    if name.lower() in BUILTIN_AGENTS:
        return _parse_builtin(text, BUILTIN_AGENTS[name.lower()], colon_, budget, query)
    if kind == "py" and colon:
        return _parse_python(text, rest)
    if kind == "cmd" and colon:
        return _parse_command(text, rest)
    raise ValueError(f"unknown agent {text!r} (expected {', '.join(BUILTIN_FORMS)}, "
                     "py:module:Class, py:file.py:Class or cmd:PROGRAM)")


def split(text: str) -> list[str]:
    """Comma-separated specs as a list, commas inside quotes kept (for --agents)."""
    parts: list[str] = []
    current: list[str] = []
    quote = None
    for char in text:
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == ",":
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    if quote:
        raise ValueError(f"agents {text!r}: a quote is not closed")
    parts.append("".join(current).strip())
    if not all(parts):
        raise ValueError(f"agents {text!r}: an empty agent between commas")
    return parts


def load(spec: str | Spec) -> Player:
    """A player from a spec (text or Spec): `select(game) -> Move`, `reset(seed=None)`,
    `name`, `close()`."""
    return (spec if isinstance(spec, Spec) else parse(spec)).load()


def labels(specs: Iterable[Spec], names: Iterable[str | None] = ()) -> list[str]:
    """What tables and records call each agent: the name it announced (`names`, by spec;
    None or none given: its short form), made unique with #2, #3 ... where the same one
    comes back.

    >>> labels([parse("cmd:/opt/bin/engine --fast"), parse("greedy"), parse("cmd:./engine")],
    ...        [None, None, "greedy"])
    ['engine --fast', 'greedy', 'greedy#2']
    """
    seen: dict[str, int] = {}
    out = []
    for spec, name in itertools.zip_longest(specs, names):
        label = name or spec.short
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return out


def _parse_builtin(text: str, agent: AgentKind, colon: str, budget: str,
                   query: str) -> Spec:
    options = _builtin_options(text, agent, query)
    if not colon:
        return Spec(text, agent.name, DEFAULT_SIMULATIONS if agent.budget else 0,
                    options=options)
    if not agent.budget:
        takes = "takes" if len(_BUDGETED) == 1 else "take"
        raise ValueError(f"agent {text!r}: only {' and '.join(_BUDGETED)} {takes} a budget "
                         f"({' or '.join(f'{name}:SIMULATIONS' for name in _BUDGETED)})")
    if not budget.isdigit() or not 1 <= int(budget) <= MAX_SIMULATIONS:
        raise ValueError(f"agent {text!r}: the budget must be a whole number of simulations "
                         f"from 1 to {MAX_SIMULATIONS:,}")
    return Spec(text, agent.name, int(budget), options=options)


def _builtin_options(text: str, agent: AgentKind,
                     query: str) -> tuple[tuple[str, OptionValue], ...]:
    """A built-in agent's ?key=value options, each checked against its row's (a switch is
    0, 1, true or false), all of them in the row's order with the defaults filled in."""
    given = dict(_options(text, query))
    defaults = dict(agent.options)
    for key, value in given.items():
        if key not in defaults:
            takes = (f"takes {', '.join(defaults)}" if defaults else "takes no options")
            raise ValueError(f"agent {text!r}: unknown option {key!r} ({agent.name} {takes})")
        if isinstance(defaults[key], bool):
            if value not in (0, 1):         # True and False are 1 and 0
                raise ValueError(f"agent {text!r}: {key} is 0 or 1, got {value!r}")
            given[key] = bool(value)
    return tuple((key, cast(OptionValue, given.get(key, default)))
                 for key, default in agent.options)


def _parse_python(text: str, rest: str) -> Spec:
    target, _, query = rest.partition("?")
    target, colon, cls = target.rpartition(":")
    if not colon or not target or not _IDENTIFIER.match(cls):
        raise ValueError(f"agent {text!r}: expected py:module:Class or py:file.py:Class")
    cwd = os.getcwd()
    if target.endswith(".py"):
        target = os.path.abspath(target)
    elif not all(_IDENTIFIER.match(part) for part in target.split(".")):
        raise ValueError(f"agent {text!r}: {target!r} is neither a module name nor a .py file")
    return Spec(text, "py", target=target, cls=cls, options=_options(text, query), cwd=cwd)


def _parse_command(text: str, rest: str) -> Spec:
    query = ""
    if rest[:1] in ("'", '"'):
        end = rest.find(rest[0], 1)
        if end < 0:
            raise ValueError(f"agent {text!r}: the command's quote is not closed")
        command, after = rest[1:end], rest[end + 1:]
        if after and not after.startswith("?"):
            raise ValueError(f"agent {text!r}: only ?options may follow the quoted command")
        query = after[1:]
    else:
        command = rest
    try:
        argv = tuple(shlex.split(command))
    except ValueError as e:
        raise ValueError(f"agent {text!r}: cannot split the command ({e})") from None
    if not argv:
        raise ValueError(f"agent {text!r}: the command is empty")
    options = _options(text, query)
    for key, value in options:
        if key != "startup":
            raise ValueError(f"agent {text!r}: unknown option {key!r} (a cmd agent takes "
                             "startup=SECONDS)")
        try:
            check_startup(value)     # type: ignore[arg-type]  # checked there
        except ValueError as e:
            raise ValueError(f"agent {text!r}: {e}") from None
    return Spec(text, "cmd", argv=argv, options=options, cwd=os.getcwd())


def _options(text: str, query: str) -> tuple[tuple[str, OptionValue], ...]:
    """key=value pairs joined by & as a tuple of (key, value); no value is evaluated."""
    if not query:
        return ()
    pairs: dict[str, OptionValue] = {}
    for part in _split_query(text, query):
        key, equals, value = part.partition("=")
        if not equals or not _IDENTIFIER.match(key):
            raise ValueError(f"agent {text!r}: option {part!r} is not key=value")
        if key in pairs:
            raise ValueError(f"agent {text!r}: option {key!r} given twice")
        pairs[key] = _value(value)
    return tuple(pairs.items())


def _split_query(text: str, query: str) -> list[str]:
    parts = []
    current, quote = "", None
    for char in query:
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "&":
            parts.append(current)
            current = ""
            continue
        current += char
    if quote:
        raise ValueError(f"agent {text!r}: a quote in the options is not closed")
    return parts + [current]


def _value(text: str) -> OptionValue:
    """An option's value: int, float, bool, None or text (quotes keep text as text)."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    lower = text.lower()
    if lower in ("true", "false"):
        return lower == "true"
    if lower in ("none", "null"):
        return None
    if _INTEGER.match(text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def _import_file(path: str) -> ModuleType:
    """A module from a .py file, imported once per process under a name of its own."""
    name = "photocore_agent_" + re.sub(r"\W", "_", path)
    if name in sys.modules:
        return sys.modules[name]
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such file: {path}")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path} as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module          # before running it, as an import does
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


# ---- players ---------------------------------------------------------------------------

class PythonAgentPlayer(Player):
    """A Python agent object behind the harness: it chooses on a copy of the game (so it
    may play moves on it), given the move's Limit if its `select` has a `limit` parameter,
    and anything it raises or returns that is not a move becomes a Forfeit."""

    def __init__(self, agent: PythonAgent) -> None:
        self.agent = agent
        self._select: Callable[..., object] = agent.select
        self._limited = _takes(self._select, "limit")
        self._reset: Callable[..., object] | None = getattr(agent, "reset", None)
        self._seeded = _takes(self._reset, "seed")
        self._name = str(getattr(agent, "name", type(agent).__name__))

    @property
    def name(self) -> str:
        """The agent's `name`, else its class's name."""
        return self._name

    def reset(self, seed: int | None = None) -> None:
        if self._reset is None:
            return
        try:
            self._reset(seed=seed) if self._seeded else self._reset()
        except Exception as e:  # noqa: BLE001 (the agent's own failure loses its game)
            raise Forfeit(f"reset() raised {one_line(e)}", traceback.format_exc()) from None

    def select(self, game: Game, limit: Limit | None = None) -> Move:
        limit = check_limit(limit)
        try:
            choice = (self._select(game.copy(), limit=limit) if self._limited
                      else self._select(game.copy()))
        except Exception as e:  # noqa: BLE001
            raise Forfeit(f"select() raised {one_line(e)}", traceback.format_exc()) from None
        return as_move(choice)

    def close(self) -> None:
        pass


def per_seat(opponents: object, players: int) -> list[Any]:
    """A learner's opponents, one per other seat (the k-th player after the learner, k
    from 0): one opponent (a spec or an agent) stands for them all, a list or tuple of
    players - 1 gives each seat its own; ValueError for a list of another length. The one
    reading of `opponents=` (VecGame, the Gymnasium environments, evaluate_policy), each
    of which then says which kinds of opponent it plays.

    >>> per_seat("greedy", 3), per_seat(("random", "mcts:50"), 3)
    (['greedy', 'greedy'], ['random', 'mcts:50'])
    """
    if not isinstance(opponents, (list, tuple)):
        return [opponents] * (players - 1)
    if len(opponents) != players - 1:
        raise ValueError(f"opponents must be one opponent for every other seat or a list of "
                         f"{players - 1} (one per other seat), got {opponents!r}")
    return list(opponents)


def _takes(method: Callable[..., object] | None, parameter: str) -> bool:
    """Whether `method` has a parameter named `parameter` (read once, as a player is made)."""
    if method is None:
        return False
    try:
        return parameter in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
