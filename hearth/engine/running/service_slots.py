"""The resource steps of one service's types that may run at once in one engine.

A slow service holds at most its slots, so the types of other services (and Heat's own) go
on meanwhile. Steps waiting for a slot take it in order of their place on the action's
critical path (``ActionRun.chain_lengths``, higher first), then of arrival: a network's
subnets and a server's port are not queued behind a hundred ports nothing waits for.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import TracebackType


class ServiceSlots:
    def __init__(self, value: int) -> None:
        self._free = value
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._arrivals = itertools.count()

    @property
    def waiting(self) -> int:
        """Steps waiting for a slot (the metrics' queue depth)."""
        return sum(1 for _, _, future in self._waiting if not future.done())

    async def acquire(self, priority: int = 0) -> None:
        if self._free > 0 and not self.waiting:
            self._free -= 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (-priority, next(self._arrivals), future))
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release()  # handed over just as the step was cancelled: pass it on
            raise

    def release(self) -> None:
        while self._waiting:
            _, _, future = heapq.heappop(self._waiting)
            if not future.done():
                future.set_result(None)  # the slot goes straight to the next step
                return
        self._free += 1

    @asynccontextmanager
    async def held(self, priority: int = 0) -> AsyncIterator[None]:
        await self.acquire(priority)
        try:
            yield
        finally:
            self.release()

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        self.release()
