"""Nested stacks through the engine: provider templates, OS::Heat::Stack, AWS stacks."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import select

from hearth.common.errors import RequestLimitExceeded, StackValidationFailed
from hearth.engine.engine import Engine
from hearth.engine.stack_builder import BoundStack
from hearth.resources.stack_resource import StackResource
from hearth.store import stacks as stack_store
from hearth.store.models import RawTemplate, RawTemplateFiles
from tests.integration.engine.conftest import CTX, events, resources, stack_row, wait_state

CHILD = """
heat_template_version: 2016-10-14
parameters:
  length: {type: number, default: 8}
resources:
  rs: {type: OS::Heat::RandomString, properties: {length: {get_param: length}}}
outputs:
  value: {value: {get_attr: [rs, value]}}
"""


def parent(**resources: Any) -> dict[str, Any]:
    return {"heat_template_version": "2016-10-14", "resources": resources}


def outputs(engine: Engine, ident: dict[str, str]) -> dict[str, Any]:
    shown = engine.show_stack(CTX, ident, resolve_outputs=True)[0]
    return {o["output_key"]: o.get("output_value") for o in shown.get("outputs", [])}


def all_stacks(engine: Engine) -> list[dict[str, Any]]:
    return list(engine.list_stacks(CTX, show_nested=True))


def child_of(engine: Engine, ident: dict[str, str], name: str) -> dict[str, str]:
    row = resources(engine, ident)[name]
    child_id = row.physical_resource_id
    assert child_id is not None
    child = stack_row(engine, {"stack_id": child_id})
    return {"tenant": CTX.project_id, "stack_name": child.name, "stack_id": child.id, "path": ""}


def test_provider_template_properties_outputs_and_reference(engine: Engine) -> None:
    tmpl = parent(nested={"type": "child.yaml", "properties": {"length": 12}})
    tmpl["outputs"] = {
        "value": {"value": {"get_attr": ["nested", "value"]}},
        "ref": {"value": {"get_resource": "nested"}},
        "stack_id": {"value": {"get_attr": ["nested", "OS::stack_id"]}},
    }
    ident = engine.create_stack(CTX, "prov", tmpl, files={"child.yaml": CHILD}, args={})
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE")
    out = outputs(engine, ident)
    assert isinstance(out["value"], str) and len(out["value"]) == 12
    child = child_of(engine, ident, "nested")
    assert out["stack_id"] == child["stack_id"]
    assert out["ref"] == (
        f"arn:openstack:heat::{CTX.project_id}:stacks/{child['stack_name']}/{child['stack_id']}"
    )
    row = stack_row(engine, child)
    assert (row.owner_id, row.nested_depth, row.root_stack_id) == (
        ident["stack_id"], 1, ident["stack_id"]
    )
    assert row.parent_resource_name == "nested"
    listed = engine.list_stack_resources(CTX, ident, nested_depth=1)
    assert {(r["resource_name"], r.get("parent_resource")) for r in listed} == {
        ("nested", None), ("rs", "nested")
    }
    # Nested stacks are listed only when asked for.
    assert [s["stack_name"] for s in engine.list_stacks(CTX)] == ["prov"]
    assert len(all_stacks(engine)) == 2


def test_a_parent_sees_its_childs_outputs_as_stored(engine: Engine) -> None:
    # A map with a number key (yaql makes one) is stored (and sent over RPC, in Heat) with
    # a string key: the parent's attribute has the string key too, also when the child's
    # run just ended in the parent's engine (its outputs handed over without a read).
    child = ("heat_template_version: 2016-10-14\noutputs:\n  numbered:\n"
             "    value: {yaql: {expression: 'dict(1 => one)', data: {}}}\n")
    tmpl = parent(nested={"type": "child.yaml"})
    tmpl["outputs"] = {"by_key": {"value": {"get_attr": ["nested", "numbered", "1"]}},
                       "whole": {"value": {"get_attr": ["nested", "numbered"]}}}
    ident = engine.create_stack(CTX, "numbered", tmpl, files={"child.yaml": child}, args={})
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE")
    assert outputs(engine, ident) == {"by_key": "one", "whole": {"1": "one"}}


def test_a_parent_checks_a_child_running_in_its_engine_once_the_child_ends(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The child's end wakes its parent resource, so the parent does not check it right
    # after starting it nor on a timer meanwhile: each check costs the engine a step (it
    # checked five or six times while this child ran).
    checks: list[str] = []
    real_create = StackResource.check_create_complete
    real_delete = StackResource.check_delete_complete

    def create_check(self: StackResource, cookie: Any) -> bool:
        checks.append("CREATE")
        return real_create(self, cookie)

    def delete_check(self: StackResource, cookie: Any) -> bool:
        checks.append("DELETE")
        return real_delete(self, cookie)

    monkeypatch.setattr(StackResource, "check_create_complete", create_check)
    monkeypatch.setattr(StackResource, "check_delete_complete", delete_check)
    child = ("heat_template_version: 2016-10-14\nresources:\n  slow:\n"
             "    type: OS::Heat::TestResource\n"
             "    properties: {action_wait_secs: {create: 0.3, delete: 0.3}}\n")
    ident = engine.create_stack(CTX, "woken", parent(nested={"type": "child.yaml"}),
                                files={"child.yaml": child}, args={})
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE")
    engine.delete_stack(CTX, ident)
    assert wait_state(engine, ident)[:2] == ("DELETE", "COMPLETE")
    assert checks == ["CREATE", "DELETE"]


def test_a_childs_end_is_kept_only_for_a_parent_waiting_in_its_engine(engine: Engine) -> None:
    # An action of the child alone (its parent runs nothing in this engine, as when the
    # parent's engine is another one) leaves nothing here for a parent's later read: that
    # read would give these outputs after the child's next action, run elsewhere, changed
    # them (seen in a cluster: a group's update showing its members' old values).
    tmpl = parent(nested={"type": "child.yaml"})
    ident = engine.create_stack(CTX, "stale", tmpl, files={"child.yaml": CHILD}, args={})
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE")
    child = child_of(engine, ident, "nested")
    nested = engine.core.nested
    assert nested is not None
    nested.act(child["stack_id"], "CHECK")
    assert wait_state(engine, child)[:2] == ("CHECK", "COMPLETE")
    newer = [{"output_key": "value", "output_value": "newer"}]
    with engine.core.db.session() as session:  # another engine's later update of the child
        stack_store.set_fields(session, child["stack_id"], outputs=newer, action="UPDATE",
                               status="COMPLETE", status_reason="done elsewhere")
    state = nested.state(child["stack_id"])
    assert state is not None and (state.action, state.status) == ("UPDATE", "COMPLETE")
    assert nested.outputs(child["stack_id"]) == {"value": "newer"}


def test_update_reaches_the_child_and_delete_removes_it(engine: Engine) -> None:
    tmpl = parent(nested={"type": "child.yaml", "properties": {"length": 5}})
    tmpl["outputs"] = {"value": {"value": {"get_attr": ["nested", "value"]}}}
    ident = engine.create_stack(CTX, "upd", tmpl, files={"child.yaml": CHILD}, args={})
    wait_state(engine, ident)
    child = child_of(engine, ident, "nested")
    tmpl["resources"]["nested"]["properties"]["length"] = 9
    engine.update_stack(CTX, ident, tmpl, files={"child.yaml": CHILD}, args={})
    assert wait_state(engine, ident)[:2] == ("UPDATE", "COMPLETE")
    assert len(outputs(engine, ident)["value"]) == 9
    # The same child stack was updated in place.
    assert child_of(engine, ident, "nested")["stack_id"] == child["stack_id"]
    assert stack_row(engine, child).action == "UPDATE"
    engine.delete_stack(CTX, ident)
    assert wait_state(engine, ident)[:2] == ("DELETE", "COMPLETE")
    assert stack_row(engine, child).deleted_at is not None
    assert all_stacks(engine) == []


def _files_rows(engine: Engine) -> tuple[dict[int, int | None], set[int]]:
    """Each stored template's files row, and the files rows there are."""
    with engine.core.db.session(readonly=True) as session:
        templates = dict(session.execute(select(RawTemplate.id, RawTemplate.files_id)).all())
        files = set(session.scalars(select(RawTemplateFiles.id)))
    return templates, files


def test_a_tree_stores_its_files_once_and_drops_them_with_the_last_template(
    engine: Engine,
) -> None:
    tmpl = parent(nested={"type": "child.yaml", "properties": {"length": 5}})
    ident = engine.create_stack(CTX, "files", tmpl, files={"child.yaml": CHILD}, args={})
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE")
    child = child_of(engine, ident, "nested")
    parent_tmpl = stack_row(engine, ident).raw_template_id
    child_tmpl = stack_row(engine, child).raw_template_id
    templates, files = _files_rows(engine)
    # As in Heat: the child's template points at its parent's files, not at a copy.
    assert templates[child_tmpl] == templates[parent_tmpl]
    assert files == {templates[parent_tmpl]}
    with engine.core.db.session(readonly=True) as session:
        assert stack_store.load_template(session, child_tmpl)[1] == {"child.yaml": CHILD}

    # New files: the child's old template goes first, while its parent's still uses them.
    changed = CHILD.replace("default: 8", "default: 7")
    engine.update_stack(CTX, ident, tmpl, files={"child.yaml": changed}, args={})
    assert wait_state(engine, ident)[:2] == ("UPDATE", "COMPLETE")
    templates, files = _files_rows(engine)
    assert set(templates) == {
        stack_row(engine, ident).raw_template_id, stack_row(engine, child).raw_template_id}
    # No files row is left without a template, and no template lost its files.
    assert files == {f for f in templates.values() if f is not None}
    with engine.core.db.session(readonly=True) as session:
        assert stack_store.load_template(
            session, stack_row(engine, child).raw_template_id)[1] == {"child.yaml": changed}


def test_nesting_one_level_too_deep_fails_before_anything_exists(
    engine_factory: Callable[..., Engine],
) -> None:
    engine = engine_factory(max_nested_stack_depth=2)
    files = {
        "one.yaml": "heat_template_version: 2016-10-14\nresources:\n  n: {type: two.yaml}\n",
        "two.yaml": "heat_template_version: 2016-10-14\nresources:\n  n: {type: three.yaml}\n",
        "three.yaml": "heat_template_version: 2016-10-14\nresources:\n"
        "  n: {type: OS::Heat::None}\n",
    }
    with pytest.raises(RequestLimitExceeded, match="Recursion depth exceeds 2"):
        engine.create_stack(CTX, "deep", parent(top={"type": "one.yaml"}), files=files, args={})
    assert all_stacks(engine) == []
    # One level less is fine.
    ident = engine.create_stack(CTX, "ok", parent(top={"type": "two.yaml"}), files=files,
                                args={})
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE")


def test_a_wrong_property_inside_a_provider_template_is_refused_up_front(engine: Engine) -> None:
    files = {"b.yaml": "heat_template_version: 2016-10-14\nresources:\n"
             "  x: {type: OS::Heat::RandomString, properties: {length: abc}}\n"}
    with pytest.raises(StackValidationFailed) as err:
        engine.create_stack(CTX, "bad", parent(nest={"type": "b.yaml"}), files=files, args={})
    assert "resources.nest<b.yaml>.resources.x: : Value 'abc' is not an integer" in str(
        err.value)
    assert all_stacks(engine) == []


def test_a_failure_inside_the_child_fails_the_parent_with_its_reason(engine: Engine) -> None:
    files = {"f.yaml": "heat_template_version: 2016-10-14\nresources:\n"
             "  oops: {type: OS::Heat::TestResource, properties: {fail: true}}\n"}
    ident = engine.create_stack(CTX, "failing", parent(nest={"type": "f.yaml"}), files=files,
                                args={})
    action, status, reason = wait_state(engine, ident)
    assert (action, status) == ("CREATE", "FAILED")
    assert reason == ("Resource CREATE failed: ValueError: resources.nest.resources.oops: "
                      "Test Resource failed oops")
    child = child_of(engine, ident, "nest")
    assert stack_row(engine, child).status == "FAILED"
    assert all(s["stack_status"] != "CREATE_IN_PROGRESS" for s in all_stacks(engine))


def test_rollback_of_a_failed_create_deletes_the_children(engine: Engine) -> None:
    files = {"child.yaml": CHILD}
    tmpl = parent(
        good={"type": "child.yaml"},
        bad={"type": "OS::Heat::TestResource", "properties": {"fail": True},
             "depends_on": "good"},
    )
    ident = engine.create_stack(CTX, "rb", tmpl, files=files, args={"disable_rollback": False})
    assert wait_state(engine, ident)[:2] == ("ROLLBACK", "COMPLETE")
    assert [s["stack_name"] for s in all_stacks(engine)] == ["rb"]


def test_suspend_resume_and_check_reach_the_child(engine: Engine) -> None:
    ident = engine.create_stack(CTX, "sr", parent(nest={"type": "child.yaml"}),
                                files={"child.yaml": CHILD}, args={})
    wait_state(engine, ident)
    child = child_of(engine, ident, "nest")
    for call, action in (
        (engine.stack_suspend, "SUSPEND"), (engine.stack_resume, "RESUME"),
        (engine.stack_check, "CHECK"),
    ):
        call(CTX, ident)
        assert wait_state(engine, ident)[:2] == (action, "COMPLETE")
        assert (stack_row(engine, child).action, stack_row(engine, child).status) == (
            action, "COMPLETE"
        )


def test_abandon_and_adopt_a_tree(engine: Engine) -> None:
    tmpl = parent(nest={"type": "child.yaml"})
    tmpl["outputs"] = {"value": {"value": {"get_attr": ["nest", "value"]}}}
    ident = engine.create_stack(CTX, "ab", tmpl, files={"child.yaml": CHILD}, args={})
    wait_state(engine, ident)
    value = outputs(engine, ident)["value"]
    data = engine.abandon_stack(CTX, ident)
    wait_state(engine, ident)
    nested = data["resources"]["nest"]
    # No hidden parameter: the child's data is shown as Heat shows it (sealed otherwise,
    # tests/integration/engine/test_secrets_at_rest.py).
    assert nested["resources"]["rs"]["resource_data"]["value"] == value
    assert all_stacks(engine) == []
    adopted = engine.create_stack(CTX, "adopted", None, files={"child.yaml": CHILD},
                                  args={"adopt_stack_data": data})
    assert wait_state(engine, adopted)[:2] == ("ADOPT", "COMPLETE")
    # The child's resources were adopted, not made anew.
    assert outputs(engine, adopted)["value"] == value


def test_heat_stack_and_cloudformation_stack(engine: Engine) -> None:
    tmpl = parent(
        hs={"type": "OS::Heat::Stack",
            "properties": {"template": CHILD, "parameters": {"length": 3}}},
        cfn={"type": "AWS::CloudFormation::Stack",
             "properties": {"TemplateURL": "child.yaml", "Parameters": {"length": 4}}},
    )
    tmpl["outputs"] = {
        "hs": {"value": {"get_attr": ["hs", "outputs"]}},
        "hs_name": {"value": {"get_attr": ["hs", "stack_name"]}},
        "cfn": {"value": {"get_attr": ["cfn", "Outputs.value"]}},
    }
    ident = engine.create_stack(CTX, "st", tmpl, files={"child.yaml": CHILD}, args={})
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE")
    out = outputs(engine, ident)
    assert len(out["hs"]["value"]) == 3
    assert len(out["cfn"]) == 4
    assert out["hs_name"] == child_of(engine, ident, "hs")["stack_name"]


def test_heat_stack_in_another_region_is_refused(engine: Engine) -> None:
    tmpl = parent(hs={"type": "OS::Heat::Stack",
                      "properties": {"template": CHILD, "context": {"region_name": "Far"}}})
    with pytest.raises(StackValidationFailed, match="region Far"):
        engine.create_stack(CTX, "remote", tmpl, args={})
    assert all_stacks(engine) == []


def test_hooks_pause_resources_inside_nested_stacks(engine: Engine) -> None:
    env = {"resource_registry": {"resources": {"nest": {"rs": {"hooks": "pre-create"}}}}}
    ident = engine.create_stack(CTX, "hooked", parent(nest={"type": "child.yaml"}),
                                files={"child.yaml": CHILD}, environment=env, args={})
    deadline = time.monotonic() + 10
    while True:
        events = engine.list_events(CTX, ident, nested_depth=1)
        if any("paused until Hook pre-create" in (e["resource_status_reason"] or "")
               for e in events):
            break
        assert time.monotonic() < deadline, events
        time.sleep(0.05)
    child = child_of(engine, ident, "nest")
    assert stack_row(engine, ident).status == "IN_PROGRESS"
    engine.resource_signal(CTX, child, "rs", {"unset_hook": "pre-create"})
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE")


def test_max_resources_per_stack_counts_the_whole_tree(
    engine_factory: Callable[..., Engine],
) -> None:
    engine = engine_factory(max_resources_per_stack=3)
    files = {"two.yaml": "heat_template_version: 2016-10-14\nresources:\n"
             "  a: {type: OS::Heat::None}\n  b: {type: OS::Heat::None}\n"}
    tmpl = parent(one={"type": "two.yaml"}, other={"type": "two.yaml"})
    ident = engine.create_stack(CTX, "big", tmpl, files=files, args={})
    action, status, reason = wait_state(engine, ident)
    assert (action, status) == ("CREATE", "FAILED")
    assert "Maximum resources per stack exceeded." in reason


OTHER = """
heat_template_version: 2016-10-14
parameters:
  length: {type: number, default: 8}
outputs:
  value: {value: other}
"""


def test_a_new_provider_type_updates_the_child_in_place(engine: Engine) -> None:
    # As Heat: every provider template is served by the same class, so moving a resource to
    # another name of its template, or to another template, updates its child stack.
    env = {"resource_registry": {"My::A": "child.yaml", "My::B": "child.yaml"}}
    files = {"child.yaml": CHILD, "other.yaml": OTHER}
    tmpl = parent(nested={"type": "My::A", "properties": {"length": 5}})
    tmpl["outputs"] = {"value": {"value": {"get_attr": ["nested", "value"]}}}
    ident = engine.create_stack(CTX, "retype", tmpl, files=files, environment=env, args={})
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE")
    child = child_of(engine, ident, "nested")

    tmpl["resources"]["nested"]["type"] = "My::B"
    engine.update_stack(CTX, ident, tmpl, files=files, environment=env, args={})
    assert wait_state(engine, ident)[:2] == ("UPDATE", "COMPLETE")
    row = resources(engine, ident)["nested"]
    assert (row.resource_type, row.physical_resource_id) == ("My::B", child["stack_id"])
    assert len(outputs(engine, ident)["value"]) == 5

    tmpl["resources"]["nested"]["type"] = "other.yaml"
    engine.update_stack(CTX, ident, tmpl, files=files, environment=env, args={})
    assert wait_state(engine, ident)[:2] == ("UPDATE", "COMPLETE")
    assert child_of(engine, ident, "nested")["stack_id"] == child["stack_id"]
    assert outputs(engine, ident)["value"] == "other"


def test_a_provider_type_replaced_by_a_plugin_type_is_replaced(engine: Engine) -> None:
    tmpl = parent(nested={"type": "child.yaml"})
    ident = engine.create_stack(CTX, "toplugin", tmpl, files={"child.yaml": CHILD}, args={})
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE")
    child = child_of(engine, ident, "nested")
    tmpl["resources"]["nested"] = {"type": "OS::Heat::None"}
    engine.update_stack(CTX, ident, tmpl, files={"child.yaml": CHILD}, args={})
    assert wait_state(engine, ident)[:2] == ("UPDATE", "COMPLETE")
    assert resources(engine, ident)["nested"].resource_type == "OS::Heat::None"
    assert stack_row(engine, child).deleted_at is not None


def _tree_checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The stack names of the children checked with their parent (non-strict validations)."""
    checked: list[str] = []
    original = BoundStack.validate

    def counting(bound: BoundStack, *, strict: bool = True) -> None:
        if not strict:
            checked.append(bound.identity.stack_name)
        original(bound, strict=strict)

    monkeypatch.setattr(BoundStack, "validate", counting)
    return checked


def test_identical_children_are_checked_once_and_a_different_one_still_is(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = _tree_checks(monkeypatch)
    files = {"child.yaml": CHILD}

    def child(length: Any) -> dict[str, Any]:
        return {"type": "child.yaml", "properties": {"length": length}}

    ident = engine.create_stack(
        CTX, "same", parent(a=child(8), b=child(8), c=child(9)), files=files, args={})
    assert sorted(checked) == ["same-a", "same-c"]  # b is a's twin
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE")
    assert len(outputs(engine, child_of(engine, ident, "b"))["value"]) == 8

    with pytest.raises(StackValidationFailed) as err:
        engine.create_stack(
            CTX, "one-bad", parent(a=child(8), b=child(8), c=child(0)), files=files,
            args={})
    assert "resources.c<child.yaml>" in str(err.value)
    assert "one-bad" not in {s["stack_name"] for s in all_stacks(engine)}


def test_children_reading_their_stack_name_are_each_checked(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = _tree_checks(monkeypatch)
    files = {"named.yaml": "heat_template_version: 2016-10-14\nresources:\n"
             "  v: {type: OS::Heat::Value, properties: {value: {get_param: OS::stack_name}}}\n"}
    ident = engine.create_stack(
        CTX, "names", parent(a={"type": "named.yaml"}, b={"type": "named.yaml"}), files=files,
        args={})
    assert sorted(checked) == ["names-a", "names-b"]
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE")


def test_a_child_is_stored_with_its_owners_in_progress_state_and_id(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store of a child stack commits its owner's IN_PROGRESS state and the child's id as
    the owner's physical id in the same transaction: no moment in which the child exists and
    its owner's row does not name it (an engine dying then would leave it orphaned)."""
    seen: list[tuple[str, str, str | None]] = []
    launch = engine.actions.launch

    def watching(stack_id: str, *args: Any, **kwargs: Any) -> Any:
        # Called as soon as the store is committed, before the child's run starts.
        with engine.core.db.session(readonly=True) as session:
            child = stack_store.get_stack(session, stack_id)
            if child is not None and child.owner_id is not None:
                owner = resources(engine, {"stack_id": child.owner_id})[
                    child.parent_resource_name]
                named = "the child" if owner.physical_resource_id == stack_id else (
                    owner.physical_resource_id)
                seen.append((owner.action, owner.status, named))
        return launch(stack_id, *args, **kwargs)

    monkeypatch.setattr(engine.actions, "launch", watching)
    tmpl = parent(one={"type": "child.yaml"}, two={"type": "child.yaml"})
    ident = engine.create_stack(CTX, "carried", tmpl, files={"child.yaml": CHILD}, args={})
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE")
    assert seen == [("CREATE", "IN_PROGRESS", "the child")] * 2
    rows = resources(engine, ident)
    assert {rows[n].physical_resource_id for n in ("one", "two")} == {
        s["stack_identity"]["stack_id"] for s in all_stacks(engine) if s["stack_name"] != "carried"
    }


def test_a_child_store_that_fails_leaves_its_owner_failed_after_in_progress(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the owner's step wrote for the child's store (IN_PROGRESS) is not lost with a
    store that fails: it is committed with the step's failure."""
    real = stack_store.create_stack

    def failing(session: Any, tags: Any = (), **fields: Any) -> str:
        if fields.get("owner_id") is not None:
            raise RuntimeError("no room left for the child")
        return real(session, tags, **fields)

    monkeypatch.setattr(stack_store, "create_stack", failing)
    ident = engine.create_stack(
        CTX, "unstored", parent(nested={"type": "child.yaml"}), files={"child.yaml": CHILD},
        args={},
    )
    assert wait_state(engine, ident)[:2] == ("CREATE", "FAILED")
    row = resources(engine, ident)["nested"]
    assert (row.action, row.status, row.physical_resource_id) == ("CREATE", "FAILED", None)
    assert "no room left for the child" in (row.status_reason or "")
    assert [(e[1], e[2]) for e in events(engine, ident) if e[0] == "nested"] == [
        ("CREATE", "IN_PROGRESS"), ("CREATE", "FAILED")
    ]
    assert [s["stack_name"] for s in all_stacks(engine)] == ["unstored"]
