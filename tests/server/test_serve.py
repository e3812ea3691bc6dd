"""The JSON API of `photocore serve` (photocore.serve): every route, every bad input (a 4xx
with one clear message, never a 500), agents that are slow, crash or cheat, the bounded and
expiring store, the guards, and the command itself."""

import asyncio
import json
import math
import os
import pathlib
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

pytest.importorskip("fastapi")
from click.testing import CliRunner  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from support import alive  # noqa: E402

import photocore  # noqa: E402
from photocore import records  # noqa: E402
from photocore.cli.records import verify  # noqa: E402
from photocore.serve.app import MAX_BODY, Guard, create_app  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
AGENTS = textwrap.dedent("""
    import os, time

    class Slow:
        '''Thinks until its gate file exists (20 s at most).'''
        def __init__(self, gate=""):
            self.gate = gate
        def select(self, game):
            deadline = time.monotonic() + 20
            while self.gate and not os.path.exists(self.gate) and time.monotonic() < deadline:
                time.sleep(0.01)
            return game.legal_moves()[0]

    class Crash:
        def select(self, game):
            raise RuntimeError("out of cheese")

    class Cheat:
        def select(self, game):
            return "collect d4"
""")


@pytest.fixture(scope="module")
def agents_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("agents") / "agents.py"
    path.write_text(AGENTS)
    return path


@pytest.fixture(scope="module")
def served(agents_file):
    gate = agents_file.parent / "gate"
    return ["random", "greedy", f"py:{agents_file}:Slow?gate={gate}",
            f"py:{agents_file}:Crash", f"py:{agents_file}:Cheat"]


@pytest.fixture
def client(served):
    with TestClient(create_app(served, hint_simulations=200)) as c:
        yield c


@pytest.fixture
def gate(agents_file):
    path = agents_file.parent / "gate"
    path.unlink(missing_ok=True)
    yield path
    path.touch()            # no Slow agent waits after the test
    time.sleep(0.05)
    path.unlink(missing_ok=True)


def refused(response, status, *words):
    """The response is `status` with one line of error naming `words`."""
    assert response.status_code == status, response.text
    body = response.json()
    assert list(body) == ["error"] and "\n" not in body["error"], body
    for word in words:
        assert word in body["error"], body["error"]
    return body["error"]


TOKENS = {}         # game id -> {seat: token}, as creating the game answered


def new(client, **body):
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    state = response.json()
    TOKENS[state["id"]] = {invite["seat"]: invite["token"] for invite in state["invites"]}
    return state


def seated(game_id, seat=None):
    """The headers of a request that acts for `seat` of the game (default: its only, or
    first, person's seat)."""
    held = TOKENS.get(game_id, {})
    token = held[min(held) if seat is None else seat] if held else "none"
    return {"Authorization": f"Bearer {token}"}


def settled(client, game_id):
    """The game once its agents have moved."""
    response = client.get(f"/api/games/{game_id}", params={"wait": 10})
    assert response.status_code == 200, response.text
    state = response.json()
    assert not state["thinking"]
    return state


def act(client, game_id, action, seat=None, **kwargs):
    """POST /api/games/ID/ACTION for the seat (`seated`)."""
    return client.post(f"/api/games/{game_id}/{action}", headers=seated(game_id, seat),
                       **kwargs)


def move(client, game_id, text, seat=None, **extra):
    return client.post(f"/api/games/{game_id}/moves", json={"move": text, **extra},
                       headers=seated(game_id, seat))


def spec(served, name):
    return next(s for s in served if s.endswith(f":{name}") or f":{name}?" in s)


# ---- creating and reading games ----------------------------------------------------------

def test_info(client, served):
    info = client.get("/api/info").json()
    assert info["agents"][:2] == ["random", "greedy"] and len(info["agents"]) == len(served)
    assert info["players"] == list(photocore.facts.PLAYERS)
    assert info["options"]["fs"] == "fourth revolution + shade blocks"
    assert info["columns"] == ["seed", "small", "medium", "large"]
    assert info["games"] == 0 and info["max_games"] >= 1


def test_a_new_game_by_default(client):
    state = new(client)
    assert state["players"] == 2 and state["options"] == "-"
    assert state["seats"] == ["person", "random"]           # the first served agent
    assert state["to_move"] == "person" and state["current_player"] == 0
    assert state["position"] == photocore.Game().position()
    assert [m["move"] for m in state["legal_moves"]] == \
        [str(m) for m in photocore.Game().legal_moves()]
    assert all(m["id"] == int(photocore.Move.parse(m["move"])) for m in state["legal_moves"])
    assert state["history"] == [] and state["reply"] == [] and not state["can_undo"]
    assert state["status"].startswith("player 0 (person) to move")
    assert "svg" not in state
    again = client.get(f"/api/games/{state['id']}", params={"svg": "true"}).json()
    assert again["svg"].startswith("<svg") and again["position"] == state["position"]


def test_a_new_game_with_everything(client):
    state = new(client, players=3, options="fs", seats=["greedy", "person", "person"], seed=5)
    assert state["seats"] == ["greedy", "person", "person"] and state["options"] == "fs"
    state = settled(client, state["id"])           # greedy placed its tree first
    assert state["history"] == [{"move": state["history"][0]["move"], "player": 0,
                                 "by": "agent"}]
    assert state["reply"] == [0] and state["current_player"] == 1
    assert new(client, seats=["Person", "GREEDY"])["seats"] == ["person", "greedy"]


def test_a_game_from_a_position_and_moves(client):
    game = photocore.Game()
    for text in ("place a4", "place g1", "place d1", "place d7"):
        game.play(text)
    state = new(client, position=game.position(), seats=["person", "person"])
    assert state["position"] == game.position() and state["phase"] == "play"
    assert not state["recordable"]
    refused(client.get(f"/api/games/{state['id']}/record"), 409, "start position")
    state = new(client, moves=["place a4", "place g1", 3], seats=["person", "person"])
    assert [h["by"] for h in state["history"]] == ["given"] * 3
    assert [h["player"] for h in state["history"]] == [0, 1, 0]
    assert state["recordable"] and not state["can_undo"]


@pytest.mark.parametrize("body, words", [
    ('{"players": 2', ["not valid JSON"]),
    ("[1, 2]", ["JSON object"]),
    ('"players"', ["JSON object"]),
    ('{"players": 5}', ["players", "less than or equal to 4", "5"]),
    ('{"players": 1}', ["players", "greater than or equal to 2"]),
    ('{"players": "2"}', ["players", "integer"]),
    ('{"players": true}', ["players", "integer"]),
    ('{"players": 2.5}', ["players", "integer"]),
    ('{"options": "x"}', ["options 'x'", "expected - or the letters of the rules"]),
    ('{"colour": "red"}', ["unknown field 'colour'"]),
    ('{"seats": ["person"]}', ["seats must name 2 players", "got 1"]),
    ('{"seats": ["person", "human"]}', ["'human' is not allowed here", "allowed: random"]),
    ('{"seats": ["person", "mcts:5000"]}', ["'mcts:5000' is not allowed here"]),
    ('{"seats": ["person", "mcts:x"]}', ["budget"]),
    ('{"seats": ["person", "py:os:system"]}',
     ["not allowed here", "only the operator's command line"]),
    ('{"seats": ["person", "cmd:rm -rf /"]}', ["not allowed here", "run code on this machine"]),
    ('{"seats": ["random", "greedy"]}', ["at least one seat", "person"]),
    ('{"seats": "person"}', ["seats", "list"]),
    ('{"position": "garbage"}', ["position:", "players 'garbage'"]),
    ('{"position": "2 - 0 0 0 0 - - 0/2410/4432/- 0/2410/4432/- 0579", "players": 3}',
     ["players 3 disagrees with the position's 2"]),
    ('{"moves": ["place a4", "place a4"]}', ["moves[1]", "a4 is occupied"]),
    ('{"moves": ["fly"]}', ["moves[0]", "unknown move 'fly'"]),
    ('{"moves": [true]}', ["moves.0", "notation"]),
    ('{"seed": true}', ["seed", "valid integer"]),
    ('{"seed": 1.5}', ["seed", "valid integer"]),
])
def test_bad_new_games(client, body, words):
    response = client.post("/api/games", content=body,
                           headers={"content-type": "application/json"})
    refused(response, 400, *words)


def test_unknown_games_pages_and_methods(client):
    for method, path in [("GET", "/api/games/nope"), ("DELETE", "/api/games/nope"),
                         ("POST", "/api/games/nope/undo"), ("POST", "/api/games/nope/hint"),
                         ("POST", "/api/games/nope/stop"), ("GET", "/api/games/nope/record"),
                         ("GET", "/api/games/nope/replay"),
                         ("GET", "/api/games/nope/board.svg")]:
        refused(client.request(method, path), 404, "no game 'nope'", "expired")
    refused(move(client, "x" * 500, "end"), 404, "no game 'xxxx")
    refused(client.get("/api/nothing"), 404, "no such page: GET /api/nothing")
    refused(client.put("/api/games"), 405, "PUT is not allowed on /api/games")
    refused(client.get("/api/games/x", params={"wait": 99}), 400, "wait", "30")
    refused(client.get("/api/games/x", params={"svg": "maybe"}), 400, "svg", "boolean")


# ---- playing ---------------------------------------------------------------------------

def test_moves_by_notation_and_id_and_the_reply(client):
    game_id = new(client, seats=["person", "random"])["id"]
    response = move(client, game_id, "  Place A4 ")
    assert response.status_code == 200, response.text
    state = settled(client, game_id)
    assert state["history"][0] == {"move": "place a4", "player": 0, "by": "person"}
    assert state["history"][1]["by"] == "agent" and state["reply"] == [1]
    assert "random" in state["status"] or state["to_move"] == "person"
    legal = state["legal_moves"][0]
    assert move(client, game_id, legal["id"]).status_code == 200
    state = settled(client, game_id)
    assert state["history"][2] == {"move": legal["move"], "player": 0, "by": "person"}
    assert state["reply"] == [3]


@pytest.mark.parametrize("body, status, words", [
    ({"move": "collect d4"}, 400, ["illegal move collect d4", "place moves"]),
    ({"move": "place d4"}, 400, ["illegal move place d4"]),
    ({"move": "fly away"}, 400, ["malformed move 'fly away'", "unknown move 'fly'"]),
    ({"move": "plant a4"}, 400, ["malformed move", "plant takes 2 arguments"]),
    ({"move": "grow z9"}, 400, ["'z9' is not a cell"]),
    ({"move": ""}, 400, ["empty move"]),
    ({"move": 890}, 400, ["malformed move 890", "0 to 889"]),
    ({"move": -1}, 400, ["malformed move -1"]),
    ({"move": True}, 400, ["move:", "notation", "action id"]),
    ({"move": 1.5}, 400, ["move:", "action id"]),
    ({"move": ["place a4"]}, 400, ["move:"]),
    ({"move": None}, 400, ["move:"]),
    ({}, 400, ["missing field 'move'"]),
    ({"move": "place a4", "player": 0}, 400, ["unknown field 'player'"]),
    ({"move": "place a4", "ply": 3}, 409, ["at ply 0, not 3", "reload"]),
])
def test_bad_moves(client, body, status, words):
    state = new(client)
    response = client.post(f"/api/games/{state['id']}/moves", json=body,
                           headers=seated(state["id"]))
    refused(response, status, *words)
    assert client.get(f"/api/games/{state['id']}").json()["position"] == state["position"]


def test_a_long_move_is_echoed_once_and_cut(client):
    game_id = new(client)["id"]
    error = refused(move(client, game_id, "x" * 200_000), 400, "malformed move",
                    "200,000 chars", "unknown move (expected")
    assert len(error) < 300 and error.count("x" * 40) == 1


def test_bad_bodies(client):
    game_id = new(client)["id"]
    url = f"/api/games/{game_id}/moves"
    refused(client.post(url, content="{", headers={"content-type": "application/json"}),
            400, "not valid JSON")
    refused(client.post(url), 400, "JSON object")
    refused(client.post(url, content=b"\xff\xfe", headers={"content-type": "application/json"}),
            400, "JSON")
    refused(client.post(url, content=" " * (MAX_BODY + 1),
                        headers={"content-type": "application/json"}), 413, "KiB")
    refused(act(client, game_id, "hint", json={"top": 0}), 400, "top")
    refused(act(client, game_id, "hint", json={"top": 11}), 400, "top")
    refused(act(client, game_id, "resign", json={"player": 9}), 400, "player")


@pytest.mark.parametrize("body, reason", [
    (b'{"seed": ' + b"9" * 5000 + b"}", "field 'seed': an integer of 5,000 digits is too long"),
    (b'{"seats": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
    (b'{"options": "\xff"}', "not UTF-8: invalid start byte at byte 13"),
    (b'{"seed": 1e400}', "field 'seed': 1e400 is not a finite number"),
    (b'{"seed": NaN}', "field 'seed': NaN is not JSON"),
    (b'{"seed": 1, "seed": 2}', "field 'seed' is written twice in one object"),
])
def test_a_body_that_cannot_be_read_is_refused_saying_why(client, body, reason):
    # FastAPI says "There was an error parsing the body" of all of these
    for url in ("/api/games", f"/api/games/{new(client)['id']}/moves"):
        field = b"move" if url.endswith("moves") else b"seed"
        refused(client.post(url, content=body.replace(b"seed", field),
                            headers={"content-type": "application/json"}),
                400, f"the body is not valid JSON ({reason.replace('seed', field.decode())})")


def test_undo_takes_back_the_person_and_the_reply(client):
    game_id = new(client, seats=["person", "greedy"])["id"]
    refused(act(client, game_id, "undo"), 409, "nothing to undo")
    move(client, game_id, "place a4")
    first = settled(client, game_id)
    move(client, game_id, first["legal_moves"][0]["move"])
    second = settled(client, game_id)
    assert len(second["history"]) == 4 and second["can_undo"]
    state = act(client, game_id, "undo").json()
    assert state["position"] == first["position"] and len(state["history"]) == 2
    state = act(client, game_id, "undo").json()
    assert state["history"] == [] and not state["can_undo"]
    refused(act(client, game_id, "undo"), 409, "nothing to undo")


def test_hint(client):
    game_id = new(client)["id"]
    response = act(client, game_id, "hint", json={"top": 4})
    assert response.status_code == 200, response.text
    found = response.json()
    assert found["ply"] == 0 and found["budget"] == 200 and "Monte Carlo" in found["by"]
    legal = {m["move"] for m in client.get(f"/api/games/{game_id}").json()["legal_moves"]}
    assert len(found["moves"]) == 4 and {m["move"] for m in found["moves"]} <= legal
    assert all(-1 <= m["value"] <= 1 and m["playouts"] > 0 for m in found["moves"])
    assert act(client, game_id, "hint").json()["moves"]   # the body is optional


def test_resign(client):
    game_id = new(client, seats=["person", "random"])["id"]
    refused(act(client, game_id, "resign", json={"player": 1}), 403,
            "this link is player 0's", "cannot resign for player 1")
    state = act(client, game_id, "resign").json()
    assert state["over"] and state["winners"] == [1] and state["to_move"] is None
    assert state["forfeit"] == {"seat": 0, "reason": "resigned"}
    assert state["status"] == "Game over: player 0 (person) resigned: player 1 wins"
    assert state["legal_moves"] == []
    refused(act(client, game_id, "resign"), 409, "game is over", "resigned")
    refused(move(client, game_id, "place a4"), 409, "cannot play", "resigned")
    refused(act(client, game_id, "undo"), 409, "resigned")
    refused(act(client, game_id, "hint"), 409, "game is over")
    rec = json.loads(client.get(f"/api/games/{game_id}/record").text)
    assert rec["metadata"]["forfeit"] == {"seat": 0, "reason": "resigned", "ply": 0}
    assert rec["result"] is None and records.from_record(rec).history == []


@pytest.mark.slow
def test_a_whole_game_record_and_replay(client, tmp_path):
    rng = random.Random(3)
    game_id = new(client, seats=["person", "random"])["id"]
    while not (state := settled(client, game_id))["over"]:
        assert state["to_move"] == "person"
        response = move(client, game_id, rng.choice(state["legal_moves"])["move"],
                        ply=len(state["history"]))
        assert response.status_code == 200, response.text
    winners = state["winners"]
    assert state["status"].startswith("Game over: " + photocore.render.winners_text(winners))
    refused(move(client, game_id, "end"), 409, "game is over")
    refused(act(client, game_id, "hint"), 409, "game is over")
    assert settled(client, game_id)["version"] == state["version"]
    response = client.get(f"/api/games/{game_id}/record")
    assert response.headers["content-type"] == "application/x-ndjson"
    assert "attachment" in response.headers["content-disposition"]
    path = tmp_path / "game.jsonl"
    path.write_bytes(response.content)
    result = CliRunner().invoke(verify, [str(path)])
    assert result.exit_code == 0 and "0 problems" in result.output, result.output
    rec = records.read_game(path, 1)
    game = records.from_record(rec)
    assert game.position() == state["position"] and list(game.winners()) == winners
    assert rec["metadata"]["agents"] == ["person", "random"]
    page = client.get(f"/api/games/{game_id}/replay")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "photocore replay: 2 players" in page.text
    svg = client.get(f"/api/games/{game_id}/board.svg")
    assert svg.headers["content-type"] == "image/svg+xml" and svg.text.startswith("<svg")
    assert client.delete(f"/api/games/{game_id}", headers=seated(game_id)).status_code == 204
    refused(client.get(f"/api/games/{game_id}"), 404)


# ---- agents that are slow, crash or cheat ------------------------------------------------

def test_a_slow_agent_thinks_can_be_stopped_and_blocks_nobody(client, served, gate):
    slow = new(client, seats=[spec(served, "Slow"), "person"])
    assert slow["thinking"] and slow["to_move"] == "agent"
    assert "is thinking" in slow["status"]
    refused(move(client, slow["id"], "place a4"), 409, "player 0's turn", "thinking")
    refused(act(client, slow["id"], "hint"), 409, "thinking")
    refused(act(client, slow["id"], "resume"), 409, "not stopped")
    start = time.monotonic()
    assert client.get(f"/api/games/{slow['id']}", params={"wait": 0.2}).json()["thinking"]
    assert 0.15 < time.monotonic() - start < 2
    # another game goes on meanwhile
    other = new(client, seats=["person", "random"])["id"]
    for _ in range(3):
        start = time.monotonic()
        state = settled(client, other)
        move(client, other, state["legal_moves"][0]["move"])
        assert time.monotonic() - start < 1
    state = act(client, slow["id"], "stop").json()
    assert state["stopped"] and not state["thinking"] and "stopped" in state["status"]
    refused(act(client, slow["id"], "stop"), 409, "no agent is thinking")
    refused(move(client, slow["id"], "place a4"), 409, "stopped")
    gate.touch()                                   # its move comes, and is dropped
    time.sleep(0.2)
    assert client.get(f"/api/games/{slow['id']}").json()["history"] == []
    state = act(client, slow["id"], "resume").json()
    assert not state["stopped"]
    state = settled(client, slow["id"])
    assert [h["by"] for h in state["history"]] == ["agent"] and state["to_move"] == "person"


def test_a_game_resigned_while_an_agent_thinks_never_changes(client, served, gate, tmp_path):
    game_id = new(client, seats=["person", spec(served, "Slow")])["id"]
    move(client, game_id, "place a4")              # Slow thinks until the gate opens
    worker = client.app.state.store.get(game_id).worker.thread
    resigned = act(client, game_id, "resign").json()
    assert resigned["over"] and not resigned["thinking"] and not resigned["can_undo"]
    assert settled(client, game_id)["version"] == resigned["version"]   # ?wait: at once
    gate.touch()
    worker.join(10)                                # its move comes, and is dropped
    assert not worker.is_alive()
    state = client.get(f"/api/games/{game_id}").json()
    assert [h["move"] for h in state["history"]] == ["place a4"]
    assert (state["version"], state["position"]) == (resigned["version"], resigned["position"])
    for action in ("undo", "stop", "resume", "resign"):
        refused(act(client, game_id, action), 409,
                f"cannot {action}: the game is over: player 0 resigned")
    path = tmp_path / "resigned.jsonl"
    path.write_bytes(client.get(f"/api/games/{game_id}/record").content)
    rec = records.read_game(path, 1)
    assert rec["moves"] == ["place a4"]
    assert rec["metadata"]["forfeit"] == {"seat": 0, "reason": "resigned", "ply": 1}
    result = CliRunner().invoke(verify, [str(path)])
    assert result.exit_code == 0 and "0 problems" in result.output, result.output


def test_stopped_agents_of_a_resigned_game_cannot_go_on(client, served, gate):
    game_id = new(client, seats=[spec(served, "Slow"), "person"])["id"]
    assert act(client, game_id, "stop").json()["stopped"]
    resigned = act(client, game_id, "resign").json()
    assert resigned["over"] and not resigned["stopped"]
    refused(act(client, game_id, "resume"), 409, "cannot resume", "resigned")
    assert client.get(f"/api/games/{game_id}").json()["version"] == resigned["version"]


def test_stop_is_refused_on_a_persons_turn_after_undo(client, served, gate):
    """Undo while an agent thinks leaves its worker finishing a dropped move: that is no
    agent thinking, so Stop is refused, and the agent's next turn is thought as usual."""
    game_id = new(client, seats=["person", spec(served, "Slow")])["id"]
    assert move(client, game_id, "place a4").json()["thinking"]
    state = act(client, game_id, "undo").json()
    assert state["history"] == [] and state["to_move"] == "person" and not state["thinking"]
    assert settled(client, game_id)["version"] == state["version"]  # nobody to wait for
    refused(act(client, game_id, "stop"), 409, "no agent is thinking")
    state = move(client, game_id, "place d1").json()
    assert state["thinking"] and not state["stopped"] and "is thinking" in state["status"]
    gate.touch()
    state = settled(client, game_id)
    assert [h["by"] for h in state["history"]] == ["person", "agent"]
    assert state["history"][0]["move"] == "place d1" and state["to_move"] == "person"


def test_a_game_over_by_its_end_never_changes(client):
    rng = random.Random(5)
    game = photocore.Game()
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    last = str(game.history[-1])
    given = [str(m) for m in game.history[:-1]]
    created = new(client, seats=["person", "person"], moves=given)
    game_id = created["id"]
    state = move(client, game_id, last, seat=created["current_player"]).json()
    assert state["over"] and not state["can_undo"]
    for action in ("undo", "stop", "resume", "resign"):
        refused(act(client, game_id, action), 409,
                f"cannot {action}: the game is over")
    assert client.get(f"/api/games/{game_id}").json()["version"] == state["version"]


@pytest.mark.parametrize("name, reason", [("Crash", "RuntimeError: out of cheese"),
                                          ("Cheat", "illegal move collect d4")])
def test_a_failing_agent_forfeits_and_the_server_goes_on(client, served, name, reason):
    game_id = new(client, seats=["person", spec(served, name)])["id"]
    move(client, game_id, "place a4")
    state = settled(client, game_id)
    assert state["over"] and state["winners"] == [0]
    assert state["forfeit"]["seat"] == 1 and reason in state["forfeit"]["reason"]
    assert state["status"].startswith("Game over: player 1") and "player 0 wins" in state["status"]
    rec = json.loads(client.get(f"/api/games/{game_id}/record").text)
    assert rec["metadata"]["forfeit"]["seat"] == 1 and rec["moves"] == ["place a4"]
    assert rec["metadata"]["forfeit"]["ply"] == 1
    records.from_record(rec)
    assert new(client)["to_move"] == "person"      # the server is still up


def _gone(pid, seconds=10):
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("end", ["resigned", "finished"])
@pytest.mark.slow
def test_an_engine_ends_with_its_game(end):
    # a served cmd: agent's program ends when its game does, not when it is deleted or
    # expires: else a client keeps --max-games programs running
    engine = ROOT / "examples" / "engines" / "simple_engine.py"
    app = create_app([f'cmd:"{sys.executable} {engine}"'])
    with TestClient(app) as client:
        rng = random.Random(5)
        game_id = new(client)["id"]
        state = settled(client, move(client, game_id, "place a4").json()["id"])
        pid = app.state.store.get(game_id).worker.players[1].pid
        assert alive(pid)
        if end == "resigned":
            act(client, game_id, "resign")
        while not state["over"] and end == "finished":
            move(client, game_id, rng.choice(state["legal_moves"])["move"])
            state = settled(client, game_id)
        assert client.get(f"/api/games/{game_id}").json()["over"]
        assert _gone(pid)
        assert client.get(f"/api/games/{game_id}/record").status_code == 200


def test_a_py_agent_is_shown_and_recorded_by_its_name_and_requested_by_its_label(tmp_path):
    # the name a py: class declares (or a cmd: engine announces) is what the page shows and
    # the record keeps, as in match tables; requests and the database keep the label
    path = tmp_path / "named.py"
    path.write_text("class Named:\n    name = 'Ada'\n"
                    "    def select(self, game):\n        return game.legal_moves()[0]\n")
    label, db = f"py:{path}:Named", tmp_path / "games.db"
    with TestClient(create_app([label], db=db)) as client:
        state = new(client, seats=["person", label])
        assert state["seats"] == ["person", label] and state["names"] == ["person", "Ada"]
        state = settled(client, move(client, state["id"], "place a4").json()["id"])
        assert state["history"][1]["by"] == "agent"
        act(client, state["id"], "resign")
        rec = json.loads(client.get(f"/api/games/{state['id']}/record").text)
        assert rec["metadata"]["agents"] == ["person", "Ada"]
    with TestClient(create_app([label], db=db)) as client:     # served again from the file
        again = client.get(f"/api/games/{state['id']}").json()
        assert again["seats"] == ["person", label] and again["names"] == ["person", "Ada"]
        assert "player 0 (person) resigned" in again["status"]


# ---- the store: bounded, expiring --------------------------------------------------------

def test_games_expire(served):
    app = create_app(served[:1], expire=60)
    store = app.state.store
    now = [1000.0]
    store.clock = lambda: now[0]
    with TestClient(app) as client:
        old = new(client)["id"]
        now[0] += 30
        kept = new(client)["id"]
        now[0] += 40                               # old: 70 s without a request
        refused(client.get(f"/api/games/{old}"), 404, "expired after 60 s")
        assert client.get(f"/api/games/{kept}").status_code == 200
        assert client.get("/api/info").json()["games"] == 1
        now[0] += 61
        refused(client.get(f"/api/games/{kept}"), 404)
        assert len(store) == 0


def test_the_store_is_bounded(served):
    with TestClient(create_app(served[:1], max_games=3)) as client:
        games = [new(client)["id"] for _ in range(3)]
        error = refused(client.post("/api/games", json={}), 503, "maximum of 3 games")
        assert "try again later" in error
        # a finished game makes room, and stays readable from the database
        act(client, games[1], "resign")
        fresh = new(client)["id"]
        assert client.get(f"/api/games/{games[1]}").json()["over"]
        assert client.get(f"/api/games/{games[1]}/record").status_code == 200
        assert {client.get(f"/api/games/{g}").status_code for g in (games[0], games[2],
                                                                     fresh)} == {200}
        assert client.get("/api/info").json()["games"] == 3


def test_one_client_cannot_fill_the_store(served):
    # each client holds at most max_games_per_client unfinished games; others still play
    app = create_app(served[:1], max_games=10, max_games_per_client=2)
    with TestClient(app, client=("192.0.2.1", 5000)) as greedy, \
            TestClient(app, client=("192.0.2.2", 5000)) as other:
        games = [new(greedy)["id"] for _ in range(2)]
        refused(greedy.post("/api/games", json={}), 429, "this client (192.0.2.1) plays 2 "
                "unfinished games, its most")
        assert new(other)["to_move"] == "person"
        act(greedy, games[0], "resign")       # a finished game does not count
        new(greedy)
        assert greedy.get("/api/info").json()["max_games_per_client"] == 2
    with pytest.raises(ValueError, match="max_games_per_client"):
        create_app(["random"], max_games_per_client=0)


def test_store_and_agents_refuse_bad_settings():
    with pytest.raises(ValueError, match="unknown agent"):
        create_app(["alphago"])
    with pytest.raises(ValueError, match="max_games"):
        create_app(["random"], max_games=0)
    for expire in (math.inf, math.nan, 0):
        with pytest.raises(ValueError, match="expire must be a finite number of seconds"):
            create_app(["random"], expire=expire)


# ---- the guards ------------------------------------------------------------------------

def test_other_sites_cannot_change_games(client):
    game_id = new(client)["id"]
    refused(client.post(f"/api/games/{game_id}/moves", json={"move": "place a4"},
                        headers={"origin": "http://evil.example"}), 403, "another site")
    refused(client.post("/api/games", json={}, headers={"origin": "null"}), 403)
    for origin in ("http://[", "http://[::1", "http://a]b"):     # not URLs: foreign too
        refused(client.post("/api/games", json={}, headers={"origin": origin}), 403,
                f"another site ({origin})")
    response = client.post(f"/api/games/{game_id}/moves", json={"move": "place a4"},
                           headers={"origin": "http://testserver", **seated(game_id)})
    assert response.status_code == 200
    assert client.get(f"/api/games/{game_id}",
                      headers={"origin": "http://evil.example"}).status_code == 200


def test_a_content_length_that_is_not_a_number(client):
    game_id = new(client)["id"]
    refused(client.post(f"/api/games/{game_id}/moves", content=b"{}",
                        headers={"content-length": b"12x"}), 400,
            "Content-Length '12x' is not a number of bytes")
    # "²" passes str.isdigit, not int(); the test client cannot send it, a server could
    sent = []

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "headers": [(b"content-length", b"\xb2")]}
    asyncio.run(Guard(client.app)(scope, None, send))
    assert sent[0]["status"] == 400 and b"not a number of bytes" in sent[1]["body"]


def test_only_the_served_host_names(served):
    app = create_app(served[:1], allowed_hosts=["127.0.0.1", "localhost"])
    with TestClient(app, base_url="http://evil.example") as client:
        refused(client.get("/api/info"), 400, "host 'evil.example'", "DNS rebinding")
    with TestClient(app, base_url="http://localhost:8000") as client:
        assert client.get("/api/info").status_code == 200


def test_the_page_and_the_schema(client):
    page = client.get("/")
    assert page.status_code == 200 and 'data-role="status"' in page.text
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert "http" not in page.text.replace('"http://', "")        # nothing from outside
    for name in ("play.js", "play.css", "games.js", "games.html"):
        assert client.get(f"/static/{name}").status_code == 200
    lobby = client.get("/games")
    assert 'data-role="games"' in lobby.text and "http" not in lobby.text
    assert "frame-ancestors 'none'" in lobby.headers["content-security-policy"]
    schema = client.get("/api/openapi.json").json()
    assert {"/api/games", "/api/games/{id}", "/api/games/{id}/moves", "/api/games/{id}/undo",
            "/api/games/{id}/hint", "/api/games/{id}/resign", "/api/games/{id}/stop",
            "/api/games/{id}/resume", "/api/games/{id}/record", "/api/games/{id}/events",
            "/api/info"} <= set(schema["paths"])
    assert schema["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    refused(client.get("/docs"), 404)              # Swagger UI would fetch from a CDN


@pytest.mark.slow
def test_concurrent_clients_keep_their_games_apart(client):
    """Threads playing their own games at once: each game holds its own moves."""
    errors = []

    def player(seed):
        rng = random.Random(seed)
        try:
            game_id = new(client, seats=["person", "random"])["id"]
            played = []
            for _ in range(15):
                state = settled(client, game_id)
                text = rng.choice(state["legal_moves"])["move"]
                assert move(client, game_id, text).status_code == 200
                played.append(text)
            mine = [h["move"] for h in settled(client, game_id)["history"] if h["by"] == "person"]
            assert mine == played
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=player, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# ---- the command -----------------------------------------------------------------------

def serve_process(data, *args, setup=""):
    """`photocore serve --port 0 ARGS` in a child process; its user data folder (the
    default --db's) is `data`."""
    code = f"{setup}from photocore.cli.serve import serve; serve()"
    return subprocess.Popen([sys.executable, "-c", code, "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1",
                                 "XDG_DATA_HOME": str(data)})


@pytest.mark.slow
def test_the_serve_command(served, tmp_path):
    import httpx
    process = serve_process(tmp_path, "--agents", "greedy,random")
    try:
        line = process.stdout.readline()
        assert "photocore serve: open http://127.0.0.1:" in line and "greedy, random" in line
        url = line.split("open ")[1].split()[0]
        with httpx.Client(base_url=url, timeout=10) as http:
            assert http.get("api/info").json()["agents"] == ["greedy", "random"]
            state = http.post("api/games", json={}).json()
            assert state["seats"] == ["person", "greedy"]
            assert http.get("api/info", headers={"host": "evil.example"}).status_code == 400
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0
    assert "Traceback" not in process.stderr.read()


@pytest.mark.slow
def test_the_serve_command_warns_off_loopback(tmp_path):
    import httpx
    process = serve_process(tmp_path, "--host", "0.0.0.0", "--agents", "random")
    try:
        line = process.stdout.readline()
        assert "http://0.0.0.0:" in line
        assert "not on the loopback interface" in process.stderr.readline()
        url = line.split("open ")[1].split()[0].replace("0.0.0.0", "127.0.0.1")
        # no host check off loopback: any name is answered
        assert httpx.get(url + "api/info", headers={"host": "example.org"}).status_code == 200
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0


@pytest.mark.slow
def test_the_serve_command_answers_at_the_loopback_address_it_was_given(tmp_path):
    import httpx
    process = serve_process(tmp_path, "--host", "127.0.0.2", "--agents", "random")
    try:
        line = process.stdout.readline()
        assert "http://127.0.0.2:" in line
        url = line.split("open ")[1].split()[0]
        assert httpx.get(url + "api/info").status_code == 200
        response = httpx.get(url + "api/info", headers={"host": "localhost"})
        assert response.status_code == 200
        response = httpx.get(url + "api/info", headers={"host": "evil.example"})
        assert response.status_code == 400 and "127.0.0.2" in response.json()["error"]
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0


@pytest.mark.slow
def test_a_client_has_a_while_to_send_its_request_then_is_cut_off(tmp_path):
    # uvicorn waits for a request's headers for ever: connections sending nothing, or a
    # byte now and then, held the server's sockets (here the deadline is 0.5 s, not 10)
    import socket
    setup = "from photocore.serve import http; http.Protocol.request_timeout = 0.5; "
    process = serve_process(tmp_path, "--agents", "random", setup=setup)
    try:
        host, port = process.stdout.readline().split("http://")[1].split("/")[0].split(":")
        silent, trickle = (socket.create_connection((host, int(port)), timeout=10)
                           for _ in range(2))
        start = time.monotonic()
        with pytest.raises(OSError):           # the server closes it: a broken pipe
            for byte in b"GET /api/info HTTP/1.1\r\n" * 10:
                trickle.sendall(bytes([byte]))
                time.sleep(0.05)
        assert time.monotonic() - start < 5
        assert silent.recv(100) == b""         # closed
        request = b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        prompt = socket.create_connection((host, int(port)), timeout=10)
        with prompt.makefile("rb") as answers:
            for _ in range(2):                  # kept alive: a new deadline per request
                prompt.sendall(request)
                assert answers.readline().startswith(b"HTTP/1.1 200")
                length = next(int(line.split(b":")[1]) for line in answers
                              if line.lower().startswith(b"content-length:"))
                while answers.readline() != b"\r\n":
                    pass
                assert json.loads(answers.read(length))["agents"] == ["random"]
                time.sleep(0.3)
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.slow
def test_no_engine_outlives_the_serve_command(tmp_path):
    # a served engine that ignores the end of its input and SIGTERM, started by a game's
    # worker thread, dies with the server even by kill -9
    import httpx
    script = tmp_path / "stubborn.py"
    script.write_text(textwrap.dedent(f'''
        import os, signal, sys, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        with open({str(tmp_path / "pid")!r}, "w") as f:
            f.write(str(os.getpid()))
        legal = []
        for line in sys.stdin:
            word, _, rest = line.strip().partition(" ")
            if word == "photocore":
                print("ready name=stubborn", flush=True)
            elif word == "legal":
                legal = rest.split(",")
            elif word == "go":
                print("move", legal[0], flush=True)
        while True:
            time.sleep(1)
    '''))
    process = serve_process(tmp_path, "--agents", f'cmd:"{sys.executable} {script}"')
    try:
        url = process.stdout.readline().split("open ")[1].split()[0]
        agent = httpx.get(url + "api/info").json()["agents"][0]
        state = httpx.post(url + "api/games", json={"seats": [agent, "person"]}).json()
        state = httpx.get(url + f"api/games/{state['id']}", params={"wait": 10}).json()
        assert state["to_move"] == "person"
        pid = int((tmp_path / "pid").read_text())
        assert alive(pid)
    finally:
        process.kill()
        process.wait(10)
    assert _gone(pid)


@pytest.mark.parametrize("host", ["127.1", "0x7f000001", "::ffff:127.0.0.1"])
@pytest.mark.slow
def test_loopback_however_written_keeps_the_rebinding_guard(host, tmp_path):
    import httpx
    process = serve_process(tmp_path, "--host", host, "--agents", "random")
    try:
        line = process.stdout.readline()
        url = line.split("open ")[1].split()[0]
        assert httpx.get(url + "api/info").status_code == 200
        response = httpx.get(url + "api/info", headers={"host": "attacker.example:18007"})
        assert response.status_code == 400 and "DNS rebinding" in response.json()["error"]
        # the address to open, as a browser reads it
        assert url.startswith(("http://127.0.0.1:", "http://[::ffff:127.0.0.1]:")), line
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0
    assert "not on the loopback interface" not in process.stderr.read()


@pytest.mark.parametrize("args, words", [
    (["--host", ""], ["--host", "give an address or a name"]),
    (["--host", "no-such-host.invalid"], ["--host", "no address this machine can listen on"]),
    (["--expire", "1e307"], ["--expire", "not in the range"]),
    (["--agents", "alphago"], ["--agents", "unknown agent 'alphago'"]),
    (["--expire", "inf"], ["--expire", "inf is not in the range 1<=x<=525600"]),
    (["--expire", "nan"], ["--expire", "'nan' is not a finite number"]),
    (["--expire", "0.5"], ["--expire", "1<=x<=525600"]),
    (["--expire", "1e308"], ["--expire", "1<=x<=525600"]),
    (["--agents", "py:nowhere.py:Agent"], ["--agents", "cannot import"]),
    (["--port", "99999"], ["--port"]),
    (["--max-games-per-client", "0"], ["--max-games-per-client", "x>=1"]),
])
def test_the_serve_command_refuses_bad_options(args, words):
    from photocore.cli.serve import serve
    result = CliRunner().invoke(serve, args)
    assert result.exit_code == 2
    for word in words:
        assert word in result.output


def test_a_refused_click_is_told_until_the_game_moves_on():
    # the page kept "Not your turn: player 1 ..." in red while its status said player 0 (its
    # own seat) was to move. Run in node (tests/play_page.js); the browser tests need
    # Chromium
    import shutil
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: tests/server/test_serve_browser.py checks the page")
    here = pathlib.Path(__file__).resolve().parents[1]
    # the installed package's page (a wheel's run has no src/)
    page = pathlib.Path(photocore.__file__).parent / "serve" / "static" / "play.js"
    done = subprocess.run([node, str(here / "play_page.js"), str(page)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    refused, kept, after, status = json.loads(done.stdout)
    assert refused == kept == "Not your turn: player 1 to move"
    assert (after, status) == ("", "player 0 to move")
