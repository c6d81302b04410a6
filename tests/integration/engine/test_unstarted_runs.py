"""An action whose run cannot start (its first read of the stack fails) after its state and
lock were stored: carried on once the database answers, or failed with the fault; never left
IN_PROGRESS under a live engine's lock with nothing running."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import exc as sa_exc

from hearth.engine.engine import Engine
from hearth.engine.running import loaded_stack
from hearth.store import locks as lock_store
from tests.integration.engine.conftest import CTX, events, make_engine, stack_row, wait_state
from tests.integration.engine.test_lifecycle import create, rsrc, template


def _first_read_fails(monkeypatch: pytest.MonkeyPatch, error: Exception) -> list[Exception]:
    read = loaded_stack.read
    raised: list[Exception] = []

    def failing_once(*args: Any, **kwargs: Any) -> Any:
        if not raised:
            raised.append(error)
            raise error
        return read(*args, **kwargs)

    monkeypatch.setattr(loaded_stack, "read", failing_once)
    return raised


@pytest.fixture
def created(engine_url: str) -> Iterator[tuple[Engine, dict[str, str]]]:
    """An engine and a stack it created."""
    engine = make_engine(engine_url)
    try:
        identity = create(engine, template({"r": rsrc("one")}))
        wait_state(engine, identity)
        yield engine, identity
    finally:
        engine.stop()


def test_a_run_the_database_kept_from_starting_is_carried_on_once_it_answers(
    created: tuple[Engine, dict[str, str]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine, identity = created
    outage = sa_exc.DisconnectionError("the server closed the connection")
    raised = _first_read_fails(monkeypatch, outage)
    # Accepted: its state and lock were stored before the run's first read failed.
    engine.stack_suspend(CTX, identity)
    assert raised
    # The engine's next beat carries the suspend on (it stayed IN_PROGRESS for good).
    state = wait_state(engine, identity, timeout=20)
    assert state[:2] == ("SUSPEND", "COMPLETE")
    with engine.core.db.session(readonly=True) as session:
        assert lock_store.holder(session, identity["stack_id"]) is None


def test_a_run_that_cannot_start_fails_its_stack_with_the_reason(
    created: tuple[Engine, dict[str, str]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine, identity = created
    _first_read_fails(monkeypatch, LookupError("raw template 7 not found"))
    with pytest.raises(LookupError):
        engine.stack_suspend(CTX, identity)
    row = stack_row(engine, identity)
    assert (row.action, row.status) == ("SUSPEND", "FAILED")
    assert row.status_reason == "Stack SUSPEND could not start: raw template 7 not found"
    assert [e[1:3] for e in events(engine, identity) if e[0] == "s"][-1] == (
        "SUSPEND", "FAILED")
    # Its lock is free: the stack takes the next action.
    engine.stack_suspend(CTX, identity)
    assert wait_state(engine, identity, timeout=20)[:2] == ("SUSPEND", "COMPLETE")
