"""Servers of one database share one encryption key: a server whose key cannot read the
encrypted rows already there refuses to start and says why (it answered DecryptionFailed for
every stack the others made, and could not take over their actions)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import select

from hearth.common.errors import HearthError
from hearth.engine.engine import Engine
from hearth.store.models import ResourceData
from tests.integration.engine.conftest import CTX, KEY, wait_state
from tests.integration.store.test_crypto import fernet_token_of_an_earlier_version

# A handle keeps its secret encrypted in its resource data.
TEMPLATE = {"heat_template_version": "2018-08-31",
            "resources": {"handle": {"type": "OS::Heat::WaitConditionHandle"}}}


def test_a_server_with_another_key_refuses_to_start(
    engine_factory: Callable[..., Engine],
) -> None:
    first = engine_factory()
    identity = first.create_stack(CTX, "keyed", TEMPLATE)
    assert wait_state(first, identity)[:2] == ("CREATE", "COMPLETE")
    with pytest.raises(HearthError) as err:
        engine_factory(auth_encryption_key="another key that is long enough for the test")
    message = str(err.value)
    assert message.startswith("The encryption key (auth_encryption_key")
    assert " cannot read the data '" in message
    assert "every server of one database needs the same key" in message
    # The same key starts, and reads the stack.
    second = engine_factory()
    assert second.show_stack(CTX, identity)[0]["stack_status"] == "COMPLETE"


def test_data_sealed_by_an_earlier_version_is_checked_too(
    engine_factory: Callable[..., Engine],
) -> None:
    """A database whose newest encrypted data is in the earlier (Fernet) format: the check
    reads that row too, so a server with another key still refuses to start."""
    first = engine_factory()
    identity = first.create_stack(CTX, "keyed-earlier", TEMPLATE)
    assert wait_state(first, identity)[:2] == ("CREATE", "COMPLETE")
    with first.core.db.session() as session:
        rows = list(session.scalars(select(ResourceData)))
        assert rows and all(r.decrypt_method == "aes-gcm-siv-hkdf-v2" for r in rows)
        for row in rows:
            plain = first.core.encryptor.decrypt(row.value)
            row.value = fernet_token_of_an_earlier_version(KEY, plain)
            row.decrypt_method = "fernet-hkdf-v1"
    with pytest.raises(HearthError, match=" cannot read the data '"):
        engine_factory(auth_encryption_key="another key that is long enough for the test")
    second = engine_factory()
    assert second.show_stack(CTX, identity)[0]["stack_status"] == "COMPLETE"
