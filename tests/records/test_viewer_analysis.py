"""The viewer of an analysed record: the evaluation chart under the board, the classed moves
marked on the chart and the move list, the better move on the board, the accuracy in the
header; in headless Chromium as tests/records/test_viewer.py drives it (skipped without it, a
failure in CI). Saves a screenshot to $PHOTOCORE_ARTIFACTS/analysis.png."""

import json
import os
import pathlib

import pytest
from browser import chromium

from photocore import analysis, viewer
from photocore.run.selfplay import Series

try:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
except ImportError:      # browser.chromium() skips (or fails in CI)
    pass

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def analysed():
    (line,), _ = Series(1, agents=["greedy", "random"], seed=11).batch(0, 1)
    rec = json.loads(line)
    return analysis.with_analysis(rec, analysis.analyze(rec, "mcts:100", seed=0))


@pytest.fixture(scope="module")
def judged(analysed):
    return analysis.of_record(analysed)


@pytest.fixture(scope="module")
def html_file(tmp_path_factory, analysed):
    path = tmp_path_factory.mktemp("viewer") / "analysed.html"
    viewer.write_html(analysed, path)
    return path


# ---- the page, without a browser -------------------------------------------------------

@pytest.mark.slow
def test_only_an_analysed_record_gets_the_chart(analysed, judged):
    plain = {**analysed, "metadata": {k: v for k, v in analysed["metadata"].items()
                                      if k != "analysis"}}
    text = viewer.page(plain)
    assert 'id="eval-chart"' not in text and 'id="accuracy"' not in text
    text = viewer.page(analysed)
    marked = [p for p in judged.plies if p.label]
    assert marked, "random play makes mistakes"
    assert text.count('<circle class="mark ') == len(marked)
    for p in marked:
        assert f'<li data-ply="{p.ply}" class="move {p.label}">' in text


# ---- in a browser ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    driver = chromium(1280, 1000)
    yield driver
    driver.quit()


@pytest.fixture
def page(browser, html_file):
    browser.get(html_file.as_uri())
    yield browser
    severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert severe == [], "the page logged JavaScript errors"


def ply_shown(driver):
    return int(driver.find_element(By.ID, "board").get_attribute("data-ply"))


def test_the_chart_its_marks_and_a_click_on_them(page, judged):
    chart = page.find_element(By.ID, "eval-chart")
    assert len(chart.find_elements(By.CSS_SELECTOR, "polyline")) == judged.players
    marks = chart.find_elements(By.CSS_SELECTOR, "circle.mark")
    assert {m.get_attribute("data-ply") for m in marks} == {
        str(p.ply) for p in judged.plies if p.label}
    worst = max(judged.plies, key=lambda p: p.loss)
    mark = chart.find_element(By.CSS_SELECTOR, f'circle.mark[data-ply="{worst.ply}"]')
    page.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', "
                        "{bubbles: true}))", mark)
    assert ply_shown(page) == worst.ply
    verdict = page.find_element(By.ID, "verdict").text
    assert verdict.startswith(f"{worst.ply}. {worst.move}: {worst.label}")
    assert f"the judge prefers {worst.best}" in verdict
    cursor = float(chart.find_element(By.CSS_SELECTOR, "line.cursor").get_attribute("x1"))
    assert cursor == pytest.approx(float(mark.get_attribute("cx")), abs=0.2)


def test_a_click_on_the_chart_jumps_to_that_ply(page, judged):
    chart = page.find_element(By.ID, "eval-chart")
    width = chart.size["width"]
    # the plot spans the chart less its padding: its middle is the middle ply
    ActionChains(page).move_to_element_with_offset(chart, 0, -chart.size["height"] // 2 + 3
                                                   ).click().perform()
    last = len(judged.plies)
    assert abs(ply_shown(page) - last / 2) <= last * 0.03 + 1
    ActionChains(page).move_to_element_with_offset(chart, width // 2 - 2, 0).click().perform()
    assert ply_shown(page) == last


def test_marks_in_the_move_list_the_better_move_and_accuracy(page, judged):
    header = page.find_element(By.ID, "accuracy").text
    for accuracy in judged.accuracy:
        assert f"{accuracy:.1f}" in header
    on_board = [p for p in judged.plies if p.label and p.best.split()[0] in ("grow", "plant",
                                                                               "collect")]
    assert on_board, "some mistake has a better move on a cell"
    ply = on_board[0]
    item = page.find_element(By.CSS_SELECTOR, f'#moves li[data-ply="{ply.ply}"]')
    assert item.get_attribute("class").split() == ["move", ply.label]
    assert item.find_element(By.CSS_SELECTOR, ".mark").text == viewer.MARKS[ply.label][1]
    page.execute_script("arguments[0].scrollIntoView({block: 'center'})", item)
    item.click()
    assert ply_shown(page) == ply.ply
    better = page.find_element(By.CSS_SELECTOR, "#board g.better-move")
    assert better.get_attribute("data-move") == ply.best
    cells = {e.get_attribute("data-cell") for e in better.find_elements(By.CSS_SELECTOR,
                                                                         "[data-cell]")}
    assert cells <= set(ply.best.split()[1:]) and cells
    good = next(p for p in judged.plies if p.label is None and not p.forced)
    page.execute_script(f"document.querySelector('#moves li[data-ply=\"{good.ply}\"]')"
                        ".click()")
    assert page.find_elements(By.CSS_SELECTOR, "#board g.better-move") == []
    folder = pathlib.Path(os.environ.get("PHOTOCORE_ARTIFACTS", ROOT / "artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    page.execute_script(f"document.querySelector('#moves li[data-ply=\"{ply.ply}\"]').click()")
    assert page.save_screenshot(str(folder / "analysis.png"))
