"""The session-wide check that no test leaves a process behind (support.NoProcessLeft, which
tests/conftest.py installs): a run of tests that leak `sleep`s, in a pytest of its own."""

import os
import pathlib
import re
import subprocess
import sys

import pytest
from support import alive

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the check reads /proc")

CONFTEST = """
import support

support.GRACE = 2                   # (5 s for each leak by default)

def pytest_configure(config):
    support.NoProcessLeft.install(config)
"""

LEAKY = """
import subprocess
import pytest

def test_leaves_its_child():
    subprocess.Popen(["sleep", "{seconds}"])

def test_leaves_an_orphan():        # the shell ends at once: its child is reparented
    subprocess.run(["sh", "-c", "sleep {seconds}1 >/dev/null 2>&1 &"], check=True)

def test_ends_its_child():
    child = subprocess.Popen(["sleep", "{seconds}2"])
    child.kill()
    child.wait()

def test_ends_its_child_within_the_grace():
    subprocess.Popen(["sh", "-c", "sleep 0.5"])

@pytest.fixture(scope="module")
def server():                       # never stopped: found when the session ends
    return subprocess.Popen(["sleep", "{seconds}3"])

def test_a_module_fixture_runs_on(server):
    assert server.poll() is None
"""


@pytest.mark.slow
def test_a_process_left_behind_fails_its_test_and_is_killed(tmp_path):
    seconds = 300 + os.getpid() % 1000      # apart from a run of this test beside it
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_leaky.py").write_text(LEAKY.format(seconds=seconds))
    tests = str(pathlib.Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [tests, *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                           "test_leaky.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "5 passed, 2 errors" in out, out
    errors = re.findall(r"ERROR at teardown of (\w+)", out)
    assert errors == ["test_leaves_its_child", "test_leaves_an_orphan"], out
    left = {int(pid): line for pid, line in re.findall(r"^ +(\d+): (.*)$", out, re.M)}
    assert sorted(left.values()) == [f"sleep {seconds}", f"sleep {seconds}1",
                                     f"sleep {seconds}3"], out
    # (at a line's start: the short summary repeats the message whole where CI is set)
    assert len(re.findall(r"^the test left 1 process running \(killed now\):$", out,
                          re.M)) == 2, out
    assert "the session left 1 process running (killed now):" in out, out
    assert not any(alive(pid) for pid in left)
