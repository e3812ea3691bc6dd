"""The old names of photocore: each still works for one release, warns in one form through
photocore.compat, and is gone by the release that removes it."""

import importlib
import importlib.util
import re
import sys
import warnings

import numpy as np
import pytest

import photocore
from photocore import Game, Options, analysis, compat
from installed import missing_framework


def version(text):
    return tuple(int(part) for part in re.findall(r"\d+", text)[:2])


def test_no_shim_outlives_its_removal_release():
    # fails once the package reaches the release that drops the shims, until they go
    assert version(photocore.__version__) < version(compat.REMOVED), (
        f"photocore {photocore.__version__} still has the shims of compat.RENAMED, due to "
        f"go in {compat.REMOVED}: remove them (and this module's rows)")
    assert version(compat.DEPRECATED) <= version(photocore.__version__)


def test_the_version_is_the_installed_distributions():
    from importlib.metadata import version as installed
    assert photocore.__version__ == installed("photocore")


def caught(action):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = action()
    deprecations = [w for w in seen if issubclass(w.category, DeprecationWarning)]
    return result, [str(w.message) for w in deprecations], deprecations


def uniform(obs, mask):
    return np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32)


class OldAnalyst:
    """A user's agent of photocore 0.1: its values are analyse(game)'s."""

    def analyse(self, game):
        return {move: 0.0 for move in game.legal_moves()}


class OldJudge:
    """A user's judge of photocore 0.1: evaluate(game, seed)."""

    name = "old"

    def evaluate(self, game, seed):
        return analysis.MctsJudge(5).evaluation(game, seed)


SHIMS = {
    "photocore.svg(game)": lambda: importlib.import_module("photocore.svg")(Game()),
    "Game.legal_mask()": lambda: Game().legal_mask(),
    "photocore.play._agents.SOLVE_BUDGET":
        lambda: importlib.import_module("photocore.play._agents").SOLVE_BUDGET,
    "photocore.play.play_games(options=flags)":
        lambda: photocore.play.play_games([("random", 1)] * 2, 2, 1, 0, 0, 1),
    "photocore.analysis.analyze(solve=N)": lambda: analysis.analyze(Game(), solve=None),
    "photocore.analysis.evaluate(solve=N)":
        lambda: analysis.evaluate(Game(), "mcts:5", solve=None),
    "GameAnalysis.solve": lambda: analysis.analyze(Game(), solve_nodes=None).solve,
    "Judge.evaluate(game, seed)": lambda: analysis.judge("mcts:5").evaluate(Game(), 0),
    "SearchJudge.network": lambda: analysis.SearchJudge(uniform, 4).network,
    "photocore.records.write_npz": lambda: importlib.import_module("photocore.records").write_npz,
    "shade_blocks=": lambda: Game(2, shade_blocks=True),
    "fourth_revolution=": lambda: Game(3, fourth_revolution=True),
    "Game.shade_blocks": lambda: Game(options="s").shade_blocks,
}


@pytest.mark.parametrize("old", sorted(SHIMS))
def test_each_shim_warns_once_in_the_one_form_naming_this_file(old):
    _, messages, found = caught(SHIMS[old])
    assert messages == [compat.message(old)]
    assert messages[0].startswith(f"{old} is deprecated since photocore {compat.DEPRECATED}: ")
    assert messages[0].endswith(f"(it goes in photocore {compat.REMOVED})")
    assert found[0].filename == __file__      # the warning points at the caller's line


def test_photocore_svg_is_callable_without_importing_it_first():
    # `import photocore` then `photocore.svg(game)`, as 0.1 was used
    _, messages, _ = caught(lambda: photocore.svg(Game()).startswith("<svg"))
    assert messages == [compat.message("photocore.svg(game)")]


def test_a_moved_module_is_the_new_module_with_a_warning():
    sys.modules.pop("photocore.position", None)
    module, messages, _ = caught(lambda: importlib.import_module("photocore.position"))
    assert module is importlib.import_module("photocore.notation")
    assert messages == [compat.message("photocore.position")]


def test_the_hints_keep_their_path_in_serve():
    # play/hints.py serves the terminal too: it moved out of serve/
    sys.modules.pop("photocore.serve.hints", None)
    module, messages, _ = caught(lambda: importlib.import_module("photocore.serve.hints"))
    assert module is importlib.import_module("photocore.play.hints")
    assert messages == [compat.message("photocore.serve.hints")]


@pytest.mark.parametrize("flags, keywords, text", [
    ((True,), {}, "f"), ((False, True), {}, "s"), ((), {"shade_blocks": True}, "s"),
    ((True,), {"shade_blocks": True}, "fs"), ((0, 1), {}, "s")])
def test_the_old_flags_give_the_same_options_as_the_text(flags, keywords, text):
    game, _, _ = caught(lambda: Game(3, *flags, **keywords))
    assert game.options == Options.parse(text) and game.players == 3
    totals, _, _ = caught(lambda: photocore.random_playouts(5, 3, 9, *flags, **keywords))
    assert totals == photocore.random_playouts(5, 3, 9, options=text)


@pytest.mark.parametrize("call, error, match", [
    (lambda: Game(2, True, options="f"), ValueError, "either as options= or as flags"),
    (lambda: Game(2, shady=True), TypeError, "unexpected keyword argument 'shady'"),
    (lambda: Game(2, True, fourth_revolution=True), TypeError, "multiple values"),
    (lambda: Game(2, *[True] * (len(photocore.facts.OPTION_RULES) + 1)), TypeError,
     f"at most {len(photocore.facts.OPTION_RULES)} option flags"),
    (lambda: Game(2, "yes"), ValueError, "options 'yes': expected -"),
    (lambda: Game(2, "fs", options="f"), TypeError, "multiple values for argument 'options'"),
    (lambda: Game(2, 2.5), TypeError, "must be True or False"),
    (lambda: Game(2, options="x"), ValueError, "options 'x': expected - or the letters of "
                                               r"the rules, each once \(f fourth revolution"),
    (lambda: Game(2, options="ff"), ValueError, "options 'ff': expected -"),
    (lambda: Game(2, options=""), ValueError, "options '': expected -"),
    (lambda: Game(2, options=3), TypeError, "options must be an Options or its text"),
])
def test_bad_options_are_refused_naming_them(call, error, match):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(error, match=match):
            call()


def test_the_options_given_by_position_are_the_options_with_no_warning():
    # Game(2, "fs") read the text as the fourth-revolution flag and refused it, naming
    # neither options= nor the text
    _, messages, _ = caught(lambda: Game(2, "fs"))
    assert messages == [] and Game(2, "fs").options == Options.parse("fs")
    assert Game(3, Options.parse("s")).options == Game(3, options="s").options
    assert photocore.random_playouts(5, 3, 9, "s") == photocore.random_playouts(
        5, 3, 9, options="s")


def test_a_users_old_analyse_and_old_judge_still_serve_with_a_warning():
    game = Game()
    old, messages, _ = caught(lambda: analysis.evaluate(game, OldAnalyst(), solve_nodes=None))
    assert messages == [compat.message("an agent's analyse(game)")]
    assert set(old.moves) == {str(m) for m in game.legal_moves()}
    judged, messages, _ = caught(lambda: analysis.evaluate(game, OldJudge(), seed=3,
                                                           solve_nodes=None))
    assert messages == [compat.message("Judge.evaluate(game, seed)")]
    assert judged == analysis.MctsJudge(5).evaluation(game, 3)


# how 0.1 code used the old spellings that are no module and no module attribute
USES = {
    **SHIMS,
    "an agent's analyse(game)": lambda: analysis.judge(OldAnalyst()),
    "Game.to_record()": lambda: Game().to_record(),
    "Game.from_record()": lambda: Game.from_record(photocore.records.to_record(Game())),
    "photocore.play.specs.BuiltinPlayer":
        lambda: importlib.import_module("photocore.play.specs").BuiltinPlayer("mcts", 50),
    **{f"{rule.name}=": (lambda name: lambda: Game(3, **{name: True}))(rule.name)
       for rule in photocore.facts.OPTION_RULES},
    **{f"Game.{rule.name}": (lambda name: lambda: getattr(Game(), name))(rule.name)
       for rule in photocore.facts.OPTION_RULES},
}


def is_module(path):
    try:
        return importlib.util.find_spec(path) is not None
    except ModuleNotFoundError:         # a module's attribute (photocore.npz.write)
        return False


def reach(old):
    """The old spelling `old` used as 0.1 code did: imported (a module), looked up (a
    module's attribute) or called (USES). Returns what it gives, and what its new spelling
    gives (None where that is no module path)."""
    new = compat.RENAMED[old]
    if old in USES:
        return USES[old](), None
    if is_module(new):
        sys.modules.pop(old, None)          # imported before: a fresh import warns again
        return importlib.import_module(old), importlib.import_module(new)
    where, _, name = old.rpartition(".")
    new_where, _, new_name = new.rpartition(".")
    return (getattr(importlib.import_module(where), name),
            getattr(importlib.import_module(new_where), new_name))


# the command line's old spellings are used and told there: tests/test_cli.py
@pytest.mark.parametrize("old", sorted(old for old in compat.RENAMED
                                       if not compat.on_command_line(old)))
def test_every_old_spelling_still_works_and_warns_in_the_one_form(old):
    # the module the new spelling lives in, or the old one's (a module's attribute)
    for module in (compat.moved_module(old), old.rpartition(".")[0]):
        if module and is_module(module) and (framework := missing_framework(module)):
            pytest.skip(f"{module} needs {framework}, which is not installed")
    (value, new), messages, _ = caught(lambda: reach(old))
    assert messages == [compat.message(old)]
    assert new is None or value is new


@pytest.mark.parametrize("package, old, new", [
    ("photocore", "analyse", "analyze"), ("photocore.env", "evaluate", "evaluate_policy")])
def test_an_old_name_imported_from_a_package_warns_once(package, old, new):
    # the import system asks the package hasattr(old) before it takes old: one warning
    names = {}
    _, messages, _ = caught(lambda: exec(f"from {package} import {old}", names))
    assert messages == [compat.message(f"{package}.{old}")]
    assert names[old] is getattr(importlib.import_module(package), new)


def test_every_rule_of_the_option_table_has_its_old_names():
    for rule in photocore.facts.OPTION_RULES:
        assert f"{rule.name}=" in compat.RENAMED and f"Game.{rule.name}" in compat.RENAMED
