"""Group commit of resource writes: the steps that reach a commit together share one transaction.

A resource step hands its writes (``hearth.store.batch``) to ``Journal.commit`` and waits; the
journal's own thread writes everything handed in meanwhile in one transaction, then wakes every
waiter. While one transaction runs, the next batch gathers. A step goes on only once its writes
are committed, exactly as if it had committed them alone; the difference is that a thousand
ready resources cost a few transactions instead of thousands, and never queue on the database's
write lock one by one. When a batch fails, each request is retried in a transaction of its own,
so one bad request fails only its own step.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from hearth.common import metrics
from hearth.store import batch
from hearth.store.db import Database
from hearth.store.group_commit import GroupCommit

_Request = tuple[Sequence[batch.Write], "asyncio.Future[None]"]


class Journal:
    """See the module doc. Used from the engine's event loop only."""

    def __init__(
        self, db: Database, loop: asyncio.AbstractEventLoop, grouped: GroupCommit | None = None
    ) -> None:
        self._db = db
        # On SQLite its transactions join the stores and ends committing at the same moment.
        self._grouped = grouped if grouped is not None and grouped.grouping else None
        self._loop = loop
        # One writer thread: the engine's own writes never wait on each other for the lock.
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hearth-journal")
        self._pending: list[_Request] = []
        self._writing = False

    async def commit(self, writes: Sequence[batch.Write]) -> None:
        """Return once ``writes`` are committed; raise what writing them raised."""
        if not writes:
            return
        done: asyncio.Future[None] = self._loop.create_future()
        self._pending.append((writes, done))
        if not self._writing:
            self._writing = True
            # Not at once: the steps that are ready in this turn of the loop join the batch.
            self._loop.call_soon(self._write_next)
        await done

    async def flushed(self) -> None:
        """Return once every write handed in before this call is committed (or has failed,
        which its own step reports): from then on another engine reads them."""
        if not self._writing:
            return  # nothing is pending or being written
        done: asyncio.Future[None] = self._loop.create_future()
        self._pending.append(((), done))
        with contextlib.suppress(Exception):
            await done

    def _write_next(self) -> None:
        requests, self._pending = self._pending, []
        if not requests:
            self._writing = False
            return
        future = self._loop.run_in_executor(self._thread, self._write, requests)
        future.add_done_callback(lambda f: self._written(requests, f))

    def _write(self, requests: list[_Request]) -> list[BaseException | None]:
        try:
            self._transaction([w for writes, _ in requests for w in writes])
            return [None] * len(requests)
        except Exception as exc:
            if len(requests) == 1:
                return [exc]
        outcomes: list[BaseException | None] = []
        for writes, _ in requests:
            try:
                self._transaction(writes)
                outcomes.append(None)
            except Exception as exc:
                outcomes.append(exc)
        return outcomes

    def _transaction(self, writes: Sequence[batch.Write]) -> None:
        if not writes:
            return  # only waiters for what came before (``flushed``)
        started = time.perf_counter()
        try:
            if self._grouped is not None:
                self._grouped.run(lambda session: batch.apply(session.connection(), writes))
                return
            with self._db.engine.begin() as conn:
                batch.apply(conn, writes)
        finally:
            metrics.db_transaction("journal", time.perf_counter() - started)

    def _written(
        self, requests: list[_Request], future: asyncio.Future[list[BaseException | None]]
    ) -> None:
        try:
            outcomes = future.result()
        except BaseException as exc:  # the thread pool itself failed (shut down)
            outcomes = [exc] * len(requests)
        for (_, done), outcome in zip(requests, outcomes, strict=True):
            if done.done():  # its step was cancelled meanwhile
                continue
            if outcome is None:
                done.set_result(None)
            else:
                done.set_exception(outcome)
        self._write_next()

    def close(self) -> None:
        self._thread.shutdown(wait=True)
