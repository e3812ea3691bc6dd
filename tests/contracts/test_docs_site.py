"""The documentation site (docs/conf.py, built by .ci/docs) in headless Chromium: every guide
of docs/ with its title and headings, its links and its figures, the API page of Game and
the search page, served from 127.0.0.1 with every script and stylesheet local (over file://
the search page could not fetch its results' summaries).

The site is the build in $PHOTOCORE_DOCS_SITE (.ci/docs passes its own), or one made here
(about 20 seconds on 2 cores); without Sphinx the tests skip: the docs extra installs it,
pip install -e ".[docs]", and .ci/docs runs them. A screenshot of the whole rules page goes
to $PHOTOCORE_ARTIFACTS/rules.png (default: artifacts/).
"""

import functools
import http.server
import importlib.util
import os
import pathlib
import ast
import re
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

# the site is built once for the module (a Sphinx build of about 20 s): out of the loop
pytestmark = pytest.mark.slow

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# search.md was the search guide's name, but search.html is Sphinx's own search page, which
# took the guide's place in the build: the guide is searching.md, and search.md (left out of
# the build by docs/conf.py) only points there, for links to the old name
POINTERS = {"search.md": "searching.md"}
GUIDES = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")
                if path.relative_to(DOCS).parts[0] not in ("_build", "_generated")
                and path.name not in POINTERS)


def headings(guide):
    """The title and section headings of a page of docs/ as its HTML shows them: (level,
    text) in order, code spans as their text (a `#` line inside a fenced block is code)."""
    found, fence = [], None
    for line in (DOCS / guide).read_text(encoding="utf-8").splitlines():
        opening = re.match(r"\s*(`{3,}|~{3,})", line)
        if opening and (fence is None or opening[1].startswith(fence)):
            fence = None if fence else opening[1]
        elif fence is None and (heading := re.match(r"(#{1,6}) (.+)", line)):
            found.append((len(heading[1]), heading[2].replace("`", "").strip()))
    return found


def html_page(guide):
    """The page a guide of docs/ becomes: rules.md -> rules.html."""
    return guide.removesuffix(".md") + ".html"


def title_in(page):
    """The text of the first <h1> of a built page, or None."""
    h1 = re.search(r"<h1>(.*?)<a class=\"headerlink\"", page.read_text(encoding="utf-8"), re.S)
    return None if h1 is None else _plain(re.sub(r"<[^>]+>", "", h1[1]))


def _plain(text):
    """Sphinx's typographic quotes back to the Markdown's."""
    return text.translate(str.maketrans("\u2018\u2019\u201c\u201d", "''\"\""))


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
        # (the first page a new headless Chromium opens may come back still loading)
        WebDriverWait(browser, 30).until(
            lambda driver: driver.execute_script("return document.readyState") == "complete")
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


@pytest.mark.parametrize("guide", GUIDES)
def test_every_guide_is_on_the_site_with_its_headings_links_and_figures(guide, open_page,
                                                                          site, server):
    page = open_page(html_page(guide))
    shown = page.execute_script("""
        return [...document.querySelectorAll('article h1, article h2, article h3, article h4,'
                                             + ' article h5, article h6')].map((h) => {
            const copy = h.cloneNode(true);
            copy.querySelectorAll('.headerlink').forEach((a) => a.remove());
            return [Number(h.tagName[1]), copy.textContent.trim()];
        });""")
    assert [(level, _plain(text)) for level, text in shown] == headings(guide)
    # the page's opening is not said again (by the docstring of the module it documents)
    openings = page.execute_script(
        "return [...document.querySelectorAll('article section > p')]"
        ".map((p) => p.textContent.split(/\\s+/).slice(0, 4).join(' '))")
    assert not openings or openings[0] not in openings[1:], openings
    # every figure is an image the browser drew
    images = page.execute_script(
        "return [...document.querySelectorAll('article img')].map((i) => "
        "[i.getAttribute('src'), i.complete, i.naturalWidth])")
    assert all(complete and width > 0 for _, complete, width in images), images
    # every link to another page of the site leads to one with content: a guide's to that
    # guide (its title), an anchor's to an element of that id
    links = page.execute_script(
        "return [...document.querySelectorAll('article a.reference.internal')]"
        ".map((a) => a.href)")
    for link in {link.removeprefix(server) for link in links}:
        path, _, anchor = link.partition("#")
        target = site / (path or html_page(guide))
        assert target.is_file(), f"{guide}: {link} is not a page of the site"
        source = target.relative_to(site).as_posix().removesuffix(".html") + ".md"
        if target.suffix != ".html":        # a file to download
            assert target.stat().st_size > 0, f"{guide}: {link} is empty"
        elif (DOCS / source).is_file():
            assert title_in(target) == headings(source)[0][1], f"{guide}: {link}"
        else:
            assert title_in(target), f"{guide}: {link} has no title"
        if anchor:
            assert f'id="{anchor}"' in target.read_text(encoding="utf-8"), f"{guide}: {link}"


def test_a_guide_moved_away_leaves_a_pointer_out_of_the_build():
    # read off conf.py's text: running it needs Sphinx, which this test does not
    (excluded,) = [ast.literal_eval(node.value)
                   for node in ast.parse((DOCS / "conf.py").read_text(encoding="utf-8")).body
                   if isinstance(node, ast.Assign)
                   and [getattr(t, "id", None) for t in node.targets] == ["exclude_patterns"]]
    for old, new in POINTERS.items():
        assert (DOCS / new).is_file() and old in excluded
        # one link, to the new name (which GitHub shows for the old one)
        assert re.findall(r"\]\(([^)]*)\)", (DOCS / old).read_text(encoding="utf-8")) == [new]


def test_the_figures_are_drawn_from_the_engine_and_the_pages_when_the_site_is_built(
        open_page, site):
    import photocore.facts
    # the rules: the board, the sun's corners, the tour's position, the shadows
    drawn = open_page("rules.html").execute_script(
        "return [...document.querySelectorAll('article figure img')].map((i) => "
        "[i.getAttribute('src').split('/').pop(), i.naturalWidth, i.alt])")
    assert [name for name, _, _ in drawn] == ["board.svg", "sun.svg", "tour.svg", "shadows.svg"]
    assert all(width > 0 and alt for _, width, alt in drawn), drawn
    # the whole rules page as a reader sees it, kept as $PHOTOCORE_ARTIFACTS/rules.png
    page = open_page("rules.html")
    size = page.get_window_size()
    page.set_window_size(1280, page.execute_script("return document.body.scrollHeight"))
    folder = pathlib.Path(os.environ.get("PHOTOCORE_ARTIFACTS", ROOT / "artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    assert page.save_screenshot(str(folder / "rules.png"))
    page.set_window_size(size["width"], size["height"])
    # the action ids, kind by kind, as the engine numbers them
    rows = open_page("engine.html").execute_script(
        "return [...document.querySelectorAll('#action-ids tbody tr')].map((row) => "
        "[...row.cells].map((cell) => cell.textContent.trim()))")
    assert [(row[0], row[2]) for row in rows] == [
        (f"{ids[0]} .. {ids[-1]}" if len(ids) > 1 else f"{ids[0]}", kind)
        for kind, ids in photocore.facts.ACTION_RANGES.items()]
    # the speed chart: a bar labelled with each speed-up of the page's table
    (chart,) = open_page("speed.html").execute_script(
        "return [...document.querySelectorAll('article figure img')].map((i) => "
        "[i.getAttribute('src'), i.naturalWidth])")
    assert chart[1] > 0
    table = re.findall(r"^\|.*\| ([\d,]+ x) \|$", (DOCS / "speed.md").read_text(), re.M)
    labels = re.findall(r"<text[^>]*>([\d,]+ x)</text>", (site / chart[0]).read_text())
    assert len(table) >= 10 and sorted(labels) == sorted(table)


def test_the_reference_says_what_each_field_is_and_the_footer_whose_site_it_is(open_page,
                                                                              site):
    aliased = [page.relative_to(site).as_posix() for page in site.rglob("*.html")
               if "Alias for field number" in page.read_text(encoding="utf-8")]
    assert aliased == []
    footer = open_page("index.html").find_element(By.CSS_SELECTOR, ".copyright").text
    assert re.fullmatch(r"Copyright © \d{4}, \w.*", footer), footer


def test_the_api_page_of_game_lists_its_methods(open_page):
    page = open_page("api/photocore.html")
    game = page.find_element(By.ID, "photocore.Game")
    assert game.text.startswith("class photocore.Game(players=2, options=None)")
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


def test_a_type_of_a_mocked_framework_is_plain_text_in_the_docs_extra_alone():
    # the docs extra installs none of the frameworks conf.py mocks: a type that a signature
    # names (env/sb3.py's VecEnvIndices) is then their mock's full name, which -n must not
    # look up. Read off conf.py's settings: running it needs Sphinx
    settings = [node for node in ast.parse((DOCS / "conf.py").read_text(encoding="utf-8")).body
                if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets]
                in (["autodoc_mock_imports"], ["THIRD_PARTY"], ["nitpick_ignore_regex"])]
    conf = {}
    exec(compile(ast.Module(body=settings, type_ignores=[]), "conf.py", "exec"), conf)
    plain = [pattern for role, pattern in conf["nitpick_ignore_regex"] if role == "py:class"]
    for module in conf["autodoc_mock_imports"]:
        assert any(re.fullmatch(p, f"{module}.common.Type") for p in plain), module
    assert any(re.fullmatch(p, "stable_baselines3.common.vec_env.base_vec_env.VecEnvIndices")
               for p in plain)
    assert not any(re.fullmatch(p, "photocore.env.sb3.VecEnv") for p in plain)
