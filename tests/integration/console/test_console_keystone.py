"""The console against ``hearth serve`` with ``auth_strategy = keystone`` and the real Keystone:
the login form (a wrong password shown as Keystone's refusal, then a real login), and the
pass-through login route itself."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests
from selenium import webdriver

from hearth.cli.serve import RunningServer
from tests.integration.api.keystone_fixtures import (  # noqa: F401 (fixtures used by name)
    DEMO,
    Keystone,
    KeystoneUsers,
    keystone,
    keystone_server,
    keystone_users,
    password_session,
    token_of,
)
from tests.integration.console.browser import Console
from tests.integration.console.stacks import CHAIN, StackApi

LOGIN = "/console/auth/tokens"


def login_body(**changes: str) -> dict[str, str]:
    body = {"username": DEMO[0], "password": DEMO[1], "project": DEMO[2], "domain": "Default"}
    body.update(changes)
    return body


def test_login_route_returns_a_token_the_api_accepts(
    keystone_server: RunningServer, keystone_users: KeystoneUsers,  # noqa: F811
) -> None:
    resp = requests.post(keystone_server.url + LOGIN, json=login_body(), timeout=30)
    assert resp.status_code == 200, resp.text
    got = resp.json()
    assert got["project_id"] == keystone_users.demo_project_id
    assert got["user"] == DEMO[0]
    stacks = requests.get(f"{keystone_server.url}/v1/{got['project_id']}/stacks",
                          headers={"X-Auth-Token": got["token"]}, timeout=30)
    assert stacks.status_code == 200
    without = requests.get(f"{keystone_server.url}/v1/{got['project_id']}/stacks", timeout=30)
    assert without.status_code == 401


def test_login_route_refusals_are_said_plainly(
    keystone_server: RunningServer,  # noqa: F811
) -> None:
    wrong = requests.post(keystone_server.url + LOGIN, json=login_body(password="nope"),
                          timeout=30)
    assert wrong.status_code == 401
    assert "Keystone refused the login of user 'demo'" in wrong.json()["error"]["message"]
    missing = requests.post(keystone_server.url + LOGIN, json={"username": "demo"}, timeout=30)
    assert missing.status_code == 400
    assert '"password"' in missing.json()["error"]["message"]
    not_json = requests.post(keystone_server.url + LOGIN, json=["demo"], timeout=30)
    assert not_json.status_code == 400
    settings = requests.get(keystone_server.url + "/console/settings", timeout=30)
    assert settings.json() == {"auth": "keystone"}


def test_the_page_and_its_files_need_no_token(keystone_server: RunningServer) -> None:  # noqa: F811
    for path in ("/console", "/console/static/js/main.js", "/console/static/console.css"):
        assert requests.get(keystone_server.url + path, timeout=30).status_code == 200, path
    root = requests.get(keystone_server.url + "/", headers={"Accept": "text/html"},
                        allow_redirects=False, timeout=30)
    assert root.status_code == 302
    assert requests.get(keystone_server.url + "/v1/x/stacks", timeout=30).status_code == 401


@pytest.fixture()
def keystone_console(
    driver: webdriver.Chrome, keystone_server: RunningServer,  # noqa: F811
) -> Iterator[Console]:
    page = Console(driver, keystone_server.url)
    driver.get(keystone_server.url + "/console")
    driver.execute_script("sessionStorage.clear()")
    yield page
    driver.execute_script("sessionStorage.clear()")


def test_console_login_with_keystone(
    keystone_console: Console,
    keystone_server: RunningServer,  # noqa: F811
    keystone_users: KeystoneUsers,  # noqa: F811
) -> None:
    session = password_session(*DEMO)
    api = StackApi(keystone_server.url, keystone_users.demo_project_id, token_of(session))
    api.create("seen-after-login", CHAIN)

    page = keystone_console
    page.open("/login")
    page.wait_for("#login-username")
    page.type("#login-username", DEMO[0])
    page.type("#login-password", "wrong-password")
    page.type("#login-project", DEMO[2])
    page.find("#login-form button[type=submit]").click()
    page.wait_for("#login-status .error", "Keystone refused the login of user 'demo'")
    page.screenshot("login-refused")
    page.type("#login-password", DEMO[1])
    page.find("#login-form button[type=submit]").click()
    page.wait_for('#stacks-body tr[data-stack="seen-after-login"]')
    assert page.find("#project-name").text == DEMO[2]
    page.screenshot("stacks-keystone")
    api.wait("seen-after-login", "CREATE_COMPLETE")
    requests.delete(f"{api.base}/stacks/seen-after-login", headers=api.headers,
                    allow_redirects=True, timeout=30)
