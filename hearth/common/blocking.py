"""Waiting on a request to an API that may be this very server, without deadlocking it.

An OS::Heat::Stack whose region's orchestration endpoint is this Hearth calls its own API and
waits for the answer: from an API thread (the remote template is validated while the
parent's create request is being answered) or from an engine worker. Were every API thread
waiting so, none would be left to answer them. So such a call runs inside
``waiting_on_api()``, and each running API server registers a ``SpareThreads`` that gives
it one more thread for as long as the call waits (the threads it serves requests with never
all wait on each other).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_servers: list[SpareThreads] = []


class SpareThreads:
    """One API server's thread pool: ``base`` threads, plus one per call waiting.

    ``set_count`` sets the pool's size (waitress's ``set_thread_count``). ``close`` (when
    the server stops) ends the adjustments, so a call ending late starts no thread.
    """

    def __init__(self, base: int, set_count: Callable[[int], None]) -> None:
        self.base = base
        self._set_count = set_count
        self.waiting = 0
        self._closed = False
        self._lock = threading.Lock()

    def adjust(self, delta: int) -> None:
        with self._lock:
            if self._closed:
                return
            self.waiting += delta
            self._set_count(self.base + max(self.waiting, 0))

    def register(self) -> SpareThreads:
        with _lock:
            _servers.append(self)
        return self

    def close(self) -> None:
        with self._lock:
            self._closed = True
        with _lock:
            if self in _servers:
                _servers.remove(self)


@contextmanager
def waiting_on_api() -> Iterator[None]:
    """Around a call whose answer may need a thread of this process's API servers."""
    with _lock:
        servers = list(_servers)
    for server in servers:
        server.adjust(1)
    try:
        yield
    finally:
        for server in servers:
            server.adjust(-1)
