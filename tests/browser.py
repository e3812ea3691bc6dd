"""Headless Chromium for the browser tests (the replay viewer, the analysis chart, the play
page)."""

import os
import shutil

import pytest


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
    driver = webdriver.Chrome(options=options,
                              service=webdriver.ChromeService(executable_path=chromedriver))
    if downloads is not None:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                               {"behavior": "allow", "downloadPath": str(downloads)})
    return driver
