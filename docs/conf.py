"""Sphinx configuration of photocore's documentation site: the guides of docs/ as Markdown
pages (MyST) and an API reference from the docstrings (autodoc). Built by .ci/docs:
`sphinx-build -W --keep-going -n -b html docs docs/_build/html`."""

import inspect
import pathlib
import re
import sys

from sphinx.ext.napoleon import Config
from sphinx.ext.napoleon.docstring import GoogleDocstring

import photocore

sys.path.insert(0, str(pathlib.Path(__file__).parent / "_ext"))

project = "photocore"
author = "photocore's authors"
copyright = f"2026, {author}"
release = version = photocore.__version__

# figures: the pictures and generated tables, drawn into _generated/ at each build
extensions = ["myst_parser", "sphinx.ext.autodoc", "figures"]
source_suffix = {".md": "markdown"}
# _generated: what the figures extension writes for the pages; search.md only points old
# links to searching.md, as its page, search.html, is Sphinx's search box
exclude_patterns = ["_build", "_generated", "search.md"]
html_theme = "furo"
html_title = f"photocore {release}"

# the docstrings write code as `code`, as Markdown does (reST would make it a citation)
default_role = "literal"

autodoc_default_options = {"members": True, "undoc-members": True}
autodoc_member_order = "bysource"
# the optional frameworks the adapters import at module level, mocked always, so the
# reference is the same whichever of their extras the building venv has. Not serve's FastAPI
# and pydantic, nor the charts' matplotlib: the docs extra installs them (a mocked pydantic
# cannot build the API's models, `StrictInt | None`; the figures extension draws with
# matplotlib)
autodoc_mock_imports = ["gymnasium", "pettingzoo", "pyspiel", "open_spiel", "stable_baselines3",
                        "sb3_contrib"]

# every reference must resolve (-n), but the site has no other project's inventory to link
# (it builds offline): the types of Python's library and of the third-party packages that
# signatures name stay plain text. The mocked frameworks among them: where one is absent (the
# docs extra installs none), a type of it that a signature names is its mock, which names
# itself in full (stable_baselines3.common.vec_env.base_vec_env.VecEnvIndices)
THIRD_PARTY = ["fastapi", "starlette", "sse_starlette", "matplotlib", *autodoc_mock_imports]
nitpick_ignore_regex = [
    ("py:class", r"(_thread|collections(\.abc)?|contextlib|io|os|threading|types|typing)\.\w+"),
    ("py:class", r"numpy\.[\w.]+"),
    ("py:class", rf"({'|'.join(THIRD_PARTY)})\.[\w.]+"),
    # the API's pydantic models: docs/play.md and the server's OpenAPI schema describe them
    ("py:class", r"photocore\.serve\.models\.\w+"),
]


def factory_defaults(app, what, name, obj, options, signature, return_annotation):
    """A dataclass field's default_factory shows as `=<factory>`, which Sphinx cannot parse
    back into a signature: `=...` says the same."""
    if signature and "<factory>" in signature:
        return re.sub(r"= ?<factory>", "= ...", signature), return_annotation
    return None


def own_docstrings(app, what, name, obj, options, lines):
    """A constant has no docstring of its own: autodoc would show its type's (int's, str's)."""
    if what == "data" and lines and lines[0] == (inspect.getdoc(type(obj)) or "").split("\n")[0]:
        lines.clear()


NAPOLEON = Config(napoleon_use_param=True, napoleon_use_rtype=True)


def google_sections(app, what, name, obj, options, lines):
    """The docstrings of functions and classes list their parameters as `Args:` (and
    `Returns:`, `Raises:`), as OpenSpiel's do: napoleon's reader turns those sections into
    fields. Only theirs: it would read an attribute's or a property's prose as `type:
    description` ("Whether it searches: ..." as a type)."""
    if what in ("function", "method", "class", "exception"):
        lines[:] = GoogleDocstring(lines, NAPOLEON, app, what, name, obj, options).lines()


def setup(app):
    app.connect("autodoc-process-signature", factory_defaults)
    app.connect("autodoc-process-docstring", own_docstrings)
    app.connect("autodoc-process-docstring", google_sections)
