"""Hearth's Prometheus metrics, defined once, and the cheap calls that record them.

Every metric has labels, so that no value exists before its first recording: a process that
switches to prometheus_client's multiprocess mode (``hearth.common.metrics_server``) after
importing this module still writes every value to its files.

The recording calls are on the engine's hot path (one per resource step, one per database
transaction): each keeps its labelled children in a dict, so a recording is a dict lookup
plus the increments themselves.

Queue depths are not recorded at all: they are read from the engines of this process when
metrics are collected (``watch_queues``), so waiting work costs nothing extra.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Mapping
from typing import Protocol

from prometheus_client import REGISTRY, Counter, Histogram, disable_created_metrics
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

# No ``*_created`` series: a timestamp per label set doubles what a scrape reads, for nothing
# Prometheus itself uses.
disable_created_metrics()  # type: ignore[no-untyped-call]

# From a resource of no external calls (well under a millisecond) to a server's create.
_STEP_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
                 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, float("inf"))
_DB_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
               5.0, 10.0, float("inf"))
_API_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
                float("inf"))

RESOURCE_STEPS = Counter(
    "hearth_resource_steps",
    "Resource steps run by the engines of this process (one resource through one action of "
    "a stack action), by resource action and outcome (complete, failed, cancelled).",
    ["action", "outcome"],
)
RESOURCE_STEP_SECONDS = Histogram(
    "hearth_resource_step_duration_seconds",
    "Seconds from a resource step's start (ready to run) to its end, waits for worker "
    "threads, polling and hooks included.",
    ["action"], buckets=_STEP_BUCKETS,
)
DB_TRANSACTION_SECONDS = Histogram(
    "hearth_db_transaction_duration_seconds",
    "Seconds a database transaction was open: kind=journal for a group commit of resource "
    "steps' writes, kind=session for every other transaction.",
    ["kind"], buckets=_DB_BUCKETS,
)
API_REQUESTS = Counter(
    "hearth_api_requests",
    "API requests answered, by method, route template and status code.",
    ["method", "route", "status"],
)
API_REQUEST_SECONDS = Histogram(
    "hearth_api_request_duration_seconds",
    "Seconds the API took to answer a request, by method and route template.",
    ["method", "route"], buckets=_API_BUCKETS,
)
_LABELLED = (RESOURCE_STEPS, RESOURCE_STEP_SECONDS, DB_TRANSACTION_SECONDS, API_REQUESTS,
             API_REQUEST_SECONDS)

# Children by label values, found once (``labels()`` validates and locks on every call).
_steps: dict[tuple[str, str], tuple[Counter, Histogram]] = {}
_transactions: dict[str, Histogram] = {}
_requests: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}


def resource_step(action: str, outcome: str, seconds: float) -> None:
    """One resource step ended with ``outcome`` after ``seconds``."""
    children = _steps.get((action, outcome))
    if children is None:
        children = _steps[(action, outcome)] = (
            RESOURCE_STEPS.labels(action, outcome), RESOURCE_STEP_SECONDS.labels(action))
    children[0].inc()
    children[1].observe(seconds)


def db_transaction(kind: str, seconds: float) -> None:
    """One database transaction of ``kind`` (journal, session) was open for ``seconds``."""
    child = _transactions.get(kind)
    if child is None:
        child = _transactions[kind] = DB_TRANSACTION_SECONDS.labels(kind)
    child.observe(seconds)


def api_request(method: str, route: str, status: int, seconds: float) -> None:
    """One API request answered (``route`` is a template, never a concrete path)."""
    key = (method, route, status)
    children = _requests.get(key)
    if children is None:
        children = _requests[key] = (
            API_REQUESTS.labels(method, route, str(status)),
            API_REQUEST_SECONDS.labels(method, route))
    children[0].inc()
    children[1].observe(seconds)


def forget_values() -> None:
    """Drop every value recorded so far, so that the next recordings make new ones (with
    whatever value class prometheus_client uses by then: see ``prepare_multiprocess``)."""
    _steps.clear()
    _transactions.clear()
    _requests.clear()
    for metric in _LABELLED:
        metric.clear()


# --- queue depths, read when metrics are collected ------------------------------------------


class QueueSource(Protocol):
    """Something that runs work and can tell how much of it waits (an engine)."""

    def queue_depths(self) -> Mapping[str, int]: ...


class _QueueCollector(Collector):
    """``hearth_engine_queue_depth{queue}`` summed over the live engines of this process."""

    def __init__(self) -> None:
        self._sources: weakref.WeakSet[QueueSource] = weakref.WeakSet()
        self._lock = threading.Lock()

    def add(self, source: QueueSource) -> None:
        with self._lock:
            self._sources.add(source)

    def collect(self) -> Iterable[GaugeMetricFamily]:
        with self._lock:
            sources = list(self._sources)
        if not sources:
            return  # no engine here (an API-only process): no such metric
        totals: dict[str, int] = {}
        for source in sources:
            for queue, depth in source.queue_depths().items():
                totals[queue] = totals.get(queue, 0) + depth
        family = GaugeMetricFamily(
            "hearth_engine_queue_depth",
            "Resource steps ready to run but waiting: queue=worker_threads for a free worker "
            "thread of the engine, queue=service_slots for a slot of their service's "
            "concurrency limit ([clients] service_concurrency).",
            labels=["queue"],
        )
        for queue, depth in sorted(totals.items()):
            family.add_metric([queue], depth)
        yield family


QUEUES = _QueueCollector()
REGISTRY.register(QUEUES)


def watch_queues(source: QueueSource) -> None:
    """Report ``source``'s queue depths for as long as it lives."""
    QUEUES.add(source)


def per_process_collectors() -> tuple[Collector, ...]:
    """Collectors that read this process's state (not recorded values): what a registry
    of the multiprocess mode adds to the merged files."""
    return (QUEUES,)
