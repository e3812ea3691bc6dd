"""The old names of photocore, kept working for one release with a DeprecationWarning.

Every old name is a row of RENAMED, and every shim warns through `warn`, in one form:

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     warn("Game.legal_mask()")
>>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
Game.legal_mask() is deprecated since photocore 0.2: use Game.legal_moves().mask()
(it goes in photocore 0.3)

CHANGELOG.md lists the same names; tests/test_compat.py fails once the installed version
reaches REMOVED while a shim is left.
"""

import importlib
import warnings

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
    # Game methods moved to the modules that build on the core
    "Game.legal_actions()": "Game.legal_moves().ids()",
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
    # a built-in agent is a Player itself: specs.load() gives the Agent
    "photocore.play.specs.BuiltinPlayer":
        "photocore.Agent (BuiltinPlayer(kind, n) is Agent(kind, simulations=n))",
    # the advanced rules are one value, options=, everywhere: a flag argument per rule
    # (a keyword, or positional after players) is the old way
    **{f"{rule.name}=": f"options={rule.letter!r} (or Options({rule.name}=True))"
       for rule in OPTION_RULES},
    **{f"Game.{rule.name}": f"Game.options.{rule.name}" for rule in OPTION_RULES},
}


def message(old: str) -> str:
    """The warning for the old name `old` (a key of RENAMED)."""
    return (f"{old} is deprecated since photocore {DEPRECATED}: use {RENAMED[old]} "
            f"(it goes in photocore {REMOVED})")


def warn(old: str, stacklevel: int = 2) -> None:
    """Warns that `old` is deprecated; `stacklevel` as for warnings.warn, counted from the
    caller of warn (compiled callers have no frame: they pass 1)."""
    warnings.warn(message(old), DeprecationWarning, stacklevel=stacklevel + 1)


def moved(module: str, name: str) -> object:
    """The attribute `name` of `module` where it moved to (a module's `__getattr__` calls
    this), with a warning: `module.name` a row of RENAMED whose new spelling is a module
    and a name. The new module is imported only now, by its name in the table, so a module
    never imports the one its old names moved to. AttributeError for any other name."""
    old = f"{module}.{name}"
    if old not in RENAMED:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    where, _, new = RENAMED[old].rpartition(".")
    warn(old, stacklevel=3)         # the line that named the old attribute
    return getattr(importlib.import_module(where), new)


def game_options(options: Options | str | None, flags: tuple[object, ...],
                 keywords: dict[str, object], where: str) -> Options:
    """The options of a call to `where` that takes `options=` and, until REMOVED, the old
    flag arguments: `flags` as given after the player count, `keywords` by rule name.
    Warns for each flag argument given; TypeError for unknown keywords or for both forms."""
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
