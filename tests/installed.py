"""What a test needs beyond the package: an optional framework, or the package's source.

The suite runs in a checkout, against the package built in place (pip install -e), and,
against an installed wheel or sdist, from a copy of the checkout without src/ (.ci/wheel),
so that it imports the installed package and a file missing from it fails."""

import importlib
import pathlib

import pytest

import photocore

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src" / "photocore"

# the tests of the source files themselves (their text, their doctests' collection) read
# src/, which is only the code under test when the package imported is that one
of_the_source = pytest.mark.skipif(
    not pathlib.Path(photocore.__file__).resolve().is_relative_to(SOURCE),
    reason="photocore is an installed copy, not src/: the source files are not under test")


def missing_framework(module):
    """The optional framework (pyproject.toml's extras) that importing the package's module
    `module` lacks, or None when it imports."""
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name.partition(".")[0] == "photocore":
            raise
        return error.name
    return None
