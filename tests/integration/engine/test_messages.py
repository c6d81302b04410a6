"""Cancel and delete requests reach an action that another engine runs (through its lock)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from hearth.common.errors import ActionInProgress
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


def _deletes_wait_for(engine: Engine) -> threading.Event:
    """An event the engine's deletes wait for (up to 20 s) before they begin."""
    go = threading.Event()
    begin = engine.stacks._delete_when_free

    def when_set(*args: Any) -> None:
        go.wait(20)
        begin(*args)

    engine.stacks._delete_when_free = when_set  # type: ignore[method-assign]
    return go


@dataclass
class SlowAction:
    """Two engines on one database; the runner's action on the stack takes 60 s."""

    runner: Engine
    other: Engine
    identity: dict[str, str]
    stopped: set[int] = field(default_factory=set)

    def stop(self, engine: Engine) -> None:
        """Stop an engine part-way (gracefully: it is dead to the other at once)."""
        engine.stop()
        self.stopped.add(id(engine))


@contextmanager
def slow_action_on_two_engines(
    engine_url: str, action: str = "create"
) -> Iterator[SlowAction]:
    """Two engines on one database, the first running the stack's ``action`` (create or
    update) of a resource that takes 60 s."""
    runner = make_engine(engine_url)
    other = make_engine(engine_url)
    case = SlowAction(runner, other, {})
    try:
        if action == "create":
            case.identity = create(
                runner, template({"r": rsrc("one", action_wait_secs={"create": 60})}))
        else:
            case.identity = create(runner, template({"r": rsrc("one")}))
            wait_state(runner, case.identity)
            runner.update_stack(CTX, case.identity,
                                template({"r": rsrc("two", wait_secs=60)}))
        wait_for(lambda: _is_running(other, case.identity, "r"))
        yield case
    finally:
        for engine in (other, runner):
            if id(engine) not in case.stopped:
                engine.stop()


def test_cancel_from_another_engine_rolls_the_update_back(engine_url: str) -> None:
    with slow_action_on_two_engines(engine_url, "update") as case:
        other, identity = case.other, case.identity
        other.stack_cancel_update(CTX, identity, cancel_with_rollback=True)
        state = wait_state(other, identity, timeout=20,
                           until=lambda action, status: action == "ROLLBACK" and
                           status != "IN_PROGRESS")
        assert state[:2] == ("ROLLBACK", "COMPLETE")
        assert resources(other, identity)["r"].status == "COMPLETE"


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
        runner_ended = _deletes_wait_for(other)
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
    with slow_action_on_two_engines(engine_url) as case:
        case.other.delete_stack(CTX, case.identity)
        # The engine that accepted the delete is gone before the runner has stopped its
        # create and handed it the lock: the runner's takeover of that lock deletes the
        # stack (it resumed the create before, which would have taken 60 s).
        case.stop(case.other)
        state = _deleted(case.runner, case.identity)
        assert state[:2] == ("DELETE", "COMPLETE")
        stack_events = [e[1:3] for e in events(case.runner, case.identity) if e[0] == "s"]
        assert stack_events == [("CREATE", "IN_PROGRESS"), ("CREATE", "FAILED"),
                                ("DELETE", "IN_PROGRESS"), ("DELETE", "COMPLETE")]


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


def test_a_delete_noted_on_a_dead_engines_lock_goes_before_any_other_action(
    engine_url: str,
) -> None:
    with slow_action_on_two_engines(engine_url) as case:
        runner = case.runner
        # The runner accepts the delete and is gone before beginning it.
        runner.stacks._delete_when_free = lambda *args: None  # type: ignore[method-assign]
        runner.delete_stack(CTX, case.identity)
        case.stop(runner)
        # Its lock is not taken for another action: the accepted delete comes first.
        with pytest.raises(ActionInProgress):
            case.other.stack_suspend(CTX, case.identity)
        assert _deleted(case.other, case.identity)[:2] == ("DELETE", "COMPLETE")


def test_a_cancel_from_another_engine_leaves_a_delete_accepted_before_it(
    engine_url: str,
) -> None:
    with slow_action_on_two_engines(engine_url, "update") as case:
        runner, other, identity = case.runner, case.other, case.identity
        # The runner begins its delete only once the other engine's cancel has come.
        cancel_sent = _deletes_wait_for(runner)
        runner.delete_stack(CTX, identity)
        other.stack_cancel_update(CTX, identity, cancel_with_rollback=True)
        cancel_sent.set()
        assert _deleted(other, identity)[:2] == ("DELETE", "COMPLETE")


def test_an_update_sent_while_a_delete_waits_to_begin_is_refused(engine_url: str) -> None:
    with slow_action_on_two_engines(engine_url, "update") as case:
        runner, other, identity = case.runner, case.other, case.identity
        deletes_may_begin = _deletes_wait_for(runner)
        runner.delete_stack(CTX, identity)
        # Accepted, it would have been dropped when the delete began.
        with pytest.raises(ActionInProgress, match="DELETE"):
            other.update_stack(CTX, identity, template({"r": rsrc("three")}))
        deletes_may_begin.set()
        assert _deleted(other, identity)[:2] == ("DELETE", "COMPLETE")
