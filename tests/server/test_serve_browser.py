"""The page of `photocore serve` in headless Chromium (Selenium, as tests/records/test_viewer.py):
a whole 2-player game against `random` played by clicking only, with undo, a hint, an
illegal click refused, the record downloaded and verified, the replay viewer opened, and
the new-game form; two people playing online, each in a browser of their own, through a
kill -9 and restart of the server; the lobby. Without Chromium and chromedriver the tests
are skipped (CI fails). Mid-game screenshots go to $PHOTOCORE_ARTIFACTS/play.png and
online-0.png, online-1.png, online-away.png (default: artifacts/).
"""

import os
import pathlib
import random
import signal
import urllib.parse

import pytest
from browser import chromium
from click.testing import CliRunner
from served import free_port, serve_command, serving

from photocore import records
from photocore.cli.records import verify

pytest.importorskip("fastapi")
import httpx  # noqa: E402

from photocore.serve.app import create_app  # noqa: E402

try:
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:      # browser.chromium() skips (or fails in CI)
    pass

ROOT = pathlib.Path(__file__).resolve().parents[2]
STATUS = '[data-role="status"]'


@pytest.fixture(scope="module")
def server():
    """The app on a free loopback port, in a thread of this process."""
    app = create_app(["random", "greedy"], hint_simulations=200,
                     allowed_hosts=["127.0.0.1", "localhost"])
    with serving(app) as url:
        yield url


@pytest.fixture(scope="module")
def downloads(tmp_path_factory):
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def browser(downloads):
    driver = chromium(downloads=downloads)
    yield driver
    driver.quit()


@pytest.fixture
def page(browser, server):
    browser.get(server + "/")
    yield browser
    severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"
              and entry["source"] != "network"]         # a refused request is no error
    assert severe == [], "the page logged JavaScript errors"


def until(driver, condition, seconds=20):
    """Wait for condition(); an element the page re-rendered meanwhile is read again."""
    return WebDriverWait(driver, seconds, poll_frequency=0.02,
                         ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: condition())


def status(driver):
    """The status line, read in one script: the page may re-render it between reads."""
    element = driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e && {text: e.innerText,"
        " turn: e.dataset.turn, ply: e.dataset.ply, busy: e.getAttribute('aria-busy')};",
        STATUS)
    assert element is not None, "the page has no status line"
    return {"text": element["text"], "turn": element["turn"],
            "ply": int(element["ply"] or -1), "busy": element["busy"]}


def settled(driver):
    """The status once the page waits for nobody: the person's turn or the end."""
    until(driver, lambda: (s := status(driver))["busy"] == "false"
          and s["turn"] in ("person", "over"))
    return status(driver)


def link(driver):
    """The page's address's fragment: {"game": ID, "seat0": TOKEN, ...}."""
    return dict(urllib.parse.parse_qsl(driver.execute_script("return location.hash")[1:]))


def game_id(driver):
    return link(driver).get("game")


def api_state(server, driver):
    return httpx.get(f"{server}/api/games/{game_id(driver)}").json()


def clickable(driver):
    """Every element a click plays from or with: legal moves and plant sources."""
    return driver.find_elements(By.CSS_SELECTOR, "#board [data-move], #board [data-source], "
                                                 "#actions button[data-move]")


def click_move(driver, rng):
    """Clicks one legal move (a plant: its source, then a target); the move's text."""
    choices = clickable(driver)
    ends = [e for e in choices if e.get_attribute("data-move") == "end"]
    others = [e for e in choices if e not in ends]
    element = rng.choice(others) if others and (rng.random() < 0.7 or not ends) else ends[0]
    source = element.get_attribute("data-source")
    if source:
        element.click()
        until(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#board .hit.target"))
        element = rng.choice(driver.find_elements(By.CSS_SELECTOR, "#board [data-move]"))
        assert element.get_attribute("data-move").startswith(f"plant {source} ")
    move = element.get_attribute("data-move")
    before = status(driver)["ply"]
    element.click()
    until(driver, lambda: status(driver)["ply"] > before)
    return move


@pytest.mark.slow     # a whole game, clicked
def test_a_whole_game_by_clicking(page, server, downloads):
    rng = random.Random(11)
    state = settled(page)
    assert state["turn"] == "person" and state["text"].startswith("player 0 (person) to move")
    api = api_state(server, page)
    assert api["seats"] == ["person", "random"] and api["players"] == 2

    # an illegal click: an inner cell during the setup has no move; nothing is sent
    inner = page.find_element(By.CSS_SELECTOR, '#board .hit[data-cell="d4"]')
    assert inner.get_attribute("data-move") is None
    inner.click()
    message = page.find_element(By.CSS_SELECTOR, '[data-role="message"]')
    assert "d4: no legal move there" in message.text
    assert "refused" in message.get_attribute("class")
    assert status(page)["ply"] == 0
    # only legal moves are clickable, each carrying its notation
    legal = {m["move"] for m in api["legal_moves"]}
    shown = {e.get_attribute("data-move") for e in clickable(page)}
    assert shown == legal and all(m.startswith("place ") for m in shown)

    person_moves = 0
    undone = hinted = shot = False
    folder = pathlib.Path(os.environ.get("PHOTOCORE_ARTIFACTS", ROOT / "artifacts"))
    while (state := settled(page))["turn"] != "over":
        api = api_state(server, page)
        assert state["ply"] == len(api["history"]) and api["to_move"] == "person"
        assert {e.get_attribute("data-move") for e in page.find_elements(
            By.CSS_SELECTOR, "#board [data-move], #actions button[data-move]")} <= \
            {m["move"] for m in api["legal_moves"]}
        if person_moves == 12 and not undone:
            before = len(api["history"])
            last_person = max(k for k, h in enumerate(api["history"]) if h["by"] == "person")
            page.find_element(By.CSS_SELECTOR, '[data-role="undo"]').click()
            until(page, lambda ply=last_person: status(page)["ply"] == ply)
            assert before > last_person and len(api_state(server, page)["history"]) == last_person
            undone = True
            continue
        if person_moves == 20 and not hinted:
            page.find_element(By.CSS_SELECTOR, '[data-role="hint"]').click()
            until(page, lambda: page.find_elements(By.CSS_SELECTOR, "#hints button[data-move]"))
            hints = page.find_elements(By.CSS_SELECTOR, "#hints button[data-move]")
            assert 1 <= len(hints) <= 3
            move = hints[0].get_attribute("data-move")
            before = status(page)["ply"]
            hints[0].click()                    # a hint's move is played by a click
            until(page, lambda ply=before: status(page)["ply"] > ply)
            assert api_state(server, page)["history"][before]["move"] == move
            hinted = True
            person_moves += 1
            continue
        if not shot and api["round"] >= api["last_round"] // 2:     # mid-game
            badges = page.find_elements(By.CSS_SELECTOR, "#board .badge[data-source]")
            if badges:                      # a tree chosen to plant from, its targets shown
                badges[0].click()
                until(page, lambda: page.find_elements(By.CSS_SELECTOR, "#board .hit.target"))
            folder.mkdir(parents=True, exist_ok=True)
            assert page.save_screenshot(str(folder / "play.png"))
            shot = True
        click_move(page, rng)
        person_moves += 1
        assert person_moves < 400
    assert undone and hinted and shot

    # the end: the status names the winner, as the engine has it
    api = api_state(server, page)
    assert api["over"] and api["winners"]
    words = ("players " + " and ".join(map(str, api["winners"])) + " win"
             if len(api["winners"]) > 1 else f"player {api['winners'][0]} wins")
    assert state["text"].startswith(f"Game over: {words}")
    assert clickable(page) == []

    # the record, downloaded by a click, verifies and replays to the server's position
    page.find_element(By.CSS_SELECTOR, '[data-role="record"]').click()
    path = downloads / f"photocore-{api['id']}.jsonl"
    until(page, path.exists)
    until(page, lambda: path.read_bytes().endswith(b"\n"))
    result = CliRunner().invoke(verify, [str(path)])
    assert result.exit_code == 0 and "1 game" in result.output, result.output
    assert records.from_record(records.read_game(path, 1)).position() == api["position"]

    # and opens in the replay viewer
    page.get(page.find_element(By.CSS_SELECTOR, '[data-role="replay"]').get_attribute("href"))
    until(page, lambda: page.find_elements(By.ID, "result"))
    assert words in page.find_element(By.ID, "result").text


def test_the_new_game_form_and_reload(page, server):
    settled(page)
    first = game_id(page)
    page.find_element(By.CSS_SELECTOR, '#players option[value="3"]').click()
    seats = page.find_elements(By.CSS_SELECTOR, "#seats select")
    assert [s.get_attribute("value") for s in seats] == ["person", "random", "random"]
    seats[0].find_element(By.CSS_SELECTOR, 'option[value="greedy"]').click()
    seats[1].find_element(By.CSS_SELECTOR, 'option[value="person"]').click()
    page.find_element(By.CSS_SELECTOR, '#options option[value="s"]').click()
    page.find_element(By.CSS_SELECTOR, '[data-role="new-game"] button[type="submit"]').click()
    until(page, lambda: game_id(page) != first)
    state = settled(page)
    api = api_state(server, page)
    assert api["seats"] == ["greedy", "person", "random"] and api["options"] == "s"
    assert state["ply"] == 1 and api["history"][0]["by"] == "agent"   # greedy placed first
    assert "greedy (player 0) played place" in page.find_element(
        By.CSS_SELECTOR, '[data-role="reply"]').text
    assert page.find_elements(By.CSS_SELECTOR, "#board polygon.reply")   # outlined
    # a reload comes back to the same game
    page.refresh()
    until(page, lambda: status(page)["turn"] == "person")
    assert game_id(page) == api["id"] and status(page)["ply"] == 1


def test_stop_and_resign_buttons(page, server):
    settled(page)
    resign = page.find_element(By.CSS_SELECTOR, '[data-role="resign"]')
    resign.click()
    assert "again" in page.find_element(By.CSS_SELECTOR, '[data-role="message"]').text
    assert status(page)["turn"] == "person"
    resign.click()
    until(page, lambda: status(page)["turn"] == "over")
    assert status(page)["text"] == "Game over: player 0 (person) resigned: player 1 wins"
    assert page.find_element(By.CSS_SELECTOR, '[data-role="stop"]').is_displayed() is False
    with pytest.raises(TimeoutException):       # nothing is clickable any more
        until(page, lambda: clickable(page), seconds=0.3)


# ---- two people online, through a restart ---------------------------------------------

def connection(driver):
    return driver.find_element(By.CSS_SELECTOR, '[data-role="connection"]')


@pytest.mark.slow     # a whole game, clicked
def test_two_people_play_online_through_a_kill_and_restart(tmp_path):
    """Two browsers (each its own profile: two people), each on its own seat's link, play
    a whole game by clicks; each sees the other's moves as they are made, without reload.
    Mid-game the server is killed (SIGKILL): both pages say it is away; restarted on its
    database, both carry on the same game to its end, and its record verifies."""
    args = ["--port", str(free_port()), "--db", str(tmp_path / "games.sqlite3"),
            "--agents", "random"]
    # the browsers first: without Chromium the test skips before a server is started (one
    # started first was left running)
    alice, bob = chromium(width=1100, height=900), chromium(width=1100, height=900)
    process, url = serve_command(*args)
    folder = pathlib.Path(os.environ.get("PHOTOCORE_ARTIFACTS", ROOT / "artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        alice.get(url + "/")
        settled(alice)
        first = game_id(alice)
        # a game of two people from the form; player 1's link is handed over
        alice.find_elements(By.CSS_SELECTOR, "#seats select")[1].find_element(
            By.CSS_SELECTOR, 'option[value="person"]').click()
        alice.find_element(By.CSS_SELECTOR, '[data-role="new-game"] [type="submit"]').click()
        until(alice, lambda: game_id(alice) != first)
        assert set(link(alice)) == {"game", "seat0", "seat1"}       # hot seat, as before
        seat1 = until(alice, lambda: alice.find_element(    # the links re-render as it joins
            By.CSS_SELECTOR, '[data-role="invite"][data-seat="1"]').get_attribute("href"))
        assert urllib.parse.urlsplit(seat1).fragment == \
            f"game={game_id(alice)}&seat1={link(alice)['seat1']}"
        alice.find_element(By.CSS_SELECTOR, '[data-role="hand-over"][data-seat="1"]').click()
        until(alice, lambda: "seat1" not in link(alice))
        bob.get(seat1)
        until(bob, lambda: status(bob)["turn"] == "other")
        assert game_id(bob) == game_id(alice) and set(link(bob)) == {"game", "seat1"}
        assert "You play player 1" in bob.find_element(By.CSS_SELECTOR, '[data-role="seat"]').text
        for driver in (alice, bob):     # a reload would lose it: none happens
            driver.execute_script("window.stayed = true")

        rng = random.Random(7)
        plies, killed = 0, False
        while (state := status(alice))["turn"] != "over":
            mover, other = (alice, bob) if state["turn"] == "person" else (bob, alice)
            assert status(mover)["turn"] == "person" and status(other)["turn"] == "other"
            assert other.find_elements(By.CSS_SELECTOR, "#board [data-move]") == []
            click_move(mover, rng)
            plies = status(mover)["ply"]
            until(other, lambda o=other, p=plies: status(o)["ply"] == p)   # live
            until(alice, lambda: status(alice)["turn"] != "agent" and
                  status(alice)["busy"] == "false")
            if plies >= 40 and not killed:
                for k, driver in enumerate((alice, bob)):
                    assert driver.save_screenshot(str(folder / f"online-{k}.png"))
                process.kill()
                process.wait(10)
                for driver in (alice, bob):
                    until(driver, lambda d=driver: connection(d).get_attribute("data-state")
                          == "away")
                    assert "The server is away" in connection(driver).text
                assert alice.save_screenshot(str(folder / "online-away.png"))
                process, url = serve_command(*args)                 # the same port and db
                for driver in (alice, bob):
                    until(driver, lambda d=driver: connection(d).get_attribute("data-state")
                          == "live", seconds=30)
                    assert status(driver)["ply"] == plies
                killed = True
        assert killed and status(bob)["turn"] == "over"
        assert status(bob)["text"] == status(alice)["text"]
        assert all(d.execute_script("return window.stayed") for d in (alice, bob))
        api = httpx.get(f"{url}/api/games/{game_id(alice)}").json()
        assert api["over"] and len(api["history"]) == status(alice)["ply"]
        assert {h["player"] for h in api["history"]} == {0, 1}
        path = tmp_path / "online.jsonl"
        path.write_bytes(httpx.get(f"{url}/api/games/{game_id(alice)}/record").content)
        result = CliRunner().invoke(verify, [str(path)])
        assert result.exit_code == 0 and "0 problems" in result.output, result.output
        assert records.from_record(records.read_game(path, 1)).position() == api["position"]

        # the lobby lists both of this browser's games, as they stand now
        held = link(alice)
        alice.get(url + "/games")
        row = f'[data-game="{api["id"]}"] [data-role="now"]'
        until(alice, lambda: alice.find_element(By.CSS_SELECTOR, row).text.startswith(
            "Game over"))
        rows = alice.find_elements(By.CSS_SELECTOR, "[data-game]")
        assert {r.get_attribute("data-game") for r in rows} == {first, api["id"]}
        opened = alice.find_element(By.CSS_SELECTOR,
                                    f'[data-game="{api["id"]}"] [data-role="open"]')
        assert urllib.parse.urlsplit(opened.get_attribute("href")).fragment == \
            f"game={api['id']}&seat0={held['seat0']}"
        for driver in (alice, bob):     # the network's errors are the kill's
            severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"
                      and e["source"] != "network"]
            assert severe == [], severe
    finally:
        alice.quit()
        bob.quit()
        process.send_signal(signal.SIGTERM)
        process.wait(20)


def test_a_link_to_no_game_starts_none(page, server):
    games = httpx.get(f"{server}/api/info").json()["games"]
    page.get(f"{server}/#game=nope&seat0=whatever")
    until(page, lambda: status(page)["turn"] == "none")
    assert "no game 'nope'" in status(page)["text"]
    assert connection(page).get_attribute("data-state") == "gone"
    assert game_id(page) == "nope"
    assert httpx.get(f"{server}/api/info").json()["games"] == games
