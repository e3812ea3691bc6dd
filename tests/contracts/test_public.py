"""The public API is the public paths (issue 47): every public module says what it exports
(`__all__`, each name there real), `dir(photocore)` shows no helper the package imports to
work, no doc or example names a private module, and each class and constant of the glossary
(docs/contributing.md) is defined once in the package."""

import ast
import importlib
import pathlib
import re

import pytest
import support

import photocore

SRC = pathlib.Path(photocore.__file__).parent
ROOT = SRC.parent.parent
# __main__ runs the command
NOT_API = {"photocore.__main__"}
# modules whose framework is an extra: checked where it is installed
EXTRAS = {"photocore.env.gym": "gymnasium", "photocore.env.openspiel": "pyspiel",
          "photocore.env.pettingzoo": "pettingzoo", "photocore.env.sb3": "stable_baselines3",
          "photocore.run.ray_backend": "ray", "photocore.serve.app": "fastapi",
          "photocore.serve.models": "pydantic", "photocore.serve.view": "pydantic",
          "photocore.serve.events": "sse_starlette", "photocore.serve.http": "uvicorn",
          "photocore.cli.serve": "fastapi", "photocore.plots": "matplotlib"}


def public_modules() -> list[str]:
    names = []
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        name = ".".join(parts)
        if not any(p.startswith("_") for p in parts) and name not in NOT_API:
            names.append(name)
    return names


def test_the_public_modules_are_found():
    found = public_modules()
    assert {"photocore", "photocore.play", "photocore.play.specs", "photocore.facts",
            "photocore.serve.database", "photocore.analysis"} <= set(found)
    assert not [name for name in found if "._" in name]


@pytest.mark.parametrize("name", public_modules())
def test_every_public_module_says_what_it_exports(name):
    path = SRC.parent / (name.replace(".", "/") + ".py")
    if not path.exists():
        path = path.with_suffix("") / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assigned = [node for node in tree.body if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)]
    assert len(assigned) == 1, f"{name} has no __all__"
    exported = ast.literal_eval(assigned[0].value)
    assert len(exported) == len(set(exported)), f"{name}.__all__ names one twice"
    assert not [e for e in exported if e.startswith("_") and e != "__version__"]
    if name in EXTRAS:
        pytest.importorskip(EXTRAS[name])
    module = importlib.import_module(name)
    missing = [e for e in exported
               if not support.of_absent_extra(module, e) and not hasattr(module, e)]
    assert not missing, f"{name}.__all__ names what it lacks: {missing}"


def test_dir_of_photocore_shows_its_api_not_its_helpers():
    shown = set(dir(photocore))
    assert not shown & {"sys", "importlib", "TYPE_CHECKING", "compat"}
    assert set(photocore.__all__) <= shown
    assert {"records", "analysis", "facts", "errors"} <= shown
    assert photocore.__version__ == photocore.facts.VERSION


def test_the_code_paths_and_the_machine_memory_are_public():
    assert photocore.facts.CODE_PATH in (*photocore.facts.CODE_PATHS, "native")
    assert photocore.facts.SELECT in ("pdep", "broadword")
    memory = photocore.play.MACHINE_MEMORY
    assert memory is None or memory > 1 << 20


# a private path of photocore: photocore._kernel, photocore.play._solver.X
PRIVATE = re.compile(r"\bphotocore(?:\.[A-Za-z]\w*)*\._[a-z]\w*")
# the Cython API: a module of your own cimports the kernel's and Game's .pxd files, which
# have only those names (docs/cython.md and its example)
CYTHON = ("docs/cython.md", "examples/flat_mc/")


def documents() -> list[pathlib.Path]:
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    paths += sorted(p for p in (ROOT / "examples").rglob("*")
                    if p.suffix in (".py", ".md", ".pyx", ".txt") and p.is_file())
    return [p for p in paths if not str(p.relative_to(ROOT)).startswith(CYTHON)]


def test_no_doc_or_example_names_a_private_module():
    found = []
    for path in documents():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [f"{path.relative_to(ROOT)}:{number}: {m}" for m in PRIVATE.findall(line)]
    assert not found, "\n".join(found)


def test_the_private_path_check_finds_one():
    assert PRIVATE.findall("`photocore._kernel.CODE_PATH`, photocore.play._solver.X") == [
        "photocore._kernel", "photocore.play._solver"]
    assert not PRIVATE.findall("photocore.play.MACHINE_MEMORY, photocore.__version__")


def glossary() -> list[str]:
    text = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
    table = text.split("### Glossary: one meaning per name", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `?([\w]+)`? \|", table, re.MULTILINE)


def definitions(name: str, root: pathlib.Path = SRC) -> list[str]:
    """Where the package (`root`) defines `name` at module level (.py and .pyx; declarations
    in .pxd and .pyi stubs are not definitions)."""
    pattern = re.compile(rf"^(?:(?:cdef |cpdef )?class {name}\b|def {name}\(|{name}\s*[:=])",
                         re.MULTILINE)
    return [f"{path.relative_to(root)}:{text[:m.start()].count(chr(10)) + 1}"
            for path in sorted([*root.rglob("*.py"), *root.rglob("*.pyx")])
            for text in [path.read_text(encoding="utf-8")]
            for m in pattern.finditer(text)]


def test_the_glossary_holds_the_names_that_had_two_meanings():
    names = glossary()
    assert {"Game", "GameRow", "Store", "Player", "Agent", "AgentKind", "PythonAgentPlayer",
            "Judge", "VERSION", "RECORD_VERSION", "ANALYSIS_VERSION", "PROTOCOL_VERSION",
            "solve", "prove", "solve_nodes", "play", "Network"} <= set(names)
    assert len(names) == len(set(names))


@pytest.mark.parametrize("name", [n for n in glossary() if n[0].isupper()])
def test_each_class_and_constant_of_the_glossary_is_defined_once(name):
    assert len(definitions(name)) == 1, definitions(name)


def test_the_definition_count_sees_a_second_one(tmp_path):
    assert [d.split(":")[0] for d in definitions("GameRow")] == ["serve/database.py"]
    (tmp_path / "a.py").write_text("VERSION = 1\nclass Game:\n    VERSION = 2\n")
    (tmp_path / "b.pyx").write_text("cdef class Game:\n    pass\n")
    (tmp_path / "b.pyi").write_text("class Game: ...\nVERSION: int\n")
    assert definitions("Game", tmp_path) == ["a.py:2", "b.pyx:1"]
    assert definitions("VERSION", tmp_path) == ["a.py:1"]
