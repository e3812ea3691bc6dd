"""Budgets and seeds (docs/hardening.md, "Budgets and seeds"): a run's memory does not grow
with its games; a bool is never an action id."""

import os
import signal
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import pytest

from photocore import Game, Move
from photocore.play.player import Forfeit, as_move

# ---- plans are lazy --------------------------------------------------------------------------

def test_a_plan_of_many_games_makes_its_batches_as_they_are_played():
    from photocore.run.driver import Schedule, play
    from photocore.run.selfplay import Series
    schedule = Schedule(10**12, 512, skip=3)
    assert len(schedule) == -(-(10**12 - 3) // 512) and schedule[0] == (3, 512)
    assert schedule[-1] == (10**12 - 1 - (10**12 - 4) % 512, (10**12 - 4) % 512 + 1)
    tracemalloc.start()
    try:
        with tracemalloc_peak() as peak:
            batches = play(Series(2_000_000, agents=["random"]), workers=0, batch=1)
            first = next(batches)
            batches.close()
    finally:
        tracemalloc.stop()
    assert first.start == 0 and len(first.result.lines) == 1
    assert peak() < 4 << 20, f"{peak():,} bytes for the first batch of 2,000,000"


class tracemalloc_peak:
    def __enter__(self):
        tracemalloc.reset_peak()
        return lambda: self.peak

    def __exit__(self, *exc):
        self.peak = tracemalloc.get_traced_memory()[1]


def _rss(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) << 10 for line in f if line.startswith("VmRSS:"))


@pytest.mark.parametrize("command", ["selfplay", "match"])
def test_a_huge_games_count_plays_at_once_in_flat_memory(tmp_path, command):
    """--games 10**12: the first games come out while the command's memory stays small
    (a list of every batch grew past 2 GB before any game). Stopped by Ctrl-C."""
    if not os.path.exists(f"/proc/{os.getpid()}/status"):
        pytest.skip("no /proc to read a process's memory")
    out = tmp_path / "g.jsonl"
    args = (["selfplay", "--games", 10**12, "--agents", "greedy"] if command == "selfplay"
            else ["match", "random", "greedy", "--games", 10**12])
    process = subprocess.Popen([sys.executable, "-m", "photocore", *map(str, args),
                                "--workers", "1", "--no-progress", "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    limit = 600 << 20
    try:
        start, most = time.monotonic(), 0
        while time.monotonic() - start < 60:
            most = max(most, _rss(process.pid))
            assert most < limit, f"{most:,} bytes before {out.name} held 4 games"
            if out.exists() and out.read_bytes().count(b"\n") >= 4:
                break
            assert process.poll() is None, process.communicate()
            time.sleep(0.1)
        else:
            pytest.fail(f"no 4 games in {out.name} within 60 s")
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and "interrupted" in err, err


# ---- a bool is not an action id --------------------------------------------------------------

@pytest.mark.parametrize("flag", [True, False, np.bool_(True), np.bool_(False)])
def test_a_bool_is_never_an_action_id(flag):
    game = Game()
    with pytest.raises(TypeError):
        Move(flag)
    with pytest.raises(TypeError):
        game.play(flag)
    assert game.history == [] and not game.is_legal(flag) and flag not in game.legal_moves()
    with pytest.raises(Forfeit, match="not a Move, an action id"):
        as_move(flag)
    from photocore.play.session import BadRequest, start
    with pytest.raises(BadRequest, match="moves\\[0\\]"):
        start(moves=[flag])


@pytest.mark.parametrize("flag", [True, np.bool_(True)])
def test_the_environments_refuse_a_bool_action(flag):
    pytest.importorskip("gymnasium")
    from photocore.env.gym import PhotosynthesisEnv
    env = PhotosynthesisEnv(opponents="random")
    env.reset(seed=1)
    with pytest.raises(TypeError, match="not a bool"):
        env.step(flag)
    pytest.importorskip("pettingzoo")
    from photocore.env.pettingzoo import raw_env
    aec = raw_env()
    aec.reset(seed=1)
    with pytest.raises(TypeError, match="not a bool"):
        aec.step(flag)
    assert aec.game.history == []
