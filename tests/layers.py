"""The package's layers, as docs/contributing.md's *Layout* draws them, held against its sources.

The map is a code block of lines `  path  what it is  -> modules it may import` (a module
of a subpackage written as its path: `play/specs`); a module
may import only modules of lines above its own, so every arrow points down the page. The
imports counted are every import and cimport of a photocore module anywhere in a file (at
the top, inside a function, under TYPE_CHECKING): an import put off to run time is still
an arrow.
"""

import ast
import pathlib
import re

ENTRY = re.compile(r"^  (\S+\.(?:pyx/\.pxd|pyx|pxd|py))\s")
STATEMENT = re.compile(        # a Cython import or cimport, parenthesised names included
    r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+c?import[ \t]+(\([^)]*\)|[^\n#]*)"
    r"|c?import[ \t]+([^\n#]*))", re.M)


def module_of(path: str) -> str:
    """`play/specs.py` -> `play.specs`; `__init__.py` -> `photocore`; `play/__init__.py`
    -> `play`; `_kernel.pyx/.pxd` -> `_kernel`."""
    name = re.sub(r"\.(pyx/\.pxd|pyx|pxd|py)$", "", path).replace("/", ".")
    if name == "__init__":
        return "photocore"
    return name.removesuffix(".__init__")


def read_map(text: str) -> list[tuple[str, set[str]]]:
    """The (module, modules it may import) of every line of the Layout block, in order."""
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    entries: list[list[str]] = []
    for line in block.splitlines():
        found = ENTRY.match(line)
        if found:
            entries.append([found.group(1), line[found.end():]])
        elif entries and line.startswith("   "):
            entries[-1][1] += " " + line.strip()
    layers = []
    for path, rest in entries:
        deps = rest.rpartition("->")[2].strip() if "->" in rest else "(none)"
        allowed = set() if deps == "(none)" else {d.strip().replace("/", ".")
                                                   for d in deps.split(",")}
        layers.append((module_of(path), allowed))
    return layers


def package_modules(src: pathlib.Path) -> dict[str, list[pathlib.Path]]:
    """Every module of the package at `src` (its folder) by name, with its source files."""
    modules: dict[str, list[pathlib.Path]] = {}
    for path in sorted(src.rglob("*")):
        if path.suffix in (".py", ".pyx", ".pxd") and "static" not in path.parts:
            modules.setdefault(module_of(path.relative_to(src).as_posix()), []).append(path)
    return modules


def _named(module: str, names: list[str], known: set[str]) -> set[str]:
    """The modules `from module import names` imports: a name that is a module of the
    package is that module, any other name is the module itself."""
    base = module.removeprefix("photocore").removeprefix(".")
    found = set()
    for name in names:
        inner = f"{base}.{name}" if base else name
        found.add(inner if inner in known else base or "photocore")
    return found


def imports_of(path: pathlib.Path, known: set[str]) -> set[str]:
    """The package's modules that the file at `path` imports or cimports (names as
    module_of gives them)."""
    text = path.read_text(encoding="utf-8")
    found: set[str] = set()
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "photocore":
                        found.add(alias.name.removeprefix("photocore.")
                                  if alias.name != "photocore" else "photocore")
            elif (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                  and node.module.split(".")[0] == "photocore"):
                found |= _named(node.module, [a.name for a in node.names], known)
        return found
    for module, names, plain in STATEMENT.findall(text):
        if module:
            if module.split(".")[0] == "photocore":
                found |= _named(module, [n.split(" as ")[0].strip()
                                         for n in names.strip("()").split(",") if n.strip()],
                                known)
        else:
            for name in plain.split(","):
                name = name.split(" as ")[0].strip()
                if name.split(".")[0] == "photocore":
                    found.add(name.removeprefix("photocore.") or "photocore")
    return found


def problems(src: pathlib.Path, text: str) -> list[str]:
    """What in the package at `src` goes against the map in `text` (docs/contributing.md): a
    module without its line or a line without its module, a module listed twice, a line
    naming a module below it, and every import the module's line does not allow."""
    layers = read_map(text)
    modules = package_modules(src)
    found = []
    order = {}
    for position, (module, allowed) in enumerate(layers):
        if module in order:
            found.append(f"{module}: listed twice")
        order[module] = position
        for dep in sorted(allowed):
            if dep not in order:
                found.append(f"{module} -> {dep}: {dep} is not above it in the map")
    for module in sorted(set(modules) - set(order)):
        found.append(f"{module}: not in the map")
    for module in sorted(set(order) - set(modules)):
        found.append(f"{module}: in the map, not in the package")
    allowed_of = dict(layers)
    for module, paths in modules.items():
        for path in paths:
            for dep in sorted(imports_of(path, set(modules)) - {module}):
                if dep not in allowed_of.get(module, set()):
                    found.append(f"{path.relative_to(src)} imports {dep}, which its line "
                                 "in the map does not allow")
    return found
