"""`photocore bench`: its report, its checks and its regression check, on tiny workloads."""

import dataclasses
import json
import pathlib

import pytest
from click.testing import CliRunner

from photocore import bench
from photocore.cli import main

ROOT = pathlib.Path(__file__).resolve().parent.parent
TINY = dataclasses.replace(
    bench.QUICK, playout_games=50, playout_reference_games=1, loop_moves=500,
    loop_reference_moves=100, positions=8, perft_depth=4, verify_games=5,
    verify_reference_games=1, vec_steps=5, mcts_positions=2, mcts_simulations=20,
    selfplay_games=20, rounds=1, min_round=0.0)
WITH_REFERENCE = {"playouts/2p", "playouts/2p-f", "playouts/2p-s", "playouts/2p-fs",
                  "playouts/3p", "playouts/4p", "python_loop/2p", "legal_moves", "copy",
                  "play_undo", "light", "perft_bulk", "perft_full_python", "verify",
                  "vec_step", "mcts"}


def invoke(monkeypatch, *args, sizes=TINY):
    monkeypatch.setattr(bench, "QUICK", sizes)
    return CliRunner().invoke(main, ["bench", "--quick", *map(str, args)])


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("bench") / "bench.json"
    with pytest.MonkeyPatch.context() as monkeypatch:
        result = invoke(monkeypatch, "--json", path)
    assert result.exit_code == 0, result.output
    return json.loads(path.read_text()), result.output


def test_every_workload_measured_and_checked(report):
    data, output = report
    assert data["format"] == "photocore-bench" and data["passed"]
    names = [r["name"] for r in data["results"]]
    assert WITH_REFERENCE < set(names)
    assert {"copy_no_history", "selfplay/1_worker", "selfplay/2_workers"} < set(names)
    for result in data["results"]:
        assert result["check"]["passed"], result
        assert result["figures"] and all(rate > 0 for rate in result["figures"].values())
        assert result["workload"] and result["describe"] in output
        if result["name"] in WITH_REFERENCE:
            assert result["ratio"] > 0 and result["reference"]["figures"]
        else:
            assert result["ratio"] is None


def test_report_names_the_machine(report):
    data, output = report
    machine = data["machine"]
    assert machine["build"] in ("native", "portable") and machine["cores"] >= 1
    assert machine["cpu"] and machine["python"] and machine["photocore"]
    assert machine["cpu"] in output and f"({machine['build']} build)" in output
    assert data["reference"].endswith("photoref.py")


def test_check_fails_under_an_impossible_floor(monkeypatch, tmp_path):
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"min_speedup": {"perft_bulk": 1e12}}))
    monkeypatch.setattr(bench, "workloads", lambda sizes: [
        bench.Perft(bench.perft_cases(3), bulk=True,
                    reference_perft=bench.ReferencePerft(bench.perft_cases(3)))])
    result = invoke(monkeypatch, "--check", baseline)
    assert result.exit_code == 1
    assert "perft_bulk: speed-up" in result.output and "under its floor" in result.output


def test_committed_floors_cover_every_speedup(report):
    floors = json.loads((ROOT / "benchmarks" / "baseline.json").read_text())["min_speedup"]
    assert set(floors) == WITH_REFERENCE
    assert bench.check_baseline(report[0], {name: 1 for name in floors}) == []


def test_a_wrong_result_fails(monkeypatch):
    wrong = [case[:5] + (case[5] + 1,) for case in bench.perft_cases(3)]
    monkeypatch.setattr(bench, "workloads", lambda sizes: [bench.Perft(wrong, bulk=True)])
    result = invoke(monkeypatch)
    assert result.exit_code == 1 and "FAILED" in result.output


def test_without_the_reference_figures_only(monkeypatch, tmp_path):
    monkeypatch.setattr(bench, "source_tree", lambda: None)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(bench, "workloads", lambda sizes: [bench.Playouts(2, "-", 20, 1)])
    result = invoke(monkeypatch, "--json", tmp_path / "out.json")
    assert result.exit_code == 0, result.output
    assert "not found" in result.output
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["reference"] is None and data["results"][0]["ratio"] is None
    assert data["results"][0]["check"]["passed"]
    assert invoke(monkeypatch, "--reference", tmp_path).exit_code == 2


def test_perft_lines_are_those_of_seeds():
    seeds = (ROOT / "seeds" / "perft.txt").read_text().splitlines()
    for line in bench.PERFT_LINES:
        assert bench.parse_perft_line(line) in [bench.parse_perft_line(s) for s in seeds
                                                 if s.strip() and not s.startswith("#")]
