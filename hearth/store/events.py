"""Events: one row per state change of a stack or a resource, pruned per stack."""

from __future__ import annotations

import random

from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from hearth.store.models import Event
from hearth.store.types import utcnow


def add(
    session: Session,
    stack_id: str,
    *,
    resource_name: str,
    action: str,
    status: str,
    reason: str,
    physical_resource_id: str | None,
    resource_type: str,
    rsrc_prop_data_id: int | None = None,
) -> None:
    session.execute(
        insert(Event).values(
            stack_id=stack_id,
            uuid=_uuid(),
            created_at=utcnow(),
            resource_name=resource_name,
            resource_action=action,
            resource_status=status,
            resource_status_reason=(reason or "")[:255],
            physical_resource_id=physical_resource_id or "",
            resource_type=resource_type,
            rsrc_prop_data_id=rsrc_prop_data_id,
        )
    )


def _uuid() -> str:
    import uuid

    return str(uuid.uuid4())


def prune(session: Session, stack_id: str, max_events: int, batch_size: int) -> None:
    """Heat's pruning: now and then, drop the oldest batch once a stack is over its cap."""
    if max_events <= 0 or random.random() > 2.0 / batch_size:
        return
    count = session.scalar(select(func.count(Event.id)).where(Event.stack_id == stack_id)) or 0
    if count <= max_events:
        return
    oldest = select(Event.id).where(Event.stack_id == stack_id).order_by(Event.id).limit(
        batch_size
    )
    ids = list(session.scalars(oldest))
    session.execute(delete(Event).where(Event.id.in_(ids)))
