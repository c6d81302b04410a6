"""The console's routes: its page, its static files, its settings and the Keystone login."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import falcon
from oslo_config import cfg

from hearth.api.console.login import KeystoneLogin

PREFIX = "/console"
STATIC_DIR = Path(__file__).resolve().parent / "static"
INDEX = STATIC_DIR / "index.html"


def wants_console(req: falcon.Request) -> bool:
    """A browser asking for a page (HTML preferred over JSON) rather than an API client."""
    if "text/html" not in (req.accept or ""):
        return False
    return req.client_prefers(["application/json", "text/html"]) == "text/html"


class ConsolePage:
    """``GET /console``: the single page; the console routes inside it by the URL fragment."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.content_type = falcon.MEDIA_HTML
        resp.cache_control = ["no-cache"]
        resp.text = INDEX.read_text(encoding="utf-8")


class ConsoleSettings:
    """``GET /console/settings``: what the page must know before it can call the API."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.keystone = conf.api.auth_strategy == "keystone"

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = {"auth": "keystone" if self.keystone else "noauth"}


# The console's own routes (its static files aside) and their answers, as the OpenAPI
# document lists them: (path, method, operation id, summary, {status: description}).
OPERATIONS: tuple[tuple[str, str, str, str, dict[str, str]], ...] = (
    (PREFIX, "get", "console.page", "The web console's page", {"200": "The page"}),
    (PREFIX + "/settings", "get", "console.settings", "How the console signs in",
     {"200": '{"auth": "keystone"} or {"auth": "noauth"}'}),
    (PREFIX + "/auth/tokens", "post", "console.login",
     "A Keystone password login (username, password, project, domain), passed through",
     {"200": "The token, its project id and name, the user and the expiry",
      "400": "A field is missing or not a string",
      "401": "Keystone refused the login",
      "404": "This Hearth does not use Keystone",
      "503": "Keystone is not configured or not reachable"}),
)


class RevalidateConsoleFiles:
    """Middleware: the browser asks again for each console file (a 304 while it is unchanged,
    by its ETag) so that after an upgrade it never runs old modules with new ones."""

    def process_response(self, req: falcon.Request, resp: falcon.Response, resource: Any,
                         req_succeeded: bool) -> None:
        if req.path.startswith(PREFIX + "/static/"):
            resp.cache_control = ["no-cache"]


def add_console_routes(app: falcon.App[Any, Any], conf: cfg.ConfigOpts) -> None:
    app.add_route(PREFIX, ConsolePage())
    app.add_route(PREFIX + "/settings", ConsoleSettings(conf))
    app.add_route(PREFIX + "/auth/tokens", KeystoneLogin(conf))
    app.add_static_route(PREFIX + "/static", str(STATIC_DIR))


def is_console_path(path: str) -> bool:
    """Paths that need no token: the page, its files and the login itself."""
    return path == PREFIX or path.startswith(PREFIX + "/")
