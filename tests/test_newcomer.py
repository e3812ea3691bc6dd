"""What a new user met on a first run (issue 15), each kept fixed: the fuzz checker in a
checkout named photocore, --resume of another run, files that cannot be written, Ray
connection failures, damaged self-play files, ties, and the smaller rough edges."""

import gzip
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys

import pytest
from click.testing import CliRunner

import photocore
from photocore import records
from photocore.cli import main

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "seeds" / "golden.jsonl"
RUN = ["--agents", "greedy,random", "--seed", "1", "--no-progress"]


def cli(*args, **kwargs):
    return CliRunner().invoke(main, [str(a) for a in args], **kwargs)


def photocore_command(*args, timeout=60, env=None):
    """`photocore ARGS` in a process of its own, as from a shell."""
    return subprocess.run([sys.executable, "-m", "photocore", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=env)


def one_line_error(output):
    """The output is one line, `Error: ...` (no traceback, no usage); returns it."""
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), output
    return lines[0]


# ---- 1. the fuzz checker: which frames are photocore's ----------------------------------

def error_from(module, filename):
    """An exception raised by a function of `module` whose code says it is in `filename`."""
    namespace = {"__name__": module}
    exec(compile("def fail():\n    raise RuntimeError('bad')\n", filename, "exec"), namespace)
    try:
        namespace["fail"]()
    except RuntimeError as e:
        return e


def test_the_fuzz_checker_tells_photocore_frames_by_module_not_by_path():
    # in a checkout in a folder named photocore, every file's path holds that word: the
    # standard library's pickle raising there was taken for photocore
    sys.path.insert(0, str(ROOT / "fuzz"))
    try:
        import checks
    finally:
        sys.path.remove(str(ROOT / "fuzz"))
    raised_in_photocore = checks._raised_in_photocore
    assert not raised_in_photocore(error_from("pickle", "/src/photocore/.venv/pickle.py"))
    assert not raised_in_photocore(error_from("checks", "/home/me/photocore/fuzz/checks.py"))
    assert not raised_in_photocore(error_from("photocorex", "/photocore/photocorex.py"))
    # an installed package is photocore's wherever it lies, compiled modules included
    assert raised_in_photocore(error_from("photocore.records", "/opt/lib/records.py"))
    assert raised_in_photocore(error_from("photocore", "__init__.py"))
    with pytest.raises(photocore.InvalidPositionError) as caught:
        photocore.Game.from_position("2 - 1")
    assert raised_in_photocore(caught.value)


# ---- 2. --resume compares everything that defines the run ------------------------------

@pytest.fixture(scope="module")
def started(tmp_path_factory):
    """The first 3 games of a run of 6 (mcts:5 against greedy, seed 1), as a killed run
    leaves them."""
    folder = tmp_path_factory.mktemp("resume")
    whole = folder / "whole.jsonl"
    result = cli("selfplay", "--out", whole, "--games", 6, "--agents", "mcts:5,greedy",
                 "--seed", 1, "--no-progress")
    assert result.exit_code == 0, result.output
    lines = whole.read_bytes().splitlines(keepends=True)
    return whole, lines[:3]


THIS_RUN = ["--agents", "mcts:5,greedy", "--seed", "1"]


@pytest.mark.parametrize("run, told", [
    (["--agents", "greedy,random", "--seed", "1"],
     "has agents mcts:5,greedy by seat, game 0 of this run has agents greedy,random by seat "
     "(set by --agents)"),
    (["--agents", "greedy,mcts:5", "--seed", "1"], "game 0 of this run has agents "
                                                   "greedy,mcts:5 by seat (set by --agents)"),
    (["--agents", "mcts:6,greedy", "--seed", "1"], "has agents mcts:6,greedy by seat"),
    (["--agents", "mcts:5,greedy", "--seed", "2"],
     "has seed 1, game 0 of this run has seed 2 (set by --seed)"),
    (["--agents", "mcts:5,greedy,random", "--seed", "1", "--players", "3"],
     "has players 2, game 0 of this run has players 3 (set by --players)"),
    ([*THIS_RUN, "--shade-blocks"], "has options none, game 0 of this run has options shade "
                                    "blocks (set by --fourth-revolution / --shade-blocks)"),
])
def test_resume_refuses_another_run_naming_what_differs(tmp_path, started, run, told):
    _, head = started
    out = tmp_path / "g.jsonl"
    out.write_bytes(b"".join(head))
    result = cli("selfplay", "--out", out, "--games", 6, "--resume", "--no-progress", *run)
    assert result.exit_code == 1, result.output
    one_line_error(result.output)
    assert f"cannot resume: {out} is another run: its game on line 1 " in result.output
    assert told in " ".join(result.output.split())
    assert out.read_bytes() == b"".join(head)            # not a byte added


def test_resume_refuses_games_out_of_order_or_of_other_rules(tmp_path, started):
    _, head = started
    out = tmp_path / "g.jsonl"
    args = ["selfplay", "--out", out, "--games", 6, *THIS_RUN, "--resume", "--no-progress"]
    out.write_bytes(head[0] + head[2] + head[1])
    result = cli(*args)
    assert result.exit_code == 1 and "line 2 has game 2, game 1 of this run has game 1" \
        in result.output and "order of the games" in result.output
    out.write_bytes(head[0].replace(b'"rules_version":"1"', b'"rules_version":"0"'))
    result = cli(*args)
    assert result.exit_code == 1 and "has rules_version 0" in result.output


def test_resume_of_a_finished_run_says_there_is_nothing_to_play(tmp_path, started):
    whole, _ = started
    out = tmp_path / "g.jsonl"
    shutil.copy(whole, out)
    result = cli("selfplay", "--out", out, "--games", 6, *THIS_RUN, "--resume", "--no-progress")
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"{out} already holds all 6 games of this run: nothing to play"
    assert out.read_bytes() == whole.read_bytes()


# ---- 3. files that cannot be written ----------------------------------------------------

WRITERS = {
    "selfplay --out": lambda out: ["selfplay", "--games", 2, "--no-progress", "--out", out],
    "export --npz": lambda out: ["export", GOLDEN, "--npz", out],
    "replay --html": lambda out: ["replay", GOLDEN, "--html", out],
    "stats --plot": lambda out: ["stats", GOLDEN, "--plot", out],
    "repair --out": lambda out: ["repair", GOLDEN, "--out", out],
}


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_every_command_that_writes_says_in_one_line_why_it_cannot(tmp_path, command):
    if command == "stats --plot":
        pytest.importorskip("matplotlib")
    (tmp_path / "file").write_text("a file")
    for out, why in [(tmp_path / "missing" / "out", f"the folder {tmp_path / 'missing'} "
                                                    "does not exist"),
                     (tmp_path / "file" / "out", f"{tmp_path / 'file'} is not a folder")]:
        result = cli(*WRITERS[command](out))
        assert result.exit_code == 1, result.output
        assert one_line_error(result.output) == f"Error: cannot write {out}: {why}"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.parametrize("command", sorted(set(WRITERS) - {"selfplay --out"}))
def test_a_write_that_fails_is_one_line_and_leaves_nothing(tmp_path, command, monkeypatch):
    if command == "stats --plot":
        pytest.importorskip("matplotlib")

    def refused(source, target):
        raise PermissionError(13, "Permission denied", source)   # the hidden temporary file

    monkeypatch.setattr(os, "replace", refused)
    out = tmp_path / "out"
    result = cli(*WRITERS[command](out))
    assert result.exit_code == 1, result.output
    error = f"Error: cannot write {out}: Permission denied"
    if command == "stats --plot":      # the summary is printed first, then the chart fails
        assert result.output.endswith(f"\n{error}\n") and "Traceback" not in result.output
    else:
        assert one_line_error(result.output) == error
    assert list(tmp_path.iterdir()) == []                     # its temporary file removed


def test_the_ray_backend_without_ray_gives_the_extra_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)        # as if not installed
    out = tmp_path / "g.jsonl"
    result = cli("selfplay", "--backend", "ray", "--games", 2, "--out", out)
    assert result.exit_code == 1, result.output
    line = one_line_error(result.output)
    assert line.startswith("Error: --backend ray needs ray (")
    assert line.endswith("pip install 'photocore[ray]'")
    assert not out.exists()


# ---- 4. Ray: a connection failure is one line, in bounded time, with no file ------------

def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_ray_address_where_nothing_listens_is_one_line_at_once(tmp_path):
    pytest.importorskip("ray")
    out = tmp_path / "g.jsonl"
    address = f"127.0.0.1:{closed_port()}"
    # Ray's own client retried for minutes: photocore_command's timeout catches a hang
    done = photocore_command("selfplay", "--backend", "ray", "--address", address,
                             "--games", 2, "--out", out)
    assert done.returncode == 1, done.stderr
    assert one_line_error(done.stderr) == f"Error: no Ray cluster at {address}: Connection refused"
    assert not out.exists()


def test_a_ray_address_that_never_answers_gives_up_at_the_connect_timeout(tmp_path):
    pytest.importorskip("ray")
    out = tmp_path / "g.jsonl"
    with socket.socket() as listener:     # accepts connections (its backlog), never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        address = f"127.0.0.1:{listener.getsockname()[1]}"
        done = photocore_command("selfplay", "--backend", "ray", "--address", address,
                                 "--connect-timeout", 3, "--games", 2, "--out", out)
    assert done.returncode == 1, done.stderr
    assert one_line_error(done.stderr) == \
        f"Error: the Ray cluster at {address} did not answer within 3 s"
    assert not out.exists()


def test_a_resumed_file_is_kept_when_ray_cannot_connect(tmp_path, started):
    pytest.importorskip("ray")
    _, head = started
    out = tmp_path / "g.jsonl"
    out.write_bytes(b"".join(head))
    done = photocore_command("selfplay", "--backend", "ray", "--address",
                             f"127.0.0.1:{closed_port()}", "--games", 6, *THIS_RUN,
                             "--resume", "--out", out)
    assert done.returncode == 1 and "no Ray cluster" in done.stderr
    assert out.read_bytes() == b"".join(head)


# ---- 5. photocore repair: the whole games of a damaged file ------------------------------

@pytest.fixture(scope="module")
def whole_run(tmp_path_factory):
    """An uninterrupted run of 30 random games as .jsonl and as .jsonl.gz."""
    folder = tmp_path_factory.mktemp("repair")
    runs = {}
    for name in ("whole.jsonl", "whole.jsonl.gz"):
        result = cli("selfplay", "--out", folder / name, "--games", 30, *RUN)
        assert result.exit_code == 0, result.output
        runs[name.partition(".")[2]] = folder / name
    return runs


def decompressed(path):
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def test_repair_keeps_the_whole_games_of_a_killed_gzip_run_and_resume_finishes_it(
        tmp_path, whole_run):
    whole = whole_run["jsonl.gz"]
    out = tmp_path / "g.jsonl.gz"
    out.write_bytes(whole.read_bytes()[:len(whole.read_bytes()) * 6 // 10])   # SIGKILLed
    args = ["selfplay", "--out", out, "--games", 30, *RUN, "--resume"]
    result = cli(*args)
    assert result.exit_code == 1
    assert "compressed stream is damaged or cut short" in result.output
    assert f"`photocore repair {out}` keeps its whole games" in result.output
    result = cli("repair", out)
    assert result.exit_code == 0, result.output
    kept = int(re.search(r"kept (\d+) whole games, dropped 1 damaged line$",
                         result.output.strip()).group(1))
    assert 10 < kept < 30 and "dropped " in result.output.splitlines()[0]
    assert decompressed(out) == b"".join(decompressed(whole).splitlines(True)[:kept])
    assert [p.name for p in tmp_path.iterdir()] == ["g.jsonl.gz"]        # no temporary file
    result = cli(*args)
    assert result.exit_code == 0, result.output
    assert f"after {kept} already in the file" in result.output
    assert decompressed(out) == decompressed(whole)


def test_repair_cuts_a_half_written_last_line_and_leaves_a_sound_file_alone(tmp_path,
                                                                            whole_run):
    whole = whole_run["jsonl"]
    lines = whole.read_bytes().splitlines(keepends=True)
    out = tmp_path / "g.jsonl"
    out.write_bytes(b"".join(lines[:12]) + lines[12][:50])
    result = cli("repair", out)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == f"{out}: kept 12 whole games, dropped 1 damaged line"
    assert out.read_bytes() == b"".join(lines[:12])
    before = out.stat().st_mtime_ns
    result = cli("repair", out)
    assert result.output.strip() == f"{out}: 12 whole games, nothing to repair"
    assert out.stat().st_mtime_ns == before


# ---- 6. one definition of ties -----------------------------------------------------------

def test_selfplay_and_stats_count_a_tie_alike(tmp_path):
    out = tmp_path / "g.jsonl"
    result = cli("selfplay", "--out", out, "--games", 19, "--agents", "random", "--seed", 1,
                 "--no-progress")
    assert result.exit_code == 0, result.output
    games = list(photocore.read_games(out))
    assert games[18]["result"]["winners"] == [0, 1]          # game 18 is a tie
    summary = re.search(r"win rate by seat: +(.*)", result.output).group(1)
    stats = cli("stats", out).output
    rows = re.findall(r"^  ([01]) +[\d.]+ +([\d.]+%)$", stats, re.MULTILINE)
    assert ", ".join(rate for _, rate in rows) == summary
    wins = [sum(1 / len(g["result"]["winners"]) for g in games if seat in g["result"]["winners"])
            for seat in (0, 1)]
    assert summary == ", ".join(f"{w / 19:.1%}" for w in wins)   # the tie split in two


# ---- 8. the smaller things ---------------------------------------------------------------

def test_counts_have_thousands_separators(tmp_path):
    result = cli("selfplay", "--out", tmp_path / "g.jsonl", "--games", 12, *RUN)
    assert re.search(r"^12 games, \d,\d{3} moves in ", result.output, re.MULTILINE), result.output
    result = cli("playouts", "--games", 30)
    assert re.search(r"^30 random games, 2 players, seed 0: \d,\d{3} moves in", result.output)


@pytest.mark.parametrize("command", ["selfplay", "playouts"])
def test_zero_games_are_refused(tmp_path, command):
    out = tmp_path / "never.jsonl"
    result = cli(command, "--games", 0, *(["--out", out] if command == "selfplay" else []))
    assert result.exit_code == 2
    assert "Invalid value for '--games': 0 is not in the range x>=1." in result.output
    assert not out.exists()


def test_what_the_readme_writes_into_the_checkout_is_ignored_by_git():
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    readme = (ROOT / "README.md").read_text()
    written = set(re.findall(r"(?:--out|--npz|--html|--plot) ([\w.]+)", readme))
    written |= set(re.findall(r'(?:write_games|RecordWriter)\("([\w.]+)"', readme))
    assert {"games.jsonl.gz", "out.npz", "game25.html", "golden.png"} <= written
    for name in sorted(written):
        done = subprocess.run(["git", "check-ignore", "-q", name], cwd=ROOT)
        assert done.returncode == 0, f"{name} (written by the README's commands) is not ignored"


def test_the_light_chart_has_a_tick_at_whole_rounds_only():
    plots = pytest.importorskip("photocore.plots", reason="matplotlib is not installed")
    from matplotlib.figure import Figure
    charts = plots.Charts()
    for rec in photocore.read_games(GOLDEN):
        if not rec["options"]["fourth_revolution"]:    # rounds 1 to 18: ticks 2.5, 7.5 ...
            charts.add(rec)
    axes = Figure().subplots()
    charts._light(axes)
    ticks = [t for t in axes.get_xticks() if axes.get_xlim()[0] <= t <= axes.get_xlim()[1]]
    assert len(ticks) >= 4 and all(t == int(t) for t in ticks), ticks


@pytest.mark.parametrize("width", [1200, 1100])
def test_the_replay_page_at_1200_pixels_puts_the_scores_beside_the_board(tmp_path, width):
    # at 1200 the old layout fitted only without a scrollbar: 1100 shows it for sure
    webdriver = pytest.importorskip("selenium.webdriver")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if not (chromium and chromedriver):
        if os.environ.get("CI") == "true":      # CI installs them (.ci/run)
            pytest.fail("chromium and chromedriver are not installed")
        pytest.skip("chromium and chromedriver are not installed")
    page = tmp_path / "game.html"
    assert cli("replay", GOLDEN, "--game", 13, "--html", page).exit_code == 0
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},900"):
        options.add_argument(arg)
    options.binary_location = chromium
    driver = webdriver.Chrome(options=options,
                              service=webdriver.ChromeService(executable_path=chromedriver))
    try:
        driver.get(page.as_uri())
        inner, board, scores = driver.execute_script("""
            const box = (id) => document.getElementById(id).getBoundingClientRect();
            const r = (b) => ({left: b.left, right: b.right, top: b.top, bottom: b.bottom});
            return [window.innerWidth, r(box('board')), r(box('scores'))];""")
    finally:
        driver.quit()
    assert inner <= width
    assert scores["left"] > board["right"] and scores["top"] < board["bottom"], (board, scores)
    assert board["right"] - board["left"] > 400            # the board shrinks a little only


def test_repair_and_resume_of_a_file_without_a_whole_game_leave_it_alone(tmp_path):
    out = tmp_path / "g.jsonl.gz"
    out.write_bytes(gzip.compress(b"")[:10])         # killed before its first game
    result = cli("selfplay", "--out", out, "--games", 3, *RUN, "--resume")
    assert result.exit_code == 1
    assert "It holds no whole game: remove it and run this command without --resume" \
        in one_line_error(result.output)
    result = cli("repair", out)
    assert result.exit_code == 1
    assert "holds no whole game" in one_line_error(result.output)
    assert out.read_bytes() == gzip.compress(b"")[:10]


@pytest.mark.parametrize("option, backend", [(["--address", "10.0.0.1:6379"], "local"),
                                             (["--connect-timeout", "5"], "local"),
                                             (["--workers", "2"], "ray")])
def test_an_option_of_the_other_backend_is_refused_not_ignored(tmp_path, option, backend):
    # --address without --backend ray silently played on this machine
    out = tmp_path / "g.jsonl"
    result = cli("selfplay", "--games", 2, "--backend", backend, *option, "--out", out)
    assert result.exit_code == 2
    assert f"Invalid value for {option[0]}: it is for --backend " in result.output
    assert not out.exists()
