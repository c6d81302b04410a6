"""The console's routes: its page, its static files, its settings and the Keystone login."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import falcon
from oslo_config import cfg

from hearth.console.login import KeystoneLogin

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


def add_console_routes(app: falcon.App[Any, Any], conf: cfg.ConfigOpts) -> None:
    app.add_route(PREFIX, ConsolePage())
    app.add_route(PREFIX + "/settings", ConsoleSettings(conf))
    app.add_route(PREFIX + "/auth/tokens", KeystoneLogin(conf))
    app.add_static_route(PREFIX + "/static", str(STATIC_DIR))


def is_console_path(path: str) -> bool:
    """Paths that need no token: the page, its files and the login itself."""
    return path == PREFIX or path.startswith(PREFIX + "/")
