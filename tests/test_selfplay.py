"""photocore selfplay: records out, the same games for any workers, batches or backend
(a failing Ray task: tests/test_faults.py)."""

import pytest
from click.testing import CliRunner

import photocore
from photocore.cli import main


def selfplay(tmp_path, name, *args):
    out = tmp_path / name
    result = CliRunner().invoke(main, ["selfplay", "--out", str(out), "--no-progress", *args])
    return result, out


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


def test_same_seed_same_bytes_whatever_the_workers_and_batches(tmp_path):
    args = ["--games", "40", "--agents", "greedy,random", "--seed", "9"]
    _, one = selfplay(tmp_path, "one.jsonl", *args, "--workers", "1")
    _, two = selfplay(tmp_path, "two.jsonl", *args, "--workers", "2", "--batch", "3")
    _, other = selfplay(tmp_path, "other.jsonl", "--games", "40", "--agents", "greedy,random",
                        "--seed", "10")
    assert one.read_bytes() == two.read_bytes()
    assert one.read_bytes() != other.read_bytes()


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
