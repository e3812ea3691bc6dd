"""What several test modules share, written once: positions whose answers are known, random
games, networks for the searches, oracles written from the rules apart from the package
(the hex distance, the exhaustive endgame), the test support in Cython and the check that no
test leaves a process behind. A test module imports them from here, never from another test
module."""

import contextlib
import ctypes
import importlib.util
import itertools
import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

import photocore
from photocore import Game, Move
from photocore.facts import OPTIONS, PLAYERS

# ---- positions ---------------------------------------------------------------------------

# Player 0 to move in round 5 with 20 light: large trees on a4 (1 leaf) and d4 (4 leaves:
# with 2 players the 3-leaf stack's 19), a medium tree on c4, a small tree on f2 and no
# medium tree available, so that "grow f2" is legal only after "buy medium".
TURN = "2 - 5 4 0 0 - a4:0:3,c4:0:2,d4:0:3,f2:0:1,g4:1:1 20/2100/4430/- 0/2310/4432/- 0579"
TURN_MOVES = ("collect a4", "collect d4", "plant c4 c5", "grow f2", "buy medium")

# The last player of the last round (player 0; player 1 opened round 18) holds 3 light, one
# point: ending the turn now wins 1-0, while every other move spends light, ties 0-0 and
# loses the tie-break (player 1 has more pieces on the board).
END_WINS = "2 - 18 5 1 0 - a4:1:1,a5:1:1,b4:0:1 3/1110/2220/- 0/2200/4432/- 0579"
# The same seat with 4 light and a large tree on d4: only `collect d4` (19 points) then
# `end` wins; ending at once or spending light first loses to player 1's 6 points.
COLLECT_THEN_END = "2 - 18 5 1 0 - a4:1:2,b4:0:1,d4:0:3 4/1110/2220/- 20/2400/4432/- 0579"
# The same seat with no light: `end` is its only move.
ONLY_END = "2 - 18 5 1 0 - a4:1:1,a5:1:1,b4:0:1 0/0000/4432/- 0/2200/4432/- 0579"


# ---- games -------------------------------------------------------------------------------

def random_game(rng, players=None, options=None, moves=None, spare_end=False):
    """A game of random legal moves drawn from `rng` (a random.Random, or its seed):
    `moves` of them (fewer if it ends), else to the end; `players` and `options` drawn
    from `rng` where None. With `spare_end`, a turn's `end` is left out half the time
    while other moves are legal (longer turns, richer games)."""
    if not isinstance(rng, random.Random):
        rng = random.Random(rng)
    game = Game(players or rng.choice(PLAYERS),
                options=options if options is not None else rng.choice(OPTIONS))
    count = 0
    while not game.is_over and (moves is None or count < moves):
        legal = game.legal_moves()
        if spare_end and len(legal) > 1 and legal[-1].kind == "end" and rng.random() < 0.5:
            legal = legal[:-1]
        game.play(rng.choice(legal))
        count += 1
    return game


def midgame(players=2, plies=60, seed=0):
    """A game of `plies` moves of a seeded greedy agent on every seat."""
    game = Game(players=players)
    agent = photocore.Agent("greedy", seed=seed)
    while len(game.history) < plies:
        game.play(agent.select(game))
    return game


def legal_orders(start, moves):
    """Every order of `moves` legal from `start`, each with the game it reaches."""
    ends = []
    for order in itertools.permutations(moves):
        game = start.copy()
        for move in order:
            if not game.is_legal(move):
                break
            game.play(move)
        else:
            ends.append((order, game))
    return ends


# ---- networks ----------------------------------------------------------------------------

def uniform(players):
    """An evaluator with uniform priors and zero values, counting the rows it is shown."""

    def evaluate(obs, mask):
        evaluate.rows += len(obs)
        evaluate.calls += 1
        return np.zeros(mask.shape, np.float32), np.zeros((len(obs), players), np.float32)

    evaluate.rows = evaluate.calls = 0
    return evaluate


def hashed(players):
    """A deterministic network whose answers depend on the position only (its observation):
    the same position gets the same priors and values, by whatever path it is reached."""

    def evaluate(obs, mask):
        evaluate.rows += len(obs)
        seeds = (obs * np.arange(1, obs.shape[1] + 1, dtype=np.float32)).sum(axis=1)
        rng = [np.random.default_rng(int(abs(x) * 1000) % 2**32) for x in seeds]
        logits = np.stack([r.normal(size=mask.shape[1]) for r in rng]).astype(np.float32)
        values = np.stack([r.uniform(-1, 1, players) for r in rng]).astype(np.float32)
        return logits, values

    evaluate.rows = 0
    return evaluate


def visits_by_move(visits):
    return {str(Move(a)): int(visits[a]) for a in np.flatnonzero(visits)}


# ---- oracles -----------------------------------------------------------------------------

def axial(name):
    """The axial coordinates (q, r) of a cell named by its letter (row) and digit."""
    return int(name[1]) - 4, "abcdefg".index(name[0]) - 3


def distance(a, b):
    """The hex distance between two cells named as text."""
    (q1, r1), (q2, r2) = axial(a), axial(b)
    return max(abs(q1 - q2), abs(r1 - r2), abs((q1 + r1) - (q2 + r2)))


def seat_values(game):
    """(return, margin) of every seat of a finished game: the margin over the best of the
    others' scores."""
    returns, scores = game.returns(), game.scores()
    return tuple((returns[p], scores[p] - max(s for q, s in enumerate(scores) if q != p))
                 for p in range(len(scores)))


def preference(values, mover):
    """What the mover ranks by (higher is better): their own (return, margin), then
    against the next player in turn, then the one after (docs/searching.md)."""
    n = len(values)
    return (values[mover],) + tuple((-values[(mover + k) % n][0], -values[(mover + k) % n][1])
                                    for k in range(1, n))


def exhaustive(game, memo, budget):
    """Every seat's (return, margin) under max^n (with two players, minimax: one seat's
    gain is the other's loss): every legal move in every order, nothing pruned; None once
    `budget` (a one-item list) of moves tried is spent. `memo` keeps each position's values
    under its key, with the position, compared (==, every field) before its values are used:
    exact whatever the keys, and half the time of keeping them by position text."""
    seen = memo.get(game.key)
    if seen is not None and seen[0] == game:
        return seen[1]
    mover = game.current_player
    best = None
    for move in game.legal_moves():
        budget[0] -= 1
        if budget[0] < 0:
            return None
        game.play(move)
        value = seat_values(game) if game.is_over else exhaustive(game, memo, budget)
        game.undo()
        if value is None:
            return None
        if best is None or preference(value, mover) > preference(best, mover):
            best = value
    memo[game.key] = (game.copy(history=False), best)
    return best


# ---- test support in Cython --------------------------------------------------------------

# a .pyx of tests/ built against the photocore the tests import, cimporting its .pxd from
# the folder above the package (as examples/flat_mc is built), so that what only the tests
# use is not compiled into the package: tests/key_census.pyx
BUILD = """
import sys
from Cython.Build import cythonize
from setuptools import Extension, setup
name, include = sys.argv[1:3]
setup(ext_modules=cythonize([Extension(name, [name + ".pyx"], extra_compile_args=["-O3"])],
                            include_path=[include], quiet=True),
      script_args=["-q", "build_ext", "--inplace"])
"""


def compiled(name, folder):
    """tests/NAME.pyx compiled in `folder` (an empty one) and imported: the module."""
    shutil.copy(pathlib.Path(__file__).with_name(f"{name}.pyx"), folder)
    package_parent = pathlib.Path(photocore.__file__).resolve().parent.parent
    result = subprocess.run([sys.executable, "-c", BUILD, name, str(package_parent)],
                            cwd=folder, capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"tests/{name}.pyx did not build:\n{result.stdout}{result.stderr}")
    (library,) = list(folder.glob(f"{name}.*.so")) or list(folder.glob(f"{name}.*.pyd"))
    spec = importlib.util.spec_from_file_location(name, library)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- processes -----------------------------------------------------------------------------

def alive(pid):
    """Whether process `pid` runs (Linux, from /proc): a zombie has ended and only waits for
    its parent; one reaped between the open and the read is gone too (the read says ESRCH).
    """
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[1][0] != "Z"     # the name may hold ") "
    except (FileNotFoundError, ProcessLookupError):
        return False


# ---- no process left behind --------------------------------------------------------------

# Helpers that live as long as the interpreter that started them and end with it, matched
# in their command lines: they, and their children, are no test's leftovers.
HELPERS = ("from multiprocessing.resource_tracker import main",
           "from multiprocessing.forkserver import main",
           "loky.backend.resource_tracker")     # loky's, joblib's copy of it too
# the pids of processes a session fixture keeps (conftest's Ray instance), theirs with them
KEPT = set()
GRACE = 5       # seconds for a test's processes to finish ending (a SIGTERM's handler)


def become_subreaper():
    """Makes this process the one that orphans of its descendants are reparented to
    (Linux's PR_SET_CHILD_SUBREAPER), where they would go to init: a daemon's double
    fork, a server a killed parent left behind are found among its descendants."""
    if sys.platform.startswith("linux"):
        if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "PR_SET_CHILD_SUBREAPER")


def _table():
    """{pid: (parent pid, start time)} of every running process (zombies have ended); read
    with os.open, a third of open()'s cost, as this runs twice a test."""
    table = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                fd = os.open(f"/proc/{name}/stat", os.O_RDONLY)
                try:
                    stat = os.read(fd, 1024)
                finally:
                    os.close(fd)
            except (FileNotFoundError, ProcessLookupError):   # ended meanwhile
                continue
            fields = stat[stat.rindex(b") ") + 2:].split()    # the name may hold ") "
            if fields[0] != b"Z":
                table[int(name)] = (int(fields[1]), int(fields[19]))
    return table


def children_of(table):
    """{parent pid: [child pid, ...]} of a _table()."""
    children = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    return children


# CPU seconds a command has used when it is surely past its imports (about 0.4 s): on a
# loaded machine, a fixed wall time could end while it was still importing, where SIGINT
# gives Python's traceback (CI, with every stage beside the tests)
STARTED = 0.8


def started(process, seconds=STARTED):
    """Waits (up to 60 s) until `process` and its descendants (a run's workers) have used
    `seconds` of CPU time, or it has ended: then a signal finds it at work, whatever the
    machine's load."""
    if not sys.platform.startswith("linux"):
        time.sleep(2 * seconds)      # the wall time alone
        return
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        children, used, todo = children_of(_table()), 0.0, [process.pid]
        while todo:
            pid = todo.pop()
            todo.extend(children.get(pid, ()))
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(") ", 1)[1].split()
            except OSError:     # ended meanwhile
                continue
            used += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        if used >= seconds:
            return
        time.sleep(0.05)


def command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except (FileNotFoundError, ProcessLookupError):
        return ""


def descendants(spared=()):
    """{(pid, start time): command line} of the running descendants of this process (Linux:
    {} elsewhere), but the helpers' and the kept ones, each with its own descendants, and
    the descendants of those in `spared` (keys of an earlier call: a module's browser
    starts its renderers during the tests, and ends them with it)."""
    if not sys.platform.startswith("linux"):
        return {}
    try:                # no child at all (an ended one counts): no descendant either
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return {}
    table = _table()
    children = children_of(table)
    found, todo = {}, list(children.get(os.getpid(), ()))
    while todo:
        pid = todo.pop()
        line = command_line(pid)
        if pid in KEPT or any(helper in line for helper in HELPERS):
            continue
        found[pid, table[pid][1]] = line
        if (pid, table[pid][1]) not in spared:
            todo.extend(children.get(pid, ()))
    return found


def left_behind(before=()):
    """The descendants of this process (descendants()) not in `before` nor beneath one of
    them that still run GRACE seconds on, killed: {(pid, start time): command line}, {}
    when none."""
    deadline = time.monotonic() + GRACE
    while (left := {key: line for key, line in descendants(before).items()
                    if key not in before}) \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid, _ in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for pid, _ in left:                 # reaped where they are this process's children
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    return left


def listed(left):
    """The processes of left_behind(), in words: how many, then a line for each."""
    return (f"{len(left)} process{'es' if len(left) > 1 else ''} running (killed now):\n"
            + "\n".join(f"  {pid}: {line or '?'}" for (pid, _), line in sorted(left.items())))


def of_absent_extra(module, name):
    """Whether `name`, which the module loads on first use, comes from an optional
    framework that is not installed here (the ImportError names the framework, not
    photocore): such a name exists, and its own module's tests skip."""
    try:
        getattr(module, name)
    except ImportError as error:
        if not error.name or error.name.partition(".")[0] == "photocore":
            raise
        return True
    except AttributeError:
        pass
    return False


class NoTempLeft:
    """A pytest plugin: the session's temporary files go to a folder of its own (TMPDIR,
    which the processes it starts inherit, and `tempfile`'s folder in this one), and
    whatever is left there when the session ends fails it, named, then is removed. pytest's
    own folders (tmp_path) stay where they were, kept for a look after a failure. Under
    pytest-xdist the workers inherit the main process's folder, which it checks after them.
    Install with `install(config)` from pytest_configure, before any temporary file is made."""

    left = []

    @classmethod
    def install(cls, config):
        if hasattr(config, "workerinput"):  # a pytest-xdist worker, whose TMPDIR is the
            return                          # main process's folder (not PYTEST_XDIST_WORKER:
                                            # a pytest a test starts inherits it)
        plugin = cls()
        os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", tempfile.gettempdir())
        plugin.folder = tempfile.mkdtemp(prefix="photocore-tests-")
        os.chmod(plugin.folder, 0o1777)     # as /tmp: tests that run as another user
        os.environ["TMPDIR"] = tempfile.tempdir = plugin.folder
        config.pluginmanager.register(plugin, "no-temp-left")

    @pytest.hookimpl(trylast=True)      # after the session's fixtures' teardown
    def pytest_sessionfinish(self, session):
        self.left = sorted(os.listdir(self.folder))
        shutil.rmtree(self.folder, ignore_errors=True)
        if self.left:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter):
        if self.left:
            terminalreporter.section("temporary files left behind", red=True)
            terminalreporter.line(f"the session left in its temporary folder: "
                                  f"{', '.join(self.left)}")


class NoProcessLeft:
    """A pytest plugin: every process a test starts has ended when it ends (after its
    fixtures' teardown and a grace), and every process started in the session when the
    session ends (a module's or the session's fixtures'); a test that leaves one fails
    naming it, and the session too, and what was left is killed so the run goes on.
    Install with `install(config)` from pytest_configure."""

    left = {}

    @classmethod
    def install(cls, config):
        become_subreaper()
        config.pluginmanager.register(cls(), "no-process-left")

    @pytest.fixture(autouse=True)
    def no_process_left(self):
        # (autouse: set up before the test's other function-scoped fixtures, torn down
        # after them; the wider-scoped ones, a module's server, run on)
        before = descendants()
        yield
        if left := left_behind(before):
            pytest.fail(f"the test left {listed(left)}", pytrace=False)

    @pytest.hookimpl(trylast=True)      # after the session's fixtures' teardown
    def pytest_sessionfinish(self, session):
        self.left = left_behind()
        if self.left:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter):
        if self.left:
            terminalreporter.section("processes left behind", red=True)
            terminalreporter.line(f"the session left {listed(self.left)}")
