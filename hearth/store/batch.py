"""Resource writes as data, applied many at once.

A resource step describes what it changes (rows of properties, resource fields, events, resource
data) as a list of writes; ``apply`` turns any number of such lists into a few statements: one
``executemany`` per kind of change rather than one ORM round trip per row. The engine's journal
gathers the lists of many concurrent steps into one transaction (group commit).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    Select,
    Table,
    Update,
    bindparam,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Connection

from hearth.common.ids import new_uuid
from hearth.store import driver
from hearth.store.models import (
    Event,
    Resource,
    ResourceData,
    ResourcePropertiesData,
    Stack,
    StackLock,
)
from hearth.store.types import utcnow

_RESOURCE: Table = Resource.__table__  # type: ignore[assignment]
_EVENT: Table = Event.__table__  # type: ignore[assignment]
_DATA: Table = ResourceData.__table__  # type: ignore[assignment]
_PROPS: Table = ResourcePropertiesData.__table__  # type: ignore[assignment]
_STACK: Table = Stack.__table__  # type: ignore[assignment]
_LOCK: Table = StackLock.__table__  # type: ignore[assignment]

# The longest status reason an event keeps (the column is bounded).
EVENT_REASON_MAX = 255

# Built once: SQLAlchemy then finds their compiled forms without walking them again.
_PROPS_INSERT = insert(_PROPS)
_PROPS_INSERT_RETURNING = insert(_PROPS).returning(_PROPS.c.id, sort_by_parameter_order=True)
_EVENT_INSERT = insert(_EVENT)
_DATA_INSERT = insert(_DATA)
_DATA_DELETE = delete(_DATA).where(
    _DATA.c.resource_id == bindparam("b_rid"), _DATA.c.key == bindparam("b_key")
)


@dataclass(eq=False)
class PropsRow:
    """A new row of stored properties. Its id exists once written; other writes of the same
    batch may hold the row itself where they need the id."""

    data: dict[str, Any] | None
    encrypted: bool
    # Told the id as soon as the row is written (still inside the transaction).
    on_id: Callable[[int], None] | None = None
    id: int | None = None


@dataclass(eq=False)
class ResourceChange:
    """New values for some fields of one resource row; ``bump`` advances its atomic_key."""

    resource_id: int
    fields: dict[str, Any]
    bump: bool = True


@dataclass(eq=False)
class NewEvent:
    """One event row (``rsrc_prop_data_id`` may be a PropsRow of the same batch)."""

    values: dict[str, Any]
    created_at: Any = field(default_factory=utcnow)


@dataclass(eq=False)
class DataChange:
    """Set (or, with ``value`` None, delete) one key of a resource's data."""

    resource_id: int
    key: str
    value: str | None
    redact: bool = False
    decrypt_method: str | None = None


@dataclass(eq=False)
class StackChange:
    """New values for some fields of one stack row."""

    stack_id: str
    fields: dict[str, Any]


@dataclass(frozen=True)
class LockHeld:
    """No write of the batch commits unless ``engine_id`` still holds the stack's lock:
    another engine takes over the stacks of one it believes dead, and one that was only slow
    (a long pause, a starved heartbeat) must not write over its successor."""

    stack_id: str
    engine_id: str


class LockLost(Exception):
    """A batch with a ``LockHeld`` whose engine holds that lock no more (nothing written)."""

    def __init__(self, stack_id: str, holder: str | None) -> None:
        super().__init__(f"The lock of stack {stack_id} is held by {holder or 'no engine'}")
        self.stack_id = stack_id


@dataclass(frozen=True)
class ClaimHeld:
    """No write of the batch commits unless ``engine_id`` still holds the claim on the
    resource's step (``step_claims``): a step taken from an engine believed dead and run by
    another must not be written over by the first one when it wakes. (The stack's lock does
    not tell them apart: both run the step for the same coordinator.)"""

    resource_id: int
    engine_id: str


class ClaimLost(Exception):
    """A batch with a ``ClaimHeld`` whose engine holds that claim no more (nothing written)."""

    def __init__(self, resource_id: int, holder: str | None) -> None:
        super().__init__(
            f"The step of resource {resource_id} is claimed by {holder or 'no engine'}")
        self.resource_id = resource_id


Write = PropsRow | ResourceChange | NewEvent | DataChange | StackChange | LockHeld | ClaimHeld


def event(
    stack_id: str,
    *,
    resource_name: str,
    action: str,
    status: str,
    reason: str,
    physical_resource_id: str | None,
    resource_type: str,
    rsrc_prop_data_id: int | PropsRow | None = None,
) -> NewEvent:
    """The event of a resource's state change (or of a hook, a signal)."""
    return NewEvent(
        {
            "stack_id": stack_id,
            "resource_name": resource_name,
            "resource_action": action,
            "resource_status": status,
            "resource_status_reason": (reason or "")[:EVENT_REASON_MAX],
            "physical_resource_id": physical_resource_id or "",
            "resource_type": resource_type,
            "rsrc_prop_data_id": rsrc_prop_data_id,
        }
    )


def apply(conn: Connection, writes: Iterable[Write]) -> None:
    """Carry out ``writes`` in order on ``conn`` (inside the caller's transaction)."""
    ordered = list(writes)
    _check_locks(conn, [w for w in ordered if isinstance(w, LockHeld)])
    _check_claims(conn, [w for w in ordered if isinstance(w, ClaimHeld)])
    _insert_props(conn, [w for w in ordered if isinstance(w, PropsRow)])
    _update_resources(conn, [w for w in ordered if isinstance(w, ResourceChange)])
    _write_data(conn, [w for w in ordered if isinstance(w, DataChange)])
    _insert_events(conn, [w for w in ordered if isinstance(w, NewEvent)])
    _update_stacks(conn, [w for w in ordered if isinstance(w, StackChange)])


def _check_locks(conn: Connection, checks: Sequence[LockHeld]) -> None:
    if not checks:
        return
    wanted = {c.stack_id: c.engine_id for c in checks}
    # A takeover's steal waits for these writes and its engine then reads them, rather than
    # racing them. Shared: the engines running one stack's steps commit side by side (only a
    # steal or a release needs the row alone).
    holders = _holders(conn, _LOCK.c.stack_id, _LOCK.c.engine_id, wanted, shared=True)
    for stack_id, engine_id in wanted.items():
        if holders.get(stack_id) != engine_id:
            raise LockLost(stack_id, holders.get(stack_id))


def _check_claims(conn: Connection, checks: Sequence[ClaimHeld]) -> None:
    if not checks:
        return
    wanted = {c.resource_id: c.engine_id for c in checks}
    # A claim taken meanwhile waits for these writes (the rows are written in them anyway).
    holders = _holders(conn, _RESOURCE.c.id, _RESOURCE.c.engine_id, wanted, shared=False)
    for resource_id, engine_id in wanted.items():
        if holders.get(resource_id) != engine_id:
            raise ClaimLost(resource_id, holders.get(resource_id))


def _holders(
    conn: Connection, key: Any, engine: Any, ids: Iterable[Any], *, shared: bool
) -> dict[Any, str | None]:
    """The engine holding each of ``ids`` (``key`` -> ``engine``), its row locked until the
    commit, in a stable order (``shared``: other checks of it may commit side by side)."""
    wanted = sorted(ids)
    # Up to a few ids (most batches, every child stack's store: one), a statement made once
    # per count: an expanding IN is rendered again at each execution, which cost more than
    # the query itself.
    count = len(wanted) if len(wanted) <= _FIXED_IN_MAX else 0
    which = (key.table.name, shared, count)
    statement = _HOLDER_SELECTS.get(which)
    if statement is None:
        listed = (bindparam("ids", expanding=True) if count == 0
                  else [bindparam(f"id{i}") for i in range(count)])
        statement = _HOLDER_SELECTS[which] = (
            select(key, engine).where(key.in_(listed)).order_by(key)
            .with_for_update(read=shared)
        )
    params = ({"ids": wanted} if count == 0
              else {f"id{i}": value for i, value in enumerate(wanted)})
    return {row[0]: row[1] for row in driver.fetch(conn, statement, params)}


_FIXED_IN_MAX = 8
_HOLDER_SELECTS: dict[tuple[str, bool, int], Select[Any]] = {}


def _resolved(value: Any) -> Any:
    return value.id if isinstance(value, PropsRow) else value


def _insert_props(conn: Connection, rows: Sequence[PropsRow]) -> None:
    if not rows:
        return
    now = utcnow()
    params = [{"data": r.data, "encrypted": r.encrypted, "created_at": now} for r in rows]
    if conn.dialect.name == "sqlite":
        # One short statement per row: at the driver's level that is still cheap.
        ids = [driver.insert_row(conn, _PROPS_INSERT, p) for p in params]
    elif conn.dialect.insert_executemany_returning_sort_by_parameter_order:
        ids = [row[0] for row in conn.execute(_PROPS_INSERT_RETURNING, params)]
    else:
        ids = [
            conn.execute(_PROPS_INSERT, p).inserted_primary_key[0]  # type: ignore[index]
            for p in params
        ]
    for row, new_id in zip(rows, ids, strict=True):
        row.id = int(new_id)
        if row.on_id is not None:
            row.on_id(row.id)


def _update_resources(conn: Connection, changes: Sequence[ResourceChange]) -> None:
    # Changes of one row are merged in order (later values win), so that a row is updated
    # once per batch whatever the number of steps that touched it.
    merged: dict[int, tuple[dict[str, Any], int]] = {}
    for change in changes:
        fields, bumps = merged.get(change.resource_id, ({}, 0))
        fields.update(change.fields)
        merged[change.resource_id] = (fields, bumps + (1 if change.bump else 0))
    groups = _by_field_set(
        (fields, {"b_id": resource_id, "b_bumps": bumps})
        for resource_id, (fields, bumps) in merged.items()
    )
    for names, params_list in groups.items():
        driver.executemany(conn, _resource_update(names), params_list)


def _by_field_set(
    rows: Iterable[tuple[dict[str, Any], dict[str, Any]]],
) -> dict[frozenset[str], list[dict[str, Any]]]:
    """Each row's parameters (its new values as ``v_<field>``, then its keys), grouped by the
    set of fields it changes: one UPDATE statement per group."""
    groups: dict[frozenset[str], list[dict[str, Any]]] = {}
    for fields, keys in rows:
        params = {f"v_{k}": _resolved(v) for k, v in fields.items()}
        params.update(keys)
        groups.setdefault(frozenset(fields), []).append(params)
    return groups


# One statement object per set of fields: SQLAlchemy's compiled form is then found at once.
_UPDATES: dict[frozenset[str], Update] = {}
_STACK_UPDATES: dict[frozenset[str], Update] = {}


def _update_stacks(conn: Connection, changes: Sequence[StackChange]) -> None:
    merged: dict[str, dict[str, Any]] = {}
    for change in changes:
        merged.setdefault(change.stack_id, {}).update(change.fields)
    groups = _by_field_set((fields, {"b_id": stack_id}) for stack_id, fields in merged.items())
    for names, params_list in groups.items():
        stmt = _STACK_UPDATES.get(names)
        if stmt is None:
            stmt = _STACK_UPDATES[names] = (
                update(_STACK)
                .where(_STACK.c.id == bindparam("b_id"))
                .values({_STACK.c[name]: bindparam(f"v_{name}") for name in sorted(names)})
            )
        driver.executemany(conn, stmt, params_list)


def _resource_update(names: frozenset[str]) -> Update:
    stmt = _UPDATES.get(names)
    if stmt is None:
        stmt = (
            update(_RESOURCE)
            .where(_RESOURCE.c.id == bindparam("b_id"))
            .values(
                {
                    _RESOURCE.c.atomic_key: _RESOURCE.c.atomic_key + bindparam("b_bumps"),
                    **{_RESOURCE.c[name]: bindparam(f"v_{name}") for name in sorted(names)},
                }
            )
        )
        _UPDATES[names] = stmt
    return stmt


def _write_data(conn: Connection, changes: Sequence[DataChange]) -> None:
    if not changes:
        return
    final: dict[tuple[int, str], DataChange] = {}
    for change in changes:
        final[(change.resource_id, change.key)] = change
    # Replacing a key is a delete and an insert: the same two statements for any count.
    driver.executemany(conn, _DATA_DELETE, [{"b_rid": rid, "b_key": key} for rid, key in final])
    now = utcnow()
    rows = [
        {
            "resource_id": c.resource_id, "key": c.key, "value": c.value, "redact": c.redact,
            "decrypt_method": c.decrypt_method, "created_at": now,
        }
        for c in final.values()
        if c.value is not None
    ]
    if rows:
        driver.executemany(conn, _DATA_INSERT, rows)


def _insert_events(conn: Connection, events: Sequence[NewEvent]) -> None:
    if not events:
        return
    rows = [
        {
            **{k: _resolved(v) for k, v in e.values.items()},
            "uuid": new_uuid(),
            "created_at": e.created_at,
        }
        for e in events
    ]
    driver.executemany(conn, _EVENT_INSERT, rows)
