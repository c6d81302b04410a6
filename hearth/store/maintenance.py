"""Operator maintenance of the database: purging deleted stacks, resetting stuck ones."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import timedelta
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, delete, or_, select, update
from sqlalchemy.orm import InstrumentedAttribute, Session

from hearth.common.errors import EntityNotFound
from hearth.store.db import Database
from hearth.store.models import (
    Event,
    RawTemplate,
    RawTemplateFiles,
    Resource,
    ResourceData,
    ResourcePropertiesData,
    ResourceSnapshot,
    Service,
    Snapshot,
    Stack,
    StackLock,
    StackTag,
    UserCreds,
)
from hearth.store.types import utcnow

RESET_REASON = "Stack status manually reset"

# Bound on the number of values in one IN (...) list (SQLite limits bound parameters).
_CHUNK = 500

T = TypeVar("T")


def _chunks(values: Iterable[T]) -> Iterator[list[T]]:
    items = list(values)
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def _in(column: InstrumentedAttribute[Any], values: Sequence[Any]) -> ColumnElement[bool]:
    return column.in_(values)


def _select_in(
    session: Session,
    wanted: InstrumentedAttribute[Any],
    where: InstrumentedAttribute[Any],
    values: Iterable[Any],
) -> set[Any]:
    """The non-null values of ``wanted`` in rows whose ``where`` is among ``values``."""
    found: set[Any] = set()
    for chunk in _chunks(values):
        found.update(session.scalars(select(wanted).where(_in(where, chunk)).distinct()))
    found.discard(None)
    return found


def _delete_in(session: Session, column: InstrumentedAttribute[Any], values: Iterable[Any]) -> None:
    table = column.class_
    for chunk in _chunks(values):
        session.execute(delete(table).where(_in(column, chunk)))


def _descendants(session: Session, stack_ids: Iterable[str]) -> set[str]:
    """The stacks and all their nested stacks, level by level."""
    found = set(stack_ids)
    frontier = set(found)
    while frontier:
        children: set[str] = set()
        for chunk in _chunks(frontier):
            children.update(
                session.scalars(
                    select(Stack.id).where(
                        or_(_in(Stack.owner_id, chunk), _in(Stack.root_stack_id, chunk))
                    )
                )
            )
        frontier = children - found
        found |= frontier
    return found


def purge_deleted(
    db: Database,
    older_than: timedelta,
    project_id: str | None = None,
    batch_size: int = 20,
) -> int:
    """Hard-delete stacks soft-deleted longer than ``older_than`` ago; return how many went.

    Each batch of ``batch_size`` stacks goes in one transaction, with their nested stacks and
    every row that hangs off them, and the templates, credentials and property data no other
    row still refers to. Deleted services past the age go too.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    cutoff = utcnow() - older_than
    with db.session() as session:
        session.execute(delete(Service).where(Service.deleted_at < cutoff))
    purged = 0
    while True:
        with db.session() as session:
            query = select(Stack.id).where(Stack.deleted_at < cutoff)
            if project_id is not None:
                query = query.where(Stack.tenant == project_id)
            batch = list(session.scalars(query.order_by(Stack.deleted_at).limit(batch_size)))
            if not batch:
                return purged
            purged += _purge_stacks(session, batch)


def _purge_stacks(session: Session, roots: Sequence[str]) -> int:
    stack_ids = _descendants(session, roots)
    resource_ids = _select_in(session, Resource.id, Resource.stack_id, stack_ids)
    snapshot_ids = _select_in(session, Snapshot.id, Snapshot.stack_id, stack_ids)

    templates = _select_in(session, Stack.raw_template_id, Stack.id, stack_ids)
    templates |= _select_in(session, Stack.prev_raw_template_id, Stack.id, stack_ids)
    templates |= _select_in(session, Resource.current_template_id, Resource.id, resource_ids)
    creds = _select_in(session, Stack.user_creds_id, Stack.id, stack_ids)
    prop_data = _select_in(session, Resource.rsrc_prop_data_id, Resource.id, resource_ids)
    prop_data |= _select_in(session, Event.rsrc_prop_data_id, Event.stack_id, stack_ids)

    # Children before parents, so that foreign keys hold at every step (MariaDB checks each).
    _delete_in(session, ResourceData.resource_id, resource_ids)
    _delete_in(session, Resource.stack_id, stack_ids)
    _delete_in(session, Event.stack_id, stack_ids)
    _delete_in(session, ResourceSnapshot.snapshot_id, snapshot_ids)
    _delete_in(session, Snapshot.stack_id, stack_ids)
    _delete_in(session, StackTag.stack_id, stack_ids)
    _delete_in(session, StackLock.stack_id, stack_ids)
    _delete_in(session, Stack.id, stack_ids)

    templates -= _select_in(session, Stack.raw_template_id, Stack.raw_template_id, templates)
    templates -= _select_in(
        session, Stack.prev_raw_template_id, Stack.prev_raw_template_id, templates
    )
    templates -= _select_in(
        session, Resource.current_template_id, Resource.current_template_id, templates
    )
    files = _select_in(session, RawTemplate.files_id, RawTemplate.id, templates)
    _delete_in(session, RawTemplate.id, templates)
    files -= _select_in(session, RawTemplate.files_id, RawTemplate.files_id, files)
    _delete_in(session, RawTemplateFiles.id, files)

    creds -= _select_in(session, Stack.user_creds_id, Stack.user_creds_id, creds)
    _delete_in(session, UserCreds.id, creds)

    prop_data -= _select_in(
        session, Resource.rsrc_prop_data_id, Resource.rsrc_prop_data_id, prop_data
    )
    prop_data -= _select_in(session, Event.rsrc_prop_data_id, Event.rsrc_prop_data_id, prop_data)
    _delete_in(session, ResourcePropertiesData.id, prop_data)
    return len(stack_ids)


def reset_stack_state(db: Database, stack_id: str) -> bool:
    """Mark a stack stuck IN_PROGRESS (and its nested stacks and resources) FAILED.

    For an action whose engine died: the stack and everything of it still IN_PROGRESS become
    FAILED, resources are released by their engine, and the stack locks are removed, so that
    a new action can start. Returns False, changing nothing, if the stack is not IN_PROGRESS.
    """
    with db.session() as session:
        stack = session.get(Stack, stack_id)
        if stack is None:
            raise EntityNotFound("Stack", stack_id)
        if stack.status != "IN_PROGRESS":
            return False
        stack_ids = _descendants(session, [stack_id])
        for chunk in _chunks(stack_ids):
            session.execute(
                update(Resource)
                .where(_in(Resource.stack_id, chunk), Resource.status == "IN_PROGRESS")
                .values(status="FAILED", status_reason=RESET_REASON, engine_id=None)
            )
            session.execute(
                update(Stack)
                .where(_in(Stack.id, chunk), Stack.status == "IN_PROGRESS")
                .values(status="FAILED", status_reason=RESET_REASON)
            )
            session.execute(delete(StackLock).where(_in(StackLock.stack_id, chunk)))
        return True
