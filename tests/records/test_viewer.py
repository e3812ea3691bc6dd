"""The HTML replay viewer: the page itself, `photocore replay`, and the page in a real browser.

The browser tests drive headless Chromium through Selenium (Debian: apt-get install chromium
chromium-driver; pip install -e ".[browser]"); without them they are skipped. They save a
screenshot to $PHOTOCORE_ARTIFACTS/viewer.png (default: artifacts/ in the repository).
"""

import json
import os
import pathlib
import re

import pytest
from browser import chromium
from click.testing import CliRunner

import photocore
import photocore.svg
from photocore import records, viewer
from photocore.cli import main

try:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
except ImportError:      # browser.chromium() skips (or fails in CI)
    pass

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "seeds" / "golden.jsonl"
LINE = 13                                    # a 3-player game of 192 moves
REC = records.read_game(GOLDEN, LINE)
LAST = len(REC["moves"])


@pytest.fixture(scope="module")
def html_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("viewer") / "game.html"
    viewer.write_html(REC, path)
    return path


# ---- the page, without a browser -------------------------------------------------------

def test_page_is_self_contained(html_file):
    text = html_file.read_text()
    assert "<script src" not in text and "<link" not in text and "@import" not in text
    assert re.findall(r"(?:https?:)?//[\w.-]+", text) == ["http://www.w3.org"] * 3, \
        "nothing to fetch: the only URLs are the SVG namespace of the board and two charts"
    assert [p.name for p in html_file.parent.iterdir()] == ["game.html"]   # no temp left


def test_the_pages_style_and_script_are_package_files_embedded_whole(html_file):
    # as the served page's (serve/static/): files, not a string in viewer.py
    import importlib.resources
    pages = importlib.resources.files("photocore").joinpath("pages")
    text = html_file.read_text()
    script = pages.joinpath("replay.js").read_text(encoding="utf-8")
    assert f"<script>\n{script}</script>" in text and "function show(k)" in script
    style = pages.joinpath("replay.css").read_text(encoding="utf-8")
    assert "#moves li.blunder .mark { color: ${blunder};" in style
    assert f"#moves li.blunder .mark {{ color: {viewer.MARKS['blunder'][0]};" in text


def test_page_embeds_every_position(html_file):
    data = re.search(r'<script type="application/json" id="data">(.*?)</script>',
                     html_file.read_text(), re.S).group(1)
    data = json.loads(data)
    frames = data["frames"]
    assert len(frames) == LAST + 1
    for ply in (0, 1, 57, LAST):
        game = records.from_record(REC, ply=ply)
        frame = frames[ply]
        assert frame["scores"] == list(game.scores()) and frame["light"] == list(game.light)
        board = "\n".join(data["lines"][i] for i in frame["board"])
        assert board == photocore.svg.board(game, size=viewer.BOARD_PX)


@pytest.mark.slow
def test_replay_command(tmp_path):
    out = tmp_path / "g.html"
    result = CliRunner().invoke(main, ["replay", str(GOLDEN), "--game", str(LINE),
                                       "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert f"{LAST} moves" in result.output
    assert out.read_text() == viewer.page(REC)
    result = CliRunner().invoke(main, ["replay", str(GOLDEN), "--game", "99",
                                       "--html", str(tmp_path / "no.html")])
    assert result.exit_code == 1 and "no game" in result.output
    assert not (tmp_path / "no.html").exists()


def test_an_unfinished_game(tmp_path):
    unfinished = dict(REC, moves=REC["moves"][:30], result=None)
    viewer.write_html(unfinished, tmp_path / "u.html")
    text = (tmp_path / "u.html").read_text()
    assert "Unfinished game" in text and 'max="30"' in text


def test_a_bad_record_writes_nothing(tmp_path):
    bad = dict(REC, moves=REC["moves"][:20] + ["collect d4"] + REC["moves"][21:])
    with pytest.raises(photocore.RecordError, match="ply 21"):
        viewer.write_html(bad, tmp_path / "bad.html")
    assert list(tmp_path.iterdir()) == []


# ---- the page in a browser -------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


@pytest.fixture
def page(browser, html_file):
    browser.get(html_file.as_uri())
    yield browser
    severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert severe == [], "the page logged JavaScript errors"


def keys(driver, *sequence):
    ActionChains(driver).send_keys(*sequence).perform()


def by_id(driver, name):
    return driver.find_element(By.ID, name)


def shown(driver):
    """What the page shows: ply, highlighted moves, board pieces, scores and light."""
    return driver.execute_script("""
        const rows = [...document.querySelectorAll('#scores tr[data-player]')];
        return {
          ply: Number(document.getElementById('board').dataset.ply),
          slider: Number(document.getElementById('slider').value),
          status: document.getElementById('ply').textContent,
          current: [...document.querySelectorAll('#moves li.current')].map(
            (li) => [Number(li.dataset.ply), li.textContent]),
          board: [...document.querySelectorAll('#board [data-owner]')].map(
            (e) => [e.dataset.cell, Number(e.dataset.owner), Number(e.dataset.size)]),
          panel: [...document.querySelectorAll('#board g.player')].map(
            (g) => Number(g.dataset.score)),
          scores: rows.map((r) => Number(r.querySelector('.score').textContent)),
          light: rows.map((r) => Number(r.querySelector('.light').textContent)),
        };""")


def check(driver, ply):
    """The page shows the position after `ply` moves of the record, as the engine has it."""
    game = records.from_record(REC, ply=ply)
    view = shown(driver)
    assert view["ply"] == view["slider"] == ply
    assert f"ply {ply} of {LAST}" in view["status"]
    ((current, text),) = view["current"]
    assert current == ply
    assert text.endswith(f"{ply}. {REC['moves'][ply - 1]}" if ply else "start position")
    assert {cell: (owner, size) for cell, owner, size in view["board"]} == game.board()
    assert view["scores"] == view["panel"] == list(game.scores())
    assert view["light"] == list(game.light)
    return view


def test_arrow_keys_step_forward_and_back(page):
    check(page, 0)
    keys(page, *[Keys.ARROW_RIGHT] * 12)
    check(page, 12)
    keys(page, Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    check(page, 10)
    keys(page, Keys.END)
    check(page, LAST)
    keys(page, Keys.ARROW_RIGHT)                     # stays on the last position
    check(page, LAST)
    keys(page, Keys.ARROW_LEFT)
    check(page, LAST - 1)
    keys(page, Keys.HOME, Keys.ARROW_LEFT)           # no step before the start
    check(page, 0)


def test_slider_and_buttons(page):
    slider = by_id(page, "slider")
    width = slider.size["width"]
    ActionChains(page).move_to_element_with_offset(slider, width // 4, 0).click().perform()
    ply = shown(page)["ply"]
    assert LAST * 0.6 < ply < LAST * 0.9              # three quarters along
    check(page, ply)
    keys(page, Keys.ARROW_RIGHT)                     # on the focused slider: one step
    check(page, ply + 1)
    ActionChains(page).move_to_element_with_offset(slider, -width // 4, 0).click().perform()
    check(page, shown(page)["ply"])
    assert shown(page)["ply"] < LAST * 0.4
    by_id(page, "last").click()
    check(page, LAST)
    by_id(page, "prev").click()
    check(page, LAST - 1)
    by_id(page, "first").click()
    check(page, 0)
    by_id(page, "next").click()
    check(page, 1)


def test_move_list_is_clickable(page):
    item = page.find_element(By.CSS_SELECTOR, '#moves li[data-ply="100"]')
    page.execute_script("arguments[0].scrollIntoView({block: 'center'})", item)
    item.click()
    check(page, 100)
    before = page.find_element(By.CSS_SELECTOR, '#moves li[data-ply="40"]')
    page.execute_script("arguments[0].scrollIntoView({block: 'center'})", before)
    before.click()
    check(page, 40)
    keys(page, Keys.ARROW_RIGHT)
    check(page, 41)


def test_result_charts_and_screenshot(page):
    result = by_id(page, "result").text
    winners = REC["result"]["winners"]
    assert f"player {winners[0]} wins" in result
    for p, score in enumerate(REC["result"]["scores"]):
        assert f"player {p} (random): {score} points" in result
    script = ("return [...document.querySelectorAll('#charts line.cursor')]"
              ".map((line) => line.getAttribute('x1'))")
    cursors = page.execute_script(script)
    keys(page, *[Keys.ARROW_RIGHT] * 90)
    moved = page.execute_script(script)
    assert len(cursors) == 2 and all(float(b) > float(a) for a, b in zip(cursors, moved))
    check(page, 90)
    folder = pathlib.Path(os.environ.get("PHOTOCORE_ARTIFACTS", ROOT / "artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    assert page.save_screenshot(str(folder / "viewer.png"))
    assert (folder / "viewer.png").stat().st_size > 20_000


# ---- the light chart and the page's layout at 1200 pixels ---------------------------------

def test_the_light_chart_has_a_tick_at_whole_rounds_only():
    plots = pytest.importorskip("photocore.plots", reason="matplotlib is not installed")
    from matplotlib.figure import Figure
    charts = plots.Charts()
    for rec in photocore.read_games(GOLDEN):
        if not rec["options"]["fourth_revolution"]:    # rounds 1 to 18: ticks 2.5, 7.5 ...
            charts.add(rec)
    axes = Figure().subplots()
    charts._light(axes)
    ticks = [t for t in axes.get_xticks() if axes.get_xlim()[0] <= t <= axes.get_xlim()[1]]
    assert len(ticks) >= 4 and all(t == int(t) for t in ticks), ticks


@pytest.mark.parametrize("width", [1200, 1100])
def test_the_replay_page_at_1200_pixels_puts_the_scores_beside_the_board(tmp_path, width):
    # at 1200 the old layout fitted only without a scrollbar: 1100 shows it for sure
    page = tmp_path / "game.html"
    result = CliRunner().invoke(main, ["replay", str(GOLDEN), "--game", "13", "--html",
                                       str(page)])
    assert result.exit_code == 0, result.output
    driver = chromium(width, 900)
    try:
        driver.get(page.as_uri())
        inner, board, scores = driver.execute_script("""
            const box = (id) => document.getElementById(id).getBoundingClientRect();
            const r = (b) => ({left: b.left, right: b.right, top: b.top, bottom: b.bottom});
            return [window.innerWidth, r(box('board')), r(box('scores'))];""")
    finally:
        driver.quit()
    assert inner <= width
    assert scores["left"] > board["right"] and scores["top"] < board["bottom"], (board, scores)
    assert board["right"] - board["left"] > 400            # the board shrinks a little only
