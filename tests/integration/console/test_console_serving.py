"""How Hearth serves the console (plain HTTP, no browser): browsers asking ``/`` for a page
go to the console, API clients keep the versions document; the page and its files."""

from __future__ import annotations

import requests

from hearth.cli.serve import RunningServer

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def test_a_browser_asking_for_root_is_sent_to_the_console(console_server: RunningServer) -> None:
    resp = requests.get(f"{console_server.url}/", headers={"Accept": BROWSER_ACCEPT},
                        allow_redirects=False, timeout=10)
    assert resp.status_code == 302
    assert resp.headers["Location"] == f"{console_server.url}/console"
    page = requests.get(f"{console_server.url}/", headers={"Accept": BROWSER_ACCEPT}, timeout=10)
    assert page.headers["Content-Type"].startswith("text/html")
    assert '<script type="module" src="/console/static/js/main.js">' in page.text


def test_api_clients_still_get_the_versions_document(console_server: RunningServer) -> None:
    for accept in ("application/json", "*/*", None,
                   "application/json, text/html;q=0.5"):
        headers = {"Accept": accept} if accept else {}
        resp = requests.get(f"{console_server.url}/", headers=headers, allow_redirects=False,
                            timeout=10)
        assert resp.status_code == 300, accept
        assert resp.json()["versions"][0]["id"] == "v1.0"


def test_static_files_with_their_types(console_server: RunningServer) -> None:
    for path, kind in (("js/main.js", "javascript"), ("console.css", "text/css"),
                       ("vendor/highlight-core.min.js", "javascript")):
        resp = requests.get(f"{console_server.url}/console/static/{path}", timeout=10)
        assert resp.status_code == 200, path
        assert kind in resp.headers["Content-Type"], path
        assert resp.headers["Cache-Control"] == "no-cache", path
        again = requests.get(f"{console_server.url}/console/static/{path}", timeout=10,
                             headers={"If-None-Match": resp.headers["ETag"]})
        assert again.status_code == 304, path
    missing = requests.get(f"{console_server.url}/console/static/js/nope.js", timeout=10)
    assert missing.status_code == 404
    assert missing.json()["error"]["message"]


def test_settings_and_login_in_noauth_mode(console_server: RunningServer) -> None:
    settings = requests.get(f"{console_server.url}/console/settings", timeout=10)
    assert settings.json() == {"auth": "noauth"}
    login = requests.post(f"{console_server.url}/console/auth/tokens", json={}, timeout=10)
    assert login.status_code == 404
    assert "does not use Keystone" in login.json()["error"]["message"]
