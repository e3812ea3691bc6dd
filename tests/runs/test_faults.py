"""Faults during self-play: each stops (or recovers) with a clear message, keeps every
finished game exactly once in whole lines, and `--resume` then finishes the run to the
same file as an uninterrupted one (docs/hardening.md)."""

import errno
import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

import photocore
from faulty_series import FaultySeries, by_value_for_ray, faulty
from photocore import records
from photocore.cli import main
from photocore.run.driver import batches
from photocore.run.selfplay import Series

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RUN = ["--agents", "greedy,random", "--seed", "5", "--no-progress"]


def selfplay(out, *args, env=None):
    return CliRunner().invoke(main, ["selfplay", "--out", str(out), *args], env=env)


def inject(monkeypatch, kind, game):
    """Makes the `selfplay` command play a FaultySeries with this fault."""
    monkeypatch.setattr(sys.modules["photocore.cli.selfplay"], "Series", faulty(kind, game))


def whole_lines(path):
    """The games of a .jsonl(.gz) file after checking it holds whole, valid lines only."""
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gzip.decompress(data)   # raises if the stream is not whole
    assert data == b"" or data.endswith(b"\n"), "a half-written last line"
    games = [json.loads(line) for line in data.splitlines()]
    for rec in games:
        records.check_record(rec)
    assert [rec["metadata"]["game"] for rec in games] == list(range(len(games)))
    return games


def content(path):
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The output of whole runs, to compare resumed ones with: {(games, name): path}."""
    folder = tmp_path_factory.mktemp("whole")
    made = {}

    def whole(games, name="g.jsonl", *extra):
        key = (games, name, extra)
        if key not in made:
            out = folder / f"{len(made)}-{name}"
            result = selfplay(out, "--games", str(games), *RUN, *extra)
            assert result.exit_code == 0, result.output
            made[key] = out
        return made[key]

    return whole


# ---- a worker process killed mid-run ---------------------------------------------------

@pytest.mark.slow
def test_a_killed_worker_stops_the_run_clearly_and_resume_completes_it(tmp_path, monkeypatch,
                                                                       uninterrupted):
    out = tmp_path / "g.jsonl"
    args = ["--games", "24", *RUN, "--workers", "2", "--batch", "2"]
    inject(monkeypatch, "kill-worker", 9)
    result = selfplay(out, *args)
    assert result.exit_code == 1, result.output
    # how it died is told when loky could read it (usually "killed by SIGKILL"); under
    # load it may only know that it died
    assert "a worker process " in result.output, result.output
    assert "BrokenProcessPool" in result.output, result.output
    assert "Traceback" not in result.output
    if out.exists():
        kept = whole_lines(out)
        assert len(kept) <= 8, result.output       # nothing from the dead worker's batch on
        assert f"holds the {len(kept)} games" in result.output and "--resume" in result.output
    else:     # under load the worker can die before any batch is written: no file is left
        assert f"No game was written to it; {out} was removed" in result.output

    monkeypatch.undo()
    result = selfplay(out, *args, "--resume")
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == uninterrupted(24).read_bytes()


@pytest.mark.slow
def test_a_batch_raising_in_a_worker_stops_clearly_and_resume_completes_it(
        tmp_path, monkeypatch, uninterrupted):
    out = tmp_path / "g.jsonl"
    args = ["--games", "24", *RUN, "--workers", "2", "--batch", "2"]
    inject(monkeypatch, "raise", 9)
    result = selfplay(out, *args)
    assert result.exit_code == 1, result.output
    assert ("the batch of games 9..10 failed in its worker (RuntimeError: injected failure"
            in result.output)
    assert "holds the 8 games" in result.output and "Traceback" not in result.output
    assert len(whole_lines(out)) == 8          # every batch before the failing one

    monkeypatch.undo()
    result = selfplay(out, *args, "--resume")
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == uninterrupted(24).read_bytes()


# ---- a Ray task that raises --------------------------------------------------------------

@pytest.mark.slow
def test_a_ray_task_failing_past_its_retries_stops_clearly_keeping_the_games_before(
        ray_instance, tmp_path, monkeypatch, uninterrupted):
    # (a task that fails once is retried and the run goes on: the next test)
    by_value_for_ray(ray_instance)
    out = tmp_path / "g.jsonl"
    args = ["--games", "24", *RUN, "--backend", "ray", "--batch", "4"]
    inject(monkeypatch, "raise", 13)
    result = selfplay(out, *args)
    assert result.exit_code == 1
    assert "the Ray task playing games 13..16 failed 4 times" in result.output
    assert "injected failure" in result.output and "--resume" in result.output
    assert len(whole_lines(out)) == 12         # every batch before the failing one

    monkeypatch.undo()
    result = selfplay(out, *args, "--resume")
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == uninterrupted(24).read_bytes()


STOPPED_WHILE_SENDING = """
import sys, threading, time
sys.path.insert(0, {tests!r})
from faulty_series import FaultySeries
from photocore.run.driver import batches
from photocore.run.plan import RunError

run = batches(FaultySeries({kind!r}, 1, 6, 2, ["random"], seed=1), workers=1, batch=1)
next(run)                   # game 0; the worker now sends game 1's huge batch
time.sleep(0.2)
try:
    if {kind!r} == "huge":
        run.close()         # stopped with half a batch in the result pipe
    else:
        next(run)           # its worker dies with half a batch in the result pipe
except RunError as e:
    print(e)
# the pool's queue feeder may take a moment to see its queue closed; a thread waiting for
# the rest of a message would wait for ever
deadline = time.monotonic() + 10
while threading.active_count() > 1 and time.monotonic() < deadline:
    time.sleep(0.02)
print("stopped, threads left:", threading.active_count() - 1)
"""


@pytest.mark.parametrize("kind", ["huge", "kill-sending"])
@pytest.mark.slow
def test_a_stopped_run_with_half_a_batch_in_the_result_pipe_lets_the_pool_end(kind):
    """A worker stopped, or killed, while it sends its batch leaves half a message in the
    pool's result pipe: the pool must still end at once, and the interpreter exit (a
    thread waiting for the rest of the message once hung it, and the test suite)."""
    script = STOPPED_WHILE_SENDING.format(tests=TESTS, kind=kind)
    begin = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "stopped, threads left: 0" in done.stdout, done.stdout + done.stderr
    if kind == "kill-sending":
        assert "a worker process was killed by SIGKILL (BrokenProcessPool): the run " \
               "stopped before games 2..2" in done.stdout, done.stdout
    assert time.monotonic() - begin < 60
    assert "Traceback" not in done.stderr, done.stderr


@pytest.mark.slow
def test_a_ray_task_failing_once_is_retried_giving_the_same_games(ray_instance, tmp_path):
    by_value_for_ray(ray_instance)
    series = FaultySeries("fail-once", 0, 60, 2, ["greedy", "mcts:10"], seed=6,
                          folder=str(tmp_path))
    local = [line for batch in batches(Series(60, 2, ["greedy", "mcts:10"], seed=6), workers=2)
             for line in batch.result.lines]
    remote = [line for batch in batches(series, backend="ray", batch=8)
              for line in batch.result.lines]
    assert (tmp_path / "failed-0").exists()          # the first attempt did fail
    assert remote == local                           # and no game was lost or repeated
    assert [json.loads(line)["metadata"]["game"] for line in remote] == list(range(60))


# ---- an unwritable output path or a full disk -------------------------------------------

def test_an_unwritable_output_fails_before_any_game_is_played(tmp_path, monkeypatch):
    def no_games(*args, **kwargs):
        raise AssertionError("games were played for an output that cannot be written")

    # the module (photocore.cli.selfplay the attribute is the click command)
    monkeypatch.setattr(sys.modules["photocore.cli.selfplay"], "drive", no_games)
    (tmp_path / "file").write_text("not a folder")
    cases = [(tmp_path / "missing" / "g.jsonl",
              f"the folder {tmp_path / 'missing'} does not exist"),
             (tmp_path / "file" / "g.jsonl", f"{tmp_path / 'file'} is not a folder")]
    if os.geteuid() != 0:                      # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        cases.append((locked / "g.jsonl", f"the folder {locked} is not writable"))
    for out, reason in cases:
        result = selfplay(out, "--games", "10", *RUN)
        assert result.exit_code == 1, result.output
        assert f"cannot write {out}: {reason}" in result.output
        assert "Traceback" not in result.output and not out.exists()
    result = selfplay(tmp_path, "--games", "10", *RUN)          # a folder
    assert result.exit_code == 2 and "is a directory" in result.output


@pytest.mark.parametrize("name", ["g.jsonl", "g.jsonl.gz"])
@pytest.mark.slow
def test_a_full_disk_stops_clearly_with_whole_lines_and_resume_completes_it(
        tmp_path, monkeypatch, uninterrupted, name):
    out = tmp_path / name
    args = ["--games", "20", *RUN, "--workers", "1", "--batch", "2"]
    real_write_all, real_write_lines = records.writer._write_all, records.RecordWriter.write_lines
    full = []

    def write_lines(self, lines):              # the third batch finds the disk full
        if self.count == 4:
            full.append(True)
        return real_write_lines(self, lines)

    def write_all(fd, data, at=None):          # part of it lands, then ENOSPC, as a disk does
        if full:
            full.clear()                       # (space freed by the cut: the rest lands)
            real_write_all(fd, bytes(data)[:len(data) // 2], at)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write_all(fd, data, at)

    monkeypatch.setattr(records.RecordWriter, "write_lines", write_lines)
    monkeypatch.setattr(records.writer, "_write_all", write_all)
    result = selfplay(out, *args)
    assert result.exit_code == 1
    assert f"cannot write {out}: No space left on device" in result.output
    assert "holds the 4 games" in result.output and "--resume" in result.output
    assert len(whole_lines(out)) == 4          # the half-written batch was cut off

    monkeypatch.undo()
    result = selfplay(out, *args, "--resume")
    assert result.exit_code == 0, result.output
    assert content(out) == content(uninterrupted(20, name))
    assert len(list(photocore.read_games(out, verify=True))) == 20


@pytest.fixture
def small_disk(tmp_path):
    """A folder on a 48 KiB tmpfs of its own: a disk that really fills up (mounting one
    needs root, which CI is)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mount = ["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", str(folder)]
    if os.geteuid() != 0 or subprocess.run(mount, capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], check=True)


@pytest.mark.parametrize("name, batch", [("g.jsonl.gz", ["--batch", "10"]),
                                         ("g.jsonl", ["--batch", "10"]),
                                         ("g.jsonl", [])])     # the first batch cannot fit
@pytest.mark.slow
def test_a_really_full_disk_leaves_a_whole_file_that_resume_completes(
        small_disk, uninterrupted, name, batch):
    out = small_disk / name
    args = ["--games", "600", *RUN, "--workers", "1", *batch]
    result = selfplay(out, *args)
    assert result.exit_code == 1, result.output
    assert f"cannot write {out}: No space left on device" in result.output
    kept = re.search(r"holds the ([\d,]+) games finished before", result.output)
    if kept is None:                            # what it says is true: no game in the file
        assert f"No game could be written to it; {out} was removed" in result.output
        assert not out.exists()
    else:                                       # whole, and holding the games it says
        reader = photocore.read_games(out, verify=True, on_error="skip")
        assert len(list(reader)) == int(kept.group(1).replace(",", "")) > 0
        assert reader.errors == [] and len(whole_lines(out)) == reader.games
    # space is found
    subprocess.run(["mount", "-o", "remount,size=8m", str(small_disk)], check=True)
    result = selfplay(out, *args, "--resume" if out.exists() else "--no-progress")
    assert result.exit_code == 0, result.output
    assert content(out) == content(uninterrupted(600, name))


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_writer_on_dev_full_raises_enospc_and_writes_no_more():
    with records.RecordWriter("/dev/full", append=False) as writer:
        with pytest.raises(OSError) as error:
            writer.write(photocore.Game())
        assert error.value.errno == errno.ENOSPC and writer.count == 0
        with pytest.raises(photocore.RecordError, match="an earlier write failed"):
            writer.write(photocore.Game())


@pytest.mark.parametrize("name", ["g.jsonl", "g.jsonl.gz"])
def test_an_exception_in_the_middle_of_a_write_leaves_whole_lines(tmp_path, monkeypatch, name):
    # e.g. a KeyboardInterrupt landing between two writes of one batch
    path = tmp_path / name
    game = photocore.Game()
    calls = []
    real = records.writer._write_all

    def interrupted(fd, data, at=None):
        calls.append(1)
        if len(calls) == 2:
            real(fd, bytes(data)[:10], at)
            raise KeyboardInterrupt
        return real(fd, data, at)

    monkeypatch.setattr(records.writer, "_write_all", interrupted)
    with records.RecordWriter(path, append=False) as writer:
        writer.write(game)
        with pytest.raises(KeyboardInterrupt):
            writer.write_lines([records.record_line(game)] * 3)
    monkeypatch.undo()
    assert content(path) == records.record_line(game)
    assert [r["moves"] for r in photocore.read_games(path)] == [[]]   # whole, gzip included


# ---- Ctrl-C ------------------------------------------------------------------------------

def session_processes(sid):
    """The pids of the live processes of session `sid` (the run, its forkserver, workers)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[3]) == sid and fields[0] != "Z":
                pids.append(int(entry))
    return pids


def stat_fields(pid):
    """The fields of /proc/PID/stat after the command's name (state first), or None once
    there is no such process."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2:].split()


def children(parent):
    """{pid: its start time} of the processes whose parent is `parent`."""
    found = {}
    for entry in os.listdir("/proc"):
        fields = stat_fields(entry) if entry.isdigit() else None
        if fields is not None and int(fields[1]) == parent:
            found[int(entry)] = fields[19]
    return found


def alive(pid, started):
    """Whether process `pid`, started at `started` (not a later one of that pid), still
    runs (a zombie waiting for its new parent to reap it does not)."""
    fields = stat_fields(pid)
    return fields is not None and fields[0] != "Z" and fields[19] == started


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to find the workers")
@pytest.mark.slow
def test_the_workers_and_their_helpers_end_when_the_run_is_killed(tmp_path):
    # kill -9 (or the out-of-memory killer) leaves the pool nobody to stop it: its workers
    # must see their parent die and end, and loky's resource trackers with them
    command = [sys.executable, "-m", "photocore", "selfplay", "--out", str(tmp_path / "g.jsonl"),
               "--games", "100000", "--agents", "mcts:50", "--workers", "2", "--no-progress"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    helpers = {}
    try:
        deadline = time.monotonic() + 60
        while sum("loky" in cmdline(pid) and "resource_tracker" not in cmdline(pid)
                  for pid in helpers) < 2:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no workers started in a minute"
            time.sleep(0.1)
            helpers = children(proc.pid)
        helpers = children(proc.pid)      # the resource trackers too
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 30
        while any(alive(pid, started) for pid, started in helpers.items()):
            if time.monotonic() > deadline:
                left = [cmdline(pid) for pid, started in helpers.items() if alive(pid, started)]
                pytest.fail(f"still running 30 s after their parent was killed: {left}")
            time.sleep(0.2)
    finally:
        for pid, started in helpers.items():
            if alive(pid, started):
                os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to find the workers")
@pytest.mark.parametrize("target", ["process", "group"])
@pytest.mark.slow
def test_ctrl_c_stops_promptly_keeps_whole_games_and_resume_completes_it(tmp_path, target,
                                                                          uninterrupted):
    # "process": SIGINT to the command only; "group": to its whole process group, workers
    # included, as a terminal's Ctrl-C does
    out = tmp_path / "g.jsonl"
    args = ["--games", "12", "--agents", "mcts:1500", "--seed", "3", "--no-progress",
            "--workers", "2", "--batch", "1"]
    command = [sys.executable, "-m", "photocore", "selfplay", "--out", str(out), *args]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (out.exists() and out.read_bytes().count(b"\n") >= 1):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no game was written in 2 minutes"
            time.sleep(0.05)
        helpers = [pid for pid in session_processes(proc.pid) if pid != proc.pid]
        assert helpers, "no worker processes seen"
        if target == "group":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        stdout, stderr = proc.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    stderr = stderr.decode()
    assert proc.returncode == 130, stderr
    assert took < 10, f"took {took:.1f} s to stop"
    assert "interrupted" in stderr and "--resume" in stderr and "Traceback" not in stderr
    kept = whole_lines(out)
    assert 1 <= len(kept) < 12
    deadline = time.monotonic() + 15            # the forkserver and the workers are gone
    while session_processes(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert session_processes(proc.pid) == []

    result = selfplay(out, *args, "--resume")
    assert result.exit_code == 0, result.output
    assert f"after {len(kept)} already in the file" in result.output
    whole = uninterrupted(12, "g.jsonl", "--agents", "mcts:1500", "--seed", "3", "--workers",
                          "2")
    assert out.read_bytes() == whole.read_bytes()
