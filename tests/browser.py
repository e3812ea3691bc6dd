"""Headless Chromium for the browser tests (the replay viewer, the analysis chart, the play
page)."""

import contextlib
import os
import shutil
import signal
import tempfile

import pytest
from support import _table, children_of


def chromium(width=1280, height=860, downloads=None):
    """Headless Chromium under selenium, as the browser tests drive it (browser console logs
    kept; `downloads`: the folder downloads go to). Without it the test skips, but in CI,
    which installs it (.ci/run), fails."""
    reason = None
    try:
        from selenium import webdriver
    except ImportError:
        reason = "selenium is not installed (pip install -e '.[browser]')"
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if reason is None and not (binary and chromedriver):
        reason = ("chromium and chromedriver are not installed "
                  "(apt-get install chromium chromium-driver)")
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}"):
        options.add_argument(arg)
    options.binary_location = binary
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if downloads is not None:
        options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                                  "download.prompt_for_download": False})
    # its profile and singleton socket go to a folder of its own, removed when it quits:
    # Chromium leaves them in the temporary folder when its processes are killed
    scratch = tempfile.mkdtemp(prefix="chromium")
    service = webdriver.ChromeService(executable_path=chromedriver,
                                      env={**os.environ, "TMPDIR": scratch})
    try:
        driver = webdriver.Chrome(options=options, service=service)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    if downloads is not None:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                               {"behavior": "allow", "downloadPath": str(downloads)})
    quit = driver.quit

    def quit_and_end_its_processes():
        # the browser's renderers and zygotes may outlive quit() by seconds on a loaded
        # machine, reparented to the test run: its processes end with it
        tree = _descendants(driver.service.process.pid)
        quit()
        running = _table()
        for pid, start in tree:
            if pid in running and running[pid][1] == start:     # not a pid used again
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        shutil.rmtree(scratch, ignore_errors=True)

    driver.quit = quit_and_end_its_processes
    return driver


def _descendants(root):
    """(pid, start time) of each running descendant of process `root`."""
    table = _table()
    children = children_of(table)
    found, todo = [], list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        found.append((pid, table[pid][1]))
        todo.extend(children.get(pid, ()))
    return found
