"""Stack locks (``hearth.store.locks``) on every backend: one engine takes a free lock, a
second is refused without spoiling its transaction, and the lock is free again once
released."""

from __future__ import annotations

from hearth.store import locks as lock_store
from hearth.store.db import Database
from tests.integration.store.conftest import add_stack


def test_a_lock_is_taken_once_until_released(database: Database) -> None:
    stack_id = add_stack(database)
    with database.session() as session:
        assert lock_store.holder(session, stack_id) is None
        assert lock_store.try_insert(session, stack_id, "engine-a")
    with database.session() as session:
        assert not lock_store.try_insert(session, stack_id, "engine-b")
        # The refused insert leaves the transaction usable (PostgreSQL aborts on an error).
        assert lock_store.holder(session, stack_id, for_update=True) == "engine-a"
        assert lock_store.post_message(session, stack_id, "stop")
    with database.session() as session:
        assert lock_store.holder(session, stack_id) == "engine-a"
        assert not lock_store.release(session, stack_id, "engine-b")
        assert lock_store.release(session, stack_id, "engine-a")
    with database.session() as session:
        assert lock_store.holder(session, stack_id) is None
        assert lock_store.try_insert(session, stack_id, "engine-b")
        assert lock_store.holder(session, stack_id) == "engine-b"
