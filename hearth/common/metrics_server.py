"""Where Hearth's metrics are read: the WSGI app behind the API's ``/metrics``, an HTTP
server for processes that have no API (engine workers), and prometheus_client's
multiprocess mode for API worker processes forked from one parent.

In multiprocess mode (``PROMETHEUS_MULTIPROC_DIR`` set) each process writes its values to
files of its own in that directory and ``/metrics``, whichever worker answers it, shows them
merged (counters and histograms summed over every worker, the dead ones included).
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oslo_config import cfg
from prometheus_client import REGISTRY, make_wsgi_app, multiprocess, start_http_server, values
from prometheus_client.registry import Collector, CollectorRegistry

from hearth.common import metrics

LOG = logging.getLogger(__name__)
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def prepare_multiprocess(dirpath: str | os.PathLike[str]) -> Path:
    """Switch this process, and the processes it forks or starts from now on, to the
    multiprocess mode, with ``dirpath`` for the files (made if missing, emptied of a
    previous run's files). Call it in the parent before the first worker is forked."""
    path = Path(dirpath)
    path.mkdir(parents=True, exist_ok=True)
    for stale in path.glob("*.db"):
        stale.unlink()
    os.environ[MULTIPROC_ENV] = str(path)
    # prometheus_client chose its value class when it was imported; choose again, and
    # drop values made with the old one (none are, unless this process recorded some).
    values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]
    metrics.forget_values()
    return path


def process_exited(pid: int) -> None:
    """Bookkeeping for a worker process that ended (its counters stay in the totals)."""
    path = os.environ.get(MULTIPROC_ENV)
    if path:
        multiprocess.mark_process_dead(pid, path)  # type: ignore[no-untyped-call]


def registry() -> Collector:
    """What a scrape shows: this process's metrics or, in multiprocess mode, those every
    process wrote, with this process's engine queues."""
    path = os.environ.get(MULTIPROC_ENV)
    if not path:
        return REGISTRY
    merged = CollectorRegistry()
    multiprocess.MultiProcessCollector(merged, path)  # type: ignore[no-untyped-call]
    for collector in metrics.per_process_collectors():
        merged.register(collector)
    return merged


def metrics_app() -> Any:
    """The WSGI app that answers ``GET /metrics`` in Prometheus's text format; it follows
    the mode of the moment, so it may be built before ``prepare_multiprocess``."""
    apps: dict[str | None, Any] = {}

    def app(environ: dict[str, Any], start_response: Any) -> Any:
        mode = os.environ.get(MULTIPROC_ENV)
        inner = apps.get(mode)
        if inner is None:
            inner = apps[mode] = make_wsgi_app(registry())
        return inner(environ, start_response)

    return app


@dataclass
class MetricsServer:
    """A running metrics HTTP server (prometheus_client's own, in a daemon thread)."""

    httpd: Any
    thread: threading.Thread

    @property
    def host(self) -> str:
        return str(self.httpd.server_address[0])

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)


def serve_metrics(host: str, port: int) -> MetricsServer:
    """Serve ``/metrics`` on ``host:port`` (port 0: a free one, see ``.port``) until
    ``close()``; for processes that have no API to serve it."""
    httpd, thread = start_http_server(port, addr=host, registry=registry())
    return MetricsServer(httpd, thread)


def parse_engine_bind(text: str) -> tuple[str, int] | None:
    """``[metrics] engine_bind`` as (host, port), or None when empty (not served)."""
    text = text.strip()
    if not text:
        return None
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"[metrics] engine_bind {text!r} is not of the form HOST:PORT")
    return host.strip("[]"), int(port)


def start_engine_metrics(conf: cfg.ConfigOpts, worker: int = 0) -> MetricsServer | None:
    """The metrics server ``[metrics] engine_bind`` asks for, started; None when it is empty
    or ``[metrics] enabled`` is false. Engine worker ``worker`` (0, 1, ... of one parent)
    serves on the configured port plus ``worker``, so that each has a port of its own that
    stays the same when it is started again (port 0: a free port each)."""
    bind = parse_engine_bind(str(conf.metrics.engine_bind or ""))
    if bind is None or not conf.metrics.enabled:
        return None
    host, port = bind
    server = serve_metrics(host, port + worker if port else 0)
    LOG.info("Metrics on %s", server.url)
    return server
