"""The database connection: one Engine per process, short sessions on top of it."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, make_url
from sqlalchemy.engine import URL, Connection
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool

from hearth.common import metrics
from hearth.common.config import SQLITE_WORKER_THREADS
from hearth.store.sealing import EncryptorSource, use_encryptor
from hearth.store.types import json_dumps

# The public names of the transaction the store's functions take and of the errors the
# database raises, so that layers above store/ never import SQLAlchemy themselves.
__all__ = ["Database", "DatabaseError", "Session", "normalize_url"]

DatabaseError = SQLAlchemyError

# Execution option asking SQLite for a deferred (read) transaction instead of BEGIN IMMEDIATE.
_READONLY = "hearth_readonly"

_SQLITE_PRAGMAS = (
    "PRAGMA busy_timeout=30000",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
)
# Switching a new database file to WAL can return "database is locked" at once, without
# waiting on busy_timeout, while another connection makes the same switch.
_WAL_SWITCH_SECONDS = 30.0


def normalize_url(url: str | URL) -> URL:
    """Pick Hearth's driver for each backend: psycopg 3, PyMySQL (utf8mb4), sqlite3."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "postgresql" and parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    elif backend in ("mysql", "mariadb"):
        if "+" not in parsed.drivername:
            parsed = parsed.set(drivername=f"{backend}+pymysql")
        if "charset" not in parsed.query:
            parsed = parsed.update_query_dict({"charset": "utf8mb4"})
    return parsed


def _is_memory(url: URL) -> bool:
    database = url.database or ""
    return database in ("", ":memory:") or "mode=memory" in database


class Database:
    """A database URL made usable: the Engine, its dialect and transactional sessions."""

    def __init__(self, url: str | URL) -> None:
        self.url = normalize_url(url)
        self.engine = self._create_engine(self.url)
        self._readonly_engine = self.engine.execution_options(**{_READONLY: True})
        self._sessions = sessionmaker(bind=self.engine, expire_on_commit=False)

    @property
    def dialect(self) -> str:
        """``sqlite``, ``postgresql`` or ``mysql`` (MariaDB included)."""
        return self.engine.dialect.name if self.engine.dialect.name != "mariadb" else "mysql"

    @staticmethod
    def _create_engine(url: URL) -> Engine:
        if url.get_backend_name() != "sqlite":
            return create_engine(
                url, pool_pre_ping=True, pool_recycle=3600, json_serializer=json_dumps
            )
        kwargs: dict[str, Any] = {
            "connect_args": {"check_same_thread": False, "timeout": 30},
            "json_serializer": json_dumps,
        }
        if _is_memory(url):
            # One shared connection, else every pooled connection sees its own empty database.
            kwargs["poolclass"] = StaticPool
        else:
            Path(url.database or "").expanduser().parent.mkdir(parents=True, exist_ok=True)
            # As many as the engine's worker threads on SQLite, and as many again for its
            # other threads.
            kwargs["pool_size"] = SQLITE_WORKER_THREADS
            kwargs["max_overflow"] = SQLITE_WORKER_THREADS
        engine = create_engine(url, **kwargs)
        event.listen(engine, "connect", _sqlite_on_connect)
        event.listen(engine, "begin", _sqlite_on_begin)
        return engine

    @contextmanager
    def session(self, readonly: bool = False) -> Iterator[Session]:
        """One transaction: committed when the block ends, rolled back if it raises.

        On SQLite a session takes the write lock when it begins (``BEGIN IMMEDIATE``), so that
        concurrent writers queue on ``busy_timeout`` instead of failing with "database is
        locked" when a read turns into a write. ``readonly=True`` sessions skip that lock.
        """
        bind = self._readonly_engine if readonly else self.engine
        started = time.perf_counter()
        try:
            with self._sessions(bind=bind) as session, session.begin():
                yield session
        finally:
            metrics.db_transaction("session", time.perf_counter() - started)

    def seal_with(self, source: EncryptorSource) -> None:
        """Encrypt the sealed columns this database's sessions write with ``source()``."""
        use_encryptor(self.engine.dialect, source)

    def dispose(self) -> None:
        self.engine.dispose()


def _sqlite_on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
    # The sqlite3 driver's own transaction handling would emit a deferred BEGIN; we emit ours.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        for pragma in _SQLITE_PRAGMAS:
            cursor.execute(pragma)
        _switch_to_wal(cursor)
    finally:
        cursor.close()


def _switch_to_wal(cursor: Any) -> None:
    deadline = time.monotonic() + _WAL_SWITCH_SECONDS
    delay = 0.005
    while True:
        try:
            mode = cursor.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() in ("wal", "memory"):
                return
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def _sqlite_on_begin(conn: Connection) -> None:
    readonly = conn.get_execution_options().get(_READONLY, False)
    sql = "BEGIN" if readonly else "BEGIN IMMEDIATE"
    # Straight to the driver: every transaction begins here, and SQLAlchemy's statement
    # machinery costs several times what SQLite takes. Its errors are raised as SQLAlchemy's
    # (a "database is locked" after busy_timeout is an OperationalError, as before).
    try:
        conn.connection.dbapi_connection.execute(sql)  # type: ignore[union-attr]
    except sqlite3.Error as exc:
        raise DBAPIError.instance(sql, None, exc, sqlite3.Error) from exc
