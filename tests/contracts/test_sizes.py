"""The house by concern stays so (issue 48): no module of the package over 600 lines and no
class over 400 (the Cython `Search`, 450): a module or class that grows past its size is
split by concern (docs/contributing.md, *Layout*)."""

import ast
import pathlib
import re

import photocore

SRC = pathlib.Path(photocore.__file__).parent
MODULE_LINES = 600
CLASS_LINES = {"Search": 450}       # the batched search's Python API; every other class 400


def cython_classes(text):
    """(name, lines) of each class of a .pyx: from its line to the last line indented under
    it, docstrings (whose lines may start at column 0) included."""
    found, name, start, last, quote = [], None, 0, 0, None
    for number, line in enumerate(text.splitlines(), 1):
        if quote is None and line and not line[0].isspace() and not line.startswith("#"):
            if name:
                found.append((name, last - start + 1))
                name = None
            match = re.match(r"(?:cdef |cpdef )?class (\w+)", line)
            if match:
                name, start = match.group(1), number
        inside = quote is not None or line[:1].isspace() or number == start
        if line.strip() and inside:
            last = number
        for triple in re.findall(r'"""|\'\'\'', line):
            quote = None if quote == triple else quote or triple
    if name:
        found.append((name, last - start + 1))
    return found


def sizes():
    modules, classes = {}, {}
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        modules[path.relative_to(SRC).as_posix()] = text.count("\n")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                classes[f"{path.relative_to(SRC).as_posix()}:{node.name}"] = (
                    node.end_lineno - node.lineno + 1)
    for path in sorted(SRC.rglob("*.pyx")):
        for name, lines in cython_classes(path.read_text(encoding="utf-8")):
            classes[f"{path.relative_to(SRC).as_posix()}:{name}"] = lines
    return modules, classes


def test_no_module_and_no_class_is_past_its_size():
    modules, classes = sizes()
    assert {m: n for m, n in modules.items() if n > MODULE_LINES} == {}
    assert {c: n for c, n in classes.items()
            if n > CLASS_LINES.get(c.rpartition(":")[2], 400)} == {}


def test_a_cython_class_runs_to_its_last_indented_line(tmp_path):
    text = ('cdef class Big:\n    """Big(x)\n--\n\nat column 0\n"""\n\n    def f(self):\n'
            '        pass\n\n# a comment\ndef g():\n    pass\nclass Small:\n    x = 1\n')
    assert cython_classes(text) == [("Big", 9), ("Small", 2)]
    _, classes = sizes()
    assert 300 < classes["play/_search.pyx:Search"] <= 450      # counted, not cut at "--"
