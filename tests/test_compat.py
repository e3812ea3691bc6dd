"""The old names of photocore: each still works for one release, warns in one form through
photocore.compat, and is gone by the release that removes it."""

import importlib
import re
import sys
import warnings

import pytest

import photocore
from photocore import Game, Options, compat


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


SHIMS = {
    "photocore.svg(game)": lambda: importlib.import_module("photocore.svg")(Game()),
    "Game.legal_mask()": lambda: Game().legal_mask(),
    "Game.legal_actions()": lambda: Game().legal_actions(),
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
    (lambda: Game(2, "yes"), TypeError, "must be True or False"),
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


def test_every_rule_of_the_option_table_has_its_old_names():
    for rule in photocore.facts.OPTION_RULES:
        assert f"{rule.name}=" in compat.RENAMED and f"Game.{rule.name}" in compat.RENAMED
