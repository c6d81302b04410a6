"""Schema migrations: bring a database to the revision this code expects.

Alembic is configured in code (no alembic.ini), with the revisions shipped inside the package.
"""

from __future__ import annotations

import functools
import zlib
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection

from hearth.store.db import Database

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

# Several processes (API, engines) may start at once against one server database: they take
# this lock, so that one of them migrates and the others then find the schema current.
_LOCK_NAME = "hearth_schema_migration"
_LOCK_KEY = zlib.crc32(_LOCK_NAME.encode())
_LOCK_TIMEOUT_SECONDS = 300


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


@functools.cache
def _script() -> ScriptDirectory:
    return ScriptDirectory.from_config(_config())


def head_revision() -> str:
    """The newest revision of the schema this code ships."""
    head = _script().get_current_head()
    if head is None:
        raise RuntimeError(f"no migration revisions found in {MIGRATIONS_DIR}")
    return head


def _current(conn: Connection) -> str | None:
    return MigrationContext.configure(conn).get_current_revision()


def current_revision(url: str) -> str | None:
    """The database's revision, or None when it has no Hearth schema yet."""
    db = Database(url)
    try:
        with db.engine.connect() as conn:
            return _current(conn)
    finally:
        db.dispose()


def upgrade(url: str, revision: str = "head") -> None:
    """Run the migrations up to ``revision`` (the newest by default)."""
    db = Database(url)
    try:
        with db.engine.connect() as conn:
            _run_locked(conn, revision)
    finally:
        db.dispose()


def ensure_schema(url: str) -> None:
    """Upgrade to the newest revision unless the database is already there (one query)."""
    if current_revision(url) != head_revision():
        upgrade(url)


def _run_locked(conn: Connection, revision: str) -> None:
    dialect = conn.dialect.name
    if dialect in ("mysql", "mariadb"):
        # MySQL's DDL commits as it goes, so the lock is held by the session, not a transaction.
        # Lock names are server-wide: qualify by database (64 characters at most).
        name = f"{_LOCK_NAME}:{conn.engine.url.database}"[:64]
        got = conn.scalar(
            text("SELECT GET_LOCK(:name, :timeout)"),
            {"name": name, "timeout": _LOCK_TIMEOUT_SECONDS},
        )
        conn.commit()
        if got != 1:
            raise TimeoutError("timed out waiting for another process's schema migration")
        try:
            _upgrade_on(conn, revision)
        finally:
            conn.execute(text("SELECT RELEASE_LOCK(:name)"), {"name": name})
            conn.commit()
        return
    # PostgreSQL and SQLite have transactional DDL: the whole upgrade is one transaction.
    # On SQLite its BEGIN IMMEDIATE (see db.py) serialises migrators; PostgreSQL takes a lock.
    with conn.begin():
        if dialect == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
        _upgrade_on(conn, revision)


def _upgrade_on(conn: Connection, revision: str) -> None:
    config = _config()
    config.attributes["connection"] = conn
    command.upgrade(config, revision)
