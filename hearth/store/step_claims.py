"""Which engine runs a resource's step: a claim on the resource row (its ``engine_id``).

A stack's coordinator offers a step to every engine; the one that claims the row runs it.
A claim is taken in one UPDATE, so two engines never run the same step: the row must be
unclaimed, claimed by an engine that is dead, or claimed for another traversal, and the
stack must still be on the step's traversal under the coordinator's lock.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import Select, func, or_, select, update
from sqlalchemy.orm import Session

from hearth.store.models import Resource, Service, Stack, StackLock
from hearth.store.types import utcnow

FINAL = ("COMPLETE", "FAILED")


class Claim(enum.Enum):
    TAKEN = "taken"
    # Another live engine runs it for this traversal.
    BUSY = "busy"
    # Done already in this traversal (a message came twice, or late).
    FINISHED = "finished"
    # The traversal is no longer the stack's (a newer update) or the coordinator lost the lock.
    STALE = "stale"


@dataclass(frozen=True)
class StepRow:
    """What the coordinator reads of a step it offered."""

    resource_id: int
    engine_id: str | None
    traversal_id: str | None
    action: str | None
    status: str | None
    status_reason: str | None

    def finished_in(self, traversal_id: str, action: str) -> bool:
        return (self.engine_id is None and self.traversal_id == traversal_id
                and self.action == action and self.status in FINAL)


def _live_engines(dead_after: timedelta) -> Select[str]:
    cutoff = utcnow() - dead_after
    return select(Service.engine_id).where(
        Service.deleted_at.is_(None),
        func.coalesce(Service.updated_at, Service.created_at) >= cutoff,
    )


def claim(
    session: Session, *, resource_id: int, stack_id: str, traversal_id: str, coordinator: str,
    engine_id: str, action: str, dead_after: timedelta,
) -> Claim:
    """Take the step of ``resource_id`` for ``engine_id``; the lock row stays locked until
    the transaction ends, so that the coordinator's lock cannot move meanwhile."""
    holder = session.scalar(
        select(StackLock.engine_id).where(StackLock.stack_id == stack_id).with_for_update()
    )
    current = session.scalar(select(Stack.current_traversal).where(Stack.id == stack_id))
    if holder != coordinator or current != traversal_id:
        return Claim.STALE
    row = session.get(Resource, resource_id, populate_existing=True)
    if row is None:
        return Claim.STALE
    if (row.engine_id is None and row.traversal_id == traversal_id and row.action == action
            and row.status in FINAL):
        return Claim.FINISHED
    result = session.execute(
        update(Resource)
        .where(
            Resource.id == resource_id,
            or_(
                Resource.engine_id.is_(None),
                Resource.engine_id == engine_id,
                Resource.engine_id.not_in(_live_engines(dead_after)),
                Resource.traversal_id.is_(None),
                Resource.traversal_id != traversal_id,
            ),
        )
        .values(engine_id=engine_id, traversal_id=traversal_id)
        .execution_options(synchronize_session=False)
    )
    return Claim.TAKEN if getattr(result, "rowcount", 0) else Claim.BUSY


def release(session: Session, resource_id: int, engine_id: str) -> None:
    """The step is no longer run by ``engine_id`` (finished, or left for another engine)."""
    session.execute(
        update(Resource)
        .where(Resource.id == resource_id, Resource.engine_id == engine_id)
        .values(engine_id=None)
        .execution_options(synchronize_session=False)
    )


def rows(session: Session, resource_ids: list[int]) -> dict[int, StepRow]:
    found = session.execute(
        select(Resource.id, Resource.engine_id, Resource.traversal_id, Resource.action,
               Resource.status, Resource.status_reason)
        .where(Resource.id.in_(resource_ids))
    )
    return {r[0]: StepRow(*r) for r in found}


def dead(session: Session, engine_ids: set[str], dead_after: timedelta) -> set[str]:
    """Those of ``engine_ids`` that are not alive (missed their heartbeats, or gone)."""
    if not engine_ids:
        return set()
    live = set(session.scalars(_live_engines(dead_after).where(
        Service.engine_id.in_(engine_ids))))
    return engine_ids - live
