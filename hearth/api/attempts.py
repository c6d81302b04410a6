"""Failed guesses at the public secret URLs (signal, wait condition, metadata), per source
address: past a limit a source is refused at once (429) until its window passes, and every
refusal takes the same minimum time, so that neither the number of tries nor the time an
answer takes tells whether a resource exists."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

# Every refused guess is answered after at least this long (the engine's lookup of an existing
# resource's secret takes a few milliseconds more than that of an unknown one).
MIN_REFUSAL_SECONDS = 0.05
WINDOW_SECONDS = 60.0
# Sources remembered at once (the oldest are forgotten first), so memory stays bounded.
MAX_SOURCES = 10000


class FailedAttempts:
    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = per_minute
        self.clock = clock
        self._lock = threading.Lock()
        self._by_source: OrderedDict[str, deque[float]] = OrderedDict()

    def _recent(self, source: str, now: float) -> deque[float]:
        times = self._by_source.get(source)
        if times is None:
            times = self._by_source[source] = deque()
            while len(self._by_source) > MAX_SOURCES:
                self._by_source.popitem(last=False)
        while times and now - times[0] > WINDOW_SECONDS:
            times.popleft()
        return times

    def retry_after(self, source: str) -> int | None:
        """Seconds until ``source`` may try again, or None when it may now."""
        now = self.clock()
        with self._lock:
            times = self._recent(source, now)
            if len(times) < self.limit:
                return None
            return max(1, int(WINDOW_SECONDS - (now - times[0])) + 1)

    def failed(self, source: str) -> None:
        now = self.clock()
        with self._lock:
            self._recent(source, now).append(now)
            self._by_source.move_to_end(source)


def pad_refusal(started: float) -> None:
    """Sleep out the rest of the minimum refusal time."""
    remaining = MIN_REFUSAL_SECONDS - (time.monotonic() - started)
    if remaining > 0:
        time.sleep(remaining)
