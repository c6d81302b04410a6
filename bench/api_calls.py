"""Counting the API calls a process makes to the cloud, the same way in Hearth's process and in
Heat's: every ``keystoneauth1.session.Session.request`` (openstacksdk, the python-*clients and
the identity plugins' own token requests all go through it; one count per call, whatever
keystoneauth retries underneath).

The seconds spent inside the calls are summed per service too (over all threads: an engine
that calls in parallel can spend more call-seconds than wall seconds).

A call is attributed to a service by the port it goes to (the devcloud's catalog) or, for a
URL relative to a catalog endpoint, by the endpoint's service type. A *poll* is a GET of one
object (no query) whose URL was already read in the same phase: what an engine does while it
waits for a server, a volume or an attachment to settle.

Stdlib only (plus keystoneauth1 when installing): Heat's venv imports this module too.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from bench.cloud_cpu import cloud_cpu_seconds, difference, own_cpu_seconds

# The devcloud's APIs by port (../shared/tools/devcloud/README.md).
SERVICE_PORTS: dict[int, str] = {
    5000: "keystone",
    8774: "nova",
    9696: "neutron",
    9292: "glance",
    8776: "cinder",
    8778: "placement",
}

# Catalog service types as the same names, for URLs given relative to an endpoint.
SERVICE_TYPES: dict[str, str] = {
    "identity": "keystone",
    "compute": "nova",
    "network": "neutron",
    "image": "glance",
    "block-storage": "cinder",
    "volume": "cinder",
    "volumev2": "cinder",
    "volumev3": "cinder",
    "placement": "placement",
}

Summary = dict[str, Any]

# ids in a path (uuids, hex ids, numbers) as "*", so that calls group by kind of request
_ID = re.compile(r"/(?:[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}"
                 r"|[0-9a-f]{32}|\d+)(?=/|$|\?)")


def path_pattern(url: str) -> str:
    parts = urlsplit(url)
    path = _ID.sub("/*", parts.path)
    return path + ("?" + "&".join(sorted(k.split("=")[0] for k in parts.query.split("&")))
                   if parts.query else "")


def service_of(url: str, service_type: str | None = None) -> str:
    parts = urlsplit(url)
    if parts.netloc:
        port = parts.port
        if port is not None and port in SERVICE_PORTS:
            return SERVICE_PORTS[port]
        return parts.netloc
    if service_type:
        return SERVICE_TYPES.get(service_type, service_type)
    return "unknown"


def is_single_get(method: str, url: str, params: object) -> bool:
    return method.upper() == "GET" and "?" not in url and not params


@dataclass
class CpuSpent:
    cloud: dict[str, float] = field(default_factory=dict)
    own: float = 0.0


class CallCounter:
    """Calls per phase: service, method and polls. Thread-safe (engines call from workers)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._phase = "setup"
        self._calls: dict[str, Counter[tuple[str, str, bool]]] = {}
        self._seen: dict[str, set[tuple[str, str]]] = {}
        self._patterns: dict[str, Counter[str]] = {}
        # seconds spent in calls (summed over threads: above the wall time when in parallel)
        self._seconds: dict[str, dict[str, float]] = {}
        # CPU seconds of the cloud's services and of this process, per phase
        self._cpu: dict[str, CpuSpent] = {}
        self._cpu_started = self._cpu_reading()

    def phase(self, name: str) -> None:
        """Count what follows under ``name`` (e.g. ``create``, ``delete``)."""
        reading = self._cpu_reading()
        with self._lock:
            self._close_cpu(reading)
            self._phase = name
            self._calls.setdefault(name, Counter())
            self._seen.setdefault(name, set())

    @staticmethod
    def _cpu_reading() -> tuple[dict[str, float], float]:
        return cloud_cpu_seconds(), own_cpu_seconds()

    def _close_cpu(self, reading: tuple[dict[str, float], float]) -> None:
        """Adds the CPU spent since the phase began (or resumed) to the current phase."""
        (cloud, own), (cloud_before, own_before) = reading, self._cpu_started
        spent = self._cpu.setdefault(self._phase, CpuSpent())
        for service, seconds in difference(cloud, cloud_before).items():
            spent.cloud[service] = spent.cloud.get(service, 0.0) + seconds
        spent.own += own - own_before
        self._cpu_started = reading

    def cpu(self, phase: str) -> dict[str, Any]:
        """``{"cloud_s": {service: s}, "cloud_total_s", "engine_s"}`` of one phase so far."""
        with self._lock:
            if phase == self._phase:
                self._close_cpu(self._cpu_reading())
            spent = self._cpu.get(phase, CpuSpent())
            cloud = dict(sorted(spent.cloud.items(), key=lambda item: -item[1]))
            return {"cloud_s": {k: round(v, 1) for k, v in cloud.items()},
                    "cloud_total_s": round(sum(cloud.values()), 1),
                    "engine_s": round(spent.own, 1)}

    def record(self, service: str, method: str, url: str, single_get: bool,
               seconds: float = 0.0) -> None:
        with self._lock:
            waited = self._seconds.setdefault(self._phase, {})
            waited[service] = waited.get(service, 0.0) + seconds
            seen = self._seen.setdefault(self._phase, set())
            key = (service, url)
            poll = single_get and key in seen
            if single_get:
                seen.add(key)
            self._calls.setdefault(self._phase, Counter())[(service, method.upper(), poll)] += 1
            pattern = f"{service} {method.upper()} {path_pattern(url)}" + (" (poll)" if poll
                                                                            else "")
            self._patterns.setdefault(self._phase, Counter())[pattern] += 1

    def summary(self, phase: str) -> Summary:
        """``{"total", "polls", "by_service": {svc: {"total", "polls", "by_method"}},
        "by_method"}`` of one phase."""
        with self._lock:
            calls = Counter(self._calls.get(phase, Counter()))
            patterns = Counter(self._patterns.get(phase, Counter()))
            seconds = dict(self._seconds.get(phase, {}))
        found = summarise(calls)
        found["by_request"] = dict(patterns.most_common())
        found["call_seconds"] = sum(seconds.values())
        found["cpu"] = self.cpu(phase)
        for service, spent in seconds.items():
            if service in found["by_service"]:
                found["by_service"][service]["call_seconds"] = spent
        return found

    def phases(self) -> list[str]:
        with self._lock:
            return list(self._calls)


def summarise(calls: Mapping[tuple[str, str, bool], int]) -> Summary:
    by_service: dict[str, Summary] = {}
    by_method: Counter[str] = Counter()
    total = polls = 0
    for (service, method, poll), count in sorted(calls.items()):
        entry = by_service.setdefault(service, {"total": 0, "polls": 0, "by_method": {}})
        entry["total"] += count
        entry["by_method"][method] = entry["by_method"].get(method, 0) + count
        by_method[method] += count
        total += count
        if poll:
            entry["polls"] += count
            polls += count
    return {"total": total, "polls": polls, "by_service": by_service,
            "by_method": dict(by_method)}


def install(counter: CallCounter) -> Callable[[], None]:
    """Wrap keystoneauth1's ``Session.request`` so that every call is counted; returns the
    function that puts the original back."""
    from keystoneauth1 import session as ks_session

    original = ks_session.Session.request

    def request(self: Any, url: str, method: str, *args: Any, **kwargs: Any) -> Any:
        endpoint_filter = kwargs.get("endpoint_filter") or {}
        override = kwargs.get("endpoint_override")
        where = url
        if not urlsplit(url).netloc and isinstance(override, str):
            where = override.rstrip("/") + "/" + url.lstrip("/")
        service = service_of(where, endpoint_filter.get("service_type"))
        params = kwargs.get("params")
        if isinstance(params, Mapping) and params:
            where += ("&" if "?" in where else "?") + urlencode(sorted(params.items()),
                                                                doseq=True)
        started = time.perf_counter()
        try:
            return original(self, url, method, *args, **kwargs)
        finally:
            counter.record(service, method, where, is_single_get(method, where, None),
                           time.perf_counter() - started)

    # keystoneauth has no hook for this: the method itself is wrapped
    setattr(ks_session.Session, "request", request)  # noqa: B010

    def uninstall() -> None:
        setattr(ks_session.Session, "request", original)  # noqa: B010

    return uninstall
