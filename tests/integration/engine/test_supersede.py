"""An update sent while the stack's create or update is in progress supersedes it (Heat's
convergence engine): accepted, the old traversal starts nothing new, what it runs finishes,
and the newest update ends the stack UPDATE_COMPLETE on its own template."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from typing import Any

import yaml

from hearth.engine.engine import Engine
from hearth.store import stacks as stack_store
from tests.integration.engine.conftest import (
    CTX,
    events,
    make_engine,
    resources,
    stack_row,
    wait_state,
)
from tests.integration.engine.test_actions import wait_for
from tests.integration.engine.test_lifecycle import create, rsrc, template

SLOW = 3  # seconds the superseded action's resource takes: the second update comes meanwhile


def _chain(slow: dict[str, Any], value: str) -> dict[str, Any]:
    """``slow`` first, then ``after``, which needs it (the old traversal never reaches it)."""
    return template({
        "slow": slow,
        "after": {**rsrc(value), "depends_on": ["slow"]},
    })


def _running(engine: Engine, identity: dict[str, str], name: str) -> bool:
    row = resources(engine, identity).get(name)
    return row is not None and row.status == "IN_PROGRESS"


def _failed(engine: Engine, identity: dict[str, str]) -> list[tuple[str, str, str, str]]:
    return [e for e in events(engine, identity) if e[2] == "FAILED"]


def _value(engine: Engine, identity: dict[str, str], name: str) -> Any:
    row = resources(engine, identity)[name]
    return (row.attr_data or {}).get("attrs", {}).get("output")


def _template_of(engine: Engine, identity: dict[str, str]) -> dict[str, Any]:
    return engine.get_template(CTX, identity)


def _supersede_slow_update(
    runner: Engine, sender: Engine
) -> tuple[dict[str, str], dict[str, Any]]:
    """``runner`` updates a stack slowly; ``sender`` sends a newer update meanwhile."""
    identity = create(runner, _chain(rsrc("one"), "one"))
    wait_state(runner, identity)
    runner.update_stack(CTX, identity, _chain(
        rsrc("two", action_wait_secs={"update": SLOW}), "two"))
    wait_for(lambda: _running(sender, identity, "slow"))
    newest = _chain(rsrc("three"), "three")
    answer = sender.update_stack(CTX, identity, newest)  # accepted, not ActionInProgress
    assert answer["stack_id"] == identity["stack_id"]
    return identity, newest


def test_an_update_during_an_update_supersedes_it(engine: Engine) -> None:
    identity, newest = _supersede_slow_update(engine, engine)

    assert wait_state(engine, identity) == (
        "UPDATE", "COMPLETE", "Stack UPDATE completed successfully")
    assert _template_of(engine, identity) == newest
    assert (_value(engine, identity, "slow"), _value(engine, identity, "after")) == (
        "three", "three")
    assert _failed(engine, identity) == []
    log = events(engine, identity)
    # The resource in flight finished its first update, then took the newest one.
    assert [e[1:3] for e in log if e[0] == "slow"][-4:] == [
        ("UPDATE", "IN_PROGRESS"), ("UPDATE", "COMPLETE"),
        ("UPDATE", "IN_PROGRESS"), ("UPDATE", "COMPLETE"),
    ]
    # What waited on it was never started by the superseded update: updated once.
    assert [e[1:3] for e in log if e[0] == "after" and e[1] == "UPDATE"] == [
        ("UPDATE", "IN_PROGRESS"), ("UPDATE", "COMPLETE"),
    ]
    assert [e[1:3] for e in log if e[0] == identity["stack_name"]][-3:] == [
        ("UPDATE", "IN_PROGRESS"), ("UPDATE", "IN_PROGRESS"), ("UPDATE", "COMPLETE"),
    ]


def test_an_update_during_a_create_supersedes_it(engine: Engine) -> None:
    identity = create(engine, _chain(rsrc("one", action_wait_secs={"create": SLOW}), "one"))
    wait_for(lambda: _running(engine, identity, "slow"))

    newest = _chain(rsrc("one", action_wait_secs={"create": SLOW}), "two")
    engine.update_stack(CTX, identity, newest)

    assert wait_state(engine, identity)[:2] == ("UPDATE", "COMPLETE")
    assert _template_of(engine, identity) == newest
    assert _failed(engine, identity) == []
    rows = resources(engine, identity)
    # The slow create finished; the update found nothing to change in it.
    assert (rows["slow"].action, rows["slow"].status) == ("CREATE", "COMPLETE")
    assert (rows["after"].action, rows["after"].status) == ("CREATE", "COMPLETE")
    assert _value(engine, identity, "after") == "two"


def test_a_patch_during_an_update_builds_on_the_update_in_flight(engine: Engine) -> None:
    tmpl = template(
        {"slow": rsrc({"get_param": "p"}, action_wait_secs={"update": SLOW}),
         "quick": {**rsrc({"get_param": "q"}), "depends_on": ["slow"]}},
        parameters={"p": {"type": "string"}, "q": {"type": "string"}},
    )
    identity = create(engine, tmpl, params={"p": "p1", "q": "q1"})
    wait_state(engine, identity)
    engine.update_stack(CTX, identity, None, params={"p": "p2"}, args={"existing": True})
    wait_for(lambda: _running(engine, identity, "slow"))

    engine.update_stack(CTX, identity, None, params={"q": "q2"}, args={"existing": True})

    assert wait_state(engine, identity)[:2] == ("UPDATE", "COMPLETE")
    assert engine.get_environment(CTX, identity)["parameters"] == {"p": "p2", "q": "q2"}
    assert (_value(engine, identity, "slow"), _value(engine, identity, "quick")) == (
        "p2", "q2")
    assert _failed(engine, identity) == []


def test_a_delete_after_a_superseding_update_deletes_the_stack(engine: Engine) -> None:
    identity, _ = _supersede_slow_update(engine, engine)

    engine.delete_stack(CTX, identity)

    state = wait_state(engine, identity, timeout=30,
                       until=lambda action, status: action == "DELETE" and status != "IN_PROGRESS")
    assert state[:2] == ("DELETE", "COMPLETE")
    assert stack_row(engine, identity).deleted_at is not None


NESTED_CHILD = template(
    {"slow": rsrc({"get_param": "value"}, action_wait_secs={"update": SLOW}),
     "after": {**rsrc({"get_param": "value"}), "depends_on": ["slow"]}},
    outputs={"out": {"value": {"get_attr": ["after", "output"]}}},
    parameters={"value": {"type": "string"}},
)
NESTED_PARENT = template(
    {"child": {"type": "child.yaml", "properties": {"value": {"get_param": "value"}}}},
    outputs={"out": {"value": {"get_attr": ["child", "out"]}}},
    parameters={"value": {"type": "string"}},
)


def _child_identity(engine: Engine, identity: dict[str, str]) -> dict[str, str]:
    child_id = resources(engine, identity)["child"].physical_resource_id
    with engine.core.db.session() as session:
        row = stack_store.get_stack(session, child_id)
        assert row is not None
        return {"tenant": row.tenant or "", "stack_name": row.name, "stack_id": row.id}


def test_a_parents_update_supersedes_its_nested_stacks_update(engine: Engine) -> None:
    files = {"child.yaml": yaml.safe_dump(NESTED_CHILD)}
    identity = create(engine, NESTED_PARENT, files=files, params={"value": "one"})
    wait_state(engine, identity)
    child = _child_identity(engine, identity)
    engine.update_stack(CTX, identity, NESTED_PARENT, files=files, params={"value": "two"})
    wait_for(lambda: _running(engine, child, "slow"))

    engine.update_stack(CTX, identity, NESTED_PARENT, files=files, params={"value": "three"})

    assert wait_state(engine, identity)[:2] == ("UPDATE", "COMPLETE")
    assert stack_row(engine, identity).outputs[0]["output_value"] == "three"
    assert wait_state(engine, child)[:2] == ("UPDATE", "COMPLETE")
    assert engine.get_environment(CTX, child)["parameters"] == {"value": "three"}
    assert _failed(engine, identity) == [] and _failed(engine, child) == []
    # The child's second resource waited on the slow one: only the newest update reached it.
    assert [e[1:3] for e in events(engine, child) if e[0] == "after" and e[1] == "UPDATE"] == [
        ("UPDATE", "IN_PROGRESS"), ("UPDATE", "COMPLETE"),
    ]


def test_a_nested_update_in_flight_is_removed_by_the_newer_update(engine: Engine) -> None:
    """Upstream's test_nested_preemption, in short: the child's resource would take an hour;
    the newer update drops the child, whose delete stops it."""
    delay = template({"wait": rsrc({"get_param": "value"}, action_wait_secs={"update": 3600})},
                     parameters={"value": {"type": "string"}})
    middle = template({"inner": {"type": "delay.yaml",
                                 "properties": {"value": {"get_param": "value"}}}},
                      parameters={"value": {"type": "string"}})
    empty = template({}, parameters={"value": {"type": "string"}})
    files = {"child.yaml": yaml.safe_dump(middle), "delay.yaml": yaml.safe_dump(delay)}
    identity = create(engine, NESTED_PARENT | {"outputs": {}}, files=files,
                      params={"value": "foo"})
    wait_state(engine, identity)
    engine.update_stack(CTX, identity, NESTED_PARENT | {"outputs": {}}, files=files,
                        params={"value": "bar"})
    middle_id = _child_identity(engine, identity)
    wait_for(lambda: "inner" in resources(engine, middle_id)
             and _running(engine, middle_id, "inner"))

    engine.update_stack(CTX, identity, NESTED_PARENT | {"outputs": {}},
                        files={**files, "child.yaml": yaml.safe_dump(empty)},
                        params={"value": "baz"})

    assert wait_state(engine, identity, timeout=60)[:2] == ("UPDATE", "COMPLETE")
    assert resources(engine, middle_id) == {}
    assert wait_state(engine, middle_id)[:2] == ("UPDATE", "COMPLETE")


def test_an_update_supersedes_the_one_another_engine_runs(engine_url: str) -> None:
    runner = make_engine(engine_url)
    other = make_engine(engine_url)
    try:
        # The lock is the runner's when the other engine sends the newer update.
        identity, newest = _supersede_slow_update(runner, other)

        state = wait_state(other, identity, timeout=30,
                           until=lambda action, status: status != "IN_PROGRESS")
        assert state[:2] == ("UPDATE", "COMPLETE")
        wait_state(runner, identity)
        assert _template_of(other, identity) == newest
        assert _value(other, identity, "after") == "three"
        assert _failed(other, identity) == []
        # The engine that held the lock ran the newest update too.
        assert [e[1:3] for e in events(other, identity) if e[0] == "after"
                and e[1] == "UPDATE"] == [("UPDATE", "IN_PROGRESS"), ("UPDATE", "COMPLETE")]
    finally:
        other.stop()
        runner.stop()


RUNNER = textwrap.dedent(
    """
    import json, sys, time
    from hearth.common.context import RequestContext
    from tests.integration.engine.conftest import make_engine, wait_state
    engine = make_engine(sys.argv[1], heartbeat_interval=0.3)
    ctx = RequestContext(project_id="tenant-a", user_id="user-a", username="alice")
    first, second = json.loads(sys.argv[2]), json.loads(sys.argv[3])
    identity = engine.create_stack(ctx, "dies", first)
    wait_state(engine, identity)
    engine.update_stack(ctx, identity, second)
    print(json.dumps(identity), flush=True)
    time.sleep(600)
    """
)


def test_a_takeover_carries_on_the_newest_update(engine_url: str) -> None:
    """The engine running the superseded update dies while its resource is in flight: the
    engine that takes the stack over runs the newest update, not the superseded one."""
    slow = _chain(rsrc("two", action_wait_secs={"update": 60}), "two")
    runner = subprocess.Popen(
        [sys.executable, "-c", RUNNER, engine_url,
         json.dumps(_chain(rsrc("one"), "one")), json.dumps(slow)],
        stdout=subprocess.PIPE, text=True, cwd=os.getcwd(),
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    # The runner is dead to the other engine 3 s after its last beat: on a loaded machine a
    # live runner's beats came more than 0.9 s (the default 3 beats) apart, the other engine
    # took the stack over before the update, and the run it superseded then finished the
    # resource in flight (its 60 s wait) before the newest update began.
    other = make_engine(engine_url, heartbeat_interval=0.3,
                        engine_dead_after_missed_heartbeats=10)
    try:
        assert runner.stdout is not None
        identity = json.loads(runner.stdout.readline())
        wait_for(lambda: _running(other, identity, "slow"))
        newest = _chain(rsrc("three"), "three")
        other.update_stack(CTX, identity, newest)
        runner.send_signal(signal.SIGKILL)
        runner.wait()

        state = wait_state(other, identity, timeout=60,
                           until=lambda action, status: status != "IN_PROGRESS")
        assert state[:2] == ("UPDATE", "COMPLETE")
        wait_state(other, identity)
        assert _template_of(other, identity) == newest
        assert (_value(other, identity, "slow"), _value(other, identity, "after")) == (
            "three", "three")
        # Only the resource the dead engine left in flight failed (Heat's "went down"); the
        # newest update replaced it.
        assert _failed(other, identity) == [
            ("slow", "UPDATE", "FAILED", "Engine went down during resource UPDATE")]
    finally:
        if runner.poll() is None:
            runner.send_signal(signal.SIGKILL)
            runner.wait()
        other.stop()
