"""The single-row writes and the reads that every stack's action makes go straight to the
driver on SQLite (``hearth.store.driver``): they must store and
give back exactly what SQLAlchemy's own execution does, on every backend."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import bindparam, select

from hearth.store import driver
from hearth.store import locks as lock_store
from hearth.store import resources as resource_store
from hearth.store import stacks as stack_store
from hearth.store.crypto import Encryptor
from hearth.store.db import Database
from hearth.store.models import Resource, Stack, StackLock

KEY = Encryptor.from_key("the driver statements test key, long enough")


@pytest.fixture
def owned(database: Database) -> Database:
    """The database with sealed columns, as an engine has it."""
    database.seal_with(lambda: KEY)
    return database


def _stack(db: Database, **fields: object) -> tuple[str, int]:
    with db.session() as session:
        template_id = stack_store.store_template(
            session, {"heat_template_version": "2021-04-16"}, {"f.yaml": "x"},
            {"parameters": {"pw": "hunter2", "n": 1}}, ["pw"], KEY,
        )
        stack_id = stack_store.create_stack(
            session, name="driven", raw_template_id=template_id, tenant="p",
            disable_rollback=False, current_traversal="t-1", **fields,
        )
    return stack_id, template_id


def test_a_stack_stored_and_read_back_through_the_driver_matches_the_orm(
    owned: Database,
) -> None:
    stack_id, template_id = _stack(owned, nested_depth=2)
    with owned.session() as session:
        orm = session.get(Stack, stack_id)
        assert orm is not None
        # Column defaults the insert left out are the model's.
        assert (orm.backup, orm.convergence, orm.nested_depth) == (False, False, 2)
        assert isinstance(orm.created_at, datetime)
        row = stack_store.run_columns(session, stack_id)
        assert row is not None
        for name in ("id", "name", "tenant", "nested_depth", "disable_rollback",
                     "raw_template_id", "current_traversal", "deleted_at", "action"):
            assert getattr(row, name) == getattr(orm, name), name
        assert row.disable_rollback is False  # a bool, not SQLite's 0
        assert stack_store.run_columns(session, "no-such-stack") is None
        stored = stack_store.load_stored_template(session, template_id, KEY)
        assert stored.environment["parameters"] == {"pw": "hunter2", "n": 1}
        assert stored.files == {"f.yaml": "x"}
        assert stack_store.find_child_id(session, stack_id, "none") is None


def test_a_claim_writes_sealed_columns_and_counts_the_rows_it_changed(
    owned: Database,
) -> None:
    stack_id, _ = _stack(owned)
    outputs = [{"output_key": "pw", "output_value": "hunter2"}]
    with owned.session() as session:
        assert stack_store.claim_traversal(session, stack_id, "t-1", "t-2", outputs=outputs)
        # Not the traversal it expected any more: nothing changes.
        assert not stack_store.claim_traversal(session, stack_id, "t-1", "t-3")
    with owned.session() as session:
        orm = session.get(Stack, stack_id)
        assert orm is not None and orm.current_traversal == "t-2" and orm.outputs == outputs
    plain = Database(owned.url)  # a connection no engine owns reads rows as stored
    try:
        with plain.session() as session:
            assert "hunter2" not in str(session.scalars(select(Stack.outputs)).one())
    finally:
        plain.dispose()


def test_locks_taken_and_released_count_as_sqlalchemy_counts_them(owned: Database) -> None:
    stack_id, _ = _stack(owned)
    with owned.session() as session:
        assert lock_store.try_insert(session, stack_id, "engine-a")
        assert not lock_store.try_insert(session, stack_id, "engine-b")
    with owned.session() as session:
        lock = session.get(StackLock, stack_id)
        assert lock is not None and lock.engine_id == "engine-a"
        assert isinstance(lock.created_at, datetime)
        assert not lock_store.release(session, stack_id, "engine-b")
        assert lock_store.release(session, stack_id, "engine-a")
    with owned.session() as session:
        assert session.get(StackLock, stack_id) is None


def test_resource_rows_read_through_the_driver_match_the_orm(owned: Database) -> None:
    stack_id, _ = _stack(owned)
    with owned.session() as session:
        resource_store.insert_many(session, [
            {"uuid": f"u-{i}", "name": f"r{i}", "stack_id": stack_id, "action": "INIT",
             "status": "COMPLETE", "status_reason": "", "resource_type": "OS::Heat::None",
             "requires": [i], "atomic_key": 0}
            for i in range(3)
        ])
    with owned.session() as session:
        first = session.scalars(select(Resource).where(Resource.name == "r0")).one()
        first.attr_data = {"ref": "x", "attrs": {"secret": "hunter2"}}
    with owned.session() as session:
        plain = resource_store.rows_of_stack(session, stack_id)
        orm = resource_store.of_stack(session, stack_id)
        assert [r.name for r in plain] == ["r0", "r1", "r2"]
        for p, o in zip(plain, orm, strict=True):
            for column in Resource.__table__.c:
                assert getattr(p, column.key) == getattr(o, column.key), column.key
        assert plain[0].attr_data == {"ref": "x", "attrs": {"secret": "hunter2"}}
        assert plain[1].requires == [1] and plain[1].attr_data is None


def test_a_select_whose_columns_cannot_name_a_row_still_runs(database: Database) -> None:
    stack_id, _ = _stack(database)
    statement = select(Stack.id, Stack.id.label("count"))
    with database.session() as session:
        rows = driver.fetch(session.connection(), statement, {})
    assert [tuple(r) for r in rows] == [(stack_id, stack_id)]


def test_a_select_with_an_expanding_in_runs(database: Database) -> None:
    """(As the journal's lock check of a batch of more than a few stacks is.)"""
    ids = sorted(_stack(database)[0] for _ in range(3))
    statement = select(Stack.id).where(Stack.id.in_(bindparam("ids", expanding=True)))
    with database.session() as session:
        rows = driver.fetch(session.connection(), statement.order_by(Stack.id),
                           {"ids": [*ids[:2], "none"]})
    assert [r.id for r in rows] == ids[:2]


def test_statements_past_the_cache_bound_still_run(
    database: Database, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Statements built per call are not all kept: past the bound they go to SQLAlchemy."""
    monkeypatch.setattr(driver, "CACHE_MAX", 0)
    stack_id, _ = _stack(database)
    fresh = select(Stack.id, Stack.name).where(Stack.id == bindparam("id_"))
    with database.session() as session:
        assert [tuple(r) for r in driver.fetch(session.connection(), fresh, {"id_": stack_id})] \
            == [(stack_id, "driven")]
        assert stack_store.claim_traversal(session, stack_id, "t-1", "t-2")


def test_timestamps_go_to_sqlite_as_sqlalchemy_writes_them() -> None:
    """The driver's own datetime conversion (SQLite) writes the text SQLAlchemy's would:
    stored rows sort and compare alike whichever wrote them."""
    from datetime import UTC, date, timedelta

    from sqlalchemy.dialects import sqlite

    from hearth.store.types import Timestamp

    dialect = sqlite.dialect()
    ours = driver.compiled(
        select(Stack.id).where(Stack.created_at < bindparam("at")), dialect
    )
    assert ours is not None
    (_, fast), = ours.params
    sqlalchemys = Timestamp.dialect_impl(dialect).bind_processor(dialect)
    assert fast is not None and sqlalchemys is not None
    values: list[object] = [
        None, date(2026, 1, 2), datetime(2026, 11, 29, 20, 1, 2),
        datetime(1, 1, 1), datetime(9999, 12, 31, 23, 59, 59, 999999),
        datetime(2026, 11, 29, 20, 1, 2, 5, tzinfo=UTC),
        datetime(2026, 11, 29, 20, 1, 2, tzinfo=UTC) + timedelta(microseconds=123456),
    ]
    for value in values:
        assert fast(value) == sqlalchemys(value), value
