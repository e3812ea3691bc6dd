"""photocore selfplay: records out, the same games for any workers, batches or backend;
--resume and what it refuses; photocore repair of a damaged file; Ray connection failures;
ties. (Faults during a run: tests/runs/test_faults.py.)"""

import gzip
import json
import re
import shutil
import socket
import subprocess
import sys

import pytest
from click.testing import CliRunner

import photocore
from photocore.cli import main
from photocore.run.driver import batches
from photocore.run.selfplay import Series

RUN = ["--agents", "greedy,random", "--seed", "1", "--no-progress"]


def selfplay(tmp_path, name, *args):
    out = tmp_path / name
    result = CliRunner().invoke(main, ["selfplay", "--out", str(out), "--no-progress", *args])
    return result, out


@pytest.mark.slow
def test_selfplay_writes_verified_records_with_a_summary(tmp_path):
    result, out = selfplay(tmp_path, "g.jsonl", "--games", "12", "--players", "3",
                           "--agents", "greedy,random,mcts:20", "--seed", "4", "--shade-blocks")
    assert result.exit_code == 0, result.output
    assert "12 games" in result.output and "win rate by agent:" in result.output
    records = list(photocore.read_games(out, verify=True))
    assert [r["metadata"]["game"] for r in records] == list(range(12))
    assert all(r["options"]["shade_blocks"] and r["players"] == 3 for r in records)
    # agents rotate over the seats, one seat each per game
    assert records[0]["metadata"]["agents"] == ["greedy", "random", "mcts:20"]
    assert records[1]["metadata"]["agents"] == ["mcts:20", "greedy", "random"]


@pytest.mark.slow
def test_same_seed_same_bytes_whatever_the_workers_and_batches(tmp_path):
    args = ["--games", "40", "--agents", "greedy,random", "--seed", "9"]
    _, one = selfplay(tmp_path, "one.jsonl", *args, "--workers", "1")
    _, two = selfplay(tmp_path, "two.jsonl", *args, "--workers", "2", "--batch", "3")
    _, other = selfplay(tmp_path, "other.jsonl", "--games", "40", "--agents", "greedy,random",
                        "--seed", "10")
    assert one.read_bytes() == two.read_bytes()
    assert one.read_bytes() != other.read_bytes()


@pytest.mark.slow
def test_resume_finishes_an_interrupted_run_to_the_same_file(tmp_path):
    args = ["--games", "25", "--agents", "random", "--seed", "2"]
    _, whole = selfplay(tmp_path, "whole.jsonl", *args)
    lines = whole.read_bytes().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:11]) + lines[11][:40])      # killed mid-line
    result, _ = selfplay(tmp_path, "cut.jsonl", *args, "--resume")
    assert result.exit_code == 0, result.output
    assert "photocore selfplay: " in result.output and "truncated last line" in result.output
    assert "after 11 already in the file" in result.output
    assert cut.read_bytes() == whole.read_bytes()


@pytest.mark.slow
def test_resume_refuses_another_run_and_plain_runs_refuse_to_overwrite(tmp_path):
    _, out = selfplay(tmp_path, "g.jsonl", "--games", "5", "--seed", "1")
    result, _ = selfplay(tmp_path, "g.jsonl", "--games", "5", "--seed", "2", "--resume")
    assert result.exit_code != 0 and "cannot resume" in result.output
    result, _ = selfplay(tmp_path, "g.jsonl", "--games", "5", "--seed", "1")
    assert result.exit_code != 0 and "exists" in result.output


def test_bad_agents_are_refused(tmp_path):
    for agents, reason in [("alphazero", "unknown agent"), ("greedy:5", "only mcts"),
                           ("random,random,random", "need 1 or 2 agents")]:
        result, out = selfplay(tmp_path, "g.jsonl", "--agents", agents)
        assert result.exit_code == 2 and reason in result.output
        assert not out.exists()


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


@pytest.mark.slow
def test_the_rules_are_options_of_a_series_and_of_the_command(tmp_path):
    series = Series(4, agents=["greedy"], seed=2, options="fs")
    recs = [json.loads(line) for batch in batches(series, workers=0) for line in batch.result.lines]
    assert all(rec["options"] == {"fourth_revolution": True, "shade_blocks": True}
               for rec in recs)
    by_flags, by_text = tmp_path / "flags.jsonl", tmp_path / "text.jsonl"
    assert cli("selfplay", "--out", by_flags, "--games", 4, "--agents", "greedy", "--seed", 2,
               "--fourth-revolution", "--shade-blocks", "--no-progress").exit_code == 0
    assert cli("selfplay", "--out", by_text, "--games", 4, "--agents", "greedy", "--seed", 2,
               "--options", "fs", "--no-progress").exit_code == 0
    assert by_flags.read_bytes() == by_text.read_bytes() == b"".join(series.batch(0, 4).lines)
    with pytest.raises(TypeError, match="shade_blocks"):
        Series(4, shade_blocks=True)                # a flag per rule: never released


def test_the_default_batch_follows_the_agents_registry():
    from photocore.run.driver import default_batch
    assert default_batch(Series(100_000, agents=["random"]), 100_000, 2) == 512
    assert default_batch(Series(100_000, agents=["greedy"]), 100_000, 2) == 512
    assert default_batch(Series(100_000, agents=["mcts:5", "random"]), 100_000, 2) == 4


# ---- --resume compares everything that defines the run ------------------------------------

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
     "has agents mcts:5,greedy by seat, game 1 of this run has agents greedy,random by seat "
     "(set by --agents)"),
    (["--agents", "greedy,mcts:5", "--seed", "1"], "game 1 of this run has agents "
                                                   "greedy,mcts:5 by seat (set by --agents)"),
    (["--agents", "mcts:6,greedy", "--seed", "1"], "has agents mcts:6,greedy by seat"),
    (["--agents", "mcts:5,greedy", "--seed", "2"],
     "has seed 1, game 1 of this run has seed 2 (set by --seed)"),
    (["--agents", "mcts:5,greedy,random", "--seed", "1", "--players", "3"],
     "has players 2, game 1 of this run has players 3 (set by --players)"),
    ([*THIS_RUN, "--shade-blocks"], "has options none, game 1 of this run has options shade "
                                    "blocks (set by --fourth-revolution / --shade-blocks)"),
    ([*THIS_RUN, "--options", "f"], "has options none, game 1 of this run has options fourth "
                                    "revolution (set by --fourth-revolution / --shade-blocks)"),
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
    # games numbered from 1 as lines are, metadata.game the index
    assert result.exit_code == 1 and ("line 2 has game index 2, game 2 of this run has game "
                                      "index 1") in result.output \
        and "order of the games" in result.output
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


# ---- photocore repair: the whole games of a damaged file ------------------------------------

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


@pytest.mark.slow
def test_resume_of_a_killed_gzip_run_cuts_its_unfinished_write_and_finishes_it(
        tmp_path, whole_run):
    whole = whole_run["jsonl.gz"]
    out = tmp_path / "g.jsonl.gz"
    out.write_bytes(whole.read_bytes()[:len(whole.read_bytes()) * 6 // 10])   # SIGKILLed
    # repair keeps every whole game it can read
    copy = tmp_path / "copy.jsonl.gz"
    shutil.copy(out, copy)
    result = cli("repair", copy)
    assert result.exit_code == 0, result.output
    kept = int(re.search(r"kept (\d+) whole games, dropped the damaged end of the compressed "
                         r"stream$", result.output.strip()).group(1))
    assert 10 < kept < 30 and "dropped " in result.output.splitlines()[0]
    assert decompressed(copy) == b"".join(decompressed(whole).splitlines(True)[:kept])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.jsonl.gz", "g.jsonl.gz"]
    # --resume cuts the unfinished write off itself, as a .jsonl's cut line, and finishes
    result = cli("selfplay", "--out", out, "--games", 30, *RUN, "--resume")
    assert result.exit_code == 0, result.output
    assert "photocore selfplay: " in result.output and "cut off the last" in result.output
    resumed_after = int(re.search(r"after (\d+) already in the file", result.output).group(1))
    assert 10 < resumed_after <= kept
    assert decompressed(out) == decompressed(whole)
    assert list(photocore.read_games(out, verify=True)) == list(photocore.read_games(whole))


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


@pytest.mark.slow
def test_repair_leaves_a_file_without_a_whole_game_alone_and_resume_starts_it_over(tmp_path):
    out = tmp_path / "g.jsonl.gz"
    out.write_bytes(gzip.compress(b"")[:10])         # killed before its first game
    result = cli("repair", out)
    assert result.exit_code == 1
    assert "holds no whole game" in one_line_error(result.output)
    assert out.read_bytes() == gzip.compress(b"")[:10]
    result = cli("selfplay", "--out", out, "--games", 3, *RUN, "--resume")
    assert result.exit_code == 0, result.output
    assert "cut off the last 10 bytes" in result.output and "3 games" in result.output
    assert len(list(photocore.read_games(out, verify=True))) == 3


# ---- the Ray backend: a connection failure is one line, in bounded time, with no file -----

def test_the_ray_backend_without_ray_gives_the_extra_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)        # as if not installed
    out = tmp_path / "g.jsonl"
    result = cli("selfplay", "--backend", "ray", "--games", 2, "--out", out)
    assert result.exit_code == 1, result.output
    line = one_line_error(result.output)
    assert line.startswith("Error: --backend ray needs ray (")
    assert line.endswith("pip install 'photocore[ray]'")
    assert not out.exists()


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.parametrize("seconds, words", [("inf", "is not in the range 1<=x<=86400"),
                                            ("1e308", "is not in the range 1<=x<=86400"),
                                            ("nan", "not a finite number")])
def test_a_connect_timeout_is_a_finite_number_of_seconds(tmp_path, seconds, words):
    result = cli("selfplay", "--games", 2, "--backend", "ray", "--connect-timeout", seconds,
                 "--out", tmp_path / "g.jsonl")
    assert result.exit_code == 2
    assert "--connect-timeout" in result.output and words in result.output


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


# ---- one definition of ties -----------------------------------------------------------------

@pytest.mark.slow
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


def test_a_resumed_run_summarises_the_whole_file_as_an_uninterrupted_one(tmp_path):
    def rates(output):
        return [line for line in output.splitlines()
                if line.startswith(("mean score by seat", "win rate by"))]

    whole = cli("selfplay", "--games", 40, "--out", tmp_path / "whole.jsonl", *RUN)
    cli("selfplay", "--games", 25, "--out", tmp_path / "part.jsonl", *RUN)
    resumed = cli("selfplay", "--games", 40, "--out", tmp_path / "part.jsonl", *RUN, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert (tmp_path / "part.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
    assert "15 games (after 25 already in the file)" in resumed.output
    assert "the whole file, 40 games:" in resumed.output
    assert len(rates(whole.output)) == 3 and rates(resumed.output) == rates(whole.output)


NAMED = '''
class Named:
    name = "Firsty"

    def select(self, game):
        return game.legal_moves()[0]


class NamedLater:
    def __init__(self, tag="x"):
        self.name = f"Later-{tag}"

    def select(self, game):
        return game.legal_moves()[-1]
'''


def test_python_agents_are_labelled_by_the_name_they_declare(tmp_path):
    (tmp_path / "named.py").write_text(NAMED)
    module = tmp_path / "named.py"
    first, later = f"py:{module}:Named", f"py:{module}:NamedLater?tag=b"
    out = tmp_path / "g.jsonl"
    result = cli("selfplay", "--games", 4, "--agents", f"{first},{later}", "--workers", 1,
                 "--out", out, "--no-progress")
    assert result.exit_code == 0, result.output
    assert re.search(r"win rate by agent:  Firsty [\d.]+%, Later-b [\d.]+%", result.output)
    seats = [json.loads(line)["metadata"]["agents"] for line in out.read_text().splitlines()]
    assert seats == [["Firsty", "Later-b"], ["Later-b", "Firsty"]] * 2
    result = cli("match", "--agents", f"{first},random", "--games", 2, "--workers", 1,
                 "--no-progress")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Firsty vs random: 2 games")
