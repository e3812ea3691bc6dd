"""Every entry of the API reference has text: the modules docs/api/*.md document with
automodule, the names each shows (its `__all__`, or else the classes and functions it
defines) and each public member a class of photocore defines (methods, properties, a
dataclass's or NamedTuple's fields, a cdef class's readonly attributes, annotated instance
attributes), as autodoc (docs/conf.py) lists them.

An attribute's text is a string literal after it, or a `#:` comment before it or on its line,
as autodoc reads them from the source; anything else's is its own `__doc__`, or for a method
that overrides a photocore class's, that one's (autodoc inherits it). A module whose optional
framework is missing is skipped: the reference is built with each of them (mocked there).
"""

import ast
import functools
import importlib
import inspect
import io
import pathlib
import re
import tokenize

import pytest
import support

API = pathlib.Path(__file__).resolve().parents[2] / "docs" / "api"
PAGES = "\n".join(page.read_text(encoding="utf-8") for page in sorted(API.glob("*.md")))
# module -> the names its automodule leaves out (documented at another path)
MODULES = {name: set(re.findall(r"[\w.]+", excluded or ""))
           for name, excluded in re.findall(
               r"^\.\. automodule:: (\S+)\n(?:   :exclude-members: (.+)\n)?", PAGES, re.M)}
# data documented by a directive of its own on the pages (autodoc shows module data only
# where it has a doc comment)
DIRECTIVES = set(re.findall(r"^\.\. (?:autodata|py:data):: (\S+)", PAGES, re.M))
# the text NamedTuple gives its fields
FIELD_ALIAS = re.compile(r"Alias for field number \d+")
# a signature heading a docstring: a dataclass's or NamedTuple's made-up one, all it has,
# or one before the text
SIGNATURE = re.compile(r"\A\w+\((?:[^()]|\([^()]*\))*\)(?: -> \S+)?\s*(?:--)?")


@functools.cache
def source_attributes(module_name):
    """The attributes of a module's source, as {(class path, name): documented}: ("", name)
    at module level, ("Class", name) in a class's body or as an annotated self.name in its
    methods (autodoc lists those). Empty for a compiled module: its attributes are
    descriptors with a __doc__."""
    module = importlib.import_module(module_name)
    if not module.__file__.endswith(".py"):
        return {}
    source = inspect.getsource(module)
    lines = source.splitlines()
    doc_comments = {token.start[0] for token in
                    tokenize.generate_tokens(io.StringIO(source).readline)
                    if token.type == tokenize.COMMENT and token.string.startswith("#:")}
    found = {}

    def documented(node, following):
        return bool(
            isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str) and following.value.value.strip()
            or doc_comments & set(range(node.lineno, node.end_lineno + 1))
            or node.lineno - 1 in doc_comments and lines[node.lineno - 2].lstrip()[:2] == "#:")

    def walk(body, path, in_method):
        for node, following in zip(body, [*body[1:], None]):
            if isinstance(node, ast.ClassDef) and not in_method:
                walk(node.body, f"{path}.{node.name}".lstrip("."), False)
            elif (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and path
                  or isinstance(node, (ast.If, ast.With, ast.Try)) and in_method):
                walk(node.body, path, True)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                # (a, b = ...: one text for both)
                targets = [name for target in targets for name in (
                    target.elts if isinstance(target, ast.Tuple) else [target])]
                for target in targets:
                    if in_method and isinstance(target, ast.Attribute) and isinstance(
                            target.value, ast.Name) and target.value.id == "self":
                        if isinstance(node, ast.AnnAssign) or documented(node, following):
                            found[path, target.attr] = (found.get((path, target.attr))
                                                        or documented(node, following))
                    elif not in_method and isinstance(target, ast.Name):
                        found[path, target.id] = (found.get((path, target.id))
                                                  or documented(node, following))

    walk(ast.parse(source).body, "", False)
    return found


def is_photocore(obj):
    return (getattr(obj, "__module__", None) or "").partition(".")[0] == "photocore"


def text(obj):
    """The docstring of a routine, class or descriptor, or ""."""
    if isinstance(obj, (classmethod, staticmethod)):
        obj = obj.__func__
    doc = (getattr(obj, "__doc__", None) or "").strip()
    return "" if FIELD_ALIAS.fullmatch(doc) else SIGNATURE.sub("", doc, count=1).strip()


def own_attributes(cls):
    """{name: documented} of the attributes of a class's source."""
    return {name: documented for (owner, name), documented
            in source_attributes(cls.__module__).items() if owner == cls.__qualname__}


def class_gaps(cls, path):
    """The members of a class, by their path in the reference, that have no text."""
    attributes = own_attributes(cls)
    names = [*vars(cls), *cls.__dict__.get("__annotations__", {}), *attributes]
    for name in dict.fromkeys(names):
        if name.startswith("_"):
            continue
        value = cls.__dict__.get(name)
        # a text in the source: an attribute's, or one of __slots__ (autodoc reads both)
        in_source = any(own_attributes(base).get(name) for base in cls.__mro__
                        if is_photocore(base))
        if isinstance(value, type) and is_photocore(value):
            yield from class_gaps(value, f"{path}.{name}")
        if not (inspect.isroutine(value) or inspect.isdatadescriptor(value)
                or isinstance(value, (type, classmethod, staticmethod))):
            # data: a dataclass's field, a class attribute, an instance attribute (its
            # text may be a photocore base's)
            if not in_source:
                yield f"{path}.{name}"
            continue
        doc = text(value) or in_source
        # an override of a photocore base's method shows that one's text
        for base in cls.__mro__[1:]:
            if doc or not is_photocore(base):
                break
            doc = text(base.__dict__.get(name))
        if not doc:
            yield f"{path}.{name}"


def module_gaps(module_name):
    """The entries of a module's automodule that have no text, by their path."""
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name.partition(".")[0] == "photocore":
            raise
        pytest.skip(f"{module_name} needs {error.name}, an optional framework")
    if not text(module):
        yield module_name
    names = getattr(module, "__all__", None)
    if names is None:   # what it defines: its data shows only where documented
        names = [name for name, value in vars(module).items()
                 if getattr(value, "__module__", None) == module_name and (
                     inspect.isclass(value) or inspect.isroutine(value))]
    for name in names:
        if name.startswith("_") and name != "__version__" or name in MODULES[module_name]:
            continue
        if support.of_absent_extra(module, name):
            continue        # loaded with a framework not installed here: checked where it is
        value, path = getattr(module, name), f"{module_name}.{name}"
        if inspect.isclass(value):
            if not text(value):
                yield path
            yield from class_gaps(value, path)
        elif inspect.isroutine(value):
            if not text(value):
                yield path
        elif path not in DIRECTIVES and not source_attributes(module_name).get(("", name)):
            yield path


def test_the_pages_document_modules():
    # the walk below reads the pages' directives: they were found
    assert {"photocore", "photocore.records", "photocore.play.search"} <= set(MODULES)
    assert {"read_games", "write_games", "RecordWriter"} <= MODULES["photocore.records"]


@pytest.mark.parametrize("module_name", sorted(MODULES))
def test_every_entry_has_text(module_name):
    gaps = list(module_gaps(module_name))
    assert not gaps, f"{len(gaps)} entries of the API reference have no text: " + ", ".join(gaps)

