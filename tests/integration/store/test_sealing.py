"""Sealed columns on every backend: encrypted with the owning engine's key, plain rows of
older versions still read, and two keys in one process kept apart (batched writes too)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hearth.common.errors import DecryptionFailed
from hearth.store import batch
from hearth.store import resources as resource_store
from hearth.store.crypto import Encryptor
from hearth.store.db import Database
from hearth.store.models import Resource, Stack
from hearth.store.sealing import SEALED_KEY, unseal
from tests.integration.store.conftest import add_stack

KEY_A = Encryptor.from_key("the first engine's key, long enough")
KEY_B = Encryptor.from_key("the second engine's key, long enough")
OUTPUTS = [{"output_key": "pw", "output_value": "hunter2"}]


@pytest.fixture
def owned(database: Database) -> Iterator[Database]:
    """A second connection to the same database, owned by an engine with KEY_A."""
    db = Database(database.url)
    db.seal_with(lambda: KEY_A)
    yield db
    db.dispose()


def stored_outputs(db: Database, stack_id: str) -> object:
    with db.session() as session:
        row = session.get(Stack, stack_id)
        assert row is not None
        return row.outputs


def test_values_are_sealed_at_rest_and_read_in_clear(database: Database, owned: Database) -> None:
    stack_id = add_stack(owned, outputs=OUTPUTS)
    raw = stored_outputs(database, stack_id)
    assert isinstance(raw, dict) and raw[SEALED_KEY] == "aes-gcm-siv-hkdf-v2"
    assert "hunter2" not in str(raw)
    assert unseal(raw, KEY_A) == OUTPUTS
    assert stored_outputs(owned, stack_id) == OUTPUTS


def test_plain_rows_of_older_versions_are_still_read(
    database: Database, owned: Database,
) -> None:
    stack_id = add_stack(database, outputs=OUTPUTS)  # as a version without sealing wrote it
    assert stored_outputs(database, stack_id) == OUTPUTS
    assert stored_outputs(owned, stack_id) == OUTPUTS


def test_a_value_sealed_with_another_key_is_refused(
    database: Database, owned: Database,
) -> None:
    stack_id = add_stack(owned, outputs=OUTPUTS)
    other = Database(database.url)
    other.seal_with(lambda: KEY_B)
    try:
        with pytest.raises(DecryptionFailed):
            stored_outputs(other, stack_id)
    finally:
        other.dispose()


def test_batched_writes_use_each_connections_own_key(
    database: Database, owned: Database,
) -> None:
    other = Database(database.url)
    other.seal_with(lambda: KEY_B)
    try:
        stack_id = add_stack(database)
        with database.session() as session:
            ids = [
                resource_store.add(session, name=n, stack_id=stack_id, action="INIT",
                                   status="COMPLETE", requires=[]).id
                for n in ("a", "b")
            ]
        # The same statements through two connections: each must seal with its own key.
        for db, rid in ((owned, ids[0]), (other, ids[1])):
            with db.engine.begin() as conn:
                batch.apply(conn, [batch.ResourceChange(rid, {"attr_data": {"v": rid}})])
        with database.session() as session:
            raw = [session.get(Resource, rid) for rid in ids]
            assert [unseal(r.attr_data, k) for r, k in zip(raw, (KEY_A, KEY_B), strict=True)
                    if r is not None] == [{"v": ids[0]}, {"v": ids[1]}]
    finally:
        other.dispose()
