"""Control messages other engines leave on the locks this engine holds (cancel requests).

One read per interval covers every action this engine runs, rather than one read per action:
with hundreds of nested stacks running, per-action polling cost more than their resources.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from hearth.store import locks as lock_store
from hearth.store.db import Database, DatabaseError

POLL_INTERVAL = 0.25

# A delete: "stop:<the deleting engine's id>". Left by another engine, it stops the run and the
# lock goes to that engine at the run's end, with the same words on it; on a lock its engine
# holds, it says that engine accepted a delete it has not begun yet. That note stays until
# the delete begins, so that whoever takes the stack over from a dead engine deletes it
# rather than carrying on the stopped action (the delete was accepted).
DELETE_PREFIX = "stop"


def delete_message(engine_id: str) -> str:
    return f"{DELETE_PREFIX}:{engine_id}"


def deleter_of(message: str) -> str | None:
    """The engine a delete message names ("" for one that names none); None for another
    message."""
    kind, _, engine_id = message.partition(":")
    return engine_id if kind == DELETE_PREFIX else None

Deliver = Callable[[str], None]


class MessageBoard:
    """Used from the engine's event loop only."""

    def __init__(self, db: Database, engine_id: str, call: Callable[..., Awaitable[Any]]) -> None:
        self._db = db
        self._engine_id = engine_id
        self._call = call
        self._watchers: dict[str, Deliver] = {}
        self._task: asyncio.Task[None] | None = None

    def watch(self, stack_id: str, deliver: Deliver) -> None:
        """Call ``deliver(message)`` for each message left on the stack's lock until unwatched."""
        self._watchers[stack_id] = deliver
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._poll())

    def unwatch(self, stack_id: str, deliver: Deliver) -> None:
        if self._watchers.get(stack_id) == deliver:  # bound methods are equal, not identical
            del self._watchers[stack_id]

    async def _poll(self) -> None:
        while self._watchers:
            await asyncio.sleep(POLL_INTERVAL)
            if not self._watchers:
                return
            try:
                waiting: list[str] = await self._call(self._waiting)
            except DatabaseError:
                continue  # the database is briefly unreachable: the next round reads again
            for stack_id in waiting:
                if stack_id not in self._watchers:
                    continue
                message: str | None = await self._call(self._take, stack_id)
                deliver = self._watchers.get(stack_id)
                if message is not None and deliver is not None:
                    deliver(message)

    def _waiting(self) -> list[str]:
        # A read: a write transaction per round would queue behind the engine's own writes.
        with self._db.session(readonly=True) as session:
            return lock_store.with_messages(session, self._engine_id,
                                            kept=delete_message(self._engine_id))

    def _take(self, stack_id: str) -> str | None:
        with self._db.session() as session:
            return lock_store.take_message(session, stack_id, self._engine_id,
                                           kept=delete_message(self._engine_id))
