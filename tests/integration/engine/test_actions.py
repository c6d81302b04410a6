"""Hooks, cancel, timeouts, restricted actions, signals, snapshots, abandon/adopt."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from hearth.common.errors import InvalidBreakPointHook, NotSupported
from hearth.engine.engine import Engine
from hearth.store import resources as resource_store
from hearth.store import stacks as stack_store
from hearth.store.models import RawTemplate, ResourcePropertiesData
from tests.integration.engine.conftest import CTX, events, resources, stack_row, wait_state
from tests.integration.engine.test_lifecycle import TWO, create, rsrc, template


def wait_for(check: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.02)


def state_when_delete_begins(engine: Engine, identity: dict[str, str]) -> list[tuple[str, str]]:
    """The (action, status) a client reads of the stack each time ``engine`` begins its
    delete (filled in as that happens)."""
    seen: list[tuple[str, str]] = []
    begin_delete = engine.stacks.begin_delete

    def observed(*args: Any, **kwargs: Any) -> Any:
        # A read: the delete's transaction holds the write lock.
        with engine.core.db.session(readonly=True) as session:
            row = stack_store.get_stack(session, identity["stack_id"])
            assert row is not None
            seen.append((row.action, row.status))
        return begin_delete(*args, **kwargs)

    engine.stacks.begin_delete = observed  # type: ignore[method-assign]
    return seen


def test_pre_create_hook_pauses_until_signalled(engine: Engine) -> None:
    env = {"resource_registry": {"resources": {"second": {"hooks": "pre-create"}}}}
    identity = create(engine, TWO, environment=env)
    wait_for(lambda: any("paused until Hook" in e[3] for e in events(engine, identity)))
    rows = resources(engine, identity)
    assert (rows["first"].action, rows["first"].status) == ("CREATE", "COMPLETE")
    assert rows["second"].action == "INIT"
    assert stack_row(engine, identity).status == "IN_PROGRESS"
    # Heat names the resource by its class, as its str() does.
    not_defined = (f'The "pre-update" hook is not defined on Value "second" Stack "s" '
                   f'[{identity["stack_id"]}]')
    with pytest.raises(InvalidBreakPointHook, match=re.escape(not_defined)):
        engine.resource_signal(CTX, identity, "second", {"unset_hook": "pre-update"})
    engine.resource_signal(CTX, identity, "second", {"unset_hook": "pre-create"})
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    reasons = [e[3] for e in events(engine, identity) if e[0] == "second"]
    assert "CREATE paused until Hook pre-create is cleared" in reasons
    assert "Hook pre-create is cleared" in reasons


def test_pre_update_hook_pauses_an_unchanged_resource(engine: Engine) -> None:
    # Heat pauses before it knows whether anything changes; the event keeps the old state.
    env = {"resource_registry": {"resources": {"first": {"hooks": "pre-update"}}}}
    identity = create(engine, TWO, environment=env)
    wait_state(engine, identity)
    engine.update_stack(CTX, identity, TWO, environment=env)
    paused = "UPDATE paused until Hook pre-update is cleared"
    wait_for(lambda: any(e[0] == "first" and e[3] == paused for e in events(engine, identity)))
    event = next(e for e in events(engine, identity) if e[3] == paused)
    assert event[1:3] == ("CREATE", "COMPLETE")
    assert stack_row(engine, identity).status == "IN_PROGRESS"
    engine.resource_signal(CTX, identity, "first", {"unset_hook": "pre-update"})
    assert wait_state(engine, identity)[:2] == ("UPDATE", "COMPLETE")
    rows = resources(engine, identity)
    assert (rows["first"].action, rows["first"].status) == ("CREATE", "COMPLETE")


def test_wildcard_hook_names(engine: Engine) -> None:
    env = {"resource_registry": {"resources": {"sec*": {"hooks": ["pre-create"]}}}}
    identity = create(engine, TWO, environment=env)
    wait_for(lambda: any("paused until Hook" in e[3] for e in events(engine, identity)))
    engine.resource_signal(CTX, identity, "second", {"unset_hook": "pre-create"})
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")


def test_stack_timeout_fails_the_stack(engine_factory: Any) -> None:
    engine = engine_factory(stack_action_timeout=1)
    identity = create(engine, template({"slow": rsrc(wait_secs=120)}))
    action, status, reason = wait_state(engine, identity)
    assert (action, status, reason) == ("CREATE", "FAILED", "Timed out")
    slow = resources(engine, identity)["slow"]
    assert (slow.action, slow.status) == ("CREATE", "FAILED")
    # Heat's convergence engine's words: the step as a task of the resource (no physical
    # id yet, as the test resource makes one only at its end).
    assert slow.status_reason == (
        f'CREATE aborted (Task create from TestResource "slow" Stack "s" '
        f'[{identity["stack_id"]}] Timed out)')


def test_cancel_update_rolls_back(engine: Engine) -> None:
    identity = create(engine, template({"r": rsrc("one")}))
    wait_state(engine, identity)
    engine.update_stack(CTX, identity, template({"r": rsrc("two", wait_secs=60)}))
    wait_for(lambda: resources(engine, identity)["r"].status == "IN_PROGRESS")
    engine.stack_cancel_update(CTX, identity, cancel_with_rollback=True)
    assert wait_state(engine, identity)[:2] == ("ROLLBACK", "COMPLETE")
    # Heat's convergence engine's words for the resource the cancel stopped.
    assert ("r", "UPDATE", "FAILED", "UPDATE aborted (user triggered cancel)") in events(
        engine, identity)


def test_cancel_without_rollback(engine: Engine) -> None:
    # As Heat's convergence engine: the stack fails at once, the running resource finishes
    # on its own, and what depends on it never starts.
    tmpl = template({"r": rsrc("one", wait_secs=2), "after": {**rsrc("two"), "depends_on": "r"}})
    identity = create(engine, tmpl)
    wait_for(lambda: resources(engine, identity)["r"].status == "IN_PROGRESS")
    engine.stack_cancel_update(CTX, identity, cancel_with_rollback=False)
    state = wait_state(engine, identity, timeout=1.5,
                       until=lambda action, status: status == "FAILED")
    assert state == ("CREATE", "FAILED", "Stack CREATE cancelled")
    wait_state(engine, identity)
    rows = resources(engine, identity)
    assert (rows["r"].action, rows["r"].status) == ("CREATE", "COMPLETE")
    assert (rows["after"].action, rows["after"].status) == ("INIT", "COMPLETE")
    stack_events = [e for e in events(engine, identity) if e[0] == identity["stack_name"]]
    assert [e[1:3] for e in stack_events] == [("CREATE", "IN_PROGRESS"), ("CREATE", "FAILED")]


def test_cancel_refused_when_nothing_runs(engine: Engine) -> None:
    identity = create(engine, TWO)
    wait_state(engine, identity)
    with pytest.raises(NotSupported, match="Cancelling update when stack is CREATE_COMPLETE"):
        engine.stack_cancel_update(CTX, identity)


def test_delete_while_create_in_progress(engine: Engine) -> None:
    slow_create = {"action_wait_secs": {"create": 60, "delete": 0}}
    identity = create(engine, template({"r": rsrc(**slow_create)}))
    wait_for(lambda: resources(engine, identity)["r"].status == "IN_PROGRESS")
    engine.delete_stack(CTX, identity)
    assert wait_state(engine, identity, until=lambda a, s: a == "DELETE" and s != "IN_PROGRESS"
                      )[:2] == ("DELETE", "COMPLETE")


def test_delete_while_update_in_progress_goes_straight_to_delete(engine: Engine) -> None:
    # As in Heat, the stopped update ends with its cancelled event before the delete's
    # start; unlike a plain cancel, the stack is never FAILED in between, for a client
    # polling for DELETE_COMPLETE (which would stop at UPDATE_FAILED).
    identity = create(engine, template({"r": rsrc("a")}))
    wait_state(engine, identity)
    slow_update = {"action_wait_secs": {"update": 60, "delete": 0}}
    engine.update_stack(CTX, identity, template({"r": rsrc("b", **slow_update)}))
    wait_for(lambda: resources(engine, identity)["r"].action == "UPDATE")
    seen_when_delete_began = state_when_delete_begins(engine, identity)
    engine.delete_stack(CTX, identity)
    assert wait_state(engine, identity, until=lambda a, s: a == "DELETE" and s != "IN_PROGRESS"
                      )[:2] == ("DELETE", "COMPLETE")
    assert seen_when_delete_began == [("UPDATE", "IN_PROGRESS")]
    stack_events = [e[1:] for e in events(engine, identity) if e[0] == identity["stack_name"]]
    assert [e[:2] for e in stack_events] == [
        ("CREATE", "IN_PROGRESS"), ("CREATE", "COMPLETE"), ("UPDATE", "IN_PROGRESS"),
        ("UPDATE", "FAILED"), ("DELETE", "IN_PROGRESS"), ("DELETE", "COMPLETE"),
    ]
    assert stack_events[3][2] == "Stack UPDATE cancelled"
    assert ("r", "UPDATE", "FAILED", "UPDATE aborted (user triggered cancel)") in events(
        engine, identity)


def test_restricted_replace_fails_the_update(engine: Engine) -> None:
    identity = create(engine, template({"r": rsrc("x", update_replace=True)}))
    wait_state(engine, identity)
    env = {"resource_registry": {"resources": {"r": {"restricted_actions": ["replace"]}}}}
    engine.update_stack(CTX, identity, template({"r": rsrc("y", update_replace=True)}),
                        environment=env)
    action, status, reason = wait_state(engine, identity)
    assert (action, status, reason) == (
        "UPDATE", "FAILED",
        "Resource UPDATE failed: ResourceActionRestricted: resources.r: "
        "replace is restricted for resource.",
    )
    row = resources(engine, identity)["r"]
    assert (row.action, row.status) == ("CREATE", "COMPLETE")
    assert ("r", "UPDATE", "FAILED", "replace is restricted for resource.") in events(
        engine, identity)


def test_mark_unhealthy_and_back(engine: Engine) -> None:
    identity = create(engine, TWO)
    wait_state(engine, identity)
    engine.resource_mark_unhealthy(CTX, identity, "first", True, "broken")
    row = resources(engine, identity)["first"]
    assert (row.action, row.status, row.status_reason) == ("CHECK", "FAILED", "broken")
    engine.resource_mark_unhealthy(CTX, identity, "first", False)
    row = resources(engine, identity)["first"]
    assert (row.action, row.status) == ("CHECK", "COMPLETE")
    # An unhealthy resource is replaced by the next update.
    engine.resource_mark_unhealthy(CTX, identity, "first", True)
    old_id = row.id
    engine.update_stack(CTX, identity, TWO)
    assert wait_state(engine, identity)[:2] == ("UPDATE", "COMPLETE")
    assert resources(engine, identity)["first"].id != old_id


def test_signal_refused_by_a_type_without_signals(engine: Engine) -> None:
    identity = create(engine, TWO)
    wait_state(engine, identity)
    with pytest.raises(Exception, match="signal is not supported for resource"):
        engine.resource_signal(CTX, identity, "second", {"x": 1})


def test_snapshot_and_restore(engine: Engine) -> None:
    identity = create(engine, template({
        "r": rsrc("one"),
        "rand": {"type": "OS::Heat::RandomString"},
    }))
    wait_state(engine, identity)
    snap = engine.stack_snapshot(CTX, identity, "snap1")
    assert wait_state(engine, identity)[:2] == ("SNAPSHOT", "COMPLETE")
    shown = engine.show_snapshot(CTX, identity, snap["id"])
    assert shown["status"] == "COMPLETE"
    assert set(shown["data"]["resources"]) == {"r", "rand"}
    engine.update_stack(CTX, identity, template({"r": rsrc("two")}))
    wait_state(engine, identity)
    engine.stack_restore(CTX, identity, snap["id"])
    assert wait_state(engine, identity)[:2] == ("RESTORE", "COMPLETE")
    assert set(resources(engine, identity)) == {"r", "rand"}


def test_abandon_then_adopt(engine: Engine) -> None:
    identity = create(engine, TWO)
    wait_state(engine, identity)
    data = engine.abandon_stack(CTX, identity)
    assert data["name"] == "s" and set(data["resources"]) == {"first", "second"}
    wait_state(engine, identity)
    assert engine.list_stacks(CTX) == []
    adopted = engine.create_stack(CTX, "adopted", None,
                                  args={"adopt_stack_data": json.dumps(data)})
    assert wait_state(engine, adopted)[:2] == ("ADOPT", "COMPLETE")
    rows = resources(engine, adopted)
    assert rows["first"].physical_resource_id == data["resources"]["first"]["resource_id"]


def test_hidden_parameters_and_properties_encrypted_at_rest(engine: Engine) -> None:
    tmpl = template(
        {"r": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "secret"}}}},
        parameters={"secret": {"type": "string", "hidden": True}},
    )
    identity = create(engine, tmpl, params={"secret": "hunter2"})
    wait_state(engine, identity)
    template_id = stack_row(engine, identity).raw_template_id
    row = resources(engine, identity)["r"]
    with engine.core.db.session() as session:
        raw = session.get(RawTemplate, template_id)
        assert "hunter2" not in json.dumps(raw.environment)
        props = session.get(ResourcePropertiesData, row.rsrc_prop_data_id)
        assert props.encrypted and "hunter2" not in json.dumps(props.data)
        assert resource_store.load_properties(
            session, row.rsrc_prop_data_id, engine.core.encryptor
        ) == {"value": "hunter2"}


def test_adopt_takes_resources_as_they_are_without_checking_their_properties(
        engine: Engine) -> None:
    # As Heat's adopt: no property check before the handler, only the resource's id.
    valid = template({"v": {"type": "OS::Heat::Value", "properties": {"value": "0"}},
                      "r": {"type": "OS::Heat::TestResource",
                            "properties": {"wait_secs": {"get_attr": ["v", "value"]}}}})
    identity = create(engine, valid)
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    data = engine.abandon_stack(CTX, identity)
    wait_state(engine, identity)
    # The value the test resource waits for is no number any more: a create refuses it.
    data["template"]["resources"]["v"]["properties"]["value"] = "soon"
    adopted = engine.create_stack(CTX, "adopted", None,
                                  args={"adopt_stack_data": json.dumps(data)})
    assert wait_state(engine, adopted)[:2] == ("ADOPT", "COMPLETE")
    assert resources(engine, adopted)["r"].physical_resource_id == \
        data["resources"]["r"]["resource_id"]
    created = create(engine, data["template"], name="created")
    state = wait_state(engine, created)
    assert state[:2] == ("CREATE", "FAILED")
    assert "Properties.wait_secs" in state[2]
