"""The examples/ programs: the Cython searcher builds against the installed package and
plays well, and the typed program passes mypy --strict against the shipped stubs."""

import importlib.util
import math
import pathlib
import random
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import photocore

ROOT = pathlib.Path(__file__).resolve().parents[2]
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_flat_mc_is_deterministic_for_a_seed(flat_mc):
    game = photocore.Game(players=2)
    for text in ["place a4", "place g1", "place d1", "place d7"]:
        game.play(text)
    assert flat_mc.choose(game, 8, seed=1) == flat_mc.choose(game, 8, seed=1)


@pytest.mark.slow
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


@pytest.mark.slow
def test_typed_usage_passes_mypy_strict(tmp_path, user_cache):
    pytest.importorskip("mypy")
    # as a user's project checks it: outside this project's mypy settings (whose mypy_path
    # is src/), against the photocore installed, its stubs and py.typed
    result = mypy("--strict", "--cache-dir", user_cache, str(EXAMPLES / "typed_usage.py"),
                  cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
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


@pytest.mark.slow
def test_stubs_match_the_compiled_modules():
    pytest.importorskip("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "--allowlist",
         str(ROOT / "tests" / "stubtest_allowlist.txt"), "photocore._game", "photocore._kernel",
         "photocore.play._agents", "photocore.play._search", "photocore.play._solver",
         "photocore.env._vec"],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# ---- examples/own_search: UCT in plain Python over Game.playout ---------------------------

@pytest.fixture(scope="module")
def own_search():
    """examples/own_search/compare.py as a module (it imports uct.py beside it)."""
    spec = importlib.util.spec_from_file_location("compare", EXAMPLES / "own_search"
                                                  / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plays_legally_and_repeats(seed, *agents):
    """Through a random 3-player game with shade blocks (moves drawn from `seed`), each of
    `agents` picks a legal move at every position, the same again for the same seed, and
    leaves the position as it was."""
    rng = random.Random(seed)
    game = photocore.Game(players=3, options="s")
    while not game.is_over:
        before = game.position()
        for agent in agents:
            agent.reset(seed=len(game.history))
            move = agent.select(game)
            assert move in game.legal_moves() and game.position() == before
            agent.reset(seed=len(game.history))
            assert agent.select(game) == move
        game.play(rng.choice(game.legal_moves()))


def test_own_uct_chooses_legal_moves_and_repeats_for_a_seed(own_search):
    from photocore.play import specs
    player = specs.load(f"py:{EXAMPLES / 'own_search' / 'uct.py'}:UCT?simulations=12")
    python = own_search.UCT(12, playout="python")
    plays_legally_and_repeats(2, player, python)
    assert player.name == "uct:12" and python.name == "uct:12?playout=python"
    with pytest.raises(ValueError, match="simulations"):
        own_search.UCT(0)


@pytest.mark.slow
def test_own_uct_finds_the_win_and_beats_random(own_search):
    # the solver's one winning move (photocore.solve's docstring), with either playout
    win = photocore.Game.from_position("2 - 18 5 1 0 - a4:1:1,a5:1:1,b4:0:1 3/1110/2220/- "
                                       "0/2200/4432/- 0579")
    for playout in ("engine", "python"):
        assert str(own_search.UCT(200, playout=playout).select(win)) == "end"
    rng, share = random.Random(0), 0.0
    for g in range(10):
        searcher, agent = g % 2, own_search.UCT(100)
        agent.reset(seed=g)
        game = photocore.Game(players=2)
        while not game.is_over:
            game.play(agent.select(game) if game.current_player == searcher
                      else rng.choice(game.legal_moves()))
        share += 1 / len(game.winners()) if searcher in game.winners() else 0.0
    assert share / 10 >= 0.8


def test_own_search_compare_runs():
    result = subprocess.run([sys.executable, str(EXAMPLES / "own_search" / "compare.py"),
                             "--positions", "2", "--simulations", "10", "--rounds", "1"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "x the Python playouts (2 positions, 10 simulations" in result.stdout


# ---- examples/own_search: the same search over photocore.Search, and its steps timed -------

@pytest.fixture(scope="module")
def puct():
    """examples/own_search/puct.py as a module."""
    spec = importlib.util.spec_from_file_location("puct", EXAMPLES / "own_search" / "puct.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def worth_by_slot(game):
    """ScoreLead's worth of each player, from the Game rather than the observation: the
    score if the game ended now and a point per size of each tree on the board, the player
    to move first."""
    trees = [0] * game.players
    for owner, size in game.board().values():
        trees[owner] += size
    seats = [(game.current_player + k) % game.players for k in range(game.players)]
    return [game.scores()[seat] + trees[seat] for seat in seats]


@pytest.mark.parametrize("players", [2, 3])
def test_score_lead_values_each_players_lead_from_the_observation(puct, players):
    rng, games = random.Random(players), []
    while len(games) < 30:
        game = photocore.Game(players=players)
        for _ in range(rng.randrange(20, 160)):
            if not game.is_over:
                game.play(rng.choice(game.legal_moves()))
        if not game.is_over:
            games.append(game)
    obs = np.stack([game.observation() for game in games])
    logits, values = puct.ScoreLead(players)(obs, None)
    assert logits.shape == (30, photocore.NUM_ACTIONS) and not logits.any()
    expected = [[math.tanh((w - max(worth[:k] + worth[k + 1:])) / 10) for k, w in enumerate(worth)]
                for worth in map(worth_by_slot, games)]
    assert values.dtype == np.float32 and np.allclose(values, expected, atol=1e-6)
    assert len({tuple(row) for row in values.tolist()}) > 5      # the positions differ


@pytest.mark.parametrize("evaluator", ["score", "playouts"])
def test_puct_chooses_legal_moves_repeats_for_a_seed_and_finds_the_win(puct, evaluator):
    from photocore.play import specs
    player = specs.load(f"py:{EXAMPLES / 'own_search' / 'puct.py'}:PUCT?simulations=12"
                        f"&evaluator={evaluator}&players=3")
    plays_legally_and_repeats(3, player)
    assert player.name == f"puct-{evaluator}:12"
    # the solver's one winning move (as for uct.py above)
    win = photocore.Game.from_position("2 - 18 5 1 0 - a4:1:1,a5:1:1,b4:0:1 3/1110/2220/- "
                                       "0/2200/4432/- 0579")
    assert str(puct.PUCT(200, evaluator).select(win)) == "end"
    with pytest.raises(ValueError, match="evaluator"):
        puct.PUCT(evaluator="network")


def test_own_search_steps_runs():
    result = subprocess.run([sys.executable, str(EXAMPLES / "own_search" / "steps.py"),
                             "--positions", "2", "--simulations", "10", "--games", "2",
                             "--rounds", "1"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].endswith("2 positions, 2 random games from each, 10 simulations a move, "
                             "best of 1 rounds, CPU time")
    assert [line.split("  ")[0] for line in lines[1:]] == [
        "random games, Python loop", "random games, Game.playout",
        "UCT in Python, Python playouts", "UCT in Python, Game.playout",
        "Search, playouts as values", "Search, ScoreLead", "Search, ScoreLead, in_flight=8",
        "Search, ScoreLead, every game at once", "mcts:N, all in C"]


def python_blocks(path):
    """The ```python blocks of a Markdown file that are code to run as written (doctests,
    `>>>`, run under pytest)."""
    return [block for block in re.findall(r"^```python\n(.*?)^```",
                                          path.read_text(encoding="utf-8"), re.M | re.S)
            if not block.startswith(">>>")]


@pytest.mark.parametrize("page, block", [("examples/own_search/README.md", 0),
                                         ("docs/own-search.md", 0)])
def test_the_own_search_snippets_run_as_written_from_the_root(page, block):
    code = python_blocks(ROOT / page)[block]
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr


def test_the_own_search_page_runs_the_match_its_claim_is_about():
    page = (ROOT / "docs" / "own-search.md").read_text(encoding="utf-8")
    claim = re.search(r"`PUCT\(evaluator=\"(\w+)\"\)` scored ([\d.]+)% against `(mcts:\d+)`",
                      page)
    (command,) = [line for line in page.splitlines()
                  if line.startswith("photocore match") and "puct.py" in line]
    assert f"evaluator={claim[1]},{claim[3]}" in command


def test_steps_prints_the_ratios_of_the_pages_table():
    spec = importlib.util.spec_from_file_location("steps", EXAMPLES / "own_search" / "steps.py")
    steps = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(steps)
    names = list(steps.steps(300, 50))
    page = (ROOT / "docs" / "own-search.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (.+?) \| [\d,]+ \w+/s \|(?: [\d.]+ x (.+?))? \|$", page, re.M)
    assert len(rows) == len(names)
    # the table's words for the step a ratio is against
    against = {"the Python loop": "random games, Python loop",
               "the Python playouts": "UCT in Python, Python playouts",
               "UCT in Python": "UCT in Python, Game.playout",
               "a leaf a call": "Search, ScoreLead",
               "8 leaves a call": "Search, ScoreLead, in_flight=8"}
    for name, (_, base) in zip(names, rows):
        assert steps.BASES.get(name) == (against[base] if base else None), name
