"""A served game against a hostile world (issue 45): a failed write in the served store
never stops a game (the class test finds every write of the serve package in its source
and makes each fail), a finished game kept with --keep 0 stays readable, event streams are
capped per client and counted at once, and a damaged row is set aside."""

import ast
import asyncio
import errno
import inspect
import logging
import pathlib
import random
import re
import sqlite3
import subprocess
import textwrap
import threading
import time

import pytest

pytest.importorskip("fastapi")
import httpx  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from served import serving  # noqa: E402

from photocore.serve import app as served_app  # noqa: E402
from photocore.serve import events as served_events  # noqa: E402
from photocore.serve import view  # noqa: E402
from photocore.serve.app import create_app  # noqa: E402
from photocore.serve.database import Database, DatabaseError, GameRow  # noqa: E402

SERVE = pathlib.Path(served_app.__file__).parent
AGENTS = textwrap.dedent("""
    import os, time

    class Gated:
        '''Plays its first legal move once its gate file exists (20 s at most).'''
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
""")


# ---- the writes of the serve package, found in its source --------------------------------

def writing_methods():
    """Database's public methods that write: those whose SQL inserts, updates, deletes or
    creates (read from their source)."""
    found = set()
    for name, value in vars(Database).items():
        if name.startswith("_") or not callable(value):
            continue
        if re.search(r"\b(INSERT|UPDATE|DELETE|CREATE)\b", inspect.getsource(value)):
            found.add(name)
    return found


def _calls(path, want):
    """(class.function, name) for each call in `path` that `want(call)` names."""
    tree = ast.parse(path.read_text())
    found = set()

    def visit(node, where):
        for child in ast.iter_child_nodes(node):
            inner = where
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                inner = f"{where}.{child.name}" if where else child.name
            if isinstance(child, ast.Call) and (name := want(child)):
                found.add((inner, name))
            visit(child, inner)

    visit(tree, "")
    return found


def database_writes():
    """Every call of a writing method on a database (`….db.M(…)`, `db.M(…)`) in the serve
    package outside database.py: (module, where, method)."""
    methods = writing_methods()

    def on_db(call):
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in methods):
            return None
        owner = func.value
        named = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
        return func.attr if named in ("db", "database") else None

    return {(path.stem, where, name) for path in sorted(SERVE.glob("*.py"))
            if path.name != "database.py" for where, name in _calls(path, on_db)}


def changes_saved():
    """The functions of the serve package that save a change (`….changed(CHANGE)`)."""
    def saves(call):
        func = call.func
        return ("change" if isinstance(func, ast.Attribute) and func.attr == "changed"
                and call.args else None)

    return {where for path in (SERVE / "table.py", SERVE / "worker.py")
            for where, _ in _calls(path, saves)}


# what the class test drives for each: a write surface -> its scenario below
SURFACES = {
    ("store", "Store.create", "add_game"): "create",
    ("store", "Store.delete", "delete"): "delete",
    ("store", "Store.close", "touch"): "close",
    ("store", "Store._sweep", "delete"): "expire",
    ("store", "Store._sweep", "purge"): "purge",
    ("store", "Store._restore", "purge"): "restore",
    ("table", "Table.hint", "add_hint"): "hint",
    ("table", "Table.changed", "add_change"): "changes",
}
CHANGES = {
    "Table.play": "play", "Table.undo": "undo", "Table.resign": "resign",
    "Table.stop": "stop", "Table.resume": "resume", "Table.forfeit": "forfeit",
    "Worker._move_once": "agent",           # the agent's move and its forfeit
}


def test_the_class_test_knows_every_write_of_the_serve_package():
    assert writing_methods() == {"add_game", "add_change", "touch", "delete", "purge",
                                 "add_hint", "migrate_to"}
    found = database_writes()
    assert found == set(SURFACES), (
        f"writes not driven by test_a_failed_write_never_stops_a_served_game: "
        f"{sorted(found - set(SURFACES))}; gone: {sorted(set(SURFACES) - found)}")
    assert changes_saved() == set(CHANGES), sorted(changes_saved() ^ set(CHANGES))
    assert set(SCENARIOS) == (set(SURFACES.values()) | set(CHANGES.values())) - {"changes"}


# ---- the faults --------------------------------------------------------------------------

class Fault:
    """Makes `db`'s writing methods named in `failing` raise DatabaseError, as a full disk
    does (SQLite: 'database or disk is full'), on every thread, until cleared."""

    def __init__(self, db):
        self.failing = set()
        self.when = None
        self.calls = []
        for name in writing_methods():
            setattr(db, name, self._wrap(name, getattr(db, name)))

    def _wrap(self, name, method):
        def write(*args, **kwargs):
            if name in self.failing and (self.when is None or self.when(*args)):
                self.calls.append(name)
                raise DatabaseError("the games database test: database or disk is full")
            return method(*args, **kwargs)
        return write

    def __call__(self, *names, when=None):
        """Fails the writes `names` (those whose arguments `when(...)` picks, when given);
        none once called without."""
        self.failing, self.when = set(names), when
        self.calls = []


@pytest.fixture
def no_thread_dies(monkeypatch):
    died = []
    monkeypatch.setattr(threading, "excepthook", died.append)
    yield died
    assert died == [], [f"{d.thread.name}: {d.exc_value!r}" for d in died]


@pytest.fixture
def served(tmp_path):
    path = tmp_path / "agents.py"
    path.write_text(AGENTS)
    gate = tmp_path / "gate"
    return {"gate": gate, "agents": ["random", f"py:{path}:Gated?gate={gate}",
                                     f"py:{path}:Crash"]}


def agent(served, name):
    return next(a for a in served["agents"] if f":{name}" in a)


def tokens(state):
    return {i["seat"]: {"Authorization": f"Bearer {i['token']}"} for i in state["invites"]}


def created(client, **body):
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    state = response.json()
    return state["id"], tokens(state)


def answered(response, status, *words):
    assert response.status_code == status, response.text
    if status >= 400:
        error = response.json()["error"]
        assert "\n" not in error and all(w in error for w in words), error
    return response.json() if response.content and status != 204 else None


def held_as_saved(store, game_id):
    """The game in memory is the game the database holds."""
    table, saved = store.tables[game_id], store.db.load(game_id)
    assert saved is not None and saved.row.version == table.version
    assert saved.changes == table.log
    assert (saved.row.finished is not None) == table.session.over
    return table


def to_the_end(client, game_id, seats, served=None, seed=0):
    """Plays the game out (its people's random legal moves; the agents'), checks it ended
    and its database holds it whole; the final state."""
    if served is not None:
        served["gate"].touch()
    chosen = random.Random(seed)
    for _ in range(2000):
        state = answered(client.get(f"/api/games/{game_id}", params={"wait": 10}), 200)
        if state["over"]:
            break
        if state["stopped"]:
            answered(client.post(f"/api/games/{game_id}/resume", headers=seats[min(seats)]),
                     200)
        elif state["to_move"] == "person":
            pick = chosen.choice(state["legal_moves"])["move"]
            answered(client.post(f"/api/games/{game_id}/moves", json={"move": pick},
                                 headers=seats[state["current_player"]]), 200)
    assert state["over"], state["status"]
    held_as_saved(client.app.state.store, game_id)
    return state


def a_client(served, **options):
    app = create_app(served["agents"], hint_simulations=50, **options)
    fault = Fault(app.state.store.db)
    return app, fault


# ---- the scenarios: each makes one write fail, drives it, and clears the fault -----------

def person_changes(client, store, fault, served, action, **body):
    game_id, seats = created(client, seats=["person", "person"])
    answered(client.post(f"/api/games/{game_id}/moves", json={"move": "place a4"},
                         headers=seats[0]), 200)
    if action == "undo":
        answered(client.post(f"/api/games/{game_id}/moves", json={"move": "place d1"},
                             headers=seats[1]), 200)
    before = client.get(f"/api/games/{game_id}").json()
    fault("add_change")
    answered(client.post(f"/api/games/{game_id}/{action}", headers=seats[1], **body), 503,
             "disk is full")
    assert fault.calls == ["add_change"]
    fault()
    assert client.get(f"/api/games/{game_id}").json() == before
    held_as_saved(store, game_id)
    answered(client.post(f"/api/games/{game_id}/{action}", headers=seats[1], **body), 200)
    to_the_end(client, game_id, seats)


def play(client, store, fault, served):
    person_changes(client, store, fault, served, "moves", json={"move": "place d1"})


def undo(client, store, fault, served):
    person_changes(client, store, fault, served, "undo")


def resign(client, store, fault, served):
    person_changes(client, store, fault, served, "resign")


def stopped_game(client, served):
    served["gate"].unlink(missing_ok=True)
    game_id, seats = created(client, seats=["person", agent(served, "Gated")])
    answered(client.post(f"/api/games/{game_id}/moves", json={"move": "place a4"},
                         headers=seats[0]), 200)
    assert client.get(f"/api/games/{game_id}").json()["thinking"]
    return game_id, seats


def stop(client, store, fault, served):
    game_id, seats = stopped_game(client, served)
    fault("add_change")
    answered(client.post(f"/api/games/{game_id}/stop", headers=seats[0]), 503, "disk is full")
    fault()
    state = client.get(f"/api/games/{game_id}").json()
    assert state["thinking"] and not state["stopped"]
    held_as_saved(store, game_id)
    answered(client.post(f"/api/games/{game_id}/stop", headers=seats[0]), 200)
    to_the_end(client, game_id, seats, served)


def resume(client, store, fault, served):
    game_id, seats = stopped_game(client, served)
    answered(client.post(f"/api/games/{game_id}/stop", headers=seats[0]), 200)
    fault("add_change")
    answered(client.post(f"/api/games/{game_id}/resume", headers=seats[0]), 503)
    fault()
    assert client.get(f"/api/games/{game_id}").json()["stopped"]
    held_as_saved(store, game_id)
    to_the_end(client, game_id, seats, served)      # resumes


def agent_fails_to_save(client, store, fault, served, name, kind):
    """The agent's move (or forfeit) cannot be saved: the worker ends, nobody's thread
    dies, the state says why, a waiting GET is 503; once there is room it thinks again."""
    served["gate"].touch()
    game_id, seats = created(client, seats=["person", agent(served, name)])
    # the agent's change cannot be saved (the person's can)
    fault("add_change", when=lambda game, version, change, *times: change["kind"] == kind)
    answered(client.post(f"/api/games/{game_id}/moves", json={"move": "place a4"},
                         headers=seats[0]), 200)
    answered(client.get(f"/api/games/{game_id}", params={"wait": 10}), 503,
             "could not be saved", "disk is full")
    state = client.get(f"/api/games/{game_id}").json()      # asked: it thinks again (fails)
    deadline = time.monotonic() + 10
    while state["thinking"] and time.monotonic() < deadline:
        time.sleep(0.02)
        state = view.state(store.tables[game_id]).model_dump()
    assert not state["thinking"] and state["unsaved"] and "could not be saved" in state["status"]
    assert state["version"] == 1 and not state["over"]
    held_as_saved(store, game_id)
    assert fault.calls.count("add_change") >= 2
    fault()
    state = answered(client.get(f"/api/games/{game_id}", params={"wait": 10}), 200)
    assert state["version"] == 2 and state["unsaved"] is None
    assert store.tables[game_id].log[-1]["kind"] == kind
    if not state["over"]:
        to_the_end(client, game_id, seats, served)
    held_as_saved(store, game_id)


def agent_move(client, store, fault, served):
    agent_fails_to_save(client, store, fault, served, "Gated", "agent")


def agent_forfeit(client, store, fault, served):
    agent_fails_to_save(client, store, fault, served, "Crash", "forfeit")


def agent_(client, store, fault, served):
    agent_move(client, store, fault, served)
    agent_forfeit(client, store, fault, served)


def forfeit(client, store, fault, served, tmp_path, monkeypatch):
    """At a restart, an agent no longer served forfeits: that cannot be saved either."""
    path = tmp_path / "forfeit.sqlite3"
    with TestClient(create_app(served["agents"], db=path)) as first:
        game_id, seats = created(first, seats=["person", "random"])
    failing = []

    def full(*args, **kwargs):
        failing.append(args)
        raise DatabaseError("the games database: database or disk is full")

    with monkeypatch.context() as patched:
        patched.setattr(Database, "add_change", full)
        app = create_app(["greedy"], db=path)       # random is no longer served
    assert failing
    with TestClient(app) as client:
        state = client.get(f"/api/games/{game_id}").json()
        assert not state["over"]
        held_as_saved(app.state.store, game_id)
        answered(client.post(f"/api/games/{game_id}/moves", json={"move": "place a4"},
                             headers=seats[0]), 200)
        state = answered(client.get(f"/api/games/{game_id}", params={"wait": 10}), 200)
        assert state["over"] and state["forfeit"]["seat"] == 1      # forfeits when it moves
        held_as_saved(app.state.store, game_id)


def create(client, store, fault, served):
    games, count = len(store), store.db.count()
    fault("add_game")
    answered(client.post("/api/games", json={"seats": ["person", "random"]}), 503,
             "disk is full")
    fault()
    assert (len(store), store.db.count()) == (games, count)
    game_id, seats = created(client, seats=["person", "random"])
    to_the_end(client, game_id, seats)


def delete(client, store, fault, served):
    game_id, seats = created(client, seats=["person", "random"])
    fault("delete")
    answered(client.delete(f"/api/games/{game_id}", headers=seats[0]), 503)
    fault()
    held_as_saved(store, game_id)
    to_the_end(client, game_id, seats)
    answered(client.delete(f"/api/games/{game_id}", headers=seats[0]), 204)
    answered(client.get(f"/api/games/{game_id}"), 404, "deleted by one of its players")


def hint(client, store, fault, served):
    game_id, seats = created(client, seats=["person", "random"])
    fault("add_hint")
    answer = answered(client.post(f"/api/games/{game_id}/hint", headers=seats[0]), 200)
    assert answer["moves"] and fault.calls == ["add_hint"]      # answered, not kept
    fault()
    assert store.db.hint(game_id, 0, store.tables[game_id].session.game.position(), 3) is None
    assert client.post(f"/api/games/{game_id}/hint", headers=seats[0]).json() == answer
    assert store.db.hint(game_id, 0, store.tables[game_id].session.game.position(), 3)
    to_the_end(client, game_id, seats)


def moved_on(store, seconds):
    now = store.clock()
    store.clock = lambda: now + seconds


def expire(client, store, fault, served):
    game_id, seats = created(client, seats=["person", "random"])
    other, other_seats = created(client, seats=["person", "random"])
    fault("delete")
    moved_on(store, store.expire - 1)
    client.get(f"/api/games/{other}")
    moved_on(store, 2)                  # game_id is idle past expire; the sweep cannot write
    answered(client.get(f"/api/games/{other}"), 200)        # reading goes on
    assert fault.calls == ["delete"]
    held_as_saved(store, game_id)
    fault()
    moved_on(store, 2)
    answered(client.get(f"/api/games/{other}"), 200)
    answered(client.get(f"/api/games/{game_id}"), 404, f"expired after {store.expire:g} s")
    assert store.db.load(game_id) is None
    to_the_end(client, other, other_seats)


def purge(client, store, fault, served):
    game_id, seats = created(client, seats=["person", "random"])
    answered(client.post(f"/api/games/{game_id}/resign", headers=seats[0]), 200)
    other, other_seats = created(client, seats=["person", "random"])
    fault("purge")
    moved_on(store, store.expire - 1)
    client.get(f"/api/games/{other}")
    moved_on(store, store.keep + 2)     # game_id left memory; it cannot be purged
    answered(client.get(f"/api/games/{other}"), 200)
    assert "purge" in fault.calls and game_id not in store.tables
    answered(client.get(f"/api/games/{game_id}"), 200)      # from the database
    fault()
    moved_on(store, store.expire + 2)
    answered(client.get(f"/api/games/{other}"), 404, "expired")
    answered(client.get(f"/api/games/{game_id}"), 404, f"kept {store.keep:g} s")
    assert store.db.count() == 0


def restore(client, store, fault, served, tmp_path, monkeypatch):
    path = tmp_path / "restore.sqlite3"
    now = [time.time() - 120]
    app = create_app(served["agents"], db=path, expire=60)
    app.state.store.clock = lambda: now[0]
    with TestClient(app) as first:
        idle, seats = created(first, seats=["person", "random"])
    with monkeypatch.context() as patched:
        patched.setattr(Database, "purge", lambda *a, **k: (_ for _ in ()).throw(
            DatabaseError("the games database: database or disk is full")))
        app = create_app(served["agents"], db=path, expire=60)
    assert any("not deleted yet" in p and "disk is full" in p for p in app.state.store.problems)
    with TestClient(app) as client:          # served all the same; swept once it can write
        answered(client.get(f"/api/games/{idle}"), 404, "expired after 60 s")
        assert app.state.store.db.count() == 0


def close(client, store, fault, served, tmp_path, monkeypatch):
    path = tmp_path / "close.sqlite3"
    app = create_app(served["agents"], db=path)
    closing = Fault(app.state.store.db)
    with TestClient(app) as first:
        game_id, seats = created(first, seats=["person", "random"])
        closing("touch")
    assert closing.calls == ["touch"]       # the stop went on without it
    with TestClient(create_app(served["agents"], db=path)) as again:
        to_the_end(again, game_id, seats)


SCENARIOS = {
    "play": play, "undo": undo, "resign": resign, "stop": stop, "resume": resume,
    "agent": agent_, "forfeit": forfeit, "create": create, "delete": delete, "hint": hint,
    "expire": expire, "purge": purge, "restore": restore, "close": close,
}
ON_THEIR_OWN = {"forfeit", "restore", "close"}      # they make their own servers


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.slow
def test_a_failed_write_never_stops_a_served_game(scenario, served, no_thread_dies, tmp_path,
                                                  monkeypatch):
    """The class: each write of the serve package (found in its source by
    test_the_class_test_knows_every_write_of_the_serve_package) fails as on a full disk:
    no thread dies, the game in memory is the game saved (the change undone), the client
    is told (503, or the state says the agent's move could not be saved), and once the
    disk has room the game goes on to its end."""
    run = SCENARIOS[scenario]
    app, fault = a_client(served, expire=600, keep=30)
    with TestClient(app) as client:
        store = app.state.store
        if scenario in ON_THEIR_OWN:
            run(client, store, fault, served, tmp_path, monkeypatch)
        else:
            run(client, store, fault, served)


# ---- item 3 on a real full disk -----------------------------------------------------------

@pytest.fixture
def small_disk(tmp_path):
    """A folder on a 1 MiB tmpfs of its own (root only)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mount = ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)]
    try:
        import os
        if os.geteuid() != 0 or subprocess.run(mount, capture_output=True).returncode != 0:
            pytest.skip("mounting a tmpfs needs root")
    except OSError:
        pytest.skip("no mount here")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], check=True)


def fill(folder):
    """Fills the disk `folder` is on; the file that holds it."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 4096)
        except OSError as e:
            assert e.errno == errno.ENOSPC
    return filler


@pytest.mark.slow
def test_an_agents_move_on_a_really_full_disk_waits_and_goes_on(small_disk, served,
                                                                 no_thread_dies):
    app = create_app(served["agents"], db=small_disk / "games.sqlite3")
    served["gate"].unlink(missing_ok=True)
    with TestClient(app) as client:
        store = app.state.store
        game_id, seats = created(client, seats=["person", agent(served, "Gated")])
        answered(client.post(f"/api/games/{game_id}/moves", json={"move": "place a4"},
                             headers=seats[0]), 200)
        filler = fill(small_disk)                       # the disk fills as the agent thinks
        served["gate"].touch()
        answered(client.get(f"/api/games/{game_id}", params={"wait": 10}), 503,
                 "could not be saved")
        table = store.tables[game_id]
        while table.worker.thread is not None:
            time.sleep(0.02)
        state = view.state(table).model_dump()
        assert state["unsaved"] and not state["thinking"] and state["version"] == 1
        refused_move = client.post(f"/api/games/{game_id}/moves", json={"move": "place d1"},
                                   headers=seats[0])
        assert refused_move.status_code == 409      # not the person's turn: the agent's
        held_as_saved(store, game_id)
        filler.unlink()                                 # room again, and for a whole game
        subprocess.run(["mount", "-o", "remount,size=16m", str(small_disk)], check=True)
        state = answered(client.get(f"/api/games/{game_id}", params={"wait": 10}), 200)
        assert state["version"] == 2 and state["to_move"] == "person" and not state["unsaved"]
        to_the_end(client, game_id, seats, served)


# ---- item 4: --keep 0 --------------------------------------------------------------------

def test_keep_0_keeps_a_finished_game_readable_while_it_is_asked_for(served):
    app = create_app(served["agents"], keep=0, expire=600)
    store = app.state.store
    with TestClient(app) as client:
        game_id, seats = created(client, seats=["person", "random"])
        answered(client.post(f"/api/games/{game_id}/resign", headers=seats[0]), 200)
        for _ in range(3):                          # a second later, and again
            moved_on(store, 2)
            assert client.get(f"/api/games/{game_id}").json()["over"]
            answered(client.get(f"/api/games/{game_id}/record"), 200)
        moved_on(store, 601)                        # no request for `expire`: gone
        answered(client.get(f"/api/games/{game_id}"), 404,
                 "finished, it was kept 0 s after its end and while it was asked for")
        assert store.db.count() == 0
        answered(client.get("/api/games/never"), 404, "never created")


# ---- item 7: event streams ----------------------------------------------------------------

async def _open_streams(base, paths):
    """Opens a stream on each of `paths` at once, and holds the accepted ones open until
    every other was answered: (the number open at once, the refusals' statuses)."""
    hold, opened = asyncio.Event(), [0]
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as http:
        async def one(path):
            async with http.stream("GET", path) as response:
                if response.status_code == 200:
                    opened[0] += 1
                    await hold.wait()
                return response.status_code

        tasks = [asyncio.create_task(one(p)) for p in paths]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            await asyncio.sleep(0.2)
            if opened[0] + sum(t.done() for t in tasks) == len(tasks):
                break
        most = opened[0]
        hold.set()
        statuses = await asyncio.gather(*tasks)
    return most, [s for s in statuses if s != 200]


@pytest.mark.slow
def test_event_streams_are_counted_at_once_and_capped_per_client(served):
    app = create_app(served["agents"])
    with serving(app) as base, httpx.Client(base_url=base, timeout=30) as client:
        first, _ = created(client, seats=["person", "person"])
        games = [created(client, seats=["person", "person"])[0] for _ in range(3)]
        # 150 at once on one game: its 64, no more
        opened, refused = asyncio.run(_open_streams(
            base, [f"/api/games/{first}/events"] * 150))
        most = served_events.MAX_LISTENERS
        assert (opened, refused.count(429)) == (most, 150 - most)
        deadline = time.monotonic() + 10
        while app.state.streams.open and time.monotonic() < deadline:
            time.sleep(0.05)
        assert app.state.streams.open == 0 and app.state.store.tables[first].listeners == 0
        # 3 games x 40 from one client: its 64 in all
        opened, refused = asyncio.run(_open_streams(
            base, [f"/api/games/{g}/events" for g in games for _ in range(40)]))
        most = served_events.MAX_CLIENT_STREAMS
        assert (opened, refused.count(429)) == (most, 120 - most)
        answered(client.get(f"/api/games/{first}"), 200)


def test_the_servers_streams_leave_room_for_moves_and_emfile_is_told_once(monkeypatch,
                                                                          caplog):
    import resource
    monkeypatch.setattr(resource, "getrlimit", lambda what: (1024, 4096))
    assert served_events.stream_cap() == (1024 - served_events.FILES_KEPT_FREE) // 2
    quiet = served_app._Quiet()
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.WARNING):
            for _ in range(1000):       # as asyncio's accept loop calls it: 100 a turn
                quiet(loop, {"message": "socket.accept() out of system resource",
                             "exception": OSError(errno.EMFILE, "Too many open files")})
        lines = [r for r in caplog.records if "Too many open files" in r.getMessage()]
        assert len(lines) == 1 and lines[0].exc_info is None
        for _ in range(100):        # its retries, once the server closed the listener
            quiet(loop, {"message": "Exception in callback "
                                    "BaseSelectorEventLoop._start_serving(...)",
                         "exception": ValueError("Invalid file descriptor: -1")})
        assert len(caplog.records) == 1
    finally:
        loop.close()


# ---- item 8: damaged rows -----------------------------------------------------------------

@pytest.mark.slow
def test_a_damaged_game_is_set_aside_and_the_others_served(tmp_path, served):
    path = tmp_path / "games.sqlite3"
    with TestClient(create_app(served["agents"], db=path)) as client:
        ids = {name: created(client, seats=["person", "person"])
               for name in ("good", "seats", "change", "seed", "start")}
        for game_id, seats in ids.values():
            answered(client.post(f"/api/games/{game_id}/moves", json={"move": "place a4"},
                                 headers=seats[0]), 200)
        answered(client.post(f"/api/games/{ids['start'][0]}/resign", headers=ids["start"][1][0]),
                 200)
    db = sqlite3.connect(path)
    db.execute("UPDATE games SET seats = 'not json' WHERE id = ?", (ids["seats"][0],))
    db.execute("UPDATE changes SET change = '[1,2]' WHERE game = ?", (ids["change"][0],))
    db.execute("UPDATE games SET seed = 'x' WHERE id = ?", (ids["seed"][0],))
    db.execute("UPDATE games SET start = '{' WHERE id = ?", (ids["start"][0],))
    db.commit()
    db.close()
    app = create_app(served["agents"], db=path)
    problems = app.state.store.problems
    assert len(problems) == 3 and all("\n" not in p and "damaged" in p for p in problems)
    with TestClient(app) as client:
        good, seats = ids["good"]
        answered(client.get(f"/api/games/{good}"), 200)
        for name in ("seats", "change", "seed", "start"):
            answered(client.get(f"/api/games/{ids[name][0]}"), 500, ids[name][0], "damaged")
            answered(client.get(f"/api/games/{ids[name][0]}/record"), 500, "damaged")
        assert len(problems) == 4           # the finished one, found when asked for
        to_the_end(client, good, seats)


@pytest.mark.slow
def test_the_serve_command_starts_beside_a_damaged_game(tmp_path):
    from served import free_port, serve_command
    path = tmp_path / "games.sqlite3"
    db = Database(path)
    db.add_game(GameRow("bad", {"players": 2, "options": "-", "position": None, "moves": []},
                     ["person", "person"], 7, "me", time.time()), {0: b"0" * 32})
    db.add_game(GameRow("fine", {"players": 2, "options": "-", "position": None, "moves": []},
                     ["person", "person"], 7, "me", time.time()), {0: b"0" * 32})
    db._db.execute("UPDATE games SET seats = 'not json' WHERE id = 'bad'")
    db.close()
    process, base = serve_command("--port", str(free_port()), "--db", str(path))
    try:
        assert httpx.get(f"{base}/api/games/fine", timeout=10).status_code == 200
        bad = httpx.get(f"{base}/api/games/bad", timeout=10)
        assert bad.status_code == 500 and "game bad is damaged" in bad.json()["error"]
    finally:
        process.terminate()
        _, err = process.communicate(timeout=20)
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert any("game bad is damaged" in w and "its seats" in w for w in warnings), err
    assert "Traceback" not in err

