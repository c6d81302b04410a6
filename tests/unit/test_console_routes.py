"""The console's request checks: who is a browser asking for the page, and the login body."""

from __future__ import annotations

import falcon.testing
import pytest

from hearth.api.console.login import login_fields
from hearth.api.console.routes import is_console_path, wants_console
from hearth.api.faults import BadRequest


@pytest.mark.parametrize(("accept", "browser"), [
    ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", True),
    ("text/html", True),
    ("application/json", False),
    ("*/*", False),
    ("", False),
    ("application/json, text/html;q=0.5", False),
])
def test_only_a_request_preferring_html_is_a_browser(accept: str, browser: bool) -> None:
    headers = {"Accept": accept} if accept else {}
    assert wants_console(falcon.testing.create_req(path="/", headers=headers)) is browser


def test_console_paths_are_the_page_and_what_is_under_it() -> None:
    assert is_console_path("/console")
    assert is_console_path("/console/static/js/main.js")
    assert not is_console_path("/consoles")
    assert not is_console_path("/v1/demo/stacks")


def test_login_fields_trimmed_with_the_default_domain() -> None:
    got = login_fields({"username": " demo ", "password": " pw ", "project": "demo"})
    assert got == {"username": "demo", "password": " pw ", "project": "demo",
                   "domain": "Default"}


@pytest.mark.parametrize(("body", "named"), [
    ({"username": "demo", "project": "demo"}, '"password"'),
    ({"username": "", "password": "x", "project": "demo"}, '"username"'),
    ({"username": "demo", "password": "x", "project": 3}, '"project"'),
    (["demo"], "JSON object"),
    (None, "JSON object"),
])
def test_a_bad_login_body_is_refused_naming_the_field(body: object, named: str) -> None:
    with pytest.raises(BadRequest) as caught:
        login_fields(body)
    assert named in str(caught.value)
