"""The package's layers, as docs/contributing.md's *Layout* names them, held against its sources.

The Layout block lists the layers bottom to top, one a line, `name: modules`; a module
there stands for itself and everything under it (`play` is play/__init__.py and every
play/ module), the longest name a module falls under gives its layer. A module may import
modules of its own layer or of a layer below, never above, and no import ever closes a
circle. The imports counted are every import and cimport of a photocore module anywhere
in a file (at the top, inside a function, under TYPE_CHECKING): an import put off to run
time is still an arrow.

`python tests/layers.py --map` prints the package's map: each module with its layer and
the first sentence of its docstring.
"""

import ast
import pathlib
import re
import sys

LINE = re.compile(r"^([a-z][a-z ]*):\s+(\S.*)$")
STATEMENT = re.compile(        # a Cython import or cimport, parenthesised names included
    r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+c?import[ \t]+(\([^)]*\)|[^\n#]*)"
    r"|c?import[ \t]+([^\n#]*))", re.M)
SUFFIXES = (".py", ".pyx", ".pxd")


def module_of(path: str) -> str:
    """`play/specs.py` -> `play.specs`; `__init__.py` -> `photocore`; `play/__init__.py`
    -> `play`; `_kernel.pyx` -> `_kernel`."""
    name = re.sub(r"\.(pyx|pxd|py)$", "", path).replace("/", ".")
    if name == "__init__":
        return "photocore"
    return name.removesuffix(".__init__")


def read_layers(text: str) -> list[tuple[str, list[str]]]:
    """The (layer, the modules named in it) of every line of the Layout block, bottom first."""
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    layers: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        found = LINE.match(line)
        if found:
            layers.append((found.group(1), [n.strip() for n in found.group(2).split(",")]))
    return layers


def layer_of(module: str, layers: list[tuple[str, list[str]]]) -> int | None:
    """The position (0 at the bottom) of the layer of `module`: that of the longest name it
    is or falls under; None if it falls under none."""
    best: tuple[int, int] | None = None
    for position, (_, names) in enumerate(layers):
        for name in names:
            under = module == name or module.startswith(name + ".")
            if under and (best is None or len(name) > best[0]):
                best = (len(name), position)
    return None if best is None else best[1]


def package_modules(src: pathlib.Path) -> dict[str, list[pathlib.Path]]:
    """Every module of the package at `src` (its folder) by name, with its source files."""
    modules: dict[str, list[pathlib.Path]] = {}
    for path in sorted(src.rglob("*")):
        if path.suffix in SUFFIXES and "static" not in path.parts:
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


def import_graph(src: pathlib.Path) -> dict[str, set[str]]:
    """Each module of the package at `src` with the package's modules it imports."""
    modules = package_modules(src)
    return {module: set().union(*(imports_of(path, set(modules)) for path in paths)) - {module}
            for module, paths in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of `graph`: each group of modules that import each other, through
    others or not (a strongly connected component), sorted (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for dep in sorted(graph.get(module, ())):
            if dep not in index:
                visit(dep)
                low[module] = min(low[module], low[dep])
            elif dep in stack:
                low[module] = min(low[module], index[dep])
        if low[module] == index[module]:
            group = []
            while not group or group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def problems(src: pathlib.Path, text: str) -> list[str]:
    """What in the package at `src` goes against the layers in `text` (docs/contributing.md):
    a module in no layer, a name of the layers that is no module, a name listed twice, an
    import of a layer above, and every import circle."""
    layers = read_layers(text)
    graph = import_graph(src)
    found = []
    names = [name for _, listed in layers for name in listed]
    for name in sorted({n for n in names if names.count(n) > 1}):
        found.append(f"{name}: listed twice in the layers")
    for name in names:
        if not any(m == name or m.startswith(name + ".") for m in graph):
            found.append(f"{name}: in the layers, no such module in the package")
    for module in sorted(graph):
        position = layer_of(module, layers)
        if position is None:
            found.append(f"{module}: in no layer")
            continue
        for dep in sorted(graph[module]):
            above = layer_of(dep, layers)
            if above is not None and above > position:
                found.append(f"{module} ({layers[position][0]}) imports {dep} "
                             f"({layers[above][0]}), a layer above it")
    for group in circles(graph):
        found.append("an import circle: " + ", ".join(group))
    return found


def summary(paths: list[pathlib.Path]) -> str:
    """The first sentence of a module's docstring (of its .pyx or .py), or of a .pxd's
    opening comment."""
    for path in sorted(paths, key=lambda p: p.suffix == ".pxd"):
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".py":
            doc = ast.get_docstring(ast.parse(text)) or ""
        elif path.suffix == ".pyx":
            found = re.match(r'(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*"""(.*?)"""', text, re.S)
            doc = found.group(1) if found else ""
        else:
            found = re.match(r"(?:#[^\n]*\n)+", text)
            doc = re.sub(r"^# ?", "", found.group(0), flags=re.M) if found else ""
        paragraph = " ".join(doc.strip().split("\n\n")[0].split()).rstrip(":")
        if paragraph:
            return re.split(r"(?<=[.!?])\s", paragraph, maxsplit=1)[0]
    return ""


def package_map(src: pathlib.Path, text: str) -> str:
    """The package's map: by layer, bottom to top, each module's files and summary."""
    layers = read_layers(text)
    modules = package_modules(src)
    lines = []
    for position, (layer, _) in enumerate(layers):
        lines.append(f"{layer}:")
        for module in sorted(m for m in modules if layer_of(m, layers) == position):
            paths = sorted(modules[module], key=lambda p: SUFFIXES.index(p.suffix))
            first = paths[0].relative_to(src).as_posix()
            files = first + "".join("/" + p.suffix for p in paths[1:])
            lines.append(f"  {files:<24} {summary(paths)}")
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1:] != ["--map"]:
        sys.exit("usage: python tests/layers.py --map")
    root = pathlib.Path(__file__).resolve().parent.parent
    print(package_map(root / "src" / "photocore",
                      (root / "docs" / "contributing.md").read_text(encoding="utf-8")))
