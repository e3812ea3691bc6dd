"""Runs on a Ray cluster: batches of games as Ray tasks, streamed back in game order.

A failed task is retried (Ray's max_retries / retry_exceptions); since game i depends only
on (seed, i), a retried batch gives the very same games, so none is lost or duplicated.
Install with `pip install photocore[ray]`.

Connecting (connect) is bounded in time and fails in one sentence: a TCP check of the
address first (refused or unreachable: at once), then a probe process that connects as
the run will, killed after `timeout` seconds (30 by default), since a Ray client that
reaches no cluster retries for minutes and ignores SIGTERM. Clusters started by
`ray start --head` since Ray 2.59 use token authentication when a token exists on the head
machine (~/.ray/auth_token, left by any earlier local `ray.init()`), but a client given an
explicit address turns it on only when told (RAY_AUTH_MODE=token): connect tells it so
whenever a token is available here, as `ray start` and Ray's own address discovery do.
"""

import contextlib
import importlib.util
import logging
import os
import re
import socket
import subprocess
import sys
import urllib.parse
from collections.abc import Generator, Sequence
from typing import Any

from photocore.run.plan import P, Plan, RunError

__all__ = [
    "CONNECT_TIMEOUT", "MAX_CONNECT_TIMEOUT", "RayConnectError", "connect", "cpus", "run_ray"
]

CONNECT_TIMEOUT = 30.0     # seconds for a cluster to answer; a healthy one takes ~2
MAX_CONNECT_TIMEOUT = 86_400.0     # a day: more overflows the probe's wait

# the probe: connect as the run will, then leave
_PROBE = ("import sys, ray; ray.init(address=sys.argv[1], include_dashboard=False, "
          "log_to_driver=False, logging_level='ERROR'); ray.shutdown()")


class RayConnectError(ConnectionError):
    """No Ray cluster could be used at the address: the message says why, in one line."""


def connect(address: str | None = None, timeout: float = CONNECT_TIMEOUT) -> None:
    """Connects this process to Ray, unless it already is: to the cluster at `address`
    (or the one RAY_ADDRESS names), or, without one, to a new local instance on this
    machine's cores. RayConnectError (one line, within about `timeout` seconds) if the
    cluster cannot be reached or refuses this client; `timeout` is a number of seconds
    above 0, a day at most (ValueError otherwise)."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) \
            or not 0 < timeout <= MAX_CONNECT_TIMEOUT:
        raise ValueError(f"timeout must be a number of seconds above 0 and at most "
                         f"{MAX_CONNECT_TIMEOUT:,.0f} (a day), got {timeout!r}")
    if importlib.util.find_spec("ray") is None:
        raise ModuleNotFoundError("No module named 'ray'", name="ray")
    if "ray" in sys.modules and sys.modules["ray"].is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address not in (None, "local"):
        _use_token_if_available()
        _probe(address, timeout)
    import ray
    ray.init(address=address, include_dashboard=False, log_to_driver=False,
             logging_level=logging.WARNING)


def _use_token_if_available() -> None:
    """RAY_AUTH_MODE=token when it is unset and a token is at hand (Ray's token sources:
    RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH, ~/.ray/auth_token). A client in token mode also
    connects to clusters without authentication."""
    if os.environ.get("RAY_AUTH_MODE") is not None:
        return
    if (os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH")
            or os.path.isfile(os.path.join(os.path.expanduser("~"), ".ray", "auth_token"))):
        # Ray reads it once, when imported (here and in the probe): connect sets it first
        os.environ["RAY_AUTH_MODE"] = "token"


def _probe(address: str, timeout: float) -> None:
    host_port = _host_port(address)
    if host_port is not None:
        try:
            socket.create_connection(host_port, timeout=min(timeout, 10)).close()
        except OSError as e:
            why = e.strerror or str(e) or type(e).__name__
            raise RayConnectError(f"no Ray cluster at {address}: {why}") from None
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE, address], capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise RayConnectError(f"the Ray cluster at {address} did not answer within "
                              f"{timeout:g} s") from None
    if done.returncode != 0:
        raise RayConnectError(_why_refused(address, done.stdout + done.stderr))


def _host_port(address: str) -> tuple[str, int] | None:
    """(host, port) of a GCS ("host:port") or Ray Client ("ray://host:port") address, or
    None when it names none ("auto", a malformed address: Ray itself says what is wrong)."""
    try:
        parts = urllib.parse.urlsplit(address if "://" in address else f"//{address}")
        if parts.hostname and parts.port:
            return parts.hostname, parts.port
    except ValueError:
        pass
    return None


def _why_refused(address: str, output: str) -> str:
    """The probe's failure in one sentence, from what Ray printed."""
    if "InvalidAuthToken" in output or "Unauthenticated" in output:
        return (f"the Ray cluster at {address} requires token authentication and refused "
                "this machine's token (or none was found): put the cluster's token "
                "(`ray get-auth-token` on its head node) in ~/.ray/auth_token or "
                "RAY_AUTH_TOKEN here")
    if "Failed to connect to GCS" in output or "waiting for GCS" in output:
        return f"no Ray cluster answers at {address}"
    errors = re.findall(r"^(\w+(?:Error|Exception)\b.*)$", output, re.MULTILINE)
    last = errors[-1] if errors else (output.strip().splitlines() or ["no message"])[-1]
    return f"cannot connect to the Ray cluster at {address}: {last}"


def cpus() -> int:
    """The CPUs of the cluster this process is connected to (connect first)."""
    import ray

    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    return int(resources.get("CPU", 1))


def _play_batch(plan: Plan[P], start: int, count: int) -> tuple[int, P]:
    return start, plan.batch(start, count)


def run_ray(plan: Plan[P], todo: Sequence[tuple[int, int]],
            max_retries: int = 3) -> Generator[P, None, None]:
    """The batches `todo` of `plan` played as Ray tasks on the cluster this process is
    connected to (connect first), yielded in order (photocore.run.driver.batches runs it).

    A failed task is retried; one that still fails after `max_retries` retries ends the
    run with RunError after the batches before it; stopping early (an exception,
    KeyboardInterrupt, closing the generator) cancels the tasks in flight.
    """
    import ray


    task: Any = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=True)(_play_batch)
    pending: dict[Any, int] = {}     # task -> its first game
    done: dict[int, Any] = {}        # first game -> result, or the task's RayError
    window = 4 * cpus()
    submitted = 0
    plan_ref = ray.put(plan)
    try:
        for start, count in todo:
            while submitted < len(todo) and len(pending) < window:
                ref = task.remote(plan_ref, *todo[submitted])
                pending[ref] = todo[submitted][0]
                submitted += 1
            # stream: take whatever finishes, hand out batches in game order
            while start not in done:
                ready, _ = ray.wait(list(pending), num_returns=1)
                first = pending.pop(ready[0])
                try:
                    finished, result = ray.get(ready[0])
                    done[finished] = result
                except ray.exceptions.RayError as e:
                    done[first] = e     # raised in its turn: the batches before it go out
            result = done.pop(start)
            if isinstance(result, ray.exceptions.RayError):
                cause = str(getattr(result, "cause", None) or result).strip().splitlines()
                raise RunError(
                    f"the Ray task playing games {start + 1}..{start + count} failed "
                    f"{max_retries + 1} times ({type(result).__name__}: "
                    f"{cause[-1] if cause else 'no message'}): the run stopped there")
            yield result
    finally:
        for ref in pending:      # stopped early: nothing keeps playing for nobody
            with contextlib.suppress(Exception):     # a task that finished meanwhile
                ray.cancel(ref, force=True)
