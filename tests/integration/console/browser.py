"""Headless Debian Chromium driven by Selenium (through Debian's chromedriver), for the
console's browser tests and its benchmark.

Chromium missing skips a test with the reason, except under CI (``CI=true``), where it fails:
``./run-tests`` installs Debian's ``chromium`` and ``chromium-driver`` when it can.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

REPO_ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = REPO_ROOT / "test-artifacts" / "console"
CHROMIUM = os.environ.get("HEARTH_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("HEARTH_CHROMEDRIVER", "/usr/bin/chromedriver")
WAIT = 30.0


def chromium_problem() -> str | None:
    """None when Chromium and its driver are installed, else what is missing."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not (Path(path).is_file() or shutil.which(path)):
            return f"{path} not found (Debian package {package}): the console's browser " \
                   "tests need headless Chromium"
    return None


def unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


@contextmanager
def chromium(width: int = 1440, height: int = 900) -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={width},{height}", "--lang=en-US"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


class Console:
    """One browser on one Hearth: open console pages, wait for what a user would see."""

    def __init__(self, driver: webdriver.Chrome, base_url: str) -> None:
        self.driver = driver
        self.base_url = base_url

    def open(self, fragment: str = "") -> None:
        self.driver.get(f"{self.base_url}/console#{fragment}")

    def go(self, fragment: str) -> None:
        """Change the fragment only (no reload), as a link in the page does."""
        self.driver.execute_script("location.hash = arguments[0]", fragment)

    def find(self, css: str) -> WebElement:
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def all(self, css: str) -> list[WebElement]:
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def wait(self, check: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
        deadline = time.monotonic() + timeout
        last: WebDriverException | None = None
        while time.monotonic() < deadline:
            try:
                got = check()
            except WebDriverException as exc:  # not there yet, or redrawn under us
                got, last = None, exc
            if got:
                return got
            time.sleep(0.1)
        raise AssertionError(f"timed out after {timeout}s waiting for {what}"
                             + (f" (last error: {last.msg})" if last else "")
                             + f"; page errors: {self.errors()}")

    def wait_for(self, css: str, text: str | None = None, timeout: float = WAIT) -> WebElement:
        def found() -> WebElement | None:
            for el in self.all(css):
                if el.is_displayed() and (text is None or text in el.text):
                    return el
            return None

        got: WebElement = self.wait(found, f"{css!r}" + (f" showing {text!r}" if text else ""),
                                    timeout)
        return got

    def type(self, css: str, text: str) -> None:
        el = self.find(css)
        el.clear()
        el.send_keys(text)

    def set_value(self, css: str, text: str) -> None:
        """Set a large text at once (typing it key by key would take seconds) and tell the
        page, as pasting does."""
        self.driver.execute_script(
            "const el = document.querySelector(arguments[0]); el.value = arguments[1];"
            "el.dispatchEvent(new Event('input', {bubbles: true}));", css, text)

    def errors(self) -> list[str]:
        """Errors the page logged (uncaught exceptions, failed module loads)."""
        entries: list[dict[str, Any]] = self.driver.get_log("browser")  # type: ignore[no-untyped-call]
        return [str(entry["message"]) for entry in entries
                if entry["level"] == "SEVERE" and "Failed to load resource" not in entry["message"]]

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path
