"""The Database wrapper: driver choice, SQLite settings, transactional sessions."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select, text

from hearth.store.db import Database, normalize_url
from hearth.store.models import Stack
from tests.integration.store.conftest import add_stack


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgresql://u@h/db", "postgresql+psycopg://u@h/db"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg://u@h/db"),
        ("mysql://u@h/db", "mysql+pymysql://u@h/db?charset=utf8mb4"),
        ("mysql+pymysql://u@h/db?charset=utf8", "mysql+pymysql://u@h/db?charset=utf8"),
        ("mariadb://u@h/db", "mariadb+pymysql://u@h/db?charset=utf8mb4"),
        ("sqlite:////tmp/x.sqlite", "sqlite:////tmp/x.sqlite"),
    ],
)
def test_urls_get_hearths_drivers(given: str, expected: str) -> None:
    assert normalize_url(given).render_as_string(hide_password=False) == expected


def test_sqlite_connections_are_set_up_for_concurrency(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path}/new/dir/hearth.sqlite")
    try:
        assert (tmp_path / "new" / "dir").is_dir()
        assert db.dialect == "sqlite"
        with db.engine.connect() as conn:
            pragmas = {
                name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
                for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
            }
        assert pragmas == {
            "journal_mode": "wal", "synchronous": 1, "foreign_keys": 1, "busy_timeout": 30000
        }
    finally:
        db.dispose()


def test_server_dialects(db_url: str) -> None:
    db = Database(db_url)
    try:
        assert db.dialect == db_url.split(":", 1)[0].split("+", 1)[0]
        with db.session(readonly=True) as session:
            assert session.scalar(text("SELECT 1")) == 1
    finally:
        db.dispose()


def test_session_commits_or_rolls_back(database: Database) -> None:
    stack_id = add_stack(database, name="before")
    with pytest.raises(RuntimeError), database.session() as session:
        session.get_one(Stack, stack_id).name = "changed"
        session.flush()
        raise RuntimeError("boom")
    with database.session() as session:
        stack = session.get_one(Stack, stack_id)
        assert stack.name == "before"
        stack.name = "after"
    # Objects stay readable after their session ended (expire_on_commit=False).
    assert stack.name == "after"
    with database.session(readonly=True) as session:
        assert session.scalars(select(Stack.name)).all() == ["after"]


def test_in_memory_sqlite_is_one_database() -> None:
    db = Database("sqlite://")
    try:
        with db.session() as session:
            session.execute(text("CREATE TABLE t (x INTEGER)"))
            session.execute(text("INSERT INTO t VALUES (1)"))
        with db.session(readonly=True) as session:
            assert session.scalar(text("SELECT x FROM t")) == 1
    finally:
        db.dispose()
