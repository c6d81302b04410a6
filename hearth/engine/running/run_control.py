"""How others stop a running action: a user's cancel, a delete, a newer update that
supersedes it (``supersede``), asked in this engine or by a message on the stack's lock, and
another engine that took the stack over (fencing: this one then writes nothing more)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from hearth.engine import states
from hearth.engine.core import EngineCore
from hearth.engine.running import supersede
from hearth.engine.running.messages import deleter_of
from hearth.engine.running.scheduler import StopReason, StopSignal
from hearth.engine.running.stack_state import cancelled_reason, set_stack_state
from hearth.resources.stack_resource import StackResource
from hearth.store import batch
from hearth.store import locks as lock_store
from hearth.store.db import Session
from hearth.store.outage import outage_summary

if TYPE_CHECKING:
    from hearth.engine.running.resource_task import ResourceTask

LOG = logging.getLogger(__name__)


class RunControl:
    """Part of ``ActionRun``: the requests that stop it."""

    core: EngineCore
    lock_owner: str
    stack_id: str
    stack_name: str
    action: str
    traversal_id: str
    stop: StopSignal
    failed_early: bool
    cancel_rollback: bool
    poll_events: dict[str, asyncio.Event]
    hook_events: dict[str, asyncio.Event]
    # Set once a newer update owns the stack: nothing new starts, the run hands over.
    superseded: bool
    # Set when this run stops at once and writes nothing more (``_lose_lock``,
    # ``_lose_database``).
    left_off: bool
    # Set when the database went away under this run: the engine carries it on later.
    database_lost: bool
    # Set when a delete stops this run and follows it: the run's end writes no state.
    delete_follows: bool
    # Why resources this run stops were aborted, when not the stop's own message.
    abort_why: str
    # The engine whose delete stopped this run, when it is another one: the run's end hands
    # it the lock rather than freeing it (a free lock on a stack IN_PROGRESS would be taken
    # over, and the stopped action resumed, by whichever engine looks first).
    delete_by: str | None

    def _on_message(self, message: str) -> None:
        """A control message another engine left on this stack's lock."""
        newer = supersede.traversal_of(message)
        deleter = deleter_of(message)
        if newer is not None:
            self.supersede(newer)
        elif deleter is not None:  # a delete supersedes this action
            self.delete_by = deleter or None
            self.request_cancel(rollback=False, drain=False, delete_follows=True)
        elif message == "halt":  # a parent stops its child stack's action
            self.request_cancel(rollback=False, drain=False)
        elif message == "cancel":
            self.request_cancel(rollback=False, by_user=True)
        elif message == "cancel_with_rollback":
            self.request_cancel(rollback=True, by_user=True)

    def check_lock(self, session: Session) -> None:
        """Raise ``LockLost`` unless this engine still holds the stack's lock (the row stays
        locked until ``session`` commits)."""
        if not lock_store.held(session, self.stack_id, self.lock_owner):
            raise batch.LockLost(self.stack_id, lock_store.holder(session, self.stack_id))

    def _lose_lock(self) -> None:
        """Another engine took this stack over, having believed this one dead (it missed its
        heartbeats: a long pause, a starved process). That engine carries the action on from
        what is stored: this run stops at once and writes nothing more (loop thread only)."""
        self._note_lock_lost()
        self.stop.request(StopReason.CANCELLED, "taken over by another engine")

    def _lose_database(self, error: BaseException) -> None:
        """The database went away (restarted, crashed) under this run. Nothing of its end can
        be written, and a resource's failure would be this engine's, not the resource's: the
        run stops at once and writes nothing more, as if its engine had died, and this engine
        carries the action on from what is stored once the database answers again
        (``Liveness.resume_left``; another engine may take it over first)."""
        if not self.database_lost:
            LOG.warning("Stack %s: the database went away during %s (%s); the action goes on "
                        "once it answers", self.stack_id, self.action,
                        outage_summary(error))
        self.database_lost = True
        self.left_off = True
        self.stop.request(StopReason.CANCELLED, "the database went away")

    def _note_lock_lost(self) -> None:
        if not self.left_off:
            LOG.warning("Stack %s was taken over by another engine: its %s stops here",
                        self.stack_id, self.action)
            self.left_off = True

    def request_cancel(
        self, *, rollback: bool, message: str = "", drain: bool | None = None,
        delete_follows: bool = False, by_user: bool = False,
    ) -> None:
        """Stop this action. A user's cancel without rollback lets running resources finish
        (``drain``); a delete that supersedes the action stops them at once, and then its
        end writes no state (``delete_follows``): as in Heat, the stack goes from the
        action's IN_PROGRESS to DELETE_IN_PROGRESS, never through the action's FAILED."""
        self.cancel_rollback = rollback
        self.delete_follows = self.delete_follows or delete_follows
        if (by_user or delete_follows) and not self.stop.requested:
            # What Heat's convergence engine tells a resource a user's cancel or delete
            # stopped: "<ACTION> aborted (user triggered cancel)".
            self.abort_why = "user triggered cancel"
        drain = not rollback if drain is None else drain
        if drain and not self.stop.requested and not self.failed_early:
            # Heat marks the stack FAILED at once; what runs then finishes on its own.
            with self.core.db.session() as session:
                set_stack_state(session, self.stack_id, self.stack_name, self.action,
                                states.FAILED, message or cancelled_reason(self.action))
            self.failed_early = True
        self.stop.request(StopReason.CANCELLED, message, drain=drain)

    def supersede(self, traversal_id: str) -> None:
        """A newer update (``traversal_id``) owns the stack: start nothing new, let what runs
        finish, stop waiting on child stacks (loop thread only)."""
        if traversal_id == self.traversal_id or self.superseded:
            return
        self.superseded = True
        self.stop.request(StopReason.CANCELLED, drain=True)
        for event in (*self.poll_events.values(), *self.hook_events.values()):
            event.set()  # waits notice at once (see ``hands_over``)

    def hands_over(self, task: ResourceTask) -> bool:
        """Whether a superseded run stops waiting on ``task`` without writing anything: a
        resource whose child stack is being created or updated (the newer update updates it,
        which supersedes the child's action). Other resources finish: they are left in a real
        state for the newer update to start from."""
        return (self.superseded and task.action in (states.CREATE, states.UPDATE, states.ADOPT)
                and isinstance(task.plugin, StackResource))
