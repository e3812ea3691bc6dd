"""The examples in README.md, docs/ and the docstrings run as written: pytest collects them
itself (pyproject.toml: --doctest-modules, --doctest-cython for the compiled modules,
--doctest-glob=*.md). This checks that the collection reaches every file with examples."""

import re
import runpy
import subprocess
import sys

import pytest
from installed import ROOT, of_the_source

PACKAGE = ROOT / "src" / "photocore"


def with_examples():
    """The files of the package, README.md and docs/ that hold a `>>>` example."""
    files = [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyx"), ROOT / "README.md",
             *(ROOT / "docs").glob("*.md")]
    return {path.relative_to(ROOT).as_posix() for path in files
            if re.search(r"^\s*>>> ", path.read_text(encoding="utf-8"), re.M)}


def left_out():
    """The files the root conftest.py leaves out of the collection here: those of an extra
    that is not installed."""
    return set(runpy.run_path(str(ROOT / "conftest.py"))["collect_ignore"])


@of_the_source
@pytest.mark.slow
def test_pytest_collects_the_examples_of_every_file_that_has_some():
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "src/photocore", "README.md", "docs"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    collected = {line.split("::")[0] for line in listed.stdout.splitlines() if "::" in line}
    expected = with_examples()
    assert {"README.md", "src/photocore/_kernel.pyx", "src/photocore/facts.py"} <= expected
    missed = expected - left_out() - collected
    assert not missed, f"examples not collected: {sorted(missed)}"
