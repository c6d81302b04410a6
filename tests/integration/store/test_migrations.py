"""The migrations create exactly the schema the models describe, on every backend."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from hearth.store import migrate
from hearth.store.db import Database
from hearth.store.models import Base


def test_upgrade_creates_exactly_the_models(db_url: str) -> None:
    assert migrate.current_revision(db_url) is None
    migrate.upgrade(db_url)
    assert migrate.current_revision(db_url) == migrate.head_revision()
    db = Database(db_url)
    try:
        with db.engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            assert compare_metadata(context, Base.metadata) == []
            tables = set(inspect(conn).get_table_names())
        assert tables == set(Base.metadata.tables) | {"alembic_version"}
    finally:
        db.dispose()


def test_concurrent_ensure_schema_migrates_once(db_url: str) -> None:
    # API and engine processes starting together must not trip over each other.
    with ThreadPoolExecutor(4) as pool:
        for future in [pool.submit(migrate.ensure_schema, db_url) for _ in range(4)]:
            future.result()
    assert migrate.current_revision(db_url) == migrate.head_revision()


def test_ensure_schema_at_head_does_not_migrate(
    any_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    migrate.ensure_schema(any_db_url)

    def fail(url: str, revision: str = "head") -> None:
        raise AssertionError("upgrade ran although the schema is current")

    monkeypatch.setattr(migrate, "upgrade", fail)
    migrate.ensure_schema(any_db_url)


def test_upgrade_to_an_explicit_revision(any_db_url: str) -> None:
    migrate.upgrade(any_db_url, "0001")
    assert migrate.current_revision(any_db_url) == "0001"
