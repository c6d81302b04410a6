"""How many requests one engine has in flight to each service at once.

A service's API process does not get faster with more requests at once: the devcloud's
Neutron, one process, spends half again as much CPU per request at four in flight as at one
(its threads contend for the interpreter and its database rows), and requests beyond its
threads queue in front of the calls other services make to it (Nova binding ports). Heat's
engine, one process with green threads, rarely has more than one in flight. So the engine
keeps many resource steps going per service (``service_concurrency``) but lets only a few of
their requests go at once (``service_requests``); the others wait here, without a request.

When requests wait, the one whose resource has the longest chain of resources after it goes
first (``step_priority``, set by the engine around each step): a network's subnet and a
server's port before ports nothing waits for, so the servers boot while the rest are made.

A thread already inside a call of a service is not held again by the calls it makes to the
same service (finders called from a handler's call): the limit counts threads, so nested
calls cannot deadlock.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_step = threading.local()


@contextmanager
def step_priority(priority: int) -> Iterator[None]:
    """Inside: this thread's requests wait as those of a step of ``priority`` (higher
    first)."""
    before = getattr(_step, "priority", 0)
    _step.priority = priority
    try:
        yield
    finally:
        _step.priority = before


class _Places:
    """``limit`` places; waiting threads take them highest priority first, then in order
    of arrival."""

    def __init__(self, limit: int) -> None:
        self._free = limit
        self._cond = threading.Condition()
        self._waiting: list[tuple[int, int]] = []
        self._arrivals = itertools.count()

    def acquire(self, priority: int) -> None:
        with self._cond:
            if self._free > 0 and not self._waiting:
                self._free -= 1
                return
            mine = (-priority, next(self._arrivals))
            heapq.heappush(self._waiting, mine)
            while not (self._free > 0 and self._waiting[0] == mine):
                self._cond.wait()
            heapq.heappop(self._waiting)
            self._free -= 1
            if self._free > 0 and self._waiting:
                self._cond.notify_all()

    def release(self) -> None:
        with self._cond:
            self._free += 1
            self._cond.notify_all()


class RequestsInFlight:
    """Per service, at most ``limit`` threads at a time inside its calls (0: no limit)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._places: dict[str, _Places] = {}
        self._held = threading.local()

    def _places_of(self, service: str) -> _Places:
        with self._lock:
            found = self._places.get(service)
            if found is None:
                found = self._places[service] = _Places(self.limit)
            return found

    @contextmanager
    def held(self, service: str | None) -> Iterator[None]:
        """Inside: one of the service's places is this thread's."""
        held: set[str] = self._held.__dict__.setdefault("services", set())
        if not self.limit or service is None or service in held:
            yield
            return
        places = self._places_of(service)
        places.acquire(getattr(_step, "priority", 0))
        held.add(service)
        try:
            yield
        finally:
            held.discard(service)
            places.release()
