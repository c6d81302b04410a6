"""Statements run at the SQLite driver.

SQLAlchemy's generic handling of each statement and each row's parameters costs several times
what SQLite takes to run it, and every action of every stack writes and reads a few single
rows. On SQLite the engine's statements are therefore compiled by SQLAlchemy once, their values
converted by SQLAlchemy's own bind and result processors, and run with the driver's cursor;
on other backends (and for statements that cannot go to the driver as they are) SQLAlchemy
runs them. Statements should be built once: each distinct one is compiled and kept (up to a
bound, past which SQLAlchemy runs new ones).
"""

from __future__ import annotations

import weakref
from collections import namedtuple
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from keyword import iskeyword
from typing import Any

from sqlalchemy import DateTime, Dialect, Executable, Insert, Select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.schema import ColumnDefault


@dataclass(frozen=True)
class DriverStatement:
    sql: str
    # Each parameter in the statement's order, with SQLAlchemy's processor for its type.
    params: tuple[tuple[str, Callable[[Any], Any] | None], ...]
    # The values the statement itself holds (a LIMIT's, a literal's), by parameter name.
    fixed: dict[str, Any] = field(default_factory=dict)

    def rows(self, params: Sequence[dict[str, Any]]) -> list[tuple[Any, ...]]:
        """Each parameter set as the driver takes it: in order, converted."""
        pairs = self.params
        if self.fixed:
            params = [{**self.fixed, **row} for row in params]
        return [
            tuple([row[name] if proc is None else proc(row[name]) for name, proc in pairs])
            for row in params
        ]


# Per connection (dialect): the type processors are bound to it (sealed columns use its key).
# Then keyed by the statement object itself (kept alive here: an id could be reused).
_STATEMENTS: weakref.WeakKeyDictionary[
    Dialect, dict[tuple[Executable, tuple[str, ...]], DriverStatement | None]
] = weakref.WeakKeyDictionary()


# Statements (with each set of keys) compiled for the driver, per connection: those the
# engine builds once. A caller building its statements per call would fill it; past this
# many, new ones go through SQLAlchemy.
CACHE_MAX = 512


def compiled(
    stmt: Executable, dialect: Dialect, keys: tuple[str, ...] = ()
) -> DriverStatement | None:
    """``stmt`` compiled for the driver (an insert for the columns ``keys``), or None where
    SQLAlchemy must run it: an insert whose rows leave a column default for SQLAlchemy to
    fill in, an expanding IN (SQLAlchemy makes its SQL per execution)."""
    cache = _STATEMENTS.setdefault(dialect, {})
    cache_key = (stmt, keys)
    if cache_key not in cache:
        if len(cache) >= CACHE_MAX:
            return None  # (statements built per call: SQLAlchemy's own cache is bounded)
        compile_for = stmt.compile  # type: ignore[attr-defined]
        made = compile_for(dialect=dialect, column_keys=list(keys) or None)
        names = tuple(made.positiontup or ())
        found = None
        expanding = any(bind.expanding for bind in made.binds.values())
        if not expanding and (not keys or set(names) == set(keys)):
            found = DriverStatement(
                made.string,
                tuple((name, _bind_processor(made.binds[name].type, dialect))
                      for name in names),
                {name: bind.effective_value for name, bind in made.binds.items()
                 if not bind.required and name not in keys},
            )
        cache[cache_key] = found
    return cache[cache_key]


def _bind_processor(type_: Any, dialect: Dialect) -> Callable[[Any], Any] | None:
    """SQLAlchemy's processor for values of ``type_``; for SQLite's datetimes one that gives
    the same text at C speed (every row the engine writes has a timestamp or two)."""
    proc: Callable[[Any], Any] | None = type_.dialect_impl(dialect).bind_processor(dialect)
    if proc is None or not isinstance(type_, DateTime) or not _same_text(proc):
        return proc
    slow = proc

    def datetime_text(value: Any) -> Any:
        if type(value) is datetime and value.tzinfo is None:
            return value.isoformat(" ", "microseconds")
        return slow(value)

    return datetime_text


def _same_text(proc: Callable[[Any], Any]) -> bool:
    """Whether ``proc`` writes naive datetimes as ``isoformat`` does with microseconds (the
    SQLite dialect's default storage format; a type given another keeps its processor)."""
    probes = (datetime(2026, 1, 2, 3, 4, 5), datetime(999, 12, 31, 23, 59, 59, 123456))
    return all(proc(p) == p.isoformat(" ", "microseconds") for p in probes)


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
            statement = compiled(stmt, conn.dialect, keys)
    if statement is None:
        conn.execute(stmt, params)
        return
    with driver_cursor(conn, statement) as cursor:
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
    with driver_cursor(conn, statement) as cursor:
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
    with driver_cursor(conn, statement) as cursor:
        cursor.execute(statement.sql, values)
        return int(cursor.lastrowid)


def _driver_write(
    conn: Connection, stmt: Executable, params: dict[str, Any]
) -> tuple[DriverStatement | None, tuple[Any, ...]]:
    """On SQLite: ``stmt`` compiled for the driver and its values in order (an insert's
    with the column defaults it leaves out); else (None, ())."""
    if conn.dialect.name != "sqlite":
        return None, ()
    filled = _with_column_defaults(stmt, params)
    statement = compiled(stmt, conn.dialect, tuple(filled))
    return statement, (() if statement is None else statement.rows([filled])[0])


# The defaults an insert into a table leaves out, by the columns it is given (the engine's
# inserts give a few sets each).
_LEFT_OUT_DEFAULTS: dict[tuple[Any, tuple[str, ...]], tuple[tuple[str, ColumnDefault], ...]] = {}


def _with_column_defaults(stmt: Executable, params: dict[str, Any]) -> dict[str, Any]:
    """An insert's ``params`` with the Python-side defaults of the columns they leave out
    (what SQLAlchemy would fill in), so that it can go to the driver as it is."""
    if not isinstance(stmt, Insert):
        return params
    found = (stmt.table, tuple(params))
    defaults = _LEFT_OUT_DEFAULTS.get(found)
    if defaults is None:
        defaults = tuple((c.key, c.default) for c in stmt.table.c
                         if c.key not in params and isinstance(c.default, ColumnDefault))
        if len(_LEFT_OUT_DEFAULTS) < CACHE_MAX:
            _LEFT_OUT_DEFAULTS[found] = defaults
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


def fetch(conn: Connection, stmt: Any, params: dict[str, Any]) -> list[Any]:
    """The rows of the select ``stmt`` with ``params``, in the caller's transaction; each
    row's columns by name (``row.name``) and by position, as SQLAlchemy's rows. On SQLite
    through the driver, the columns' values converted by SQLAlchemy's own result processors.
    (``Any``: SQLAlchemy types its selects by their columns.)"""
    reader = _reader(stmt, conn.dialect) if conn.dialect.name == "sqlite" else None
    if reader is None:
        return list(conn.execute(stmt, params).all())
    with driver_cursor(conn, reader.statement) as cur:
        cur.execute(reader.statement.sql, reader.statement.rows([params])[0])
        found = cur.fetchall()
    make, processors = reader.row_class._make, reader.processors
    return [
        make([value if proc is None else proc(value)
              for value, proc in zip(row, processors, strict=True)])
        for row in found
    ]


def first(conn: Connection, stmt: Any, params: dict[str, Any]) -> Any:
    """The first row ``fetch`` finds, or None."""
    rows = fetch(conn, stmt, params)
    return rows[0] if rows else None


@dataclass(frozen=True)
class _Reader:
    statement: DriverStatement
    row_class: type[Any]
    processors: tuple[Callable[[Any], Any] | None, ...]


_READERS: weakref.WeakKeyDictionary[
    Dialect, dict[Select[Any], _Reader | None]
] = weakref.WeakKeyDictionary()


def _reader(stmt: Select[Any], dialect: Dialect) -> _Reader | None:
    """``stmt`` compiled for the driver with a row class of its columns' names, or None
    where SQLAlchemy must run it (see ``compiled``), or its names cannot name a row's
    fields."""
    cache = _READERS.setdefault(dialect, {})
    if stmt not in cache:
        statement = compiled(stmt, dialect)
        if statement is None:
            return None  # (not kept: ``compiled`` keeps its answer, or is full)
        columns = list(stmt.selected_columns)
        names = [str(c.key) for c in columns]
        cache[stmt] = None if not _plain_names(names) else _Reader(
            statement,
            namedtuple("Row", names),
            tuple(c.type.dialect_impl(dialect).result_processor(dialect, None) for c in columns),
        )
    return cache[stmt]


def _plain_names(names: Sequence[str]) -> bool:
    return (len(set(names)) == len(names)
            and all(n.isidentifier() and not n.startswith("_") and not iskeyword(n)
                    and n not in ("count", "index") for n in names))


@contextmanager
def driver_cursor(conn: Connection, statement: DriverStatement) -> Iterator[Any]:
    """A cursor of the connection's own transaction; the driver's errors raised as
    SQLAlchemy's (IntegrityError, OperationalError...), as every other statement's are."""
    dbapi = conn.dialect.loaded_dbapi
    cur = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        yield cur
    except dbapi.Error as exc:
        raise DBAPIError.instance(statement.sql, None, exc, dbapi.Error) from exc
    finally:
        cur.close()
