"""Stack snapshots: the rows an action fills in (the reads are in ``hearth.store.queries``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from hearth.store.models import Snapshot


def count_of_stack(session: Session, stack_id: str) -> int:
    stmt = select(func.count(Snapshot.id)).where(Snapshot.stack_id == stack_id)
    return session.scalar(stmt) or 0


def create(session: Session, **fields: Any) -> Snapshot:
    row = Snapshot(**fields)
    session.add(row)
    session.flush()
    return row


def delete(session: Session, row: Snapshot) -> None:
    session.delete(row)
