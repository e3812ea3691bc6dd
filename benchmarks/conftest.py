import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))

REPORT = []


@pytest.fixture
def report():
    """Adds a line to the summary printed after the benchmarks."""
    return REPORT.append


def pytest_terminal_summary(terminalreporter):
    if REPORT:
        terminalreporter.section("photocore figures (same process, one thread)")
        for line in REPORT:
            terminalreporter.write_line(line)
