"""`photocore serve` under load, over loopback HTTP: the round trip of a person's move,
200 games against agents played at once, and 200 games of two people at once with the
store on disk and in memory.

    python benchmarks/serve_load.py [--moves 10000] [--games 200] [--online-games 200]
                                    [--json artifacts/serve.json]

It starts `photocore serve` in a child process on 127.0.0.1 (a free port), its games kept
in a database on disk (a temporary file), and measures:

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

3. Online: `--online-games` games of two people at once, each person a client of their own
   (their own connection, their seat's token) playing random legal moves when it is their
   turn, until the game ends; each person's move timed (p50, p90, p99, the largest).
   Run twice, each on a fresh server: the store on disk (WAL, a commit per change) and
   `--db :memory:`; the ratio of the two is what keeping the games on disk costs. Every
   request must succeed, and each record replay to the server's final position.

Everything is bounded: the games end by the rules, and --timeout stops the run.

A study beside the registry of benchmarks/bench.py (docs/speed.md): a server's latencies and
memory under load: figures of its own, not one figure beside a baseline as a workload of the
registry gives.
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
import urllib.parse
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


def start_server(agents: str, max_games: int, db: str) -> tuple[subprocess.Popen[str], str]:
    code = "from photocore.cli.serve import serve; serve()"
    process = subprocess.Popen(
        [sys.executable, "-c", code, "--host", "127.0.0.1", "--port", "0", "--agents", agents,
         # one client plays every game: the store's own bound is the one to reach
         "--max-games", str(max_games), "--max-games-per-client", str(max_games + 1),
         "--db", db],
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

def quantiles_ms(times: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(times, n=100, method="inclusive")
    return {"p50_ms": cuts[49] * 1e3, "p90_ms": cuts[89] * 1e3, "p99_ms": cuts[98] * 1e3,
            "max_ms": max(times) * 1e3, "mean_ms": statistics.fmean(times) * 1e3}


def round_trip(url: str, moves: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    times: list[float] = []
    requests = 0
    with client(url) as http:
        state: dict[str, Any] = {"over": True}
        tokens: dict[int, str] = {}
        for _ in range(20):     # warm the connection and the server
            http.get("api/info")
        while len(times) < moves:
            if state["over"]:
                if "id" in state:
                    http.delete(f"api/games/{state['id']}",
                                headers={"Authorization": f"Bearer {tokens[0]}"})
                state = http.post("api/games", json={"seats": ["person", "person"]}).json()
                tokens = {i["seat"]: i["token"] for i in state["invites"]}
                requests += 2
            move = rng.choice(state["legal_moves"])["move"]
            seat = {"Authorization": f"Bearer {tokens[state['current_player']]}"}
            start = time.perf_counter()
            response = http.post(f"api/games/{state['id']}/moves", json={"move": move},
                                 headers=seat)
            state = response.json()
            times.append(time.perf_counter() - start)
            if response.status_code != 200:
                raise SystemExit(f"move {move}: {response.status_code} {state}")
    return {"moves": len(times), "requests": requests + len(times), **quantiles_ms(times)}


# ---- 2. many games at once --------------------------------------------------------------

class Tally:
    def __init__(self) -> None:
        self.requests = 0
        self.errors: list[str] = []
        self.moves = 0
        self.tokens: dict[str, str] = {}     # game id -> its person's token
        self.resent = 0                      # requests sent again on a closed connection


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
        tally.tokens[state["id"]] = state["invites"][0]["token"]
        http.headers["Authorization"] = f"Bearer {tally.tokens[state['id']]}"
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


# ---- 3. two people a game, online ---------------------------------------------------------

class Person:
    """One person's keep-alive HTTP/1.1 connection with their seat's token, on asyncio's
    streams: 400 httpx clients in one process spend more CPU than the server they load,
    and the figures would be theirs. A request that finds the connection closed (the
    server closes one idle past its request deadline, 10 s) is sent again on a new one:
    the server never read it (a browser does the same; `ply` would refuse a copy)."""

    def __init__(self, url: str, tally: "Tally") -> None:
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.tally = tally
        self.token: str | None = None
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def request(self, method: str, path: str, body: Any = None
                      ) -> tuple[int, Any]:
        data = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} /{path} HTTP/1.1", f"Host: {self.host}:{self.port}",
                f"Content-Length: {len(data)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        if self.token:
            head.append(f"Authorization: Bearer {self.token}")
        message = ("\r\n".join(head) + "\r\n\r\n").encode() + data
        for attempt in range(2):
            if self.streams is None:
                self.streams = await asyncio.open_connection(self.host, self.port)
            reader, writer = self.streams
            try:
                writer.write(message)
                status = await reader.readline()
                if not status:
                    raise ConnectionResetError("closed before the answer")
                length = 0
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                answer = await reader.readexactly(length)
                self.tally.requests += 1
                return int(status.split()[1]), json.loads(answer) if answer else None
            except (ConnectionError, asyncio.IncompleteReadError):
                writer.close()
                self.streams = None
                if attempt:
                    raise
                self.tally.resent += 1
        raise AssertionError("not reached")

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()


async def online_game(url: str, k: int, seed: int, tally: Tally, times: list[float]
                      ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Game k of two people, each a client of their own, to its end; (record, state)."""
    rng = random.Random(seed * 1000 + k)
    people = (Person(url, tally), Person(url, tally))
    try:
        status, state = await people[0].request("POST", "api/games",
                                                {"seats": ["person", "person"]})
        if status != 201:
            tally.errors.append(f"online game {k}: {status} {str(state)[:200]}")
            raise RuntimeError(tally.errors[-1])
        for invite, person in zip(state["invites"], people):
            person.token = invite["token"]
        while not state["over"]:
            move = rng.choice(state["legal_moves"])["move"]
            start = time.perf_counter()
            status, answer = await people[state["current_player"]].request(
                "POST", f"api/games/{state['id']}/moves",
                {"move": move, "ply": len(state["history"])})
            times.append(time.perf_counter() - start)
            if status != 200:
                tally.errors.append(f"online game {k}: {move}: {status} {str(answer)[:200]}")
                raise RuntimeError(tally.errors[-1])
            state = answer
            tally.moves += 1
        status, record = await people[1].request("GET", f"api/games/{state['id']}/record")
    finally:
        for person in people:
            person.close()
    return record, state


def online(agents: str, db: str, games: int, seed: int, timeout: float) -> dict[str, Any]:
    """Phase 3 on a fresh server whose store is `db`."""
    process, url = start_server(agents, MAX_GAMES, db)
    try:
        tally, times = Tally(), []
        cpu = cpu_seconds(process.pid)

        async def run() -> list[Any]:
            return await asyncio.gather(
                *(online_game(url, k, seed, tally, times) for k in range(games)),
                return_exceptions=True)

        start = time.perf_counter()
        results = asyncio.run(asyncio.wait_for(run(), timeout))
        seconds = time.perf_counter() - start
        cpu = cpu_seconds(process.pid) - cpu
        problems = list(tally.errors)
        finished = 0
        for k, result in enumerate(results):
            if isinstance(result, BaseException):
                if not tally.errors:
                    problems.append(f"online game {k}: {type(result).__name__}: {result}")
                continue
            rec, state = result
            if records.from_record(rec).position() != state["position"]:
                problems.append(f"online game {k}: the record is not the server's game")
            finished += 1
    finally:
        process.terminate()
        process.wait(10)
    return {"db": "disk" if db != ":memory:" else ":memory:", "games": games,
            "finished": finished, "moves": len(times), "requests": tally.requests,
            "seconds": seconds, "requests_per_s": tally.requests / seconds,
            "server_cpu_s": cpu, "server_cpu_ms_per_request": cpu / max(tally.requests, 1) * 1e3,
            "resent": tally.resent, "load_average": os.getloadavg(),
            "errors": len(problems), "problems": problems[:20], **quantiles_ms(times)}


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
@click.option("--online-games", type=click.IntRange(min=0), default=200, show_default=True,
              help="Games of two people at once, on disk and in memory (0: none).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--timeout", type=click.FloatRange(min=10), default=900, show_default=True,
              help="Seconds the whole run may take.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None,
              help="Also write the figures here.")
def main(moves: int, games: int, online_games: int, agents: str, seed: int, timeout: float,
         json_path: str | None) -> None:
    """Round trip of a person's move and load tests of `photocore serve`, on loopback."""
    deadline = time.monotonic() + timeout
    scratch = tempfile.TemporaryDirectory()       # the databases on disk
    disk = str(pathlib.Path(scratch.name) / "games.sqlite3")
    process, url = start_server(agents, MAX_GAMES, disk)
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
                    game = result[1]["id"]
                    http.delete(f"api/games/{game}",
                                headers={"Authorization": f"Bearer {tally.tokens[game]}"})
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
    finally:
        process.terminate()
        process.wait(10)
    runs = []
    for db in ([str(pathlib.Path(scratch.name) / "online.sqlite3"), ":memory:"]
               if online_games else []):
        run = online(agents, db, online_games, seed, deadline - time.monotonic())
        runs.append(run)
        click.echo(f"online, store {run['db']}: {run['games']} games of two people at once, "
                   f"{run['finished']} to the end, {run['moves']:,} moves in "
                   f"{run['seconds']:.1f} s ({run['requests_per_s']:,.0f} requests/s), "
                   f"{run['errors']} errors ({run['resent']} moves sent again on a connection "
                   f"closed while idle); a move p50 {run['p50_ms']:.2f} ms, p90 "
                   f"{run['p90_ms']:.2f} ms, p99 {run['p99_ms']:.2f} ms, max "
                   f"{run['max_ms']:.1f} ms; the server's CPU time {run['server_cpu_s']:.1f} s, "
                   f"{run['server_cpu_ms_per_request']:.2f} ms a request; load average "
                   f"{run['load_average'][0]:.1f} at the end")
        for problem in run["problems"]:
            click.echo(f"  problem: {problem}")
    if len(runs) == 2:
        disk_run, memory_run = runs
        figures["online_cost"] = {key: disk_run[key] / memory_run[key]
                                  for key in ("p50_ms", "p99_ms", "server_cpu_ms_per_request")}
        cost = figures["online_cost"]
        click.echo(f"the store on disk costs x{cost['p50_ms']:.2f} at p50, "
                   f"x{cost['p99_ms']:.2f} at p99, x{cost['server_cpu_ms_per_request']:.2f} "
                   "in the server's CPU time a request, against :memory:")
    figures["online"] = runs
    scratch.cleanup()
    if json_path:
        pathlib.Path(json_path).write_text(json.dumps(figures, indent=2) + "\n")
    if (figures["load"]["errors"] or figures["load"]["verify_status"]
            or figures["load"]["beyond_the_store"] != 503 or any(r["errors"] for r in runs)):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
