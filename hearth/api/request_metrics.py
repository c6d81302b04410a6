"""Falcon middleware that counts and times every API request (``hearth_api_requests_total``,
``hearth_api_request_duration_seconds``), labelled by route template, never by the path
itself: stack names and ids must not make a label value each."""

from __future__ import annotations

import time
from typing import Any

import falcon

from hearth.api.console.routes import PREFIX as CONSOLE_PREFIX
from hearth.common import metrics

_METHODS = frozenset(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"))
_STATIC = f"{CONSOLE_PREFIX}/static/"


def route_label(req: falcon.Request) -> str:
    """The route template the request matched; the few routes Falcon matches without one
    (static files, ARN paths) get a fixed name, and every other path ``unmatched``."""
    if req.uri_template:
        return req.uri_template
    if req.path.startswith(_STATIC):
        return f"{_STATIC}{{file}}"
    if "/stacks/arn:" in req.path:
        return "/v1/{tenant_id}/stacks/{arn}"
    return "unmatched"


class RequestMetrics:
    """Put first in the middleware list: its clock then covers the others."""

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.metrics_started = time.perf_counter()

    def process_response(
        self, req: falcon.Request, resp: falcon.Response, resource: Any, req_succeeded: bool
    ) -> None:
        started = req.context.get("metrics_started")
        if started is None:
            return
        method = req.method if req.method in _METHODS else "other"
        metrics.api_request(method, route_label(req), resp.status_code,
                            time.perf_counter() - started)
