"""The package's layers hold: docs/contributing.md's Layout is its real map (tests/layers.py)."""

import pathlib
import re
import shutil

import photocore
from layers import imports_of, problems, read_map

SRC = pathlib.Path(photocore.__file__).parent
MAP = (pathlib.Path(__file__).parent.parent / "docs" / "contributing.md").read_text(encoding="utf-8")


def test_every_import_points_down_the_map():
    assert problems(SRC, MAP) == []


def test_the_map_reads_each_line_and_its_arrows():
    layers = dict(read_map(MAP))
    assert layers["_kernel"] == set() and layers["facts"] == {"_kernel"}
    assert layers["play.specs"] == {"_game", "budget", "play._agents", "play.player",
                                    "play.protocol", "play.results"}
    assert "photocore" in layers and "play" in layers and "__main__" in layers


def test_an_upward_import_anywhere_in_a_module_fails(tmp_path):
    tree = tmp_path / "photocore"
    shutil.copytree(SRC, tree, ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__"))
    errors = tree / "errors.py"
    # put off to run time inside a function, as the import circles were: still an arrow
    errors.write_text(errors.read_text() + "\n\ndef late():\n    from photocore import records\n")
    kernel = tree / "_kernel.pyx"
    kernel.write_text(kernel.read_text() + "\ndef late():\n    from photocore.notation import (\n"
                      "        MOVE_TEXTS)\n")
    found = [p for p in problems(tree, MAP) if p not in problems(SRC, MAP)]
    assert found == ["_kernel.pyx imports notation, which its line in the map does not allow",
                     "errors.py imports records, which its line in the map does not allow"]


def test_a_module_and_its_line_go_together(tmp_path):
    tree = tmp_path / "photocore"
    shutil.copytree(SRC, tree, ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__"))
    (tree / "extra.py").write_text("")
    (tree / "__main__.py").unlink()
    upward = re.sub(r"(  errors\.py .*-> )\(none\)", r"\1facts", MAP)
    found = [p for p in problems(tree, upward) if p not in problems(SRC, MAP)]
    assert found == ["errors -> facts: facts is not above it in the map",
                     "extra: not in the map", "__main__: in the map, not in the package"]


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
    tests = pathlib.Path(__file__).parent
    found = []
    for path in sorted(tests.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.name} imports {name}" for name in names
                      if name.startswith("test_")]
    assert found == []
