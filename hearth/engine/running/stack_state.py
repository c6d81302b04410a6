"""Writes that change a whole stack's state: its state with its event, its template dropped."""

from __future__ import annotations

import contextlib
from typing import Any

from hearth.engine import states
from hearth.store import batch
from hearth.store import stacks as stack_store
from hearth.store.types import utcnow


def drop_template(session: Any, *template_ids: int | None) -> None:
    """Delete these stored templates, each unless something still refers to it."""
    for template_id in template_ids:
        if template_id is None:
            continue
        with contextlib.suppress(Exception):
            with session.begin_nested():
                stack_store.delete_template(session, template_id)


def started_reason(action: str) -> str:
    """Heat's reason of a stack action that began."""
    return f"Stack {action} started"


def cancelled_reason(action: str) -> str:
    """Heat's reason of a stack action that a cancel or a delete stopped."""
    return f"Stack {action} cancelled"


def begin_stack_action(
    session: Any, stack_id: str, stack_name: str, action: str, **fields: Any
) -> None:
    """The stack enters ``action`` IN_PROGRESS, with Heat's "Stack X started" event (and the
    other columns of ``fields``)."""
    reason = started_reason(action)
    if action in (states.UPDATE, states.ROLLBACK, states.RESTORE):
        fields["updated_at"] = utcnow()
    set_stack_state(session, stack_id, stack_name, action, states.IN_PROGRESS, reason, **fields)


def set_stack_state(
    session: Any, stack_id: str, stack_name: str, action: str, status: str, reason: str,
    **fields: Any,
) -> None:
    """A stack's new state and its event (named after the stack, type OS::Heat::Stack)."""
    stack_store.set_state(session, stack_id, action, status, reason, **fields)
    stack_event(session, stack_id, stack_name, action, status, reason)


def stack_event(
    session: Any, stack_id: str, stack_name: str, action: str, status: str, reason: str
) -> None:
    """The event of a stack's state (written with the state)."""
    event = batch.event(
        stack_id,
        resource_name=stack_name,
        action=action,
        status=status,
        reason=reason,
        physical_resource_id=stack_id,
        resource_type="OS::Heat::Stack",
    )
    batch.apply(session.connection(), [event])
