"""The documentation site (docs/conf.py, built by .ci/docs) in headless Chromium: the index,
the API page of Game and the search page, served from 127.0.0.1 with every script and
stylesheet local (over file:// the search page could not fetch its results' summaries).

The site is the build in $PHOTOCORE_DOCS_SITE (.ci/docs passes its own), or one made here
(about 20 seconds on 2 cores); without Sphinx the tests skip: the docs extra installs it,
pip install -e ".[docs]", and .ci/docs runs them.
"""

import functools
import http.server
import importlib.util
import os
import pathlib
import subprocess
import sys
import threading

import pytest
from browser import chromium

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:      # browser.chromium() skips (or fails in CI)
    pass

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    built = os.environ.get("PHOTOCORE_DOCS_SITE")
    if built:
        return pathlib.Path(built).resolve()
    if any(importlib.util.find_spec(name) is None for name in ("sphinx", "myst_parser", "furo")):
        pytest.skip("the docs extra (Sphinx, MyST-Parser, Furo) is not installed "
                    "(pip install -e '.[docs]'): .ci/docs builds and tests the site")
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html",
         "docs", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout + build.stderr
    return out


class _Files(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass        # not a line on stderr per request


@pytest.fixture(scope="module")
def server(site):
    """The site's address on a local HTTP server."""
    files = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Files, directory=str(site)))
    threading.Thread(target=files.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{files.server_port}/"
    files.shutdown()
    files.server_close()


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


@pytest.fixture
def open_page(browser, server):
    """Opens a page of the site; after the test, no error was logged (a script's, a file not
    found) and every script and stylesheet of the page came from the site."""
    def go(path):
        browser.get(server + path)
        return browser
    yield go
    # (the browser asks any server for a /favicon.ico, which the site has not)
    severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"
              and "/favicon.ico " not in entry["message"]]
    assert severe == [], "the page logged errors"
    loaded = browser.execute_script(
        "return [...document.querySelectorAll('script[src], link[rel=stylesheet]')]"
        ".map((e) => e.src || e.href)")
    assert loaded and all(url.startswith(server) for url in loaded), loaded


def test_the_index_leads_to_every_guide_and_the_reference(open_page):
    page = open_page("index.html")
    assert page.title.startswith("photocore")
    links = {a.text.strip() for a in page.find_elements(By.CSS_SELECTOR, "a.reference.internal")}
    assert {"Self-play at volume", "Speed", "Game records", "API reference",
            "Photosynthesis — the rules the engine implements"} <= links


def test_the_api_page_of_game_lists_its_methods(open_page):
    page = open_page("api/photocore.html")
    game = page.find_element(By.ID, "photocore.Game")
    assert game.text.startswith("class photocore.Game(players=2, *, options=None)")
    for method in ("legal_moves", "play", "undo", "returns", "copy", "position"):
        entry = page.find_element(By.ID, f"photocore.Game.{method}")
        assert entry.text.startswith(f"{method}("), entry.text
    for prop in ("phase", "current_player", "light"):
        assert page.find_element(By.ID, f"photocore.Game.{prop}").text.startswith(prop)
    # each documented with its docstring
    play = page.find_element(By.ID, "photocore.Game.play").find_element(By.XPATH, "..")
    assert "Plays a Move, an action id or notation text." in play.text


def test_the_search_page_finds_pages_offline(open_page, site, server):
    assert (site / "searchindex.js").is_file()
    page = open_page("search.html?q=shadow")
    summary = WebDriverWait(page, 30).until(lambda driver: [
        p.text for p in driver.find_elements(By.CSS_SELECTOR, "p.search-summary")
        if p.text.startswith("Search finished")])
    links = page.find_elements(By.CSS_SELECTOR, "ul.search li > a")
    assert summary == [f"Search finished, found {len(links)} pages matching the search query."]
    found = {link.get_attribute("href").removeprefix(server).partition("#")[0]
             for link in links}
    assert {"rules.html", "engine.html", "api/photocore.html"} <= found, found
