"""The session-wide check that no test leaves a file in the temporary folder
(support.NoTempLeft, which tests/conftest.py installs): a run of tests that leak folders, in
a pytest of its own."""

import os
import pathlib
import subprocess
import sys

import pytest

CONFTEST = """
import support

def pytest_configure(config):
    support.NoTempLeft.install(config)
"""

LEAKY = """
import subprocess
import sys
import tempfile

def test_leaves_a_folder():
    tempfile.mkdtemp(prefix="left-here-")

def test_a_child_leaves_a_folder():       # TMPDIR: the session's folder, inherited
    subprocess.run([sys.executable, "-c",
                    "import tempfile; tempfile.mkdtemp(prefix='left-by-child-')"], check=True)

def test_removes_its_folder():
    with tempfile.TemporaryDirectory(prefix="removed-"):
        pass

def test_writes_under_tmp_path(tmp_path):
    (tmp_path / "kept-by-pytest").write_text("pytest's own, kept for a look")
"""


def run_leaky(tmp_path, leaky):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_leaky.py").write_text(leaky)
    temp = tmp_path / "temp"
    temp.mkdir()
    tests = str(pathlib.Path(__file__).resolve().parents[1])
    env = {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": os.pathsep.join(
        [tests, *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                           "test_leaky.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    return done, done.stdout + done.stderr, temp


@pytest.mark.slow
def test_what_a_session_leaves_in_its_temporary_folder_fails_it_named(tmp_path):
    done, out, temp = run_leaky(tmp_path, LEAKY)
    assert done.returncode == 1, out
    assert "4 passed" in out, out
    line = next(line for line in out.splitlines() if line.startswith("the session left"))
    left = sorted(line.partition(": ")[2].split(", "))
    assert [name.rpartition("-")[0] for name in left] == ["left-by-child", "left-here"], out
    # the session's folder is gone, leaks and all
    assert os.listdir(temp) == [], os.listdir(temp)


@pytest.mark.slow
def test_a_session_that_leaves_nothing_passes(tmp_path):
    clean = LEAKY.split("def test_leaves_a_folder")[0] + "def test_removes_its_folder" + \
        LEAKY.split("def test_removes_its_folder")[1]
    done, out, temp = run_leaky(tmp_path, clean)
    assert done.returncode == 0, out
    assert "2 passed" in out and "left behind" not in out, out
    assert os.listdir(temp) == [], os.listdir(temp)
