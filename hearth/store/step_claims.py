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
from typing import Any

from sqlalchemy import Select, and_, func, or_, select, update
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
    """Take the step of ``resource_id`` for ``engine_id`` (see ``claim_many``)."""
    claims, _ = claim_many(
        session, resource_ids=[resource_id], stack_id=stack_id, traversal_id=traversal_id,
        coordinator=coordinator, engine_id=engine_id, action=action, dead_after=dead_after)
    return claims.get(resource_id, Claim.STALE)


def claim_many(
    session: Session, *, resource_ids: list[int], stack_id: str, traversal_id: str,
    coordinator: str, engine_id: str, action: str, dead_after: timedelta,
) -> tuple[dict[int, Claim], dict[int, Resource]]:
    """Take the steps of ``resource_ids`` (one traversal's) for ``engine_id``: how each went,
    and the rows taken. No row is locked beyond the resources' own update: the stack's lock
    may move right after this reads it, and then a step's first write fails (every write is
    fenced by the coordinator's lock). A row this engine holds already is busy: an offer
    that came twice runs once."""
    found = session.execute(
        select(StackLock.engine_id, Stack.current_traversal)
        .join(Stack, Stack.id == StackLock.stack_id)
        .where(StackLock.stack_id == stack_id)
    ).first()
    if found is None or found[0] != coordinator or found[1] != traversal_id:
        return {rid: Claim.STALE for rid in resource_ids}, {}
    before = rows(session, resource_ids)
    claims = {rid: Claim.STALE for rid in resource_ids if rid not in before}
    candidates = []
    for rid, row in before.items():
        if row.finished_in(traversal_id, action):
            claims[rid] = Claim.FINISHED
        else:
            candidates.append(rid)
    if candidates:
        taken = _update_claims(session, candidates, traversal_id, engine_id, action,
                               dead_after)
        for rid in candidates:
            claims[rid] = Claim.TAKEN if rid in taken else Claim.BUSY
    taken_ids = [rid for rid, c in claims.items() if c is Claim.TAKEN]
    taken_rows = {
        r.id: r for r in session.scalars(
            select(Resource).where(Resource.id.in_(taken_ids)).execution_options(
                populate_existing=True))
    } if taken_ids else {}
    return claims, taken_rows


def _claimable(traversal_id: str, action: str, dead_after: timedelta) -> Any:
    return and_(
        or_(
            Resource.engine_id.is_(None),
            Resource.engine_id.not_in(_live_engines(dead_after)),
            Resource.traversal_id.is_(None),
            Resource.traversal_id != traversal_id,
        ),
        # Not finished in this traversal already (coalesced: NOT of a comparison with NULL
        # would leave the row out).
        ~and_(
            Resource.engine_id.is_(None),
            func.coalesce(Resource.traversal_id, "") == traversal_id,
            func.coalesce(Resource.action, "") == action,
            func.coalesce(Resource.status, "").in_(FINAL),
        ),
    )


def _update_claims(
    session: Session, ids: list[int], traversal_id: str, engine_id: str, action: str,
    dead_after: timedelta,
) -> set[int]:
    """The rows of ``ids`` this engine now holds: all of them in one update, unless some
    were not claimable (held by a live engine); then one by one, each update telling
    whether it took its row."""

    def update_of(selected: list[int]) -> int:
        result = session.execute(
            update(Resource)
            .where(Resource.id.in_(selected), _claimable(traversal_id, action, dead_after))
            .values(engine_id=engine_id, traversal_id=traversal_id)
            .execution_options(synchronize_session=False)
        )
        return int(getattr(result, "rowcount", 0))

    if len(ids) > 1:
        together = session.begin_nested()
        if update_of(ids) == len(ids):
            together.commit()
            return set(ids)
        together.rollback()
    return {rid for rid in ids if update_of([rid])}


def release(session: Session, resource_id: int, engine_id: str) -> None:
    """The step is no longer run by ``engine_id`` (finished, or left for another engine)."""
    session.execute(
        update(Resource)
        .where(Resource.id == resource_id, Resource.engine_id == engine_id)
        .values(engine_id=None)
        .execution_options(synchronize_session=False)
    )


def release_stack(session: Session, stack_id: str, engine_id: str) -> int:
    """Every claim ``engine_id`` holds on the stack's rows ends (its run of the stack
    stopped); how many there were."""
    done = session.execute(
        update(Resource)
        .where(Resource.stack_id == stack_id, Resource.engine_id == engine_id)
        .values(engine_id=None)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(done, "rowcount", 0) or 0)


def rows(session: Session, resource_ids: list[int]) -> dict[int, StepRow]:
    found = session.execute(
        select(Resource.id, Resource.engine_id, Resource.traversal_id, Resource.action,
               Resource.status, Resource.status_reason)
        .where(Resource.id.in_(resource_ids))
    )
    return {r[0]: StepRow(*r) for r in found}


def live_engine_count(session: Session, dead_after: timedelta) -> int:
    cutoff = utcnow() - dead_after
    return int(session.scalar(
        select(func.count()).select_from(Service).where(
            Service.deleted_at.is_(None), Service.binary == "hearth-engine",
            func.coalesce(Service.updated_at, Service.created_at) >= cutoff)
    ) or 0)


def dead(session: Session, engine_ids: set[str], dead_after: timedelta) -> set[str]:
    """Those of ``engine_ids`` that are not alive (missed their heartbeats, or gone)."""
    if not engine_ids:
        return set()
    live = set(session.scalars(_live_engines(dead_after).where(
        Service.engine_id.in_(engine_ids))))
    return engine_ids - live
