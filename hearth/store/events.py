"""Events: one row per state change of a stack or a resource (written through
``hearth.store.batch``), pruned per stack."""

from __future__ import annotations

import random
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from hearth.store.models import Event


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


def last_time(
    session: Session, stack_id: str, resource_name: str, action: str, status: str
) -> datetime | None:
    """When a resource last entered ``action`` ``status`` (None when no such event is kept)."""
    return session.scalar(
        select(func.max(Event.created_at)).where(
            Event.stack_id == stack_id, Event.resource_name == resource_name,
            Event.resource_action == action, Event.resource_status == status,
        )
    )
