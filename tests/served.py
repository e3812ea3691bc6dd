"""Servers for the tests of `photocore serve`: the app on a free loopback port in a thread
of the test's process, or the real command in a child process (killed and restarted by the
tests of restarts), and a reader of Server-Sent Events."""

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time


@contextlib.contextmanager
def serving(app):
    """The app under uvicorn on a free loopback port, in a thread; its base URL."""
    import uvicorn
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        listener.close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_command(*args, data=None):
    """`photocore serve ARGS` in a child process (its user data folder `data`, when
    given), once it prints its address: (process, base URL without the last slash)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if data is not None:
        env["XDG_DATA_HOME"] = str(data)
    process = subprocess.Popen(
        [sys.executable, "-c", "from photocore.cli.serve import serve; serve()", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = process.stdout.readline()
    if "open http://" not in line:
        process.kill()
        raise AssertionError(f"photocore serve did not start: {line!r} "
                             f"{process.stderr.read()[-2000:]}")
    return process, line.split("open ")[1].split()[0].rstrip("/")


def events(lines, count):
    """The next `count` Server-Sent Events of `lines` (a streamed httpx response's
    iter_lines(), read on where the last call stopped), each a dict: event, id, data
    (parsed JSON), retry (the comments of pings skipped)."""
    found, event = [], {}
    for line in lines:
        if not line:
            if "data" in event:
                event["data"] = json.loads(event["data"])
                found.append(event)
                if len(found) == count:
                    return found
            event = {}
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        event[field] = value.removeprefix(" ")
    return found
