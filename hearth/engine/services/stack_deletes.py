"""Deleting a stack: at once when its lock is free, else after the action that holds it
stops (here, or on another engine, which hands this one the lock). An accepted delete is
noted on the lock until it begins (``hearth.engine.running.messages``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from hearth.common.context import RequestContext
from hearth.common.errors import HearthError
from hearth.common.ids import new_uuid
from hearth.engine import states
from hearth.engine.core import EngineCore
from hearth.engine.running import loaded_stack, locking, traversal
from hearth.engine.running.actions import ActionManager
from hearth.engine.running.loaded_stack import LoadedStack
from hearth.engine.running.messages import DELETE_PREFIX, delete_message
from hearth.engine.running.run_spec import RunSpec
from hearth.engine.running.stack_state import (
    begin_stack_action,
    cancelled_reason,
    stack_event,
)
from hearth.engine.services.stack_lookup import live_stack_columns
from hearth.store import locks as lock_store
from hearth.store import stacks as stack_store
from hearth.store.db import DatabaseError, Session

LOG = logging.getLogger(__name__)


class StackDeletes:
    """``StackService``'s deletes."""

    core: EngineCore
    actions: ActionManager

    def delete_stack(self, ctx: RequestContext, stack_identity: Mapping[str, Any]) -> None:
        def begin(session: Session) -> tuple[Any, str | None, LoadedStack | None]:
            # Not the ORM row: a delete of every child stack looks its stack up.
            row = live_stack_columns(session, ctx, stack_identity)
            stack_id, name = row.id, row.name
            # Most often free: taken at once; else whoever holds it decides what follows.
            taken = lock_store.try_insert(session, stack_id, self.core.engine_id)
            holder = None if taken else locking.holder_alive(self.core, session, stack_id)
            loaded = None
            if holder is None:
                # Free (or its holder dead): taken, begun and read in this transaction.
                if not taken:
                    locking.acquire(self.core, session, stack_id, name, states.DELETE)
                loaded = self.begin_delete(session, stack_id, name, row)
            elif holder == self.core.engine_id:
                # Accepted: the note on the lock has a takeover delete the stack should this
                # engine die (or fail) before its delete begins.
                lock_store.post_message(session, stack_id, delete_message(holder))
            return row, holder, loaded

        # With the other deletes of this moment (a tree's children come in bursts).
        row, holder, loaded = self.core.grouped.run(begin)
        stack_id, name = row.id, row.name
        if loaded is not None:
            self.launch_delete(stack_id, loaded)
            return
        if holder == self.core.engine_id and self.actions.get(stack_id) is not None:
            run = self.actions.get(stack_id)
            if run is not None and self.actions.after_current(
                stack_id, lambda: self._delete_when_free(stack_id, name)
            ):
                run.request_cancel(rollback=False, drain=False, delete_follows=True)
                return
        if holder is not None and holder != self.core.engine_id:
            with self.core.db.session() as session:
                # (not over another delete waiting: that one deletes, and this one sees it)
                lock_store.post_message(session, stack_id, delete_message(self.core.engine_id),
                                        unless_prefix=DELETE_PREFIX)
            self.core.workers.submit(
                self._await_lock_then_delete(stack_id, name, row.current_traversal))
            return
        self._delete_when_free(stack_id, name)

    def _delete_when_free(
        self, stack_id: str, name: str, accepted_during: str | None = None
    ) -> None:
        """Begin the delete this engine accepted once it holds the stack's lock (raises
        ActionInProgress while another engine's action holds it); nothing when the stack is
        deleted, or a delete began since this one was accepted during the traversal
        ``accepted_during`` (a takeover's of this delete, say)."""
        me = self.core.engine_id
        with self.core.db.session() as session:
            holder = lock_store.holder(session, stack_id)
            if holder == me:
                # Held with this engine's note of the accepted delete: whoever removes the
                # note begins the delete.
                if not lock_store.clear_message(session, stack_id, me, delete_message(me)):
                    return
            else:
                row = stack_store.run_columns(session, stack_id)
                if row is None or row.deleted_at is not None:
                    return
                if (row.action == states.DELETE and row.status == states.IN_PROGRESS
                        and row.current_traversal != accepted_during
                        and locking.holder_alive(self.core, session, stack_id) is not None):
                    return
                locking.acquire(self.core, session, stack_id, name, states.DELETE)
            loaded = self.begin_delete(session, stack_id, name)
        self.launch_delete(stack_id, loaded)

    def launch_delete(self, stack_id: str, loaded: LoadedStack) -> None:
        self.actions.launch(stack_id, RunSpec(states.DELETE), traversal_id=loaded.traversal_id,
                            loaded=loaded)

    def begin_delete(
        self, session: Session, stack_id: str, name: str, row: Any = None
    ) -> LoadedStack:
        """DELETE begun with its run's traversal and graph, and the stack as its run starts
        from, in the caller's transaction, which holds the stack's lock (``row``: the stack's
        row, read in it)."""
        # What the run reads of the row (not its action and status) is as looked up.
        if row is None:
            row = stack_store.run_columns(session, stack_id)
        loaded = loaded_stack.read_in(session, self.core.db, self.core.encryptor, stack_id, row)
        if row.status == states.IN_PROGRESS and row.action not in (None, states.DELETE):
            # An action this delete stopped (its run wrote no end) ends, as in Heat, with its
            # cancelled event; written with the delete's start, so no client polling for
            # DELETE_COMPLETE reads the stack FAILED in between.
            stack_event(session, stack_id, name, row.action, states.FAILED,
                        cancelled_reason(row.action))
        # A delete goes first (no update supersedes it): its traversal is the stack's now.
        loaded.traversal_id = new_uuid()
        nodes = traversal.reverse_rows(loaded.rows)
        begin_stack_action(
            session, stack_id, name, states.DELETE, current_traversal=loaded.traversal_id,
            current_deps=traversal.stored_form(RunSpec(states.DELETE).to_json(), nodes),
        )
        loaded.traversal_stored = True
        return loaded

    async def _await_lock_then_delete(
        self, stack_id: str, name: str, accepted_during: str | None
    ) -> None:
        delay = 0.05
        while True:
            try:
                await self.core.workers.call(
                    self._delete_when_free, stack_id, name, accepted_during)
                return
            except HearthError:
                pass
            except DatabaseError as exc:
                LOG.warning("A delete of stack %s waits for the database: %s", stack_id, exc)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)
