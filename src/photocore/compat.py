"""The old names of photocore, kept working for one release with a DeprecationWarning.

Every old name is a row of RENAMED, and every shim warns through `warn`, in one form:

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     warn("Game.legal_mask()")
>>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
Game.legal_mask() is deprecated since photocore 0.2: use Game.legal_moves().mask()
(it goes in photocore 0.3)

This module is the one place that knows what is deprecated and how the old spelling still
works; the rest of the package only installs its hooks: a module's `__getattr__` asks
`moved` (old attributes), the package root puts `MovedModules` on `sys.meta_path` (old
modules), svg.py makes itself a `CallableModule` (a module that was a function), the
functions that took the rules as flags ask `game_options` and `option_attribute`, a
function whose keyword was renamed asks `renamed_keyword`, the package asks
`renamed_method` for a user's method it calls by a new name, and the commands `tell`
their user of an old spelling (cli/options.py hides it from --help).

CHANGELOG.md lists the same names; tests/test_compat.py fails once the installed version
reaches REMOVED while a shim is left.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import re
import sys
import types
import warnings
from collections.abc import Callable, Sequence
from typing import Any, cast

from photocore.facts import OPTION_RULES, Options

DEPRECATED = "0.2"      # the release that deprecated the names below
REMOVED = "0.3"         # the release they go in

# old name: what to use instead
RENAMED: dict[str, str] = {
    # modules moved into the play, env and run packages
    "photocore._agents": "photocore.play._agents",
    "photocore._vec": "photocore.env._vec",
    "photocore.openspiel": "photocore.env.openspiel",
    "photocore.pettingzoo": "photocore.env.pettingzoo",
    "photocore.selfplay": "photocore.run.selfplay",
    "photocore.ray_backend": "photocore.run.ray_backend",
    "photocore.position": "photocore.notation",
    "photocore.serve.hints": "photocore.play.hints",
    # statistics sit at the bottom of the package, below the players and runs that use them
    "photocore.run.ratings": "photocore.stats",
    # the workloads of `photocore bench` are a library of timed runs, which the command and
    # benchmarks/bench.py read: no command themselves (cli/ until 0.2's last step)
    "photocore.speed": "photocore.run.speed",
    "photocore.cli.speed": "photocore.run.speed",
    # Game methods moved to the modules that build on the core
    "Game.legal_mask()": "Game.legal_moves().mask()",
    "Game.to_record()": "photocore.records.to_record(game, metadata)",
    "Game.from_record()": "photocore.records.from_record(rec, ply)",
    # the npz export moved to its own module
    "photocore.records.write_npz": "photocore.npz.write",
    "photocore.records.load_npz": "photocore.npz.load",
    "photocore.records.records_from_npz": "photocore.npz.read_records",
    "photocore.records.NPZ_ARRAYS": "photocore.npz.ARRAYS",
    # the SVG drawing is a module of several drawings
    "photocore.svg(game)": "photocore.svg.board(game)",
    # the analysis of games is spelt as its command, `photocore analyze`
    "photocore.analyse": "photocore.analyze",
    "photocore.analysis.analyse": "photocore.analysis.analyze",
    # what values positions for an analysis is a judge: an Engine is an engine program
    # (photocore.play.protocol.Engine)
    "photocore.analysis.Engine": "photocore.analysis.Judge",
    "photocore.analysis.MctsEngine": "photocore.analysis.MctsJudge",
    "photocore.analysis.SearchEngine": "photocore.analysis.SearchJudge",
    "photocore.analysis.AgentEngine": "photocore.analysis.AgentJudge",
    "photocore.analysis.engine": "photocore.analysis.judge",
    # a learned policy's games against agents, apart from a position's analysis.evaluate
    "photocore.env.evaluate": "photocore.env.evaluate_policy",
    "photocore.env.Evaluation": "photocore.env.PolicyEvaluation",
    "photocore.env.evaluation.evaluate": "photocore.env.evaluation.evaluate_policy",
    "photocore.env.evaluation.Evaluation": "photocore.env.evaluation.PolicyEvaluation",
    # "solve" is the exact solver, and an agent's bool (prove moves in the last round); a
    # number of positions is named by its unit, nodes
    "photocore.analysis.DEFAULT_SOLVE": "photocore.analysis.DEFAULT_SOLVE_NODES",
    "photocore.analysis.analyze(solve=N)": "photocore.analysis.analyze(solve_nodes=N)",
    "photocore.analysis.evaluate(solve=N)": "photocore.analysis.evaluate(solve_nodes=N)",
    "GameAnalysis.solve": "GameAnalysis.solve_nodes",
    "photocore.play._agents.SOLVE_BUDGET": "photocore.play._agents.SOLVE_NODES",
    # the advanced rules are one value: an Options, or its text, in every options=
    "photocore.play.play_games(options=flags)":
        "photocore.play.play_games(options=Options.from_flags(flags)) (or the Options' text)",
    # a position the solver settles is an exact evaluation; the set of solved positions
    # that players are scored on is a ground truth (the solver itself: play/_solver)
    "photocore.analysis.solved": "photocore.analysis.exact_evaluation",
    "photocore.play.solved": "photocore.play.ground_truth",
    # "evaluate" is the network a search calls (an attribute holding it is .evaluate): a
    # judge's view of a position is its evaluation, and user agents analyze, as the command
    "Judge.evaluate(game, seed)": "Judge.evaluation(game, seed)",
    "SearchJudge.network": "SearchJudge.evaluate",
    "an agent's analyse(game)": "an agent's analyze(game)",
    # `play` is the agents' package and a person's command: the driver's batches are batches
    "photocore.run.driver.play": "photocore.run.driver.batches",
    # an opponent played in Python is what a py: spec makes: one protocol
    "photocore.env.gym.Opponent": "photocore.play.specs.PythonAgent",
    # a built-in agent is a Player itself: specs.load() gives the Agent
    "photocore.play.specs.BuiltinPlayer":
        "photocore.Agent (BuiltinPlayer(kind, n) is Agent(kind, simulations=n))",
    # the advanced rules are one value, options=, everywhere: a flag argument per rule
    # (a keyword, or positional after players) is the old way
    **{f"{rule.name}=": f"options={rule.letter!r} (or Options({rule.name}=True))"
       for rule in OPTION_RULES},
    **{f"Game.{rule.name}": f"Game.options.{rule.name}" for rule in OPTION_RULES},
    # `photocore analyze`'s plan is a run's, its query service a service
    "photocore.cli.analyze.answer": "photocore.serve.queries.answer",
    "photocore.cli.analyze.QueryError": "photocore.serve.queries.QueryError",
    "photocore.cli.analyze.MAX_QUERY": "photocore.serve.queries.MAX_QUERY",
    # one name per role in a run: a plan's batch gives back a Batch (SelfPlayBatch,
    # MatchBatch, TrainingBatch, AnalysisBatch); the driver hands on a Span of the run
    "photocore.run.plan.Played": "photocore.run.plan.Batch",
    "photocore.run.driver.Batch": "photocore.run.driver.Span",
    "photocore.run.train_data.Block": "photocore.run.train_data.TrainingBatch",
    # the command line speaks one vocabulary (docs/contributing.md, "The command line"): an old
    # spelling is accepted, hidden from --help, and told on standard error (`tell`)
    "photocore match AGENTS": "--agents SPEC,...",
    "photocore tournament AGENTS": "--agents SPEC,...",
    "photocore play --opponents": "--agents",
    "photocore analyze --engine": "--agent",
    "photocore solve --score": "--agent",
    "photocore bench --json FILE": "--summary FILE",
    "photocore tournament --games N (games per group)":
        "--games-per-group N (--games will be the total, as in every command)",
}


def message(old: str) -> str:
    """The warning for the old name `old` (a key of RENAMED)."""
    return (f"{old} is deprecated since photocore {DEPRECATED}: use {RENAMED[old]} "
            f"(it goes in photocore {REMOVED})")


def warn(old: str, stacklevel: int = 2) -> None:
    """Warns that `old` is deprecated; `stacklevel` as for warnings.warn, counted from the
    caller of warn (compiled callers have no frame: they pass 1)."""
    warnings.warn(message(old), DeprecationWarning, stacklevel=stacklevel + 1)


def on_command_line(old: str) -> bool:
    """Whether the row `old` of RENAMED is a spelling of the command line (`photocore
    COMMAND ...`), which `tell` reports, rather than a name of the package."""
    return old.startswith("photocore ")


def tell(old: str) -> None:
    """Tells the person at the command line that the spelling `old` (a row of RENAMED,
    `photocore COMMAND --option`) is deprecated, in one line on standard error: a
    DeprecationWarning would not reach them (Python shows none outside __main__)."""
    sys.stderr.write(f"warning: {message(old)}\n")
    sys.stderr.flush()


def moved(module: str, name: str, compiled: bool = False) -> Any:
    """The attribute `name` of `module` where it moved to (a module's `__getattr__` calls
    this; `compiled`: a compiled module's, which has no frame), with a warning:
    `module.name` a row of RENAMED whose new spelling is a module and a name (or a
    module), or one of STAND_INS. The new module is imported only now, by its name in the
    table, so a module never imports the one its old names moved to. AttributeError for
    any other name."""
    old = f"{module}.{name}"
    if old not in RENAMED:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    frames = 1 if compiled else 2   # between moved and the line that named the attribute
    if not _asked_by_import(frames + 1):
        warn(old, stacklevel=frames + 1)
    if old in STAND_INS:
        return STAND_INS[old]
    return _resolve(RENAMED[old])


def _asked_by_import(depth: int) -> bool:
    """Whether the import system asks for the attribute (the code `depth` frames above
    this one): `from package import name` first asks hasattr(package, name), then takes
    the name, and only the taking warns, once per line as for a module."""
    try:
        code = sys._getframe(depth).f_code  # (hasattr has no frame)
    except ValueError:                      # asked from C, with no Python frame above
        return False
    return code.co_name == "_handle_fromlist" and code.co_filename.startswith("<frozen")


def _resolve(path: str) -> Any:
    """What the dotted `path` names: a module's attribute, or else a module, imported now."""
    where, _, name = path.rpartition(".")
    try:
        return getattr(importlib.import_module(where), name)
    except AttributeError:          # a submodule not imported yet
        return importlib.import_module(path)


def _builtin_player(kind: str, simulations: int) -> Any:
    """photocore.play.specs.BuiltinPlayer(kind, simulations) as 0.1 made it: since 0.2 the
    built-in agent itself, an Agent, is the Player."""
    agents = importlib.import_module("photocore.play._agents")
    return agents.Agent(kind, 0, simulations or agents.DEFAULT_SIMULATIONS)


# the old names whose new spelling in RENAMED is no path to a value: what each stands for
STAND_INS: dict[str, Callable[..., Any]] = {
    "photocore.play.specs.BuiltinPlayer": _builtin_player,
}

_PATH = re.compile(r"photocore(\.\w+)+")


def moved_module(old: str) -> str | None:
    """The module the module `old` moved to (a row of RENAMED whose two spellings are
    modules), or None."""
    new = RENAMED.get(old)
    if new is None or not (_PATH.fullmatch(old) and _PATH.fullmatch(new)):
        return None
    try:
        return new if importlib.util.find_spec(new) is not None else None
    except ModuleNotFoundError:     # an attribute's row (photocore.npz.write)
        return None


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports a moved module by its old name (see moved_module): the new module, under
    both names, with a warning. The package root puts one on sys.meta_path."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if moved_module(fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        # the import system takes the module back from sys.modules: the new one, not a copy
        warn(module.__name__, stacklevel=2)
        sys.modules[module.__name__] = importlib.import_module(RENAMED[module.__name__])


class CallableModule(types.ModuleType):
    """A module that was a function until 0.2 (its row of RENAMED, `module(...)`, names the
    function it is now): calling the module calls that function, with a warning. The
    module makes itself one: `sys.modules[__name__].__class__ = compat.CallableModule`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        old = next(row for row in RENAMED if row.startswith(f"{self.__name__}("))
        warn(old)
        return _resolve(RENAMED[old].partition("(")[0])(*args, **kwargs)


def renamed_keyword(where: str, keywords: dict[str, Any], value: Any) -> Any:
    """`value`, or the value of a keyword argument of `where` given by its old name: the
    **keywords of a call whose old keywords are rows of RENAMED, `where(old=N)`; with a
    warning. TypeError for any other keyword, as Python says it."""
    rows = {row[len(where) + 1:].partition("=")[0]: row
            for row in RENAMED if row.startswith(f"{where}(")}
    for name in keywords:
        if name not in rows:
            raise TypeError(f"{where.rpartition('.')[2]}() got an unexpected keyword argument "
                            f"{name!r}")
    for name, given in keywords.items():
        warn(rows[name], stacklevel=3)      # the caller of where
        value = given
    return value


def renamed_method(obj: object, new: str, old: str) -> Callable[..., Any] | None:
    """The method `new` of a user's object that the package calls, or its method of the
    old name, RENAMED's row `old` (`"an agent's analyse(game)"`: the word before the
    parenthesis), with a warning; None if it has neither."""
    found: Callable[..., Any] | None = getattr(obj, new, None)
    if callable(found):
        return found
    found = cast(Callable[..., Any] | None,
                 getattr(obj, old.partition("(")[0].rpartition(" ")[2].rpartition(".")[2], None))
    if not callable(found):
        return None
    warn(old, stacklevel=3)                 # the caller of the function that looks
    return found


def game_options(options: Options | str | None, flags: tuple[object, ...],
                 keywords: dict[str, object], where: str) -> Options:
    """The options of a call to `where` that takes `options=` and, until REMOVED, the old
    flag arguments: `flags` as given after the player count, `keywords` by rule name.
    Warns for each flag argument given; TypeError for unknown keywords or for both forms.
    An Options or its text where the flags begin is the options, given by position
    (`Game(2, "fs")`), as a user reaches for it: no flag, no warning."""
    if len(flags) == 1 and isinstance(flags[0], Options | str):
        if options is not None:
            raise TypeError(f"{where}() got multiple values for argument 'options'")
        options, flags = flags[0], ()
    if not flags and not keywords:
        return Options.coerce(options)
    unknown = sorted(set(keywords) - set(Options._fields))
    if unknown:
        raise TypeError(f"{where}() got an unexpected keyword argument {unknown[0]!r}")
    if options is not None:
        raise ValueError(f"{where}(): give the options either as options= or as flags, "
                         "not both")
    if len(flags) > len(OPTION_RULES):
        raise TypeError(f"{where}() takes at most {len(OPTION_RULES)} option flags after "
                        f"players, got {len(flags)}")
    values = dict(zip(Options._fields, flags))
    for name in keywords:
        if name in values:
            raise TypeError(f"{where}() got multiple values for argument {name!r}")
    values.update(keywords)
    options = Options(**values)     # a bad flag fails here, before any warning
    for name in values:
        warn(f"{name}=", stacklevel=2)
    return options


def option_attribute(options: Options, owner: str, name: str) -> bool:
    """`owner.name` for a rule's name, as photocore 0.1 had them: the rule's flag in
    `options`, with a warning; AttributeError for any other name."""
    if name not in Options._fields:
        raise AttributeError(f"{owner!r} object has no attribute {name!r}")
    warn(f"{owner}.{name}", stacklevel=2)
    return bool(getattr(options, name))
