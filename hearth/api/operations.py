"""What operators' tools call on the API, before and without authentication, as Heat's
api-paste.ini mounts them: ``/healthcheck`` (oslo.middleware's Healthcheck, ``[healthcheck]``)
and ``/metrics`` (Prometheus, ``[metrics] enabled``)."""

from __future__ import annotations

from typing import Any

from oslo_config import cfg
from oslo_middleware.healthcheck import Healthcheck

from hearth.api.auth import WsgiApp
from hearth.common.config import healthcheck_disable_path
from hearth.common.metrics_server import metrics_app

HEALTHCHECK_PATH = "/healthcheck"
METRICS_PATH = "/metrics"


def healthcheck(app: WsgiApp, conf: cfg.ConfigOpts) -> WsgiApp:
    """oslo.middleware's Healthcheck over ``conf``: 200 ``OK``, or 503 ``DISABLED BY FILE``
    while the disable file exists. Requests it declines (``allowed_source_ranges``,
    ``ignore_proxied_requests``) go on to ``app`` like any other path."""
    conf.set_default("disable_by_file_path", healthcheck_disable_path(conf), group="healthcheck")
    middleware: WsgiApp = Healthcheck(app, conf)
    return middleware


def with_operations(app: WsgiApp, conf: cfg.ConfigOpts) -> WsgiApp:
    """``app`` with ``/healthcheck`` and ``/metrics`` answered in front of it."""
    health = healthcheck(app, conf)
    scrape: WsgiApp | None = metrics_app() if conf.metrics.enabled else None

    def route(environ: dict[str, Any], start_response: Any) -> Any:
        path = (environ.get("PATH_INFO") or "/").rstrip("/")
        if path == HEALTHCHECK_PATH:
            return health(environ, start_response)
        if path == METRICS_PATH and scrape is not None:
            return scrape(environ, start_response)
        return app(environ, start_response)

    return route
