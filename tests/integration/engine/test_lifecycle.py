"""Stack actions end to end through the engine: create, delete, update, rollback, and the rest."""

from __future__ import annotations

from typing import Any

import pytest

from hearth.common.errors import (
    ActionInProgress,
    RequestLimitExceeded,
    StackExists,
    StackValidationFailed,
)
from hearth.engine.engine import Engine
from tests.integration.engine.conftest import CTX, events, resources, stack_row, wait_state

HOT = "2018-08-31"


def template(resources_: dict[str, Any], outputs: dict[str, Any] | None = None,
             parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    tmpl: dict[str, Any] = {"heat_template_version": HOT, "resources": resources_}
    if outputs:
        tmpl["outputs"] = outputs
    if parameters:
        tmpl["parameters"] = parameters
    return tmpl


def rsrc(value: str = "v", **props: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::TestResource", "properties": {"value": value, **props}}


TWO = template(
    {
        "first": rsrc("one"),
        "second": {
            "type": "OS::Heat::Value",
            "properties": {"value": {"get_attr": ["first", "output"]}},
        },
    },
    outputs={"out": {"value": {"get_attr": ["second", "value"]}, "description": "d"}},
)


def create(engine: Engine, tmpl: dict[str, Any], name: str = "s", **kw: Any) -> dict[str, str]:
    identity = engine.create_stack(CTX, name, tmpl, **kw)
    return identity


def test_create_runs_in_dependency_order_and_stores_outputs(engine: Engine) -> None:
    identity = create(engine, TWO)
    assert wait_state(engine, identity) == (
        "CREATE", "COMPLETE", "Stack CREATE completed successfully"
    )
    rows = resources(engine, identity)
    assert {n: (r.action, r.status) for n, r in rows.items()} == {
        "first": ("CREATE", "COMPLETE"),
        "second": ("CREATE", "COMPLETE"),
    }
    assert rows["first"].physical_resource_id
    stack = stack_row(engine, identity)
    assert stack.outputs == [
        {"output_key": "out", "description": "d", "output_value": "one"}
    ]
    evs = events(engine, identity)
    assert evs[0] == ("s", "CREATE", "IN_PROGRESS", "Stack CREATE started")
    assert evs[-1] == ("s", "CREATE", "COMPLETE", "Stack CREATE completed successfully")
    order = [e[0] for e in evs if e[2] == "COMPLETE" and e[0] != "s"]
    assert order == ["first", "second"]


def test_create_refuses_a_taken_name_and_a_bad_template(engine: Engine) -> None:
    identity = create(engine, TWO)
    wait_state(engine, identity)
    with pytest.raises(StackExists):
        create(engine, TWO)
    bad = template({"r": {"type": "OS::Heat::TestResource", "properties": {"nope": 1}}})
    with pytest.raises(StackValidationFailed, match="Unknown Property nope"):
        create(engine, bad, name="bad")
    listed = engine.list_stacks(CTX)
    assert [s["stack_name"] for s in listed] == ["s"]


def test_failed_create_without_rollback(engine: Engine) -> None:
    tmpl = template({"ok": rsrc(), "bad": rsrc(fail=True)})
    identity = create(engine, tmpl)
    action, status, reason = wait_state(engine, identity)
    assert (action, status) == ("CREATE", "FAILED")
    assert reason == "Resource CREATE failed: ValueError: resources.bad: Test Resource failed bad"
    rows = resources(engine, identity)
    assert (rows["bad"].action, rows["bad"].status) == ("CREATE", "FAILED")


def test_failed_create_rolls_back_when_asked(engine: Engine) -> None:
    tmpl = template({"ok": rsrc(), "bad": rsrc(fail=True)})
    identity = create(engine, tmpl, args={"disable_rollback": False})
    assert wait_state(engine, identity)[:2] == ("ROLLBACK", "COMPLETE")
    rows = resources(engine, identity)
    assert {(r.action, r.status) for r in rows.values()} <= {
        ("DELETE", "COMPLETE"), ("INIT", "COMPLETE")
    }


def test_delete_in_reverse_order_and_retain(engine: Engine) -> None:
    tmpl = template({
        "a": rsrc(),
        "b": {**rsrc(), "depends_on": ["a"], "deletion_policy": "Retain"},
    })
    identity = create(engine, tmpl)
    wait_state(engine, identity)
    engine.delete_stack(CTX, identity)
    assert wait_state(engine, identity)[:2] == ("DELETE", "COMPLETE")
    deletes = [e[0] for e in events(engine, identity) if e[1:3] == ("DELETE", "COMPLETE")]
    assert deletes[:2] == ["b", "a"]
    assert engine.list_stacks(CTX) == []


def test_idle_stacks_are_forgotten_by_the_action_manager(engine: Engine) -> None:
    # A long-running engine sees stacks without end: it had kept two entries for every
    # stack (and nested stack) it had ever run (found by the long fuzz run's RSS growth).
    group = {"type": "OS::Heat::ResourceGroup",
             "properties": {"count": 2, "resource_def": {"type": "OS::Heat::None"}}}
    for number in range(3):
        identity = create(engine, template({"a": rsrc(), "g": group}), name=f"s{number}")
        assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
        engine.update_stack(CTX, identity, template({"a": rsrc("changed")}))
        assert wait_state(engine, identity)[:2] == ("UPDATE", "COMPLETE")
        if number:
            engine.delete_stack(CTX, identity)
            assert wait_state(engine, identity)[:2] == ("DELETE", "COMPLETE")
        assert engine.wait_idle(identity["stack_id"], timeout=10)
    assert engine.actions.remembered() == set()


def test_update_in_place_replace_add_remove(engine: Engine) -> None:
    tmpl = template({
        "inplace": rsrc("one"),
        "replaced": rsrc("x", update_replace=True),
        "removed": rsrc(),
        "same": {"type": "OS::Heat::None"},
    })
    identity = create(engine, tmpl)
    wait_state(engine, identity)
    before = resources(engine, identity)
    new = template({
        "inplace": rsrc("two"),
        "replaced": rsrc("y", update_replace=True),
        "added": rsrc(),
        "same": {"type": "OS::Heat::None"},
    })
    engine.update_stack(CTX, identity, new)
    assert wait_state(engine, identity) == (
        "UPDATE", "COMPLETE", "Stack UPDATE completed successfully"
    )
    after = resources(engine, identity)
    assert set(after) == {"inplace", "replaced", "added", "same"}
    assert after["inplace"].id == before["inplace"].id
    assert (after["inplace"].action, after["inplace"].status) == ("UPDATE", "COMPLETE")
    assert after["replaced"].id != before["replaced"].id
    assert ("replaced", "UPDATE", "COMPLETE", "The Resource replaced requires replacement.") in (
        events(engine, identity))
    assert after["same"].id == before["same"].id
    assert (after["same"].action, after["same"].status) == ("CREATE", "COMPLETE")
    # The replaced row and the removed resource are gone.
    assert len(resources(engine, identity)) == 4


def test_failed_update_rolls_back_to_the_old_template(engine: Engine) -> None:
    identity = create(engine, template({"r": rsrc("one")}),
                      args={"disable_rollback": False})
    wait_state(engine, identity)
    engine.update_stack(
        CTX, identity, template({"r": rsrc("two"), "bad": rsrc(fail=True)}),
        args={"disable_rollback": False},
    )
    assert wait_state(engine, identity)[:2] == ("ROLLBACK", "COMPLETE")
    assert set(resources(engine, identity)) == {"r"}
    assert engine.get_template(CTX, identity)["resources"] == {"r": rsrc("one")}


def test_patch_update_keeps_template_and_parameters(engine: Engine) -> None:
    tmpl = template(
        {"r": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "p"}}}},
        outputs={"o": {"value": {"get_attr": ["r", "value"]}}},
        parameters={"p": {"type": "string"}, "q": {"type": "string", "default": "d"}},
    )
    identity = create(engine, tmpl, params={"p": "first", "q": "kept"})
    wait_state(engine, identity)
    engine.update_stack(CTX, identity, None, params={"p": "second"},
                        args={"existing": True})
    assert wait_state(engine, identity)[:2] == ("UPDATE", "COMPLETE")
    assert stack_row(engine, identity).outputs[0]["output_value"] == "second"
    env = engine.get_environment(CTX, identity)
    assert env["parameters"] == {"p": "second", "q": "kept"}


def test_one_action_at_a_time(engine: Engine) -> None:
    # An update would supersede the create (test_supersede); a suspend waits its turn.
    identity = create(engine, template({"slow": rsrc(wait_secs=2)}))
    with pytest.raises(ActionInProgress):
        engine.stack_suspend(CTX, identity)
    wait_state(engine, identity)


def test_suspend_resume_check(engine: Engine) -> None:
    identity = create(engine, TWO)
    wait_state(engine, identity)
    engine.stack_suspend(CTX, identity)
    assert wait_state(engine, identity)[:2] == ("SUSPEND", "COMPLETE")
    assert {(r.action, r.status) for r in resources(engine, identity).values()} == {
        ("SUSPEND", "COMPLETE")
    }
    engine.stack_resume(CTX, identity)
    assert wait_state(engine, identity)[:2] == ("RESUME", "COMPLETE")
    engine.stack_check(CTX, identity)
    assert wait_state(engine, identity) == (
        "CHECK", "COMPLETE",
        "Stack CHECK completed successfully. 'CHECK' not fully supported (see resources)",
    )
    rows = resources(engine, identity)
    assert rows["second"].status_reason == "CHECK not supported for OS::Heat::Value"


def test_limits_from_config(engine_factory: Any) -> None:
    engine = engine_factory(max_stacks_per_tenant=1, max_resources_per_stack=2)
    wait_state(engine, create(engine, TWO))
    with pytest.raises(RequestLimitExceeded, match="maximum stacks per tenant, 1"):
        create(engine, TWO, name="second")
    three = template({n: {"type": "OS::Heat::None"} for n in "abc"})
    with pytest.raises(RequestLimitExceeded, match="Maximum resources per stack exceeded"):
        engine.update_stack(CTX, engine.identify_stack(CTX, "s"), three)


def test_an_output_that_cannot_be_stored_is_its_error_not_a_stuck_stack(engine: Engine) -> None:
    outputs = {
        "pattern": {"value": {"yaql": {"expression": 'regex("a.c")'}}},
        "nan": {"value": {"yaql": {"expression": 'float("nan")'}}},
        "fine": {"value": "ok"},
    }
    tmpl = template({"n": {"type": "OS::Heat::None"}}, outputs)
    tmpl["heat_template_version"] = "2021-04-16"
    identity = engine.create_stack(CTX, "unstorable", tmpl)
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    shown = {o["output_key"]: o for o in engine.show_stack(CTX, identity)[0]["outputs"]}
    assert shown["fine"]["output_value"] == "ok"
    for name in ("pattern", "nan"):
        assert shown[name]["output_value"] is None
        assert shown[name]["output_error"].startswith(
            f"The value of output {name} cannot be stored: "), shown[name]
