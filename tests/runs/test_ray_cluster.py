"""`photocore selfplay --backend ray --address` against a real cluster, started as a user
starts one: `ray start --head` in a process of its own (not an in-process instance).

Since Ray 2.59 such a head uses token authentication when a token exists on its machine
(~/.ray/auth_token, which any earlier local `ray.init()` leaves), and a client given an
explicit address must be told to send it. The head here gets a HOME of its own holding a
token, as such a machine has; the test stops exactly the processes it started (never
`ray stop`, which stops every Ray process of the machine, other users' included).
CI installs the ray extra, so this runs there. About 40 s on 2 cores.
"""

import os
import pathlib
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

pytest.importorskip("ray")
pytestmark = pytest.mark.slow     # a cluster started and stopped: about 40 s
RAY = pathlib.Path(sys.executable).with_name("ray")     # the ray command beside this Python
RUN = ["--games", "30", "--agents", "greedy,random", "--seed", "3", "--no-progress"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """(address, environment of a client on the head's machine, head's log) of a running
    `ray start --head --block` with 2 CPUs and token authentication."""
    if not RAY.exists():
        pytest.skip(f"no ray command at {RAY}")
    home = tmp_path_factory.mktemp("home")
    (home / ".ray").mkdir()
    (home / ".ray" / "auth_token").write_text(secrets.token_hex(32))
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["HOME"] = str(home)
    # Ray's socket paths must fit in 107 bytes: a short temporary folder
    temp = tempfile.mkdtemp(prefix="rayh", dir="/tmp")
    log_path = home / "head.log"
    port = free_port()
    ports = {option: free_port() for option in (
        "node-manager-port", "object-manager-port", "dashboard-agent-listen-port",
        "dashboard-agent-grpc-port", "runtime-env-agent-port", "metrics-export-port")}
    with open(log_path, "w") as log:
        head = subprocess.Popen(
            [str(RAY), "start", "--head", "--block", f"--port={port}", "--num-cpus=2",
             "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}",
             "--object-store-memory=100000000",      # 100 MB: CI's machine is small
             *[f"--{option}={value}" for option, value in ports.items()]],
            env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while "Ray runtime started" not in log_path.read_text():
            if head.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"ray start --head did not start:\n{log_path.read_text()}")
            time.sleep(0.5)
        yield f"127.0.0.1:{port}", env, log_path.read_text()
    finally:
        _stop(head)
        subprocess.run(["rm", "-rf", temp], check=False)


def _stop(head):
    """Stops `ray start --block` (SIGTERM: it stops the processes it started), then kills
    whatever of its session is left: processes this test started, and only those."""
    head.terminate()
    try:
        head.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    for pid in _session(head.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if head.poll() is None:
        head.wait(timeout=10)


def _session(sid):
    """The processes of session `sid` (Linux /proc)."""
    pids = []
    for entry in pathlib.Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[3]) == sid:
                pids.append(int(entry.name))
    return pids


def photocore_command(*args, env, timeout=120):
    return subprocess.run([sys.executable, "-m", "photocore", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=env)


def test_selfplay_on_a_ray_start_cluster_gives_the_local_games(cluster, tmp_path):
    address, env, log = cluster
    assert "Token authentication is enabled" in log     # the case a plain client failed
    done = photocore_command("selfplay", "--backend", "ray", "--address", address, *RUN,
                             "--out", tmp_path / "ray.jsonl", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "30 games" in done.stdout
    done = photocore_command("selfplay", *RUN, "--workers", 1, "--out",
                             tmp_path / "local.jsonl", env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()


def test_a_client_without_the_clusters_token_is_told_in_one_line(cluster, tmp_path):
    address, env, _ = cluster
    out = tmp_path / "g.jsonl"
    done = photocore_command("selfplay", "--backend", "ray", "--address", address, *RUN,
                             "--out", out, env={**env, "RAY_AUTH_TOKEN": "not-the-token"})
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"Error: the Ray cluster at {address} requires token "
                           "authentication and refused this machine's token"), done.stderr
    assert not out.exists()
