"""The WSGI application of API v1: Falcon routes, error bodies, auth and policy."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import falcon
from oslo_config import cfg

from hearth.api import faults
from hearth.api.attempts import FailedAttempts
from hearth.api.auth import Authenticator, WsgiApp, keystone_protected
from hearth.api.catalog import Versions
from hearth.api.console.routes import RevalidateConsoleFiles, add_console_routes, is_console_path
from hearth.api.handler import ApiState
from hearth.api.openapi import OpenApiDocument
from hearth.api.operations import with_operations
from hearth.api.request_metrics import RequestMetrics
from hearth.api.routes import ROUTES, TOKEN_ROUTES, Route
from hearth.api.signal_urls import TOKEN_PATH
from hearth.api.stacks import StackArnLookup
from hearth.common import logs, urlfetch
from hearth.common.errors import HearthError
from hearth.common.policy import Policy
from hearth.rpc.protocol import EngineAPI

REQUEST_ID_HEADER = "X-OpenStack-Request-Id"


class RequestIdMiddleware:
    """A request id for logs and the engine, echoed in the response like Heat's."""

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.request_id = f"req-{uuid.uuid4()}"
        req.context.log_token = logs.bind_request(req.context.request_id)

    def process_response(
        self, req: falcon.Request, resp: falcon.Response, resource: Any, req_succeeded: bool
    ) -> None:
        resp.set_header(REQUEST_ID_HEADER, str(req.context.get("request_id", "")))
        token = req.context.get("log_token")
        if token is not None:
            # The server's thread goes on to other requests.
            logs.unbind_request(token)
        # Heat answers OPTIONS with 204 and the Allow header; Falcon's default is 200.
        if req.method == "OPTIONS" and resp.status_code == 200 and not resp.text:
            resp.status = 204


def build_falcon_app(
    engine: EngineAPI, conf: cfg.ConfigOpts, routes: Sequence[Route] = ROUTES
) -> falcon.App[Any, Any]:
    policy = Policy(conf)
    state = ApiState(
        engine=engine,
        policy=policy,
        auth=Authenticator(conf, policy),
        max_body_size=int(conf.max_json_body_size),
        max_template_size=int(conf.max_template_size),
        revision=str(conf.revision.heat_revision),
        secret_url_attempts=FailedAttempts(int(conf.api.secret_url_failures_per_minute)),
    )
    middleware: list[Any] = [RequestMetrics(), RequestIdMiddleware(), RevalidateConsoleFiles()]
    app = falcon.App(middleware=middleware)
    app.req_options.strip_url_path_trailing_slash = True
    app.req_options.keep_blank_qs_values = False
    app.resp_options.secure_cookies_by_default = False
    app.add_error_handler(Exception, faults.handle_unexpected)
    app.add_error_handler(HearthError, faults.handle_hearth_error)
    app.set_error_serializer(faults.serialize_http_error)
    versions = Versions()
    app.add_route("/", versions)
    app.add_route("/versions", versions)
    app.add_route("/openapi.json", OpenApiDocument(ROUTES))
    for route in routes:
        handler = route.handler(state, **route.options)
        app.add_route(route.path, handler)
    if routes is ROUTES:
        app.add_sink(StackArnLookup(state), StackArnLookup.PREFIX)
        add_console_routes(app, conf)
    return app


def build_app(engine: EngineAPI, conf: cfg.ConfigOpts) -> WsgiApp:
    """The whole WSGI app: routes, behind keystonemiddleware when auth is keystone, and
    ``/healthcheck`` and ``/metrics`` in front, without authentication."""
    urlfetch.configure(conf.template_fetch_allowed_networks, conf.template_fetch_timeout)
    app: WsgiApp = build_falcon_app(engine, conf)
    if conf.api.auth_strategy == "keystone":
        # The signal URLs go to an app that serves nothing else: a path that merely looks
        # like one can never reach another route unauthenticated.
        signals = build_falcon_app(engine, conf, TOKEN_ROUTES)
        app = _versions_without_auth(keystone_protected(app, conf), app, signals)
    return with_operations(app, conf)


def _versions_without_auth(protected: WsgiApp, plain: WsgiApp, signals: WsgiApp) -> WsgiApp:
    """The versions document, the OpenAPI document, the web console's page, files and login
    and the signal URLs need no token."""

    def route(environ: dict[str, Any], start_response: Any) -> Any:
        path = environ.get("PATH_INFO", "") or "/"
        if path.rstrip("/") in ("", "/versions", "/openapi.json") or is_console_path(path):
            return plain(environ, start_response)
        if TOKEN_PATH.match(path):
            return signals(environ, start_response)
        return protected(environ, start_response)

    return route
