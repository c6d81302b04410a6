"""A stack action's end: its final state, outputs and event, template bookkeeping, and then
a rollback's start or the lock's release, all in one transaction (``ActionRun`` runs it)."""

from __future__ import annotations

from typing import Any

from hearth.engine import states
from hearth.engine.plugin_access import stack_users
from hearth.engine.running import supersede
from hearth.engine.running.messages import delete_message
from hearth.engine.running.outputs import resolve_outputs
from hearth.engine.running.run_spec import (
    ROLLBACK_AFTER,
    UPDATE_LIKE,
    EndedState,
    RunSpec,
    begin_rollback,
)
from hearth.engine.running.scheduler import StopReason
from hearth.engine.running.stack_state import drop_template, stack_event
from hearth.engine.running.step_driver import StepDriver
from hearth.engine.services.payloads import finish_snapshot
from hearth.store import batch
from hearth.store import events as event_store
from hearth.store import locks as lock_store
from hearth.store.db import Session
from hearth.store.types import as_stored, utcnow


class RunEnd(StepDriver):
    """Part of ``ActionRun``: how it ends (see the module doc)."""

    depth: int
    owner_id: str | None
    template_id: int
    prev_template_id: int | None
    # Templates the run's resources were on when it began, other than its own.
    old_templates: set[int | None]
    # Set when another action waits for this one: the lock is handed over, not released.
    keep_lock: bool
    # What follows this run in its engine (a rollback, the newest update), and the
    # traversal it runs as.
    next_spec: RunSpec | None
    next_traversal: str | None
    # What the run's end wrote of the stack; None when it wrote no state.
    ended: EndedState | None

    @property
    def is_update_like(self) -> bool:
        return self.spec.action in UPDATE_LIKE

    def _finish(self, success: bool, reason: str, stop: StopReason | None) -> None:
        """Final state, outputs, template bookkeeping, event; then rollback or lock release."""
        cancelled = stop is StopReason.CANCELLED
        rollback = (
            not success
            and self.spec.action in ROLLBACK_AFTER
            and not self.spec.delete_as
            # A cancel says itself whether to roll back; a failure follows disable_rollback.
            and (self.cancel_rollback if cancelled else self.spec.rollback)
        )
        if (success and self.spec.action == states.DELETE and not self.spec.delete_as
                and self.depth == 0 and self.core.clouds.clients.uses_trusts):
            # The stack's trust goes with it (children share their root's).
            self.core.clouds.delete_trust(self.stack_id)
        if (success and self.spec.action == states.DELETE and not self.spec.delete_as
                and not self.spec.abandon):
            # Its stack user project goes with it (a child's shared one with the root; an
            # abandoned stack keeps it, as in Heat).
            stack_users.delete_project_of(self.core, self.stack_id)
        # The common end releases the lock: that DELETE, last in the transaction, is also the
        # check that this engine still holds it (a takeover's steal waits for the commit).
        releasing = not rollback and not self.keep_lock
        def end(session: Session) -> EndedState | None:
            if not releasing:
                self.check_lock(session)
            return self._write_end(session, success, reason, rollback, releasing)

        try:
            ended = self.core.grouped.run(end)
        except batch.LockLost:
            self._note_lock_lost()
            return
        if ended is not None:
            self.ended = ended

    def _release_lock(self, session: Session) -> bool:
        """Free the lock, or hand it to the engine whose delete stopped this run; False when
        this engine no longer held it."""
        if self.delete_by and self.delete_by != self.core.engine_id:
            # With the deleting engine's note: should it be gone, a takeover deletes.
            return lock_store.steal(session, self.stack_id, self.core.engine_id, self.delete_by,
                                    message=delete_message(self.delete_by))
        return lock_store.release(session, self.stack_id, self.core.engine_id)

    def _write_end(
        self, session: Session, success: bool, reason: str, rollback: bool, releasing: bool
    ) -> EndedState | None:
        """``_finish``'s transaction; what the end leaves for a parent in this engine (None
        when a newer update owns the stack). Raises ``LockLost`` to roll it all back."""
        action = self.action
        status = states.COMPLETE if success else states.FAILED
        deleted = (success and self.spec.action == states.DELETE
                   and not self.spec.delete_as)
        fields: dict[str, Any] = {}
        if self.spec.action != states.DELETE or not success:
            fields["outputs"] = resolve_outputs(self.bound)
        if success and self.is_update_like and self.prev_template_id is not None:
            fields["prev_raw_template_id"] = None
        if deleted:
            fields["deleted_at"] = utcnow()
        # A cancel wrote the FAILED state already; a delete that follows writes its own.
        writes_state = not self.failed_early and not self.delete_follows
        if writes_state:
            fields.update(action=action, status=status, status_reason=reason)
        # The end is written with the claim of the stack's next traversal, in one UPDATE.
        if supersede.superseded_at_end(self, session, lock_checked=not releasing, **fields):
            return None  # a newer update owns the stack: nothing of this run's end is written
        ended = None
        if writes_state:
            stack_event(session, self.stack_id, self.stack_name, action, status, reason)
            ended = EndedState(
                None if deleted else (action, status, reason),
                # A child's, for its parent to read without a query: as stored.
                as_stored(fields["outputs"]) if "outputs" in fields and self.owner_id
                else None,
            )
        if success and self.is_update_like:
            # With those its resources were on when it began (unused now, most often).
            drop_template(session, self.prev_template_id, *self.old_templates)
        event_store.prune(
            session, self.stack_id, self.core.limits.max_events_per_stack,
            self.core.limits.event_purge_batch_size,
        )
        if self.spec.snapshot_id and self.spec.action == states.SNAPSHOT:
            finish_snapshot(
                self.core, session, self.stack_id, self.spec.snapshot_id, success, reason
            )
        if rollback:
            self.next_spec = begin_rollback(
                session, self.spec.action, self.stack_id, self.stack_name,
                self.template_id, self.prev_template_id,
            )
        elif releasing and not self._release_lock(session):
            raise batch.LockLost(self.stack_id, lock_store.holder(session, self.stack_id))
        return ended
