"""Read-only queries behind the engine's read calls (show, list, describe), scoped as Heat scopes
them: a project sees its own stacks, and the stacks whose ``stack_user_project_id`` it is (the
in-instance users of a stack); an admin sees every stack.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from hearth.store.models import (
    Event,
    RawTemplate,
    Resource,
    ResourceSnapshot,
    Snapshot,
    Stack,
)


def _visible_to(project: str) -> Any:
    return or_(Stack.tenant == project, Stack.stack_user_project_id == project)


def scoped_stack(
    session: Session,
    stack_id: str,
    *,
    project: str,
    is_admin: bool,
    show_deleted: bool,
) -> Stack | None:
    """A stack by id, if the caller may see it (Heat's ``stack_get``)."""
    row = session.get(Stack, stack_id)
    if row is None or (row.deleted_at is not None and not show_deleted):
        return None
    if not is_admin and project not in (row.tenant, row.stack_user_project_id):
        return None
    return row


def stack_by_name(session: Session, name: str, *, project: str) -> Stack | None:
    """The oldest live stack of that name the project may see (Heat's ``stack_get_by_name``).

    Admins are not special here: a name is only meaningful within a project.
    """
    stmt = (
        select(Stack)
        .where(Stack.name == name, Stack.deleted_at.is_(None), _visible_to(project))
        .order_by(Stack.created_at, Stack.id)
        .limit(1)
    )
    return session.scalars(stmt).first()


def stacks_by_id(session: Session, stack_ids: Iterable[str]) -> dict[str, Stack]:
    ids = list(set(stack_ids))
    if not ids:
        return {}
    return {row.id: row for row in session.scalars(select(Stack).where(Stack.id.in_(ids)))}


def current_resources(session: Session, stack_id: str) -> list[Resource]:
    """The resources a stack shows: rows that are not being replaced, in creation order."""
    stmt = (
        select(Resource)
        .where(Resource.stack_id == stack_id, Resource.replaced_by.is_(None))
        .order_by(Resource.id)
    )
    return list(session.scalars(stmt))


def live_children(session: Session, stack_ids: Sequence[str]) -> list[Stack]:
    """Nested stacks (not deleted, not backups) owned by any of ``stack_ids``."""
    if not stack_ids:
        return []
    stmt = (
        select(Stack)
        .where(
            Stack.owner_id.in_(list(stack_ids)),
            Stack.deleted_at.is_(None),
            Stack.backup.is_(False),
        )
        .order_by(Stack.created_at, Stack.id)
    )
    return list(session.scalars(stmt))


def descendants(session: Session, stack_id: str, depth: int) -> list[Stack]:
    """Live nested stacks up to ``depth`` levels below a stack, one query per level."""
    found: list[Stack] = []
    level = [stack_id]
    for _ in range(depth):
        children = live_children(session, level)
        if not children:
            break
        found.extend(children)
        level = [c.id for c in children]
    return found


def resources_by_physical_id(
    session: Session, physical_id: str, *, project: str, is_admin: bool
) -> list[tuple[Resource, Stack]]:
    """Resources with that physical id in stacks the caller may see, with their stacks."""
    stmt = (
        select(Resource, Stack)
        .join(Stack, Stack.id == Resource.stack_id)
        .where(Resource.physical_resource_id == physical_id)
        .order_by(Resource.id)
    )
    if not is_admin:
        stmt = stmt.where(_visible_to(project))
    return [(res, stack) for res, stack in session.execute(stmt)]


# --- events ----------------------------------------------------------------------------------

# The keys Heat sorts events by (anything else is ignored, as Heat ignores it).
EVENT_SORT_KEYS = {"event_time": "created_at", "resource_type": "resource_type"}
EVENT_FILTER_KEYS = (
    "resource_status",
    "resource_action",
    "resource_name",
    "resource_type",
    "physical_resource_id",
    "uuid",
)


def list_events(
    session: Session,
    *,
    stack_ids: Sequence[str] | None = None,
    tenant: str | None = None,
    filters: Mapping[str, Sequence[Any]] | None = None,
    limit: int | None = None,
    marker: str | None = None,
    sort_keys: Sequence[str] = (),
    sort_dir: str | None = None,
) -> list[Event]:
    """Events of some stacks (or of every live stack of ``tenant``), paged as Heat pages them.

    No valid sort key means newest first (``created_at desc``) unless ``sort_dir`` says
    otherwise; with sort keys the direction defaults to ascending. The row id always breaks
    ties, so pages never overlap.
    """
    stmt = select(Event)
    if stack_ids is not None:
        stmt = stmt.where(Event.stack_id.in_(list(stack_ids)))
    if tenant is not None:
        stmt = stmt.join(Stack, Stack.id == Event.stack_id).where(
            Stack.tenant == tenant, Stack.deleted_at.is_(None)
        )
    for key, values in (filters or {}).items():
        if key not in EVENT_FILTER_KEYS:
            raise ValueError(f"events cannot be filtered by {key!r}")
        stmt = stmt.where(getattr(Event, key).in_(list(values)))
    names = [EVENT_SORT_KEYS[k] for k in sort_keys if k in EVENT_SORT_KEYS]
    if not names:
        names = ["created_at"]
        sort_dir = sort_dir or "desc"
    descending = (sort_dir or "asc") == "desc"
    names.append("id")
    columns = [getattr(Event, n) for n in names]
    if marker is not None:
        marker_row = session.scalars(select(Event).where(Event.uuid == marker)).first()
        if marker_row is not None:
            values = [getattr(marker_row, n) for n in names]
            stmt = stmt.where(after_marker(columns, values, descending))
    stmt = stmt.order_by(*(c.desc() if descending else c.asc() for c in columns))
    if limit is not None:
        stmt = stmt.limit(limit)
    return list(session.scalars(stmt))


def after_marker(columns: Sequence[Any], values: Sequence[Any], descending: bool) -> Any:
    """Rows strictly after the marker in the (columns...) order, as oslo.db pages.

    A key whose marker value is NULL adds no condition of its own (the last key, the
    primary key, is never NULL).
    """
    clauses = []
    for i, column in enumerate(columns):
        if values[i] is None:
            continue
        equal = [columns[j] == values[j] for j in range(i) if values[j] is not None]
        beyond = column < values[i] if descending else column > values[i]
        clauses.append(and_(*equal, beyond))
    return or_(*clauses)


# --- snapshots -------------------------------------------------------------------------------


def snapshots_of_stack(session: Session, stack_id: str, tenant: str) -> list[Snapshot]:
    stmt = (
        select(Snapshot)
        .where(Snapshot.stack_id == stack_id, Snapshot.tenant == tenant)
        .order_by(Snapshot.created_at, Snapshot.id)
    )
    return list(session.scalars(stmt))


def get_snapshot(session: Session, snapshot_id: str) -> Snapshot | None:
    return session.get(Snapshot, snapshot_id)


def resource_snapshots(
    session: Session, snapshot_ids: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """For each snapshot, its per-resource data: ``{snapshot_id: {resource_name: data}}``."""
    if not snapshot_ids:
        return {}
    stmt = (
        select(ResourceSnapshot)
        .where(ResourceSnapshot.snapshot_id.in_(list(snapshot_ids)))
        .order_by(ResourceSnapshot.created_at, ResourceSnapshot.id)
    )
    out: dict[str, dict[str, Any]] = {}
    for row in session.scalars(stmt):
        out.setdefault(row.snapshot_id, {})[row.resource_name or ""] = row.data
    return out


def template_data(session: Session, template_id: int) -> dict[str, Any] | None:
    """A stored template document alone (no files, no environment)."""
    row = session.get(RawTemplate, template_id)
    return None if row is None else dict(row.template or {})
