"""The examples in README.md and in the docstrings run as written."""

import doctest
import importlib
import pathlib

import pytest

import photocore
from photocore import _agents, _game, _kernel, _vec, notation, position, records, render

SVG = importlib.import_module("photocore.svg")   # photocore.svg is the function

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_readme_examples():
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5 and result.failed == 0


@pytest.mark.parametrize("module", [photocore, _agents, _game, _kernel, _vec, notation, position,
                                    records, render, SVG])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
