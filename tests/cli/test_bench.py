"""`photocore bench` (photocore.run.speed, timed by pyperf) and the registry of
benchmarks/bench.py: their reports, their checks, the baselines and the regression check,
on tiny workloads."""

import json
import pathlib
import sys

import pytest
from click.testing import CliRunner

from photocore import facts
from photocore.cli import main
from photocore.facts import Options
from photocore.run import speed

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench  # noqa: E402  (benchmarks/bench.py, found through the path above)
import engine  # noqa: E402  (benchmarks/engine.py)
import players  # noqa: E402  (benchmarks/players.py)
import record_files  # noqa: E402  (benchmarks/record_files.py)

SHIPPED = ["playouts/2p", "playouts/3p", "playouts/4p", "playouts/2p-fs", "perft_bulk",
           "verify", "vec_step", "mcts", "selfplay/1_worker", "selfplay/2_workers"]
TINY_WITH_REFERENCE = bench.Sizes(
    playout_games=50, loop_moves=500, positions=8, perft_depth=4, verify_games=5,
    vec_steps=5, mcts_positions=2, mcts_simulations=20, uct_positions=2,
    uct_simulations=20, selfplay_games=20,
    playout_reference_games=1, loop_reference_moves=100, verify_reference_games=1,
    values=1, min_time=0.001, quick=True)
WITH_REFERENCE = {"playouts/2p", "playouts/2p-f", "playouts/2p-s", "playouts/2p-fs",
                  "playouts/3p", "playouts/4p", "python_loop/2p", "legal_moves", "copy",
                  "play_undo", "light", "perft_bulk", "perft_full_python", "verify",
                  "vec_step", "mcts", "own_uct"}


def tiny_workloads(quick):
    """Each kind of workload of `photocore bench`, tiny."""
    return [speed.Playouts(2, Options(), 50), speed.Playouts(2, Options.parse("fs"), 50),
            speed.Perft(speed.perft_cases(3)), speed.Verify(5), speed.VecStep(5, games=16),
            speed.Mcts(2, simulations=20), speed.SelfPlay(20, workers=2)]


def invoke(monkeypatch, *args, works=tiny_workloads):
    monkeypatch.setattr(speed, "workloads", works)
    return CliRunner().invoke(main, ["bench", "--quick", *map(str, args)])


def invoke_reference(monkeypatch, *args, sizes=TINY_WITH_REFERENCE):
    monkeypatch.setattr(bench, "QUICK", sizes)
    return CliRunner().invoke(bench.main, ["--quick", *map(str, args)])


def report_of(tmp_path_factory, run, option):
    """The JSON report and output of a run (of `photocore bench` or benchmarks/bench.py),
    written to the file its `option` names."""
    path = tmp_path_factory.mktemp("bench") / "bench.json"
    with pytest.MonkeyPatch.context() as monkeypatch:
        result = run(monkeypatch, option, path)
    assert result.exit_code == 0, result.output
    return json.loads(path.read_text()), result.output


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return report_of(tmp_path_factory, invoke, "--summary")


@pytest.fixture(scope="module")
def reference_report(tmp_path_factory):
    return report_of(tmp_path_factory, invoke_reference, "--json")


# ---- photocore bench ---------------------------------------------------------------------

def test_the_shipped_workloads():
    for quick in (True, False):
        assert [w.name for w in speed.workloads(quick)] == SHIPPED
    assert "20,000 games" in next(iter(speed.workloads())).describe


@pytest.mark.slow
def test_every_workload_measured_and_checked(report):
    data, output = report
    assert data["format"] == "photocore-bench" and data["timer"] == "pyperf"
    assert data["passed"]
    assert [r["name"] for r in data["results"]] == [
        "playouts/2p", "playouts/2p-fs", "perft_bulk", "verify", "vec_step", "mcts",
        "selfplay/2_workers"]
    for result in data["results"]:
        assert result["check"]["passed"] and result["check"]["detail"], result
        assert result["figures"] and all(rate > 0 for rate in result["figures"].values())
        assert result["seconds"] > 0 and result["describe"] in output
        assert "reference" not in result   # the source tree's benchmarks/ compare
    assert "replayed move by move through Game.play" in data["results"][0]["check"]["detail"]


@pytest.mark.slow
def test_report_names_the_machine(report):
    data, output = report
    machine = data["machine"]
    assert machine["build"] in ("native", "portable") and machine["cores"] >= 1
    assert machine["cpu"] and machine["python"] and machine["photocore"]
    assert machine["cpu"] in output and f"({machine['build']} build)" in output
    # which kernel ran, and the playouts' lanes (facts.LANES, LANE_COPY)
    assert (machine["code_path"], machine["lanes"], machine["lane_copy"]) == (
        facts.CODE_PATH, facts.LANES, facts.LANE_COPY)
    lanes = f"{facts.LANES} lane{'s' * (facts.LANES > 1)} ({facts.LANE_COPY})"
    assert f"kernel: {facts.CODE_PATH}, random playouts in {lanes}" in output


def test_a_wrong_result_fails(monkeypatch):
    class Miscounted(speed.Perft):
        def run(self):
            return [count + 1 for count in super().run()]

    result = invoke(monkeypatch, works=lambda quick: [Miscounted(speed.perft_cases(3))])
    assert result.exit_code == 1
    assert "FAILED perft_bulk: wrong result" in result.output


def test_perft_checks_each_count_another_way():
    workload = speed.Perft(speed.perft_cases(3, count=2))
    value = workload.run()
    assert "leaves" in workload.check(value)[1]
    with pytest.raises(speed.CheckFailed):
        workload.check([value[0] - 1, *value[1:]])


def test_playouts_check_replays_the_games():
    workload = speed.Playouts(3, Options.parse("s"), 30)
    moves, scores, wins = workload.run()
    amounts, _ = workload.check((moves, scores, wins))
    assert amounts == {"moves": moves, "games": 30}
    with pytest.raises(speed.CheckFailed, match="replayed"):
        workload.check((moves, scores, (wins[0] + 1, *wins[1:])))


def test_pyperf_times_each_call_and_keeps_its_values():
    calls = []

    def call():
        calls.append(1)
        return len(calls)

    for timer in (speed.pyperf_timer(values=2, min_time=0.001), speed.pyperf_timer(1, loops=1)):
        calls.clear()
        seconds, first, last = timer("count", call)   # a second Runner in the process too
        assert seconds > 0 and first == 1 and last == len(calls)
    assert len(calls) == 1   # loops=1, one value: the call made once


# ---- benchmarks/bench.py: the reference and the floors -------------------------------------

@pytest.mark.slow
def test_every_speedup_measured_against_the_reference(reference_report):
    data, output = reference_report
    assert data["passed"] and data["reference"].endswith("photoref.py")
    assert f"reference: {data['reference']}" in output
    for result in data["results"]:
        assert result["check"]["passed"], result
        if result["name"] in WITH_REFERENCE:
            assert result["ratio"] > 0 and result["reference"]["figures"]
            assert result["reference"]["describe"] in result["check"]["detail"]
        else:
            assert result["ratio"] is None


@pytest.mark.slow
def test_committed_floors_cover_every_speedup(reference_report):
    floors = json.loads(bench.BASELINE.read_text())["min_speedup"]
    assert set(floors) == WITH_REFERENCE
    assert bench.check_baseline(reference_report[0], {name: 1 for name in floors}) == []


def test_check_fails_under_an_impossible_floor(monkeypatch, tmp_path):
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"min_speedup": {"perft_bulk": 1e12}}))
    cases = engine.perft_cases(3)
    monkeypatch.setattr(bench, "workloads", lambda sizes, everything: [
        engine.Perft(cases, bulk=True, reference_perft=engine.ReferencePerft(cases))])
    result = invoke_reference(monkeypatch, "--check", baseline)
    assert result.exit_code == 1
    assert "perft_bulk: speed-up" in result.output and "under its floor" in result.output


def test_perft_counts_are_those_of_seeds(monkeypatch):
    cases = engine.perft_cases(3)
    assert [name for name, *_ in cases] == list(engine.PERFT_POSITIONS)
    wrong = [case[:3] + (case[3] + 1,) for case in cases]
    monkeypatch.setattr(bench, "workloads",
                        lambda sizes, everything: [engine.Perft(wrong, bulk=True)])
    result = invoke_reference(monkeypatch)
    assert result.exit_code == 1 and "seeds/perft.txt has" in result.output


def test_a_wrong_reference_result_fails(monkeypatch):
    # photoref at the start of each game, photocore mid-game: they list other moves
    monkeypatch.setattr(engine, "reference_game",
                        lambda game: engine.photoref.ReferenceGame(game.players))
    monkeypatch.setattr(bench, "workloads", lambda sizes, everything: [engine.LegalMoves(4)])
    result = invoke_reference(monkeypatch)
    assert result.exit_code == 1 and "photoref lists other moves" in result.output


# ---- the registry: names, --workload, the other workloads' baselines --------------------

def test_every_workload_named_once():
    for sizes in (bench.QUICK, bench.FULL):
        names = [w.name for w in bench.workloads(sizes)]
        assert len(names) == len(set(names)), names
        quick = [w.name for w in bench.workloads(sizes, everything=False)]
        assert set(quick) >= WITH_REFERENCE and set(quick) <= set(names)
    # photocore bench's workloads are the registry's first ones, by the same names
    assert set(SHIPPED) <= {w.name for w in bench.workloads(bench.QUICK, everything=False)}


def test_workload_patterns_choose_by_name():
    works = speed.workloads(quick=True)
    assert [w.name for w in speed.chosen(works, ["playouts/*", "mcts"])] == [
        "playouts/2p", "playouts/3p", "playouts/4p", "playouts/2p-fs", "mcts"]
    assert speed.chosen(works, []) == list(works)
    with pytest.raises(ValueError, match="no workload matches 'nope'"):
        speed.chosen(works, ["nope"])


def test_photocore_bench_runs_the_chosen_workloads(monkeypatch):
    result = invoke(monkeypatch, "--workload", "perft_*")
    assert result.exit_code == 0, result.output
    assert "perft_bulk" in result.output and "playouts/2p" not in result.output
    result = invoke(monkeypatch, "--workload", "nope")
    assert result.exit_code == 2 and "no workload matches 'nope'" in result.output


def test_list_names_the_registry(monkeypatch):
    monkeypatch.setattr(bench, "QUICK", TINY_WITH_REFERENCE)
    result = CliRunner().invoke(bench.main, ["--quick", "--list"])
    assert result.exit_code == 0 and "own_uct" in result.output
    assert "gym_vector" not in result.output     # --quick: CI's set alone
    result = CliRunner().invoke(bench.main, ["--quick", "--list", "--workload", "gym_*"])
    assert result.exit_code == 0 and "gym_vector/256" in result.output


def test_a_missing_framework_is_skipped(monkeypatch):
    class Missing(speed.Perft):
        def missing(self):
            return "needs nothing-such"

    monkeypatch.setattr(bench, "workloads", lambda sizes, everything: [
        Missing(speed.perft_cases(3))])
    result = invoke_reference(monkeypatch)
    assert result.exit_code == 0 and "skipped: needs nothing-such" in result.output


@pytest.mark.slow
def test_other_workloads_beside_their_baselines(monkeypatch, tmp_path):
    corpus = record_files.Corpus(6)
    works = [record_files.Write(corpus, ".jsonl.gz"), record_files.Verify(corpus, ".jsonl"),
             players.PythonAgentMatch(2)]
    monkeypatch.setattr(bench, "workloads", lambda sizes, everything: works)
    result = invoke_reference(monkeypatch, "--json", tmp_path / "out.json")
    assert result.exit_code == 0, result.output
    data = {r["name"]: r for r in json.loads((tmp_path / "out.json").read_text())["results"]}
    assert set(data) == {"write/jsonl.gz", "verify/jsonl", "match/python_agent"}
    assert all(r["check"]["passed"] and r["figures"] for r in data.values())
    assert data["match/python_agent"]["ratio"] > 0
    assert "bytes per move" in data["write/jsonl.gz"]["check"]["detail"]
