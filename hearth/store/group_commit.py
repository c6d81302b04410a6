"""Write transactions that arrive together, committed as one.

A new stack's store, a delete's start and an action's end each write a few rows in a
transaction of their own, and the stacks of a tree come in bursts (the engine's journal of
resource steps' writes joins them too). On SQLite a transaction
costs far more than its statements (the write lock, the WAL frames written at its commit, the
pages other connections' commits made stale), and writers queue for the one write lock
anyway. So ``GroupCommit.run`` hands its work to whichever caller is committing now: the first
caller to find none runs every work queued at that moment in one transaction, in order, and
commits once; the others wait for that commit. A caller alone is not delayed.

Only on SQLite: elsewhere writers do not queue for one lock, and a group holding the row
locks of several stacks at once could deadlock with another engine's group, so each work
has its transaction of its own there.

Should any work of a group raise (or the commit fail), the group's transaction is rolled back
and each of its works runs again in a transaction of its own, so that each caller gets exactly
what its work alone would have done. Works must therefore read what they need in the session
they are given, keep their effects inside it, and may run twice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from hearth.store.db import Database, Session

T = TypeVar("T")


@dataclass
class _Work(Generic[T]):
    fn: Callable[[Session], T]
    # Set once the work is committed (or failed), or to make its caller commit the next group.
    done: threading.Event = field(default_factory=threading.Event)
    lead: bool = False
    result: Any = None
    error: BaseException | None = None


class GroupCommit:
    """Runs works in write transactions of ``db``, those that arrive together in one."""

    def __init__(
        self, db: Database, max_group: int = 64, *, grouping: bool | None = None
    ) -> None:
        """``grouping``: whether works that arrive together share a transaction (by default
        on SQLite only, see the module's doc)."""
        self._db = db
        self._max_group = max_group
        self._grouping = db.dialect == "sqlite" if grouping is None else grouping
        self._lock = threading.Lock()
        self._queue: list[_Work[Any]] = []
        self._committing = False
        self._inside = threading.local()

    @property
    def grouping(self) -> bool:
        return self._grouping

    @property
    def waiting(self) -> int:
        """How many works are queued for the next group."""
        with self._lock:
            return len(self._queue)

    def run(self, fn: Callable[[Session], T]) -> T:
        """``fn(session)`` in a write transaction, committed when this returns; what it
        returned, or what it raised."""
        if getattr(self._inside, "active", False):
            # Its caller's transaction holds the write lock: this one would wait forever.
            raise RuntimeError("a grouped write may not start another one")
        if not self._grouping:
            return self._alone(fn)
        work: _Work[T] = _Work(fn)
        with self._lock:
            self._queue.append(work)
            lead = not self._committing
            self._committing = True
        if not lead:
            work.done.wait()
        if lead or work.lead:
            self._commit_next()
        if work.error is not None:
            raise work.error
        return work.result  # type: ignore[no-any-return]

    def _commit_next(self) -> None:
        """Commit the queue's first group (this caller's work is in it), then hand the
        committing to the first work that came meanwhile."""
        with self._lock:
            group, self._queue = self._queue[: self._max_group], self._queue[self._max_group:]
        try:
            self._inside.active = True
            self._commit(group)
        finally:
            self._inside.active = False
            with self._lock:
                follower = self._queue[0] if self._queue else None
                self._committing = follower is not None
            for work in group:
                work.lead = False
                work.done.set()
            if follower is not None:
                follower.lead = True
                follower.done.set()

    def _alone(self, fn: Callable[[Session], T]) -> T:
        self._inside.active = True
        try:
            with self._db.session() as session:
                return fn(session)
        finally:
            self._inside.active = False

    def _commit(self, group: list[_Work[Any]]) -> None:
        if len(group) > 1:
            try:
                with self._db.session() as session:
                    results = [work.fn(session) for work in group]
            except BaseException:  # each runs alone below, and reports its own
                pass
            else:
                for work, result in zip(group, results, strict=True):
                    work.result = result
                return
        for work in group:
            try:
                with self._db.session() as session:
                    work.result = work.fn(session)
            except BaseException as exc:  # handed to its caller
                work.error = exc
