"""Fixtures of the console's browser tests: a real ``hearth serve`` and headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from selenium import webdriver

from hearth.cli.serve import RunningServer, serving
from tests.integration.api.conftest import NOAUTH_PROJECT, server_conf
from tests.integration.console.browser import Console, chromium, chromium_problem, unavailable


@pytest.fixture(scope="module")
def driver() -> Iterator[webdriver.Chrome]:
    problem = chromium_problem()
    if problem:
        unavailable(problem)
    with chromium() as running:
        yield running


@pytest.fixture(scope="module")
def console_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with serving(server_conf(tmp_path_factory.mktemp("hearth-console"))) as running:
        yield running


@pytest.fixture()
def console(driver: webdriver.Chrome, console_server: RunningServer) -> Iterator[Console]:
    """The console signed in (noauth) to project ``demo``."""
    page = Console(driver, console_server.url)
    page.open("/login")
    page.wait_for("#login-project")
    page.type("#login-project", NOAUTH_PROJECT)
    page.find("#login-form button[type=submit]").click()
    page.wait_for("#stacks-body")
    yield page
    assert page.errors() == [], "the page logged errors"
