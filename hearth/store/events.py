"""Events: one row per state change of a stack or a resource, pruned per stack."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import delete, func, insert, or_, select
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


SORT_KEYS = {
    "event_time": Event.created_at,
    "created_at": Event.created_at,
    "resource_type": Event.resource_type,
    "resource_name": Event.resource_name,
    "resource_action": Event.resource_action,
    "resource_status": Event.resource_status,
}

FILTER_COLUMNS = {
    "resource_status": Event.resource_status,
    "resource_action": Event.resource_action,
    "resource_name": Event.resource_name,
    "resource_type": Event.resource_type,
    "physical_resource_id": Event.physical_resource_id,
}


def list_events(
    session: Session,
    stack_ids: Sequence[str],
    *,
    filters: Mapping[str, Sequence[Any]] | None = None,
    limit: int | None = None,
    marker: str | None = None,
    sort_keys: Sequence[str] = (),
    sort_dir: str | None = None,
) -> list[Event]:
    conds: list[Any] = [Event.stack_id.in_(list(stack_ids))]
    for key, values in (filters or {}).items():
        column = FILTER_COLUMNS[key]
        conds.append(or_(*(column == v for v in values)))
    descending = sort_dir == "desc"
    columns = [SORT_KEYS[k] for k in sort_keys]
    order: list[Any] = [c.desc() if descending else c.asc() for c in columns]
    order.append(Event.id.desc() if descending else Event.id.asc())
    stmt = select(Event).where(*conds)
    if marker is not None:
        marker_id = session.scalar(select(Event.id).where(Event.uuid == marker))
        if marker_id is not None:
            stmt = stmt.where(Event.id < marker_id if descending else Event.id > marker_id)
    stmt = stmt.order_by(*order)
    if limit is not None:
        stmt = stmt.limit(limit)
    return list(session.scalars(stmt))


def get_event(session: Session, stack_id: str, event_uuid: str) -> Event | None:
    stmt = select(Event).where(Event.stack_id == stack_id, Event.uuid == event_uuid)
    return session.scalars(stmt).first()
