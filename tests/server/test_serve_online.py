"""Served games that outlive the server, seats that are their links, live updates: the
database's units (serve/database.py: one transaction per change, a crash between two changes,
the schema's versions and migrations, backups), the API's tokens (403 and nothing changed
without them; 100 racing moves from both seats), the event streams (each change as it is
made; a dropped stream resumes from its last event id) and restarts of the real command
(SIGTERM and SIGKILL: every game as it was, an agent to move thinking again)."""

import concurrent.futures
import json
import os
import pathlib
import random
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("fastapi")
import httpx  # noqa: E402
from click.testing import CliRunner  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from served import events, free_port, serve_command, serving  # noqa: E402

import photocore  # noqa: E402
from photocore import records  # noqa: E402
from photocore.cli.records import verify  # noqa: E402
from photocore.cli.serve import serve  # noqa: E402
from photocore.serve import auth as served_auth  # noqa: E402
from photocore.serve import table as served_table  # noqa: E402
from photocore.serve.app import create_app  # noqa: E402
from photocore.serve.database import (  # noqa: E402
    APPLICATION_ID,
    COMPANIONS,
    MIGRATIONS,
    SCHEMA_VERSION,
    Database,
    DatabaseError,
    GameRow,
    _statements,
)

SEATS = ["person", "person"]


def new(client, **body):
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def bearer(state, seat):
    token = next(i["token"] for i in state["invites"] if i["seat"] == seat)
    return {"Authorization": f"Bearer {token}"}


def refused(response, status, *words):
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert "\n" not in error and all(word in error for word in words), error
    return error


# ---- the database's units --------------------------------------------------------------

def a_game(db, game_id="g1"):
    db.add_game(GameRow(game_id, {"players": 2, "options": "-", "position": None, "moves": []},
                     SEATS, 2**64 - 1, "me", 100.0), {0: b"0" * 32, 1: b"1" * 32})


def test_each_change_is_one_transaction(tmp_path):
    db = Database(tmp_path / "games.sqlite3")
    a_game(db)
    db.add_change("g1", 1, {"kind": "play", "move": "place a4"}, 101.0, None)
    # the second change's row goes in, then updating the game fails: neither stays
    db._db.execute("CREATE TEMP TRIGGER fail BEFORE UPDATE ON games WHEN NEW.version = 2 "
                   "BEGIN SELECT raise(ABORT, 'the disk is full'); END")
    with pytest.raises(DatabaseError, match="the disk is full"):
        db.add_change("g1", 2, {"kind": "play", "move": "place d1"}, 102.0, None)
    saved = db.load("g1")
    assert saved.changes == [{"kind": "play", "move": "place a4"}]
    assert (saved.row.version, saved.row.touched, saved.row.seed) == (1, 101.0, 2**64 - 1)
    # a change out of order (another writer) is refused, and nothing of it kept
    with pytest.raises(DatabaseError, match="not at version 2"):
        db.add_change("g1", 3, {"kind": "resign", "seat": 0}, 103.0, 103.0)
    assert db.load("g1").changes == saved.changes
    db.close()


def test_a_change_whose_saving_fails_leaves_the_game_as_it_was():
    app = create_app(["random"])
    with TestClient(app) as client:
        state = new(client, seats=SEATS)
        url = f"/api/games/{state['id']}"
        assert client.post(f"{url}/moves", json={"move": "place a4"},
                           headers=bearer(state, 0)).status_code == 200
        app.state.store.db._db.execute(
            "CREATE TEMP TRIGGER fail BEFORE INSERT ON changes "
            "BEGIN SELECT raise(ABORT, 'disk I/O error'); END")
        before = client.get(url).json()
        refused(client.post(f"{url}/moves", json={"move": "place d1"},
                            headers=bearer(state, 1)), 503, "disk I/O error")
        refused(client.post(f"{url}/resign", headers=bearer(state, 1)), 503)
        assert client.get(url).json() == before
        app.state.store.db._db.execute("DROP TRIGGER fail")
        assert client.post(f"{url}/moves", json={"move": "place d1"},
                           headers=bearer(state, 1)).json()["version"] == 2


CRASH = textwrap.dedent("""
    import os, sys, time
    from photocore.serve.database import Database, GameRow
    db = Database(sys.argv[1])
    db.add_game(GameRow("g1", {"players": 2, "options": "-", "position": None, "moves": []},
                     ["person", "person"], 7, "me", time.time()), {0: b"0" * 32, 1: b"1" * 32})
    db.add_change("g1", 1, {"kind": "play", "move": "place a4"}, time.time(), None)
    # the process dies inside the second change's transaction, its row written
    db._db.create_function("crash", 0, lambda: os._exit(9))
    db._db.execute("CREATE TEMP TRIGGER crash BEFORE UPDATE ON games WHEN NEW.version = 2 "
                   "BEGIN SELECT crash(); END")
    db.add_change("g1", 2, {"kind": "play", "move": "place d1"}, time.time(), None)
    print("not reached")
""")


def test_a_crash_between_two_changes_keeps_the_first(tmp_path):
    path = tmp_path / "games.sqlite3"
    done = subprocess.run([sys.executable, "-c", CRASH, str(path)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 9 and "not reached" not in done.stdout, done.stderr
    db = Database(path)             # the crashed process's lock went with it
    saved = db.load("g1")
    assert saved.changes == [{"kind": "play", "move": "place a4"}] and saved.row.version == 1
    db.close()
    with TestClient(create_app(["random"], db=path)) as client:
        state = client.get("/api/games/g1").json()
        assert [h["move"] for h in state["history"]] == ["place a4"]
        assert state["version"] == 1 and state["current_player"] == 1


def test_the_schema_is_versioned_and_an_older_one_migrates(tmp_path):
    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)         # a database of schema version 1, with a game
    old.execute("CREATE TABLE versions (version INTEGER PRIMARY KEY, applied REAL NOT NULL)")
    for statement in _statements(MIGRATIONS[0]):
        old.execute(statement)
    old.execute("INSERT INTO versions VALUES (1, 0)")
    old.execute("INSERT INTO games VALUES ('g1', ?, ?, '5', 'me', 1.0, 2.0, NULL, 1)",
                (json.dumps({"players": 2, "options": "-", "position": None, "moves": []}),
                 json.dumps(SEATS)))
    old.execute("""INSERT INTO changes VALUES ('g1', 1, '{"kind":"play","move":"place a4"}')""")
    old.commit()
    old.close()
    db = Database(path)
    assert db.version == SCHEMA_VERSION == 2
    versions = [row[0] for row in db._db.execute("SELECT version FROM versions")]
    assert versions == [1, 2]
    saved = db.load("g1")
    assert saved.changes == [{"kind": "play", "move": "place a4"}] and saved.row.seed == 5
    db.add_hint("g1", 1, "a position", 3, {"moves": []})       # version 2's table
    assert db.hint("g1", 1, "a position", 3) == {"moves": []}
    db._db.execute("INSERT INTO versions VALUES (99, 0)")
    db.close()
    with pytest.raises(DatabaseError, match="schema version 99, newer than this photocore's 2"):
        Database(path)
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(DatabaseError, match="cannot use .*junk.sqlite3 as the games database"):
        Database(junk)


def test_one_server_to_a_database(tmp_path):
    first = Database(tmp_path / "games.sqlite3")
    with pytest.raises(DatabaseError, match="in use by another photocore serve"):
        Database(tmp_path / "games.sqlite3")
    result = CliRunner().invoke(serve, ["--db", str(tmp_path / "games.sqlite3")])
    assert result.exit_code == 1 and "in use by another photocore serve" in result.output
    first.close()
    Database(tmp_path / "games.sqlite3").close()


def test_a_missing_folder_is_refused_as_by_every_command_that_writes(tmp_path):
    from photocore.cli import main
    db = tmp_path / "no" / "games.sqlite3"
    result = CliRunner().invoke(serve, ["--db", str(db)])
    assert result.exit_code == 1 and not (tmp_path / "no").exists()
    told = f"Error: cannot write {db}: the folder {tmp_path / 'no'} does not exist"
    assert result.output.strip() == told
    selfplay = CliRunner().invoke(main, ["selfplay", "--out", str(tmp_path / "no" / "g.jsonl")])
    assert selfplay.output.strip() == told.replace("games.sqlite3", "g.jsonl")


def test_a_backup_while_the_server_writes(tmp_path):
    path = tmp_path / "games.sqlite3"
    app = create_app(["random"], db=path)
    with TestClient(app) as client:
        state = new(client, seats=SEATS)
        client.post(f"/api/games/{state['id']}/moves", json={"move": "place a4"},
                    headers=bearer(state, 0))
        result = CliRunner().invoke(serve, ["--db", str(path), "--backup",
                                            str(tmp_path / "copy.sqlite3")])
        assert result.exit_code == 0, result.output
        assert "(1 games) backed up to" in result.output
    with TestClient(create_app(["random"], db=tmp_path / "copy.sqlite3")) as client:
        copied = client.get(f"/api/games/{state['id']}").json()
        assert [h["move"] for h in copied["history"]] == ["place a4"]
        moved = client.post(f"/api/games/{state['id']}/moves", json={"move": "place d1"},
                            headers=bearer(state, 1))       # its tokens came along
        assert moved.status_code == 200
    result = CliRunner().invoke(serve, ["--db", str(tmp_path / "none.sqlite3"), "--backup",
                                        str(tmp_path / "x")])
    assert result.exit_code == 2 and "no such database" in result.output


def test_expire_and_keep_go_on_across_a_restart(tmp_path):
    path = tmp_path / "games.sqlite3"
    start = time.time() - 100
    now = [start]

    def app():
        made = create_app(["random"], db=path, expire=60, keep=86400)
        made.state.store.clock = lambda: now[0]     # after it has restored (real time)
        return made

    with TestClient(app()) as client:
        idle, kept = new(client, seats=SEATS)["id"], new(client, seats=SEATS)["id"]
        ended = new(client, seats=SEATS)
        client.post(f"/api/games/{ended['id']}/resign", headers=bearer(ended, 0))
        now[0] = start + 50
        client.get(f"/api/games/{kept}")        # asked for: saved at the stop
    made = app()    # restored 100 s after `start`: `idle` idle since, `kept` for 50 s
    with TestClient(made) as client:
        refused(client.get(f"/api/games/{idle}"), 404, "expired after 60 s")
        assert client.get(f"/api/games/{kept}").status_code == 200
        assert client.get(f"/api/games/{ended['id']}/record").status_code == 200
        now[0] = time.time() + 86400            # a day after the resignation
        refused(client.get(f"/api/games/{ended['id']}"), 404)
        refused(client.get(f"/api/games/{kept}"), 404)
        assert made.state.store.db.count() == 0


def test_a_hint_is_kept_and_asked_again_costs_nothing(monkeypatch):
    app = create_app(["random"], hint_simulations=100)
    with TestClient(app) as client:
        state = new(client)
        first = client.post(f"/api/games/{state['id']}/hint", json={"top": 2},
                            headers=bearer(state, 0)).json()
        monkeypatch.setattr(served_table.hints, "hint", lambda *a, **k: 1 / 0)
        again = client.post(f"/api/games/{state['id']}/hint", json={"top": 2},
                            headers=bearer(state, 0))
        assert again.status_code == 200 and again.json() == first
        rows = app.state.store.db._db.execute("SELECT game, ply, top FROM hints").fetchall()
        assert rows == [(state["id"], 0, 2)]


# ---- seats are their links -------------------------------------------------------------

@pytest.fixture
def client():
    with TestClient(create_app(["random"], hint_simulations=100)) as c:
        yield c


ACTIONS = [("POST", "moves", {"move": "place a4"}), ("POST", "undo", None),
           ("POST", "hint", {}), ("POST", "resign", {}), ("POST", "stop", None),
           ("POST", "resume", None), ("DELETE", "", None)]


@pytest.mark.parametrize("method, action, body", ACTIONS)
def test_a_missing_or_wrong_token_is_403_and_changes_nothing(client, method, action, body):
    state = new(client, seats=SEATS)
    other = new(client, seats=SEATS)
    url = f"/api/games/{state['id']}" + (f"/{action}" if action else "")
    client.post(f"/api/games/{state['id']}/moves", json={"move": "place a4"},
                headers=bearer(state, 0))
    before = client.get(f"/api/games/{state['id']}").json()
    store = client.app.state.store
    for headers, words in [({}, ["needs that seat's token", "Authorization: Bearer"]),
                           ({"Authorization": "Bearer " + "A" * 24}, ["no seat's of game"]),
                           (bearer(other, 1), ["no seat's"]),       # another game's seat
                           ({"Authorization": "Basic " + bearer(state, 1)["Authorization"]
                             .split()[1]}, ["needs that seat's token"]),
                           ({"Authorization": "Bearer " + "x" * 9000}, ["no seat's"])]:
        response = client.request(method, url, json=body, headers=headers)
        refused(response, 403, *words)
    assert client.get(f"/api/games/{state['id']}").json() == before
    assert store.db.load(state["id"]).row.version == before["version"] == 1


def test_tokens_are_random_kept_hashed_and_all_compared(client, monkeypatch):
    states = [new(client, players=3, seats=["person", "random", "person"]) for _ in range(3)]
    tokens = [i["token"] for s in states for i in s["invites"]]
    assert [i["seat"] for i in states[0]["invites"]] == [0, 2]
    assert len(set(tokens)) == 6 and all(len(t) >= 22 for t in tokens)   # >= 128 bits
    link = states[0]["invites"][1]["link"]
    assert link == f"/#game={states[0]['id']}&seat2={tokens[1]}"
    assert states[0]["watch"] == f"/#game={states[0]['id']}"
    store = client.app.state.store
    kept = dict(store.db._db.execute("SELECT seat, hash FROM tokens WHERE game = ?",
                                     (states[0]["id"],)))
    assert kept == {0: served_auth.token_hash(tokens[0]), 2: served_auth.token_hash(tokens[1])}
    dump = "\n".join(store.db._db.iterdump())
    assert not any(token in dump for token in tokens)
    compared = []
    real = served_auth.hmac.compare_digest
    monkeypatch.setattr(served_auth.hmac, "compare_digest",
                        lambda a, b: compared.append(1) or real(a, b))
    table = store.get(states[0]["id"])
    assert served_auth.seat_of(table.tokens, table.id, tokens[0]) == 0
    assert len(compared) == 2           # every seat, though the first one matched


def test_each_seat_acts_only_for_itself(client):
    state = new(client, seats=SEATS)
    url = f"/api/games/{state['id']}"
    refused(client.post(f"{url}/moves", json={"move": "place a4"}, headers=bearer(state, 1)),
            409, "player 0's turn, not player 1's")
    refused(client.post(f"{url}/hint", headers=bearer(state, 1)), 409, "player 0's turn")
    client.post(f"{url}/moves", json={"move": "place a4"}, headers=bearer(state, 0))
    refused(client.post(f"{url}/undo", headers=bearer(state, 1)), 409,
            "the last person's move is player 0's, not player 1's")
    client.post(f"{url}/moves", json={"move": "place d1"}, headers=bearer(state, 1))
    refused(client.post(f"{url}/undo", headers=bearer(state, 0)), 409, "player 1's")
    assert client.post(f"{url}/undo", headers=bearer(state, 1)).json()["version"] == 3
    refused(client.post(f"{url}/resign", json={"player": 0}, headers=bearer(state, 1)), 403,
            "this link is player 1's")
    ended = client.post(f"{url}/resign", headers=bearer(state, 1)).json()
    assert ended["forfeit"] == {"seat": 1, "reason": "resigned"} and ended["winners"] == [0]


@pytest.mark.slow
def test_100_racing_moves_from_both_seats_give_one_legal_history(tmp_path):
    path = tmp_path / "games.sqlite3"
    with TestClient(create_app(["random"], db=path)) as client:
        state = new(client, seats=SEATS)
        url = f"/api/games/{state['id']}"

        def attempt(k):
            rng = random.Random(k)
            seen = client.get(url).json()
            body = {"move": rng.choice(seen["legal_moves"])["move"]}
            if k % 2:
                body["ply"] = len(seen["history"])
            response = client.post(f"{url}/moves", json=body, headers=bearer(state, k % 2))
            return response.status_code, response.json()

        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(attempt, range(100)))
        final = client.get(url).json()
    statuses = [status for status, _ in answers]
    assert set(statuses) <= {200, 400, 409} and statuses.count(200) >= 2
    for status, body in answers:
        if status != 200:
            assert list(body) == ["error"] and "\n" not in body["error"]
    # every accepted move is in the history once, in one order that the rules accept
    assert len(final["history"]) == statuses.count(200) == final["version"]
    game = photocore.Game()
    for item in final["history"]:
        assert item["player"] == game.current_player and item["by"] == "person"
        game.play(item["move"])
    assert game.position() == final["position"]
    # and that is what the database holds
    with TestClient(create_app(["random"], db=path)) as client:
        assert client.get(url).json()["history"] == final["history"]


# ---- live updates ------------------------------------------------------------------------

def test_events_stream_each_change_as_it_is_made(tmp_path):
    with serving(create_app(["random"], db=tmp_path / "g.sqlite3")) as url, \
            httpx.Client(base_url=url, timeout=10) as http:
        state = http.post("/api/games", json={"seats": SEATS}).json()
        game = f"/api/games/{state['id']}"
        with http.stream("GET", f"{game}/events") as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            stream = response.iter_lines()
            first = events(stream, 1)[0]
            assert (first["event"], first["id"], first["retry"]) == ("state", "0", "1000")
            assert first["data"]["version"] == 0 and first["data"]["history"] == []
            http.post(f"{game}/moves", json={"move": "place a4"}, headers=bearer(state, 0))
            change, after = events(stream, 2)
            assert change == {"event": "change", "id": "1",
                              "data": {"version": 1, "kind": "play", "move": "place a4"}}
            assert after["event"] == "state" and after["data"]["version"] == 1
            assert after["data"]["history"][0]["move"] == "place a4"
            http.post(f"{game}/resign", headers=bearer(state, 1))
            change, after = events(stream, 2)
            assert change["data"] == {"version": 2, "kind": "resign", "seat": 1}
            assert after["data"]["over"]
        refused(http.get("/api/games/nope/events"), 404, "no game 'nope'")


def test_a_dropped_stream_resumes_from_its_last_event_id(tmp_path):
    with serving(create_app(["random"], db=tmp_path / "g.sqlite3")) as url, \
            httpx.Client(base_url=url, timeout=10) as http:
        state = http.post("/api/games", json={"seats": SEATS}).json()
        game = f"/api/games/{state['id']}"
        for seat, move in enumerate(["place a4", "place d1", "place g4"]):
            http.post(f"{game}/moves", json={"move": move}, headers=bearer(state, seat % 2))
        with http.stream("GET", f"{game}/events", headers={"Last-Event-ID": "1"}) as stream:
            found = events(stream.iter_lines(), 3)
        assert [(e["event"], e["id"]) for e in found] == [("change", "2"), ("change", "3"),
                                                          ("state", "3")]
        assert [e["data"].get("move") for e in found[:2]] == ["place d1", "place g4"]
        with http.stream("GET", f"{game}/events", headers={"Last-Event-ID": "3"}) as stream:
            assert [(e["event"], e["id"]) for e in events(stream.iter_lines(), 1)] == \
                [("state", "3")]
        with http.stream("GET", f"{game}/events", headers={"Last-Event-ID": "77"}) as stream:
            found = events(stream.iter_lines(), 1)
            assert found[0]["data"]["version"] == 3     # an id past the game's: afresh
        refused(http.get(f"{game}/events", headers={"Last-Event-ID": "x"}), 400,
                "Last-Event-ID 'x' is no event's id")


# ---- restarts of the real command --------------------------------------------------------

SLOW = textwrap.dedent("""
    import os, time

    class Slow:
        '''Thinks until its gate file exists (30 s at most).'''
        def __init__(self, gate=""):
            self.gate = gate
        def select(self, game):
            deadline = time.monotonic() + 30
            while not os.path.exists(self.gate) and time.monotonic() < deadline:
                time.sleep(0.01)
            return game.legal_moves()[-1]
""")


def comparable(state):
    return {k: v for k, v in state.items() if k != "thinking_seconds"}


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL])
@pytest.mark.slow
def test_a_restart_changes_nothing(tmp_path, stop):
    (tmp_path / "agents.py").write_text(SLOW)
    gate = tmp_path / "gate"
    slow = f"py:{tmp_path / 'agents.py'}:Slow?gate={gate}"
    args = ["--port", str(free_port()), "--db", str(tmp_path / "games.sqlite3"),
            "--agents", f"greedy,{slow}"]
    process, url = serve_command(*args)
    try:
        with httpx.Client(base_url=url, timeout=10) as http:
            agent = http.get("/api/info").json()["agents"][1]
            people = http.post("/api/games", json={"seats": SEATS, "seed": 3}).json()
            versus = http.post("/api/games", json={"seats": ["person", "greedy"]}).json()
            waiting = http.post("/api/games", json={"seats": ["person", agent]}).json()
            rng = random.Random(1)
            for _ in range(12):
                now = http.get(f"/api/games/{people['id']}").json()
                http.post(f"/api/games/{people['id']}/moves",
                          json={"move": rng.choice(now["legal_moves"])["move"]},
                          headers=bearer(people, now["current_player"]))
            for move in ("place a4", "place d1"):
                http.post(f"/api/games/{versus['id']}/moves", json={"move": move},
                          headers=bearer(versus, 0))
                http.get(f"/api/games/{versus['id']}", params={"wait": 10})
            http.post(f"/api/games/{waiting['id']}/moves", json={"move": "place a4"},
                      headers=bearer(waiting, 0))               # Slow thinks, gate shut
            ids = [people["id"], versus["id"], waiting["id"]]
            before = {i: http.get(f"/api/games/{i}").json() for i in ids}
            assert before[waiting["id"]]["thinking"]
    finally:
        process.send_signal(stop)
        process.wait(20)
    if stop == signal.SIGTERM:          # stopped cleanly (uvicorn raises SIGTERM again)
        assert process.returncode == -signal.SIGTERM
        assert "Traceback" not in process.stderr.read()
    process, url = serve_command(*args)
    try:
        assert "games kept in" in process.stdout.readline()
        assert "3 unfinished games served again" in process.stdout.readline()
        with httpx.Client(base_url=url, timeout=10) as http:
            after = {i: http.get(f"/api/games/{i}").json() for i in ids}
            assert {i: comparable(s) for i, s in after.items()} == \
                {i: comparable(s) for i, s in before.items()}
            gate.touch()                # the agent to move thinks again, and moves
            moved = http.get(f"/api/games/{waiting['id']}", params={"wait": 20}).json()
            assert [h["by"] for h in moved["history"]] == ["person", "agent"]
            assert moved["to_move"] == "person"
            # the seats' links still act: the tokens were kept (hashed)
            now = after[people["id"]]
            assert http.post(f"/api/games/{people['id']}/moves",
                             json={"move": now["legal_moves"][0]["move"]},
                             headers=bearer(people, now["current_player"])).status_code == 200
            assert http.post(f"/api/games/{people['id']}/resign",
                             headers=bearer(versus, 0)).status_code == 403
            record = http.get(f"/api/games/{versus['id']}/record").content
        (tmp_path / "versus.jsonl").write_bytes(record)
        result = CliRunner().invoke(verify, [str(tmp_path / "versus.jsonl")])
        assert result.exit_code == 0 and "0 problems" in result.output, result.output
        assert records.read_game(tmp_path / "versus.jsonl", 1)["moves"][:4] == \
            [h["move"] for h in after[versus["id"]]["history"]]
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(20)


def test_an_agent_no_longer_served_forfeits_after_a_restart(tmp_path):
    path = tmp_path / "games.sqlite3"
    with TestClient(create_app(["random", "greedy"], db=path)) as client:
        state = new(client, seats=["person", "greedy"])
    with TestClient(create_app(["random"], db=path)) as client:
        after = client.get(f"/api/games/{state['id']}").json()
    assert after["over"] and after["seats"] == ["person", "greedy"]
    assert after["forfeit"] == {"seat": 1, "reason": "agent greedy is not served here since "
                                                     "the server restarted"}


# ---- the command's new options -----------------------------------------------------------

@pytest.mark.slow
def test_the_database_by_default_and_in_memory(tmp_path):
    process, url = serve_command("--port", "0", "--agents", "random", data=tmp_path)
    try:
        line = process.stdout.readline()
        assert f"games kept in {tmp_path / 'photocore' / 'serve.sqlite3'}" in line
        assert httpx.get(f"{url}/api/info").json()["saved"] is True
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0
    process, url = serve_command("--port", "0", "--db", ":memory:", data=tmp_path)
    try:
        assert "in memory only" in process.stdout.readline()
        assert httpx.get(f"{url}/api/info").json()["saved"] is False
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0


@pytest.mark.slow
def test_allowed_hosts_off_loopback(tmp_path):
    process, url = serve_command("--host", "0.0.0.0", "--port", "0", "--db", ":memory:",
                                 "--allowed-hosts", "play.example.org")
    try:
        url = url.replace("0.0.0.0", "127.0.0.1")
        ok = httpx.get(f"{url}/api/info", headers={"host": "play.example.org"})
        assert ok.status_code == 200
        refused(httpx.get(f"{url}/api/info", headers={"host": "evil.example"}), 400,
                "not served here (only play.example.org)")
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0


@pytest.mark.parametrize("args, words", [
    (["--keep", "-1"], ["--keep", "0<=x<=36500"]),
    (["--keep", "nan"], ["--keep", "not a finite number"]),
    (["--allowed-hosts", "a.example,,b"], ["--allowed-hosts", "give host names"]),
    (["--db", ":memory:", "--backup", "x"], ["--db", "nothing to back up"]),
])
def test_the_new_options_refuse_bad_values(args, words):
    result = CliRunner().invoke(serve, args)
    assert result.exit_code == 2, result.output
    for word in words:
        assert word in result.output


# ---- every database is a file, not a path (docs/hardening.md) ----------------------------

def one_line(result):
    """A refusal of the command: exit 1, one line, no traceback; its text."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    return result.output


def second_server(*args, cwd=None):
    """`photocore serve ARGS` expected to refuse to start: its exit status and output (a
    server that starts anyway is stopped after 20 s, and fails the test)."""
    try:
        done = subprocess.run([sys.executable, "-c", "from photocore.cli.serve import serve; "
                               "serve()", "--port", "0", "--agents", "random", *args],
                              capture_output=True, text=True, timeout=20, cwd=cwd)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"photocore serve {args} started: not refused") from None
    said = (done.stdout + done.stderr).strip()
    assert done.returncode == 1 and len(said.splitlines()) == 1 and "Traceback" not in said
    return said


def playing(path):
    """A server on `path` (a child process) with a game of two people, two moves in: the
    process, its URL, the game."""
    process, url = serve_command("--port", "0", "--agents", "random", "--db", str(path))
    state = httpx.post(f"{url}/api/games", json={"seats": SEATS}).json()
    for seat, move in ((0, "place a4"), (1, "place d1")):
        assert httpx.post(f"{url}/api/games/{state['id']}/moves", json={"move": move},
                          headers=bearer(state, seat)).status_code == 200
    return process, url, state


def third_move(url, state):
    """A third move made in the game: its status code."""
    move = httpx.get(f"{url}/api/games/{state['id']}").json()["legal_moves"][0]["move"]
    return httpx.post(f"{url}/api/games/{state['id']}/moves", json={"move": move},
                      headers=bearer(state, 0)).status_code


@pytest.mark.slow
def test_a_backup_onto_the_live_database_or_its_files_is_refused(tmp_path):
    path = tmp_path / "db.sqlite3"
    process, url, state = playing(path)
    try:
        (tmp_path / "link.sqlite3").symlink_to(path)
        os.link(f"{path}-wal", tmp_path / "hard-wal")
        targets = [path, *(f"{path}{own}" for own in COMPANIONS), tmp_path / "link.sqlite3",
                   tmp_path / "hard-wal", tmp_path / "." / "db.sqlite3-lock"]
        def files():            # the -shm is memory shared by the readers: its inode only
            return {p.name: (p.stat().st_ino, p.name.endswith("-shm") or p.read_bytes())
                    for p in tmp_path.iterdir() if p.name.startswith("db.")}
        before = files()
        for target in targets:
            said = one_line(CliRunner().invoke(serve, ["--db", str(path), "--backup",
                                                       str(target)]))
            assert "it is the database itself" in said or "file: choose another" in said, said
            assert files() == before
        assert not (tmp_path / "db.sqlite3-journal").exists()
        assert third_move(url, state) == 200
        # the lock is whole: a second server is refused
        assert "in use by another photocore serve" in second_server("--db", str(path))
    finally:
        process.kill()                  # kill -9: its last moves are in the -wal only
        process.wait(20)
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db = Database(path)
    assert len(db.load(state["id"]).changes) == 3
    db.close()


@pytest.mark.slow
def test_a_second_server_through_a_link_or_a_hard_link_is_refused(tmp_path):
    path = tmp_path / "db.sqlite3"
    process, url, state = playing(path)
    try:
        (tmp_path / "soft.sqlite3").symlink_to(path)
        (tmp_path / "folder").mkdir()
        (tmp_path / "folder" / "up.sqlite3").symlink_to("../soft.sqlite3")  # two links
        for link in (tmp_path / "soft.sqlite3", tmp_path / "folder" / "up.sqlite3"):
            assert "in use by another photocore serve" in second_server("--db", str(link))
            with pytest.raises(DatabaseError, match="in use by another photocore serve"):
                Database(link)
        os.link(path, tmp_path / "hard.sqlite3")
        said = second_server("--db", str(tmp_path / "hard.sqlite3"))
        assert "hard links" in said
        assert not os.path.exists(tmp_path / "hard.sqlite3-wal")
        assert third_move(url, state) == 200
    finally:
        process.kill()
        process.wait(20)


def test_the_lock_on_the_file_is_not_sqlites(tmp_path):
    """The server's flock() on the database file and SQLite's POSIX locks on it are
    independent (Linux): while one process holds the flock, another writes through SQLite;
    while SQLite holds its write lock, the flock is taken."""
    path = tmp_path / "db.sqlite3"
    db = Database(path)
    other = sqlite3.connect(path, timeout=0)
    other.execute("BEGIN IMMEDIATE")            # SQLite's own write lock, another connection
    other.execute("INSERT INTO versions VALUES (100, 0)")
    other.execute("ROLLBACK")
    other.close()
    db.close()
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    held = Database(path, shared=True)          # (no flock: to show the flock alone)
    import fcntl
    with open(path, "rb") as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    held.close()
    other.execute("ROLLBACK")


OTHERS = {
    "another program's database with a games table":
        "CREATE TABLE games (id TEXT, score INTEGER); INSERT INTO games VALUES ('x', 1);",
    "another program's database": "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES "
                                  "('mine');",
    "an SQLite database that is another program's, in WAL mode":
        "PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1);",
    "a file that is no database": None,
}


def make_other(path, kind):
    if OTHERS[kind] is None:
        path.write_bytes(b"my own notes, not a database\n" * 200)
        return
    other = sqlite3.connect(path)
    other.executescript(OTHERS[kind])
    other.close()


def open_the_database(path):
    Database(path).close()


def open_the_app(path):
    create_app(["random"], db=path).state.store.close()


def open_by_the_command(path):
    try:
        said = second_server("--db", str(path))
    except AssertionError as e:
        raise AssertionError(f"the command served it: {e}") from None
    raise DatabaseError(said)


def back_it_up(path):
    target = path.parent / "backup.sqlite3"
    result = CliRunner().invoke(serve, ["--db", str(path), "--backup", str(target)])
    if result.exit_code != 0:
        raise DatabaseError(one_line(result))
    assert target.exists()


# each place in src/ that opens a Database (found by the test below), with how to open one
OPENERS = {
    "photocore.serve.database.Database": open_the_database,
    "photocore.serve.app.create_app": open_the_app,
    "photocore.cli.serve.serve": open_by_the_command,        # through create_app
    "photocore.cli.serve._backup": back_it_up,
    "photocore.serve.store.Store.__init__": None,             # Database(MEMORY) only
}


def database_openers():
    """The functions of photocore's source that call Database(...), by qualified name."""
    import ast
    import pathlib
    found = set()
    root = pathlib.Path(photocore.__file__).parent

    def visit(node, names, module):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, [*names, child.name], module)
                continue
            if (isinstance(child, ast.Call) and isinstance(child.func, ast.Name)
                    and child.func.id == "Database" and names):
                found.add(".".join([module, *names]))
            visit(child, names, module)

    for file in root.rglob("*.py"):
        module = ".".join(["photocore", *file.relative_to(root).with_suffix("").parts])
        visit(ast.parse(file.read_text()), [], module)
    return found


@pytest.mark.slow
def test_every_place_that_opens_a_database_is_tested():
    found = database_openers()
    print("opens a Database:", sorted(found))
    # cli.serve.serve reaches it through create_app: its own entry, tested by hand
    assert found | {"photocore.cli.serve.serve", "photocore.serve.database.Database"} == \
        set(OPENERS), "a new place opens a Database: add it to OPENERS"


def state_of(folder):
    """Every file of the folder: its bytes and times (a refusal leaves all as they were)."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())
            if p.is_file() and not p.name.startswith("backup")}


@pytest.mark.parametrize("opener", [name for name, how in OPENERS.items() if how])
@pytest.mark.parametrize("kind", list(OTHERS))
@pytest.mark.slow
def test_a_file_that_is_not_photocores_is_refused_untouched(tmp_path, opener, kind):
    path = tmp_path / "theirs.sqlite3"
    make_other(path, kind)
    before = state_of(tmp_path)
    with pytest.raises(DatabaseError, match="refused, left as it was"):
        OPENERS[opener](path)
    assert state_of(tmp_path) == before, "changed, or a file made beside it"
    assert not (tmp_path / "backup.sqlite3").exists()


@pytest.mark.parametrize("opener", [name for name, how in OPENERS.items() if how])
@pytest.mark.parametrize("how", ["a link", "a hard link"])
@pytest.mark.slow
def test_a_live_database_through_a_link_is_the_database(tmp_path, opener, how):
    path = tmp_path / "db.sqlite3"
    live = Database(path)
    a_game(live)
    alias = tmp_path / "alias.sqlite3"
    alias.symlink_to(path) if how == "a link" else os.link(path, alias)
    try:
        if opener == "photocore.cli.serve._backup" and how == "a link":
            back_it_up(alias)           # a backup reads beside the server: allowed
            copy = Database(tmp_path / "backup.sqlite3")
            assert copy.load("g1") is not None
            copy.close()
        else:
            with pytest.raises(DatabaseError, match="in use by another photocore serve|hard links"):
                OPENERS[opener](alias)
        live.add_change("g1", 1, {"kind": "play", "move": "place a4"}, 101.0, None)
    finally:
        live.close()
    assert not os.path.exists(f"{alias}-wal")


@pytest.mark.parametrize("opener", [name for name, how in OPENERS.items() if how])
@pytest.mark.parametrize("kind", ["a folder", "a character device", "a FIFO"])
@pytest.mark.slow
def test_a_database_that_is_no_file_is_refused(tmp_path, opener, kind):
    path = tmp_path / "db.sqlite3"
    if kind == "a folder":
        path.mkdir()
    elif kind == "a FIFO":
        os.mkfifo(path)
    else:
        if os.geteuid() != 0:
            pytest.skip("mknod needs root")
        os.mknod(path, 0o666 | stat.S_IFCHR, os.stat("/dev/null").st_rdev)
    with pytest.raises((DatabaseError, AssertionError)) as refused:
        OPENERS[opener](path)
    said = str(refused.value)
    assert "not a regular file" in said or "is a directory" in said, said
    assert not os.path.exists(f"{path}-lock") and not os.path.exists(f"{path}-wal")


def test_an_empty_file_is_a_new_database_marked_photocores(tmp_path):
    path = tmp_path / "new.sqlite3"
    path.touch()
    Database(path).close()
    assert sqlite3.connect(path).execute("PRAGMA application_id").fetchone()[0] == \
        APPLICATION_ID
    Database(path).close()


def test_names_of_no_user_and_uris_are_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args in (["--db", "~no_such_user_xyz/x.sqlite3", "--port", "0"],
                 ["--db", "~no_such_user_xyz/x.sqlite3", "--backup", "b.sqlite3"],
                 ["--db", "a.sqlite3", "--backup", "~no_such_user_xyz/b.sqlite3"]):
        Database("a.sqlite3").close()
        result = CliRunner().invoke(serve, args)
        assert result.exit_code in (1, 2) and "Traceback" not in result.output, result.output
        assert "no user 'no_such_user_xyz'" in result.output
        assert not os.path.exists("~no_such_user_xyz")
    # SQLite reads a name that begins with file: as a URI: here it is a file name
    name = "file:games.sqlite3?mode=memory"
    db = Database(name)
    a_game(db)
    assert db.file == str(tmp_path / name) and os.path.getsize(name) > 0
    db.close()
    assert Database(name).load("g1") is not None


@pytest.fixture
def open_folder():
    """A folder of the test's own that every user may enter (pytest's are root's only)."""
    import shutil
    import tempfile
    folder = pathlib.Path(tempfile.mkdtemp())
    yield folder
    for inside in folder.rglob("*"):
        if inside.is_dir():
            os.chmod(inside, 0o755)
    shutil.rmtree(folder)


def test_a_database_that_may_only_be_read_is_backed_up(open_folder):
    """As nobody (a forked child of this process: its modules are loaded), a database of
    root's, 0444 in a folder of 0555, is backed up: opened read-only."""
    if os.geteuid() != 0:
        pytest.skip("backs up as nobody: needs root")
    import uvicorn  # noqa: F401     (serve imports it: loaded before the child is nobody)
    tmp_path = open_folder
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "db.sqlite3"
    db = Database(path)
    a_game(db)
    db.close()
    out = tmp_path / "out"
    out.mkdir()
    for mode, p in ((0o777, out), (0o755, tmp_path), (0o444, path), (0o555, folder)):
        os.chmod(p, mode)
    for up in tmp_path.parents:
        if up.stat().st_mode & 0o005 != 0o005:
            pytest.skip(f"{up} is closed to nobody")
    before = state_of(folder)
    child = os.fork()
    if child == 0:                      # nobody: 0 when backed up
        code = 3
        try:
            os.setgid(65534)
            os.setuid(65534)
            result = CliRunner().invoke(serve, ["--db", str(path), "--backup",
                                                str(out / "copy.sqlite3")])
            print(result.output, flush=True)
            code = result.exit_code
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    os.chmod(folder, 0o755)
    assert os.waitstatus_to_exitcode(status) == 0
    assert state_of(folder) == before
    copy = Database(out / "copy.sqlite3")
    assert copy.load("g1") is not None
    copy.close()
