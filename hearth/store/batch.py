"""Resource writes as data, applied many at once.

A resource step describes what it changes (rows of properties, resource fields, events, resource
data) as a list of writes; ``apply`` turns any number of such lists into a few statements: one
``executemany`` per kind of change rather than one ORM round trip per row. The engine's journal
gathers the lists of many concurrent steps into one transaction (group commit).
"""

from __future__ import annotations

import uuid
import weakref
from collections import namedtuple
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from keyword import iskeyword
from typing import Any

from sqlalchemy import (
    Dialect,
    Executable,
    Insert,
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
from sqlalchemy.exc import DBAPIError
from sqlalchemy.schema import ColumnDefault

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
    return {row[0]: row[1] for row in fetch(conn, statement, params)}


_FIXED_IN_MAX = 8
_HOLDER_SELECTS: dict[tuple[str, bool, int], Select[Any]] = {}


def _resolved(value: Any) -> Any:
    return value.id if isinstance(value, PropsRow) else value


def _insert_props(conn: Connection, rows: Sequence[PropsRow]) -> None:
    if not rows:
        return
    now = utcnow()
    params = [{"data": r.data, "encrypted": r.encrypted, "created_at": now} for r in rows]
    statement = None
    if conn.dialect.name == "sqlite":
        statement = _driver_statement(_PROPS_INSERT, conn.dialect, tuple(params[0]))
    if statement is not None:
        # One short statement per row: at the driver's level that is still cheap.
        ids = []
        with _driver_cursor(conn, statement) as cursor:
            for values in statement.rows(params):
                cursor.execute(statement.sql, values)
                ids.append(cursor.lastrowid)
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
        executemany(conn, _resource_update(names), params_list)


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
        executemany(conn, stmt, params_list)


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
    executemany(conn, _DATA_DELETE, [{"b_rid": rid, "b_key": key} for rid, key in final])
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
        executemany(conn, _DATA_INSERT, rows)


def _insert_events(conn: Connection, events: Sequence[NewEvent]) -> None:
    if not events:
        return
    rows = [
        {
            **{k: _resolved(v) for k, v in e.values.items()},
            "uuid": str(uuid.uuid4()),
            "created_at": e.created_at,
        }
        for e in events
    ]
    executemany(conn, _EVENT_INSERT, rows)


# --- execution ------------------------------------------------------------------------------
#
# SQLAlchemy's generic handling of each row's parameters costs several times what SQLite takes
# to write the row. On SQLite the statements are therefore compiled by SQLAlchemy once, their
# values converted by SQLAlchemy's own type processors, and run with the driver's executemany.


@dataclass(frozen=True)
class _DriverStatement:
    sql: str
    # Each parameter in the statement's order, with SQLAlchemy's processor for its type.
    params: tuple[tuple[str, Callable[[Any], Any] | None], ...]

    def rows(self, params: Sequence[dict[str, Any]]) -> list[tuple[Any, ...]]:
        pairs = self.params
        return [
            tuple([row[name] if proc is None else proc(row[name]) for name, proc in pairs])
            for row in params
        ]


# Per connection (dialect): the type processors are bound to it (sealed columns use its key).
# Then keyed by the statement object itself (kept alive here: an id could be reused).
_DRIVER_STATEMENTS: weakref.WeakKeyDictionary[
    Dialect, dict[tuple[Executable, tuple[str, ...]], _DriverStatement | None]
] = weakref.WeakKeyDictionary()


# Statements (with each set of keys) compiled for the driver, per connection: those the
# engine builds once. A caller building its statements per call would fill it; past this
# many, new ones go through SQLAlchemy.
_DRIVER_CACHE_MAX = 512


def _driver_statement(
    stmt: Executable, dialect: Dialect, keys: tuple[str, ...] = ()
) -> _DriverStatement | None:
    """``stmt`` compiled for the driver, or None where SQLAlchemy must run it (an insert
    whose rows leave a column default for SQLAlchemy to fill in)."""
    cache = _DRIVER_STATEMENTS.setdefault(dialect, {})
    cache_key = (stmt, keys)
    if cache_key not in cache:
        if len(cache) >= _DRIVER_CACHE_MAX:
            return None  # (statements built per call: SQLAlchemy's own cache is bounded)
        compile_for = stmt.compile  # type: ignore[attr-defined]
        compiled = compile_for(dialect=dialect, column_keys=list(keys) or None)
        names = tuple(compiled.positiontup or ())
        found = None
        if not keys or set(names) == set(keys):
            found = _DriverStatement(
                compiled.string,
                tuple(
                    (name, compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect))
                    for name in names
                ),
            )
        cache[cache_key] = found
    return cache[cache_key]


def executemany(conn: Connection, stmt: Executable, params: list[dict[str, Any]]) -> None:
    """``stmt`` once per parameter set, in the caller's transaction (see above)."""
    statement = None
    rows = params
    if conn.dialect.name == "sqlite":
        # Inserts are compiled for the columns given (with the defaults of those left out,
        # alike in every row); other statements name their parameters.
        keys: tuple[str, ...] | None = ()
        if isinstance(stmt, Insert):
            rows = [_with_column_defaults(stmt, p) for p in params]
            first = rows[0].keys()
            keys = tuple(first) if all(r.keys() == first for r in rows) else None
        if keys is not None:
            statement = _driver_statement(stmt, conn.dialect, keys)
    if statement is None:
        conn.execute(stmt, params)
        return
    with _driver_cursor(conn, statement) as cursor:
        cursor.executemany(statement.sql, statement.rows(rows))


def execute_write(conn: Connection, stmt: Executable, params: dict[str, Any]) -> int:
    """``stmt`` (an INSERT, UPDATE or DELETE) once with ``params``, in the caller's
    transaction; the number of rows it changed (with RETURNING: the rows it returned). On
    SQLite through the driver, as ``executemany``: every action of every stack writes a few
    such single rows, and SQLAlchemy's handling of one costs several times the write."""
    statement, values = _driver_write(conn, stmt, params)
    if statement is None:
        result = conn.execute(stmt, params)
        if result.returns_rows:
            return len(result.all())
        return int(getattr(result, "rowcount", 0) or 0)
    with _driver_cursor(conn, statement) as cursor:
        cursor.execute(statement.sql, values)
        if cursor.description is not None:
            return len(cursor.fetchall())
        return int(cursor.rowcount)


def insert_row(conn: Connection, stmt: Insert, params: dict[str, Any]) -> int:
    """The integer key of the row ``stmt`` inserts with ``params`` (see ``execute_write``)."""
    statement, values = _driver_write(conn, stmt, params)
    if statement is None:
        key = conn.execute(stmt, params).inserted_primary_key
        if not key or key[0] is None:
            raise RuntimeError(f"no key for the row inserted into {stmt.table}")
        return int(key[0])
    with _driver_cursor(conn, statement) as cursor:
        cursor.execute(statement.sql, values)
        return int(cursor.lastrowid)


def _driver_write(
    conn: Connection, stmt: Executable, params: dict[str, Any]
) -> tuple[_DriverStatement | None, tuple[Any, ...]]:
    """On SQLite: ``stmt`` compiled for the driver and its values in order (an insert's
    with the column defaults it leaves out); else (None, ())."""
    if conn.dialect.name != "sqlite":
        return None, ()
    filled = _with_column_defaults(stmt, params)
    statement = _driver_statement(stmt, conn.dialect, tuple(filled))
    return statement, (() if statement is None else statement.rows([filled])[0])


def _with_column_defaults(stmt: Executable, params: dict[str, Any]) -> dict[str, Any]:
    """An insert's ``params`` with the Python-side defaults of the columns they leave out
    (what SQLAlchemy would fill in), so that it can go to the driver as it is."""
    if not isinstance(stmt, Insert):
        return params
    defaults = [(c.key, c.default) for c in stmt.table.c
                if c.key not in params and isinstance(c.default, ColumnDefault)]
    if not defaults:
        return params
    filled = dict(params)
    for key, default in defaults:
        if default.is_scalar:
            filled[key] = default.arg
        elif default.is_callable and hasattr(default.arg, "__wrapped__"):
            # SQLAlchemy wraps a default that takes no argument: such a one is called here;
            # one that reads the statement's context is left out (SQLAlchemy then runs it).
            filled[key] = default.arg(None)
    return filled


def fetch(conn: Connection, stmt: Select[Any] | Any, params: dict[str, Any]) -> list[Any]:
    """The rows of ``stmt`` with ``params``, in the caller's transaction; each row's columns
    by name (``row.name``) and by position, as SQLAlchemy's rows. On SQLite through the
    driver (as ``executemany``), the columns' values converted by SQLAlchemy's own result
    processors: every action of every stack reads its row, template and resources so.
    ``stmt`` should be built once (each distinct statement object is compiled and kept)."""
    reader = _driver_select(stmt, conn.dialect) if conn.dialect.name == "sqlite" else None
    if reader is None:
        return list(conn.execute(stmt, params).all())
    if reader.fixed:
        params = {**reader.fixed, **params}
    with _driver_cursor(conn, reader.statement) as cursor:
        cursor.execute(reader.statement.sql, reader.statement.rows([params])[0])
        found = cursor.fetchall()
    make, processors = reader.row_class._make, reader.processors
    return [
        make([value if proc is None else proc(value)
              for value, proc in zip(row, processors, strict=True)])
        for row in found
    ]


@dataclass(frozen=True)
class _DriverSelect:
    statement: _DriverStatement
    row_class: type[Any]
    processors: tuple[Callable[[Any], Any] | None, ...]
    # The values the statement itself holds (a LIMIT's, a literal's), by parameter name.
    fixed: dict[str, Any]


_DRIVER_SELECTS: weakref.WeakKeyDictionary[
    Dialect, dict[Select[Any], _DriverSelect | None]
] = weakref.WeakKeyDictionary()


def _driver_select(stmt: Select[Any], dialect: Dialect) -> _DriverSelect | None:
    """``stmt`` compiled for the driver with a row class of its columns' names, or None
    where they cannot name a row's fields (SQLAlchemy runs it)."""
    cache = _DRIVER_SELECTS.setdefault(dialect, {})
    if stmt not in cache:
        if len(cache) >= _DRIVER_CACHE_MAX:
            return None
        compiled = stmt.compile(dialect=dialect)
        statement = _driver_statement(stmt, dialect)
        columns = list(stmt.selected_columns)
        names = [str(c.key) for c in columns]
        found = None
        # An expanding IN's SQL is made per execution (by SQLAlchemy): not for the driver.
        expanding = any(bind.expanding for bind in compiled.binds.values())
        if statement is not None and not expanding and _plain_names(names):
            found = _DriverSelect(
                statement,
                namedtuple("Row", names),
                tuple(c.type.dialect_impl(dialect).result_processor(dialect, None)
                      for c in columns),
                {name: bind.effective_value for name, bind in compiled.binds.items()
                 if not bind.required},
            )
        cache[stmt] = found
    return cache[stmt]


def _plain_names(names: Sequence[str]) -> bool:
    return (len(set(names)) == len(names)
            and all(n.isidentifier() and not n.startswith("_") and not iskeyword(n)
                    and n not in ("count", "index") for n in names))


@contextmanager
def _driver_cursor(conn: Connection, statement: _DriverStatement) -> Iterator[Any]:
    """A cursor of the connection's own transaction; the driver's errors raised as
    SQLAlchemy's (IntegrityError, OperationalError...), as every other statement's are."""
    dbapi = conn.dialect.loaded_dbapi
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        yield cursor
    except dbapi.Error as exc:
        raise DBAPIError.instance(statement.sql, None, exc, dbapi.Error) from exc
    finally:
        cursor.close()
