"""The examples in README.md and in the docstrings run as written."""

import doctest
import pathlib

import pytest

import photocore
from photocore import _game, _kernel, facts, notation, records, render, svg
from photocore.env import _vec
from photocore.play import _agents

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_readme_examples():
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5 and result.failed == 0


@pytest.mark.parametrize("module", [photocore, _agents, _game, _kernel, _vec, facts, notation,
                                    records, render, svg])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
