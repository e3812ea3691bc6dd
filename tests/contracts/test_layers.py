"""The package's layers hold: docs/contributing.md's Layout names them (tests/layers.py)."""

import pathlib
import shutil

import photocore
from layers import circles, imports_of, layer_of, package_map, problems, read_layers

SRC = pathlib.Path(photocore.__file__).parent
DOCS = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "contributing.md").read_text(
    encoding="utf-8")


def copy(tmp_path):
    tree = tmp_path / "photocore"
    shutil.copytree(SRC, tree, ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__"))
    return tree


def new_problems(tree, text=DOCS):
    return [p for p in problems(tree, text) if p not in problems(SRC, DOCS)]


def test_every_import_points_down_the_layers_and_none_closes_a_circle():
    assert problems(SRC, DOCS) == []


def test_the_layers_read_from_the_docs_and_a_module_falls_in_its_package_s():
    layers = read_layers(DOCS)
    names = [layer for layer, _ in layers]
    assert names[0] == "core" and names[-1] == "command line"
    assert "errors" in layers[0][1] and "_kernel" in layers[0][1]
    players = names.index("players")
    assert layer_of("play", layers) == layer_of("play.specs", layers) == players
    assert layer_of("play.a_new_module", layers) == players
    assert layer_of("photocore", layers) == names.index("public names")
    assert layer_of("nothing_known", layers) is None


def test_a_module_added_to_a_package_needs_no_edit(tmp_path):
    tree = copy(tmp_path)
    (tree / "play" / "extra.py").write_text(
        '"""An extra."""\nfrom photocore import errors, records\n'
        "from photocore.play import specs\n")
    (tree / "serve" / "extra.py").write_text("from photocore.play import hints\n")
    assert new_problems(tree) == []
    assert "  play/extra.py            An extra." in package_map(tree, DOCS).splitlines()


def test_an_upward_import_anywhere_in_a_module_fails(tmp_path):
    tree = copy(tmp_path)
    limits = tree / "limits.py"
    # put off to run time inside a function, as the import circles were: still an arrow
    limits.write_text(limits.read_text() + "\n\ndef late():\n"
                      "    from photocore.run import plan\n")
    kernel = tree / "_kernel.pyx"
    kernel.write_text(kernel.read_text() + "\ndef late():\n"
                      "    from photocore.play._reaper import (\n        main)\n")
    assert new_problems(tree) == [
        "_kernel (core) imports play._reaper (players), a layer above it",
        "limits (core) imports run.plan (runs and environments), a layer above it"]


def test_an_import_circle_fails_within_one_layer_too(tmp_path):
    tree = copy(tmp_path)
    kernel = tree / "_kernel.pyx"
    kernel.write_text(kernel.read_text() + "\ndef late():\n    from photocore import notation\n")
    assert new_problems(tree) == ["an import circle: _kernel, facts, notation"]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_a_module_and_its_layer_go_together(tmp_path):
    tree = copy(tmp_path)
    (tree / "extra.py").write_text("")
    (tree / "__main__.py").unlink()
    twice = DOCS.replace("formats:               records,",
                         "formats:               errors, records,")
    assert new_problems(tree, twice) == ["errors: listed twice in the layers",
                                         "__main__: in the layers, no such module in the package",
                                         "extra: in no layer"]


def test_imports_are_read_in_every_form(tmp_path):
    known = {"records", "notation", "play.specs", "play", "_kernel"}
    source = tmp_path / "m.pyx"
    source.write_text("from photocore._kernel cimport *\nimport photocore.play.specs as s\n"
                      "from photocore import (records,\n    notation)\n"
                      "cdef f():\n    from photocore.play import specs\n")
    assert imports_of(source, known) == {"_kernel", "play.specs", "records", "notation"}
    module = tmp_path / "m.py"
    module.write_text("import typing\nif typing.TYPE_CHECKING:\n    import photocore\n"
                      "def f():\n    from photocore.play import Player\n")
    assert imports_of(module, known) == {"photocore", "play"}


def test_a_test_module_imports_no_other_test_module():
    # what several test modules share lives in tests/support.py, not in one of them
    import ast
    tests = pathlib.Path(__file__).resolve().parents[1]
    found = []
    for path in sorted(tests.rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.name} imports {name}" for name in names
                      if name.startswith("test_")]
    assert found == []
