"""Cancel and delete requests reach an action that another engine runs (through its lock)."""

from __future__ import annotations

import threading
from typing import Any

from hearth.engine.engine import Engine
from hearth.store import locks as lock_store
from tests.integration.engine.conftest import (
    CTX,
    events,
    make_engine,
    resources,
    stack_row,
    wait_state,
)
from tests.integration.engine.test_actions import state_when_delete_begins, wait_for
from tests.integration.engine.test_lifecycle import create, rsrc, template


def _is_running(engine: Engine, identity: dict[str, str], name: str) -> bool:
    return bool(resources(engine, identity)[name].status == "IN_PROGRESS")


def test_cancel_from_another_engine_rolls_the_update_back(engine_url: str) -> None:
    runner = make_engine(engine_url)
    other = make_engine(engine_url)
    try:
        identity = create(runner, template({"r": rsrc("one")}))
        wait_state(runner, identity)
        runner.update_stack(CTX, identity, template({"r": rsrc("two", wait_secs=60)}))
        wait_for(lambda: _is_running(other, identity, "r"))
        other.stack_cancel_update(CTX, identity, cancel_with_rollback=True)
        state = wait_state(other, identity, timeout=20,
                           until=lambda action, status: action == "ROLLBACK" and
                           status != "IN_PROGRESS")
        assert state[:2] == ("ROLLBACK", "COMPLETE")
        assert resources(other, identity)["r"].status == "COMPLETE"
    finally:
        other.stop()
        runner.stop()


def test_delete_from_another_engine_stops_its_create(engine_url: str) -> None:
    runner = make_engine(engine_url)
    other = make_engine(engine_url)
    try:
        identity = create(runner, template({"r": rsrc("one", action_wait_secs={"create": 60})}))
        wait_for(lambda: _is_running(other, identity, "r"))
        seen_when_delete_began = state_when_delete_begins(other, identity)
        other.delete_stack(CTX, identity)
        # The runner stops the create at once; the other engine then takes the lock and
        # deletes, well before the 60 s the resource would have taken.
        state = wait_state(other, identity, timeout=20,
                           until=lambda action, status: action == "DELETE" and
                           status != "IN_PROGRESS")
        assert state[:2] == ("DELETE", "COMPLETE")
        assert stack_row(other, identity).deleted_at is not None
        # The stopped create's cancelled event comes with the delete's start (the runner
        # wrote no end), as in Heat.
        stack_events = [e[1:] for e in events(other, identity) if e[0] == "s"]
        assert [e[:2] for e in stack_events] == [
            ("CREATE", "IN_PROGRESS"), ("CREATE", "FAILED"), ("DELETE", "IN_PROGRESS"),
            ("DELETE", "COMPLETE")]
        assert stack_events[1][2] == "Stack CREATE cancelled"
        # Never CREATE_FAILED until then, for a client polling for DELETE_COMPLETE.
        assert seen_when_delete_began[-1] == ("CREATE", "IN_PROGRESS")
    finally:
        other.stop()
        runner.stop()


def test_a_create_stopped_by_another_engines_delete_hands_that_engine_the_lock(
    engine_url: str,
) -> None:
    runner = make_engine(engine_url)
    other = make_engine(engine_url)
    try:
        identity = create(runner, template({"r": rsrc("one", action_wait_secs={"create": 60})}))
        wait_for(lambda: _is_running(other, identity, "r"))
        # The deleting engine begins its delete only once the runner's create has ended.
        runner_ended = threading.Event()
        delete_when_free = other.stacks._delete_when_free

        def after_the_runner(*args: Any) -> None:
            runner_ended.wait(20)
            delete_when_free(*args)

        other.stacks._delete_when_free = after_the_runner  # type: ignore[method-assign]
        other.delete_stack(CTX, identity)
        assert runner.wait_idle(identity["stack_id"], 20)
        # In between, the stack is still IN_PROGRESS (never CREATE_FAILED) and its lock is
        # the deleting engine's: no engine's takeover resumes the stopped create.
        with runner.core.db.session(readonly=True) as session:
            assert lock_store.holder(session, identity["stack_id"]) == other.core.engine_id
        assert stack_row(runner, identity).status == "IN_PROGRESS"
        assert runner.liveness.recover() == 0
        runner_ended.set()
        state = wait_state(other, identity, timeout=20,
                           until=lambda action, status: action == "DELETE" and
                           status != "IN_PROGRESS")
        assert state[:2] == ("DELETE", "COMPLETE")
    finally:
        other.stop()
        runner.stop()


def _deleted(engine: Engine, identity: dict[str, str]) -> tuple[str, ...]:
    return wait_state(engine, identity, timeout=20,
                      until=lambda action, status: action == "DELETE" and status != "IN_PROGRESS")


def test_a_delete_accepted_by_an_engine_that_died_before_beginning_it_is_done(
    engine_url: str,
) -> None:
    runner = make_engine(engine_url)
    deleter = make_engine(engine_url)
    deleter_stopped = False
    try:
        identity = create(runner, template({"r": rsrc("one", action_wait_secs={"create": 60})}))
        wait_for(lambda: _is_running(deleter, identity, "r"))
        deleter.delete_stack(CTX, identity)
        # The engine that accepted the delete is gone before the runner has stopped its
        # create and handed it the lock: the runner's takeover of that lock deletes the
        # stack (it resumed the create before, which would have taken 60 s).
        deleter.stop()
        deleter_stopped = True
        state = _deleted(runner, identity)
        assert state[:2] == ("DELETE", "COMPLETE")
        stack_events = [e[1:3] for e in events(runner, identity) if e[0] == "s"]
        assert stack_events == [("CREATE", "IN_PROGRESS"), ("CREATE", "FAILED"),
                                ("DELETE", "IN_PROGRESS"), ("DELETE", "COMPLETE")]
    finally:
        if not deleter_stopped:
            deleter.stop()
        runner.stop()


def test_a_delete_whose_beginning_failed_is_begun_by_its_engine_at_its_next_beat(
    engine_url: str,
) -> None:
    runner = make_engine(engine_url)
    try:
        identity = create(runner, template({"r": rsrc("one", action_wait_secs={"create": 60})}))
        wait_for(lambda: _is_running(runner, identity, "r"))
        begin = runner.stacks._delete_when_free
        failures: list[str] = []

        def failing_once(*args: Any) -> None:
            if not failures:
                failures.append("the database went away")
                raise RuntimeError(failures[0])
            begin(*args)

        runner.stacks._delete_when_free = failing_once  # type: ignore[method-assign]
        runner.delete_stack(CTX, identity)
        # The create stopped and kept its lock for the delete, whose start then failed: the
        # stack sat CREATE_IN_PROGRESS under a live engine's lock for good before.
        state = _deleted(runner, identity)
        assert failures
        assert state[:2] == ("DELETE", "COMPLETE")
        assert stack_row(runner, identity).deleted_at is not None
    finally:
        runner.stop()
