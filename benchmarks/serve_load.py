"""`photocore serve` under load, over loopback HTTP: the round trip of a person's move and
200 games played at once.

    python benchmarks/serve_load.py [--moves 10000] [--games 200] [--json artifacts/serve.json]

It starts `photocore serve` in a child process on 127.0.0.1 (a free port) and measures:

1. Round trip: `--moves` moves of people (both seats people, so no agent moves), each
   request timed from the client's send to the parsed answer over one keep-alive
   connection; p50, p90, p99 and the largest, in milliseconds.
2. Load: `--games` games at once, each by its own scripted client (asyncio, one connection
   each) that plays random legal moves for its person against a `random` or `greedy` seat
   (alternately; the person's seat at random) until the game ends, then downloads the
   record. Every request must succeed; every record must replay (records.from_record) to
   the server's final position with the client's own moves at the person's plies, and
   `photocore verify` must accept the file of all of them. Requests per second over the
   whole phase, and the server's resident memory: before, at its peak, after the games,
   after they are deleted, and with its store full (--max-games fresh games; one more is
   refused with 503).

Everything is bounded: the games end by the rules, and --timeout stops the run.
"""

import asyncio
import json
import os
import pathlib
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import click
import httpx

from photocore import records

MAX_GAMES = 1000
# A request's headers and body go out in two writes: without TCP_NODELAY the client's
# Nagle algorithm could hold the body until the server's delayed ACK (browsers set it).
NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]


def client(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=30,
                        transport=httpx.HTTPTransport(socket_options=NODELAY))


def start_server(agents: str, max_games: int) -> tuple[subprocess.Popen[str], str]:
    code = "from photocore.cli.serve import serve; serve()"
    process = subprocess.Popen(
        [sys.executable, "-c", code, "--host", "127.0.0.1", "--port", "0", "--agents", agents,
         "--max-games", str(max_games), "--max-games-per-client", str(max_games)],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None
    line = process.stdout.readline()
    if "open http://" not in line:
        process.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return process, line.split("open ")[1].split()[0]


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of a process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Sampler:
    """The server's peak resident memory, sampled every 50 ms in a thread."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, rss_mib(pid), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, rss_mib(self.pid))

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak


# ---- 1. the round trip of a person's move ---------------------------------------------------

def round_trip(url: str, moves: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    times: list[float] = []
    requests = 0
    with client(url) as http:
        state: dict[str, Any] = {"over": True}
        for _ in range(20):     # warm the connection and the server
            http.get("api/info")
        while len(times) < moves:
            if state["over"]:
                if "id" in state:
                    http.delete(f"api/games/{state['id']}")
                state = http.post("api/games", json={"seats": ["person", "person"]}).json()
                requests += 2
            move = rng.choice(state["legal_moves"])["move"]
            start = time.perf_counter()
            response = http.post(f"api/games/{state['id']}/moves", json={"move": move})
            state = response.json()
            times.append(time.perf_counter() - start)
            if response.status_code != 200:
                raise SystemExit(f"move {move}: {response.status_code} {state}")
    quantiles = statistics.quantiles(times, n=100, method="inclusive")
    return {"moves": len(times), "requests": requests + len(times),
            "p50_ms": quantiles[49] * 1e3, "p90_ms": quantiles[89] * 1e3,
            "p99_ms": quantiles[98] * 1e3, "max_ms": max(times) * 1e3,
            "mean_ms": statistics.fmean(times) * 1e3}


# ---- 2. many games at once --------------------------------------------------------------

class Tally:
    def __init__(self) -> None:
        self.requests = 0
        self.errors: list[str] = []
        self.moves = 0


async def one_game(url: str, k: int, agent: str, seed: int, tally: Tally
                   ) -> tuple[dict[str, Any], dict[str, Any], list[str], int]:
    """Plays game k to its end; (record, final state, the person's moves, its seat)."""
    rng = random.Random(seed * 1000 + k)
    seat = rng.randrange(2)
    seats = ["person", agent] if seat == 0 else [agent, "person"]
    mine: list[str] = []
    async with httpx.AsyncClient(base_url=url, timeout=60,
                                 transport=httpx.AsyncHTTPTransport(socket_options=NODELAY)
                                 ) as http:

        async def call(method: str, path: str, **kwargs: Any) -> Any:
            response = await http.request(method, path, **kwargs)
            tally.requests += 1
            if response.status_code >= 400:
                tally.errors.append(f"game {k}: {method} {path}: {response.status_code} "
                                    f"{response.text[:200]}")
                raise RuntimeError(tally.errors[-1])
            if response.headers["content-type"] == "application/json":
                return response.json()
            return response.text

        state = await call("POST", "api/games", json={"seats": seats, "seed": k})
        while True:
            if state["thinking"]:
                state = await call("GET", f"api/games/{state['id']}", params={"wait": 10})
                continue
            if state["over"]:
                break
            move = rng.choice(state["legal_moves"])["move"]
            state = await call("POST", f"api/games/{state['id']}/moves",
                               json={"move": move, "ply": len(state["history"])})
            mine.append(move)
            tally.moves += 1
        text = await call("GET", f"api/games/{state['id']}/record")
    return json.loads(text), state, mine, seat


def check_game(rec: dict[str, Any], state: dict[str, Any], mine: list[str], seat: int
               ) -> str | None:
    """What is wrong with a downloaded game, or None."""
    game = records.from_record(rec)
    if game.position() != state["position"]:
        return "the record does not replay to the server's final position"
    replay = game.root()
    persons = []
    for move in rec["moves"]:
        if replay.current_player == seat:
            persons.append(move)
        replay.play(move)
    if persons != mine:
        return "the person's moves in the record are not the client's"
    return None


async def load(url: str, games: int, agents: list[str], seed: int
               ) -> tuple[Tally, list[Any], float]:
    tally = Tally()
    start = time.perf_counter()
    results = await asyncio.gather(
        *(one_game(url, k, agents[k % len(agents)], seed, tally) for k in range(games)),
        return_exceptions=True)
    return tally, results, time.perf_counter() - start


def fill(url: str, max_games: int) -> tuple[int, int, str]:
    """Creates games until the store is full; (created, status of one more, its error)."""
    with client(url) as http:
        held = http.get("api/info").json()["games"]
        created = 0
        for _ in range(max_games - held):
            assert http.post("api/games", json={}).status_code == 201
            created += 1
        extra = http.post("api/games", json={})
        return created, extra.status_code, extra.json().get("error", "")


@click.command()
@click.option("--moves", type=click.IntRange(min=100), default=10_000, show_default=True,
              help="People's moves timed one by one.")
@click.option("--games", type=click.IntRange(min=1), default=200, show_default=True,
              help="Games played at once in the load test.")
@click.option("--agents", default="random,greedy", show_default=True,
              help="The agent seats of the load test's games, in turn.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--timeout", type=click.FloatRange(min=10), default=900, show_default=True,
              help="Seconds the whole run may take.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None,
              help="Also write the figures here.")
def main(moves: int, games: int, agents: str, seed: int, timeout: float,
         json_path: str | None) -> None:
    """Round trip of a person's move and a load test of `photocore serve`, on loopback."""
    deadline = time.monotonic() + timeout
    process, url = start_server(agents, MAX_GAMES)
    figures: dict[str, Any] = {"url": url}
    try:
        figures["rss_start_mib"] = rss_mib(process.pid)
        figures["load_average"] = os.getloadavg()
        cpu = cpu_seconds(process.pid)
        trip = figures["round_trip"] = round_trip(url, moves, seed)
        trip["server_cpu_ms"] = (cpu_seconds(process.pid) - cpu) / trip["requests"] * 1e3
        click.echo(f"round trip of a person's move over {trip['moves']:,} moves: "
                   f"p50 {trip['p50_ms']:.2f} ms, p90 {trip['p90_ms']:.2f} ms, "
                   f"p99 {trip['p99_ms']:.2f} ms, max {trip['max_ms']:.1f} ms "
                   f"(mean {trip['mean_ms']:.2f} ms); the server's CPU time "
                   f"{trip['server_cpu_ms']:.2f} ms a request (games created included); "
                   f"load average at the start {figures['load_average'][0]:.1f} "
                   f"on {os.cpu_count()} cores")
        if time.monotonic() > deadline:
            raise SystemExit("out of time after the round trips")
        before = rss_mib(process.pid)
        cpu = cpu_seconds(process.pid)
        sampler = Sampler(process.pid)
        tally, results, seconds = asyncio.run(asyncio.wait_for(
            load(url, games, agents.split(","), seed), deadline - time.monotonic()))
        peak = sampler.stop()
        cpu = cpu_seconds(process.pid) - cpu
        after = rss_mib(process.pid)
        problems = list(tally.errors)
        good = []
        for k, result in enumerate(results):
            if isinstance(result, BaseException):
                if not tally.errors:
                    problems.append(f"game {k}: {type(result).__name__}: {result}")
                continue
            why = check_game(*result)
            if why:
                problems.append(f"game {k}: {why}")
            good.append(result[0])
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "load.jsonl"
            records.write_games(path, good)
            verified = subprocess.run([sys.executable, "-m", "photocore", "verify", str(path)],
                                      capture_output=True, text=True)
        plies = sum(len(rec["moves"]) for rec in good)
        with client(url) as http:
            for result in results:
                if isinstance(result, tuple):
                    http.delete(f"api/games/{result[1]['id']}")
        time.sleep(0.5)
        deleted = rss_mib(process.pid)
        created, extra_status, extra_error = fill(url, MAX_GAMES)
        full = rss_mib(process.pid)
        figures["load"] = {
            "games": games, "finished": len(good), "requests": tally.requests,
            "person_moves": tally.moves, "plies": plies, "seconds": seconds,
            "requests_per_s": tally.requests / seconds, "errors": len(problems),
            "server_cpu_s": cpu, "server_cpu_ms_per_request": cpu / max(tally.requests, 1) * 1e3,
            "verify": verified.stdout.strip(), "verify_status": verified.returncode,
            "rss_before_mib": before, "rss_peak_mib": peak, "rss_after_mib": after,
            "rss_after_delete_mib": deleted, "rss_full_store_mib": full,
            "full_store_games": MAX_GAMES, "beyond_the_store": extra_status,
            "beyond_the_store_error": extra_error}
        figure = figures["load"]
        click.echo(f"load: {games} games at once ({agents} seats), {len(good)} played to the "
                   f"end, {plies:,} plies, {tally.requests:,} requests in {seconds:.1f} s: "
                   f"{figure['requests_per_s']:,.0f} requests/s, {len(problems)} errors; the "
                   f"server's CPU time {cpu:.1f} s, "
                   f"{figure['server_cpu_ms_per_request']:.2f} ms a request (agents included)")
        click.echo(f"records: {verified.stdout.strip()} (photocore verify, status "
                   f"{verified.returncode}); each replays to the server's final position "
                   "with the client's own moves")
        click.echo(f"server memory (RSS): {figures['rss_start_mib']:.0f} MiB at start, "
                   f"{before:.0f} before the load, {peak:.0f} at its peak, {after:.0f} after, "
                   f"{deleted:.0f} once the games are deleted; {full:.0f} with the store "
                   f"full ({created} fresh games more, {MAX_GAMES} in all), where one more "
                   f"is refused: {extra_status} {extra_error!r}")
        for problem in problems[:20]:
            click.echo(f"  problem: {problem}")
        if json_path:
            pathlib.Path(json_path).write_text(json.dumps(figures, indent=2) + "\n")
        if problems or verified.returncode or extra_status != 503:
            raise SystemExit(1)
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    main()
