"""The examples/ programs: the Cython searcher builds against the installed package and
plays well, and the typed program passes mypy --strict against the shipped stubs."""

import importlib.util
import pathlib
import random
import shutil
import subprocess
import sys

import pytest

import photocore

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def flat_mc(tmp_path_factory):
    pytest.importorskip("Cython")
    build = tmp_path_factory.mktemp("flat_mc")
    for name in ("flat_mc.pyx", "setup.py"):
        shutil.copy(EXAMPLES / "flat_mc" / name, build)
    result = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=build,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    (library,) = build.glob("flat_mc.*.so") or build.glob("flat_mc.*.pyd")
    spec = importlib.util.spec_from_file_location("flat_mc", library)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_flat_mc_chooses_legal_moves(flat_mc):
    rng = random.Random(4)
    game = photocore.Game(players=3, options="s")
    while not game.is_over:
        before = game.position()
        move = flat_mc.choose(game, 4, seed=len(game.history))
        assert move in game.legal_moves() and game.position() == before
        game.play(move if rng.random() < 0.3 else rng.choice(game.legal_moves()))
    with pytest.raises(ValueError, match="over"):
        flat_mc.choose(game)
    with pytest.raises(ValueError, match="playouts"):
        flat_mc.choose(photocore.Game(), 0)


def test_flat_mc_is_deterministic_for_a_seed(flat_mc):
    game = photocore.Game(players=2)
    for text in ["place a4", "place g1", "place d1", "place d7"]:
        game.play(text)
    assert flat_mc.choose(game, 8, seed=1) == flat_mc.choose(game, 8, seed=1)


def test_flat_mc_beats_random(flat_mc):
    rng = random.Random(0)
    share = 0.0
    games = 24
    for g in range(games):
        searcher = g % 2
        game = photocore.Game(players=2)
        while not game.is_over:
            if game.current_player == searcher:
                game.play(flat_mc.choose(game, 8, seed=g * 1000 + len(game.history)))
            else:
                game.play(rng.choice(game.legal_moves()))
        winners = game.winners()
        share += 1 / len(winners) if searcher in winners else 0.0
    assert share / games >= 0.8


def test_typed_usage_runs():
    subprocess.run([sys.executable, str(EXAMPLES / "typed_usage.py")], check=True,
                   capture_output=True)


def mypy(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "mypy", *args], cwd=cwd, capture_output=True,
                          text=True)


@pytest.fixture(scope="module")
def user_cache(tmp_path_factory):
    """One mypy cache for the checks made as a user's project: the second run reads
    photocore's and numpy's analysis from it instead of doing it again (half a minute)."""
    return str(tmp_path_factory.mktemp("mypy") / "cache")


def test_typed_usage_passes_mypy_strict(tmp_path, user_cache):
    pytest.importorskip("mypy")
    # as a user's project checks it: outside this project's mypy settings (whose mypy_path
    # is src/), against the photocore installed, its stubs and py.typed
    result = mypy("--strict", "--cache-dir", user_cache, str(EXAMPLES / "typed_usage.py"),
                  cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_stubs_are_used_by_mypy(tmp_path, user_cache):
    pytest.importorskip("mypy")
    wrong = tmp_path / "wrong.py"
    wrong.write_text("import photocore\n"
                     "g = photocore.Game(players=2)\n"
                     "g.play(1.5)\n"
                     "n: str = g.round\n")
    result = mypy("--strict", "--cache-dir", user_cache, str(wrong), cwd=tmp_path)
    assert result.returncode == 1
    assert 'Argument 1 to "play" of "Game"' in result.stdout
    assert "Incompatible types in assignment" in result.stdout


def test_stubs_match_the_compiled_modules():
    pytest.importorskip("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "--allowlist",
         str(ROOT / "tests" / "stubtest_allowlist.txt"), "photocore._game", "photocore._kernel",
         "photocore.play._agents", "photocore.play._search", "photocore.play._solver",
         "photocore.env._vec"],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
