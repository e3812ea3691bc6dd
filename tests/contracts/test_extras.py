"""Every command works, or says which extra it needs, before any work (docs/hardening.md).

The surfaces are found in the code, so that the next extra or command is covered: the
extras and their packages from pyproject.toml's [project.optional-dependencies] (their
import names from the installed distributions), the commands from the click group
photocore.cli.main, each run by the small invocation of INVOCATIONS (a command without one
fails the guard). Each command runs in a subprocess, once with everything installed, which
records the extras' modules it (and its worker processes) looks for, then once with each
extra it looked for missing: `sys.modules[name] = None` for the extra's import names, set by
a sitecustomize in every process of the run. It must finish (exit status 0), or refuse in
one line that names an extra holding a missing module (pip install 'photocore[...]'),
having played and written nothing. An extra the command never looked for cannot change
it: that run is left out (the test prints which ran)."""

import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import tomllib

import pytest
from click.testing import CliRunner
from installed import ROOT

from photocore.cli import main

PYPROJECT = ROOT / "pyproject.toml"

# A small, quick, representative run of each command, in a folder holding games.jsonl (two
# games) and games.sqlite3 (serve's database); `stdin` is what it reads.
INVOCATIONS = {
    "selfplay": "selfplay --games 2 --agents random --workers 1 --seed 1 --out out.jsonl "
                "--no-progress",
    # three agents: Bradley-Terry ratings after the games (issue 45: they crashed there)
    "match": "match --agents random,greedy,mcts:2 --games 3 --workers 1 --seed 1 "
             "--out out.jsonl --no-progress",
    "tournament": "tournament --agents random,greedy,mcts:2 --games-per-group 2 --workers 1 "
                  "--seed 1 --summary out.json --out out.jsonl --no-progress",
    "playouts": "playouts --games 10 --seed 1",
    "bench": "bench --quick --workload playouts/* --summary out.json",
    "verify": "verify games.jsonl",
    "show": "show games.jsonl",
    "stats": "stats games.jsonl --plot out.png",
    "export": "export games.jsonl --npz out.npz",
    "replay": "replay games.jsonl --html out.html",
    "repair": "repair games.jsonl --out out.jsonl",
    "analyze": "analyze games.jsonl --agent mcts:2 --out out.jsonl --workers 1 --no-progress",
    "solve": "solve games.jsonl --ply 116 --nodes 100000",
    "play": "play --agents random --seed 1 --no-color",
    "serve": "serve --db games.sqlite3 --backup out.sqlite3",
}
STDIN = {"play": "quit\n"}

# the blocker, in every process of a run (worker processes too): PHOTOCORE_TEST_BLOCKED's
# modules are missing; PHOTOCORE_TEST_WATCH's are written to PHOTOCORE_TEST_TRACE when looked for
SITECUSTOMIZE = textwrap.dedent("""\
    import os
    import sys

    for _name in filter(None, os.environ.get("PHOTOCORE_TEST_BLOCKED", "").split(",")):
        sys.modules[_name] = None
    _WATCH = set(filter(None, os.environ.get("PHOTOCORE_TEST_WATCH", "").split(",")))


    class _Trace:
        seen = set()

        def find_spec(self, name, path=None, target=None):
            top = name.partition(".")[0]
            if top in _WATCH and top not in self.seen:
                self.seen.add(top)
                with open(os.environ["PHOTOCORE_TEST_TRACE"], "a") as f:
                    f.write(top + "\\n")
            return None


    if _WATCH:
        sys.meta_path.insert(0, _Trace())
    """)


def _normal(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(text):
    return _normal(re.match(r"[A-Za-z0-9._-]+", text).group())


def _import_names():
    """Each installed distribution's top-level import names, by its normalised name."""
    names = {}
    for module, distributions in importlib.metadata.packages_distributions().items():
        for distribution in distributions:
            names.setdefault(_normal(distribution), set()).add(module)
    return names


def extras():
    """{extra: (its installed import names, its distributions not installed)}, from
    pyproject.toml; another extra it names (photocore[serve,plot]) is tested as itself."""
    if not PYPROJECT.exists():
        pytest.skip("pyproject.toml is not here: not a checkout")
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    names = _import_names()
    core = {m for r in project["dependencies"] for m in names.get(_requirement_name(r), ())}
    found = {}
    for extra, requirements in project["optional-dependencies"].items():
        modules, absent = set(), []
        for requirement in requirements:
            distribution = _requirement_name(requirement)
            if distribution == "photocore":
                continue
            try:
                importlib.metadata.distribution(distribution)
            except importlib.metadata.PackageNotFoundError:
                absent.append(distribution)      # missing in every run already
                continue
            # guard: an installed distribution whose import names are not known
            assert names.get(distribution), f"extra {extra}: no import name for {distribution}"
            modules |= names[distribution]
        # guard: a module of the core dependencies is never made missing
        assert not modules & core, f"extra {extra} holds core modules {modules & core}"
        found[extra] = (modules, absent)
    return found


def test_every_command_has_an_invocation():
    assert set(INVOCATIONS) == set(main.commands), (
        "give each command of photocore.cli a small invocation in INVOCATIONS")


@pytest.mark.slow
def test_every_extra_is_known():
    found = extras()
    assert found, "pyproject.toml names no extras"
    for extra, (modules, absent) in found.items():
        assert modules or absent, f"extra {extra} names no package"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inputs")
    result = CliRunner().invoke(main, ["selfplay", "--games", "2", "--agents", "random",
                                       "--workers", "1", "--seed", "1", "--no-progress",
                                       "--out", str(folder / "games.jsonl")])
    assert result.exit_code == 0, result.output
    from photocore.serve.database import Database
    Database(str(folder / "games.sqlite3")).close()
    (folder / "block").mkdir()
    (folder / "block" / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return folder


def _run(command, inputs, folder, blocked=(), watch=()):
    folder.mkdir()
    for name in ("games.jsonl", "games.sqlite3"):
        shutil.copy(inputs / name, folder / name)
    trace = folder.parent / f"{folder.name}.trace"
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(inputs / "block"),
                                          *filter(None, [os.environ.get("PYTHONPATH")])]),
           "PHOTOCORE_TEST_BLOCKED": ",".join(sorted(blocked)),
           "PHOTOCORE_TEST_WATCH": ",".join(sorted(watch)), "PHOTOCORE_TEST_TRACE": str(trace),
           "COLUMNS": "100"}
    before = set(os.listdir(folder))
    done = subprocess.run([sys.executable, "-m", "photocore", *INVOCATIONS[command].split()],
                          cwd=folder, env=env, input=STDIN.get(command, ""),
                          capture_output=True, text=True, timeout=120)
    made = set(os.listdir(folder)) - before
    seen = set(trace.read_text().split()) if trace.exists() else set()
    return done, made, seen


@pytest.mark.parametrize("command", sorted(INVOCATIONS))
@pytest.mark.slow
def test_every_command_works_or_names_its_extra_before_any_work(command, inputs, tmp_path):
    found = extras()
    watch = set().union(*(modules for modules, _ in found.values()))
    done, _, seen = _run(command, inputs, tmp_path / "all", watch=watch)
    if done.returncode != 0 and (absent := _absent_named(done.stderr, found)):
        pytest.skip(f"{command} needs the {absent} extra, which is not installed here")
    assert done.returncode == 0, f"{command}, everything installed:\n{done.stderr}"
    ran = []
    for extra, (modules, _) in sorted(found.items()):
        if not modules & seen:
            continue          # never looked for: its absence cannot change the run
        ran.append(extra)
        done, made, _ = _run(command, inputs, tmp_path / extra, blocked=modules)
        if done.returncode == 0:
            continue
        holders = {other for other, (them, _) in found.items() if them & modules}
        said = done.stderr.strip()
        named = re.findall(r"pip install 'photocore\[([a-z0-9-]+)\]'", said)
        where = f"photocore {INVOCATIONS[command]}, without the {extra} extra"
        assert "\n" not in said and "Traceback" not in said, f"{where}:\n{said}"
        assert named and set(named) <= holders, f"{where} names no extra it lacks: {said}"
        # refused before any work: nothing written, no game (no line on stdout)
        assert not made, f"{where} refused after writing {sorted(made)}"
        assert not done.stdout.strip(), f"{where} refused after:\n{done.stdout}"
    print(f"{command}: looked for {sorted(seen)}; ran without {ran or 'nothing'}")


API = textwrap.dedent("""\
    import importlib, json, pkgutil, sys
    import photocore
    failed = {}
    for found in pkgutil.walk_packages(photocore.__path__, "photocore."):
        if found.name == "photocore.__main__" or found.name.startswith("photocore._kernel_"):
            continue     # the command itself; the kernel's variants, loaded by _kernel
        try:
            importlib.import_module(found.name)
        except ImportError as e:
            failed[found.name] = [e.name, str(e)]
    print(json.dumps(failed))
    """)


def _absent_named(said, found):
    """The extra a command's refusal names, where that extra is not installed here."""
    for extra in re.findall(r"pip install 'photocore\[([a-z0-9-]+)\]'", said):
        if extra in found and found[extra][1]:
            return extra
    return None


@pytest.mark.slow
def test_the_package_imports_with_every_extra_missing(inputs):
    # every module imports, or fails for want of an extra's module alone (its name)
    found = extras()
    blocked = set().union(*(modules for modules, _ in found.values()))
    env = {**os.environ, "PHOTOCORE_TEST_BLOCKED": ",".join(sorted(blocked)),
           "PYTHONPATH": os.pathsep.join([str(inputs / "block"),
                                          *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-c", API], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    failed = json.loads(done.stdout)
    assert "photocore" not in failed
    for module, (name, message) in failed.items():
        top = name and name.partition(".")[0]
        # blocked, or of an extra that is not installed here at all
        assert top in blocked or importlib.util.find_spec(top) is None, f"{module}: {message}"
        # one line naming the module (or the optional module it imports, where that one is
        # what a missing framework stops) and an extra that installs what it lacks
        assert "\n" not in message and re.match(r"photocore(\.\w+)* needs ", message), message
        named = message.rpartition("pip install 'photocore[")[2].partition("]")[0]
        assert named in found and (top in found[named][0] or found[named][1]), message
    print("optional modules:", {module: name for module, (name, _) in failed.items()})
