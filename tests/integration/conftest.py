"""Databases for integration tests: fresh, empty ones on SQLite, PostgreSQL and MariaDB.

Each test gets its own database (dropped when it ends), named per xdist worker so parallel
runs never meet. A server that is not reachable skips its tests with the reason, except under
CI (``CI=true``), where a missing service must fail the run.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pymysql
import pytest

BACKENDS = ("sqlite", "postgresql", "mariadb")

PG_HOST, PG_PORT, PG_USER, PG_ADMIN_DB = "127.0.0.1", 5432, "postgres", "test"
MARIADB_HOST, MARIADB_PORT, MARIADB_USER = "127.0.0.1", 3306, "root"
CONNECT_TIMEOUT = 3


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


@dataclass
class _Server:
    """One database server: an admin connection (opened once) that creates and drops DBs."""

    label: str
    connect: Callable[[], Any]
    create_sql: str
    url_template: str
    drop: Callable[[Any, str], None]
    conn: Any = None
    error: str | None = None
    created: list[str] = field(default_factory=list)

    def admin(self) -> Any:
        if self.conn is None and self.error is None:
            try:
                self.conn = self.connect()
            except Exception as exc:
                self.error = f"{self.label} is not reachable: {exc}".strip()
        if self.error is not None:
            _unavailable(self.error)
        return self.conn

    def new(self, name: str) -> str:
        conn = self.admin()
        with conn.cursor() as cur:
            cur.execute(self.create_sql.format(name=name))
        self.created.append(name)
        return self.url_template.format(name=name)

    def remove(self, name: str) -> None:
        if name in self.created and self.conn is not None:
            self.drop(self.conn, name)
            self.created.remove(name)

    def close(self) -> None:
        if self.conn is None:
            return
        for name in list(self.created):
            self.remove(name)
        self.conn.close()


def _drop_pg(conn: Any, name: str) -> None:
    with conn.cursor() as cur:
        cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _drop_mariadb(conn: Any, name: str) -> None:
    with conn.cursor() as cur:
        # A connection the test left in a transaction would make DROP wait on its locks.
        cur.execute("SELECT id FROM information_schema.processlist WHERE db = %s", (name,))
        for (thread_id,) in cur.fetchall():
            try:
                cur.execute(f"KILL {int(thread_id)}")
            except pymysql.err.OperationalError:
                pass  # it ended meanwhile
        cur.execute(f"DROP DATABASE IF EXISTS `{name}`")


class DatabaseFactory:
    """Fresh database URLs per backend: ``new("sqlite" | "postgresql" | "mariadb")``."""

    def __init__(self, tmp_dir: Path, worker: str) -> None:
        self._tmp_dir = tmp_dir
        self._prefix = f"hearth_t_{worker}_"
        self._servers = {
            "postgresql": _Server(
                label=f"PostgreSQL at {PG_HOST}:{PG_PORT}",
                connect=lambda: psycopg.connect(
                    host=PG_HOST, port=PG_PORT, user=PG_USER, dbname=PG_ADMIN_DB,
                    connect_timeout=CONNECT_TIMEOUT, autocommit=True,
                ),
                create_sql='CREATE DATABASE "{name}" ENCODING \'UTF8\'',
                url_template=f"postgresql+psycopg://{PG_USER}@{PG_HOST}:{PG_PORT}/{{name}}",
                drop=_drop_pg,
            ),
            "mariadb": _Server(
                label=f"MariaDB at {MARIADB_HOST}:{MARIADB_PORT}",
                connect=lambda: pymysql.connect(
                    host=MARIADB_HOST, port=MARIADB_PORT, user=MARIADB_USER,
                    connect_timeout=CONNECT_TIMEOUT, autocommit=True,
                ),
                create_sql="CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
                url_template=(
                    f"mysql+pymysql://{MARIADB_USER}@{MARIADB_HOST}:{MARIADB_PORT}/{{name}}"
                    "?charset=utf8mb4"
                ),
                drop=_drop_mariadb,
            ),
        }

    def new(self, backend: str) -> str:
        name = self._prefix + secrets.token_hex(4)
        if backend == "sqlite":
            return f"sqlite:///{self._tmp_dir / name}.sqlite"
        return self._servers[backend].new(name)

    def discard(self, url: str) -> None:
        """Drop a server database now rather than at the end of the session."""
        name = url.rsplit("/", 1)[-1].split("?", 1)[0]
        for server in self._servers.values():
            server.remove(name)

    def close(self) -> None:
        for server in self._servers.values():
            server.close()


@pytest.fixture(scope="session")
def database_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DatabaseFactory]:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    factory = DatabaseFactory(tmp_path_factory.mktemp("databases"), worker)
    yield factory
    factory.close()


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, database_factory: DatabaseFactory) -> Iterator[str]:
    """A fresh, empty database on each backend in turn (ids: sqlite, postgresql, mariadb)."""
    url = database_factory.new(request.param)
    yield url
    database_factory.discard(url)


@pytest.fixture
def any_db_url(database_factory: DatabaseFactory) -> str:
    """A fresh, empty database where the backend does not matter (SQLite: always there)."""
    return database_factory.new("sqlite")
