"""OS::Heat::ResourceGroup and OS::Heat::ResourceChain through the engine, as a user sees
them: members of the nested stack, outputs, events, failures and validation errors."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from hearth.common.errors import StackValidationFailed
from hearth.engine.engine import Engine
from hearth.engine.stack_builder import BoundStack
from hearth.engine.stack_source import source_from_request
from hearth.store import queries
from hearth.template.parameters import StackIdentity
from tests.integration.engine.conftest import CTX, resources, stack_row, wait_state

HOT = "2018-08-31"


def template(resources_: dict[str, Any], **outputs: Any) -> dict[str, Any]:
    tmpl: dict[str, Any] = {"heat_template_version": HOT, "resources": resources_}
    if outputs:
        tmpl["outputs"] = {k: {"value": v} for k, v in outputs.items()}
    return tmpl


def group(count: int, resource_def: dict[str, Any], **props: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::ResourceGroup",
            "properties": {"count": count, "resource_def": resource_def, **props}}


RANDOM = {"type": "OS::Heat::RandomString"}


def outputs(engine: Engine, ident: dict[str, str]) -> dict[str, Any]:
    shown = engine.show_stack(CTX, ident, resolve_outputs=True)[0]
    return {o["output_key"]: o.get("output_value") for o in shown.get("outputs", [])}


def child(engine: Engine, ident: dict[str, str], name: str = "group") -> dict[str, str]:
    child_id = resources(engine, ident)[name].physical_resource_id
    assert child_id is not None
    row = stack_row(engine, {"stack_id": child_id})
    return {"tenant": CTX.project_id, "stack_name": row.name, "stack_id": row.id, "path": ""}


def members(engine: Engine, ident: dict[str, str], name: str = "group") -> dict[str, Any]:
    """Member name -> (type, physical id) of a group's nested stack."""
    rows = resources(engine, child(engine, ident, name))
    return {n: (r.resource_type, r.physical_resource_id) for n, r in rows.items()}


def timed_events(engine: Engine, ident: dict[str, str]) -> list[tuple[str, str, str, Any]]:
    with engine.core.db.session() as session:
        rows = queries.list_events(session, stack_ids=[ident["stack_id"]], sort_dir="asc")
        return [(e.resource_name or "", e.resource_action or "", e.resource_status or "",
                 e.created_at) for e in rows]


def create(engine: Engine, tmpl: dict[str, Any], name: str = "s", **kw: Any) -> dict[str, str]:
    ident = engine.create_stack(CTX, name, tmpl, args={}, **kw)
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE")
    return ident


def update(engine: Engine, ident: dict[str, str], tmpl: dict[str, Any], **kw: Any) -> None:
    engine.update_stack(CTX, ident, tmpl, args={}, **kw)
    state = wait_state(engine, ident)
    assert state[:2] == ("UPDATE", "COMPLETE"), state


# --- create and attributes -------------------------------------------------------------------


def test_group_of_three_and_its_attributes(engine: Engine) -> None:
    ident = create(engine, template(
        {"group": group(3, {"type": "OS::Heat::RandomString", "properties": {"length": 9}})},
        refs={"get_attr": ["group", "refs"]},
        refs_map={"get_attr": ["group", "refs_map"]},
        values={"get_attr": ["group", "value"]},
        by_name={"get_attr": ["group", "attributes", "value"]},
        one={"get_attr": ["group", "resource.1.value"]},
        one_path={"get_attr": ["group", "resource.1", "value"]},
        ref_one={"get_attr": ["group", "resource.1"]},
        ref={"get_resource": "group"},
        removed={"get_attr": ["group", "removed_rsrc_list"]},
    ))
    found = members(engine, ident)
    assert {n: t for n, (t, _) in found.items()} == {
        "0": "OS::Heat::RandomString", "1": "OS::Heat::RandomString",
        "2": "OS::Heat::RandomString"}
    out = outputs(engine, ident)
    values = out["values"]
    assert len(values) == 3 and all(len(v) == 9 for v in values)
    # A RandomString's reference is its value.
    assert out["refs"] == values
    assert out["refs_map"] == {"0": values[0], "1": values[1], "2": values[2]}
    assert out["by_name"] == out["refs_map"]
    assert out["one"] == out["one_path"] == out["ref_one"] == values[1]
    assert out["ref"] == child(engine, ident)["stack_id"]
    assert out["removed"] == []
    # The nested stack is Heat's: HOT 2015-04-30 with its refs_map output.
    nested = outputs(engine, child(engine, ident))
    assert nested == {"refs_map": out["refs_map"]}


def test_zero_count_creates_an_empty_child_without_validating_the_members(
    engine: Engine,
) -> None:
    # Heat's test_resource_group_zero_novalidate: count 0 can switch a feature off.
    files = {"provider.yaml": (
        "heat_template_version: 2013-05-23\n"
        "parameters:\n  length: {type: string, default: 50}\n"
        "resources:\n  random:\n    type: OS::Heat::RandomString\n"
        "    properties: {length: BAD}\n")}
    env = {"resource_registry": {"My::RandomString": "provider.yaml"}}
    tmpl = template({"random_group": group(0, {"type": "My::RandomString"})},
                    all_values={"get_attr": ["random_group", "value"]})
    ident = create(engine, tmpl, files=files, environment=env)
    assert members(engine, ident, "random_group") == {}
    assert outputs(engine, ident)["all_values"] == []
    two = template({"random_group": group(2, {"type": "My::RandomString"})})
    with pytest.raises(StackValidationFailed) as err:
        engine.update_stack(CTX, ident, two, files=files, environment=env, args={})
    # The message Heat's functional test expects.
    assert ("resources.random_group<nested_stack>.resources.0<provider.yaml>.resources."
            "random: : Value 'BAD' is not an integer") in str(err.value)


def test_an_unknown_member_type_is_refused_before_anything_exists(engine: Engine) -> None:
    with pytest.raises(StackValidationFailed) as err:
        engine.create_stack(CTX, "bad", template({"g": group(2, {"type": "OS::Nope"})}),
                            args={})
    assert str(err.value) == "The Resource Type (OS::Nope) could not be found."
    assert engine.list_stacks(CTX) == []


def test_a_huge_group_validates_one_member(engine: Engine) -> None:
    bad = template({"g": group(10000, {"type": "OS::Heat::RandomString",
                                        "properties": {"length": "x%index%"}})})
    source = source_from_request(bad, global_env=engine.core.global_env)
    bound = BoundStack(source, StackIdentity(CTX.project_id, "big", None),
                       plugins=engine.core.plugins, global_env=engine.core.global_env)
    started = time.monotonic()
    with pytest.raises(StackValidationFailed) as err:
        bound.validate()
    assert time.monotonic() - started < 2
    assert "resources.g<nested_stack>.resources[0]" in str(err.value)
    good = template({"g": group(10000, RANDOM)})
    bound = BoundStack(source_from_request(good, global_env=engine.core.global_env),
                       StackIdentity(CTX.project_id, "big", None),
                       plugins=engine.core.plugins, global_env=engine.core.global_env)
    started = time.monotonic()
    bound.validate()
    assert time.monotonic() - started < 2


# --- updates ---------------------------------------------------------------------------------


def test_scale_up_and_down_keeps_the_lowest_members(engine: Engine) -> None:
    removed = {"removed": {"get_attr": ["group", "removed_rsrc_list"]},
               "refs": {"get_attr": ["group", "refs"]}}
    ident = create(engine, template({"group": group(3, RANDOM)}, **removed))
    nested = child(engine, ident)
    first = members(engine, ident)
    refs = outputs(engine, ident)["refs"]
    update(engine, ident, template({"group": group(5, RANDOM)}, **removed))
    grown = members(engine, ident)
    assert sorted(grown) == ["0", "1", "2", "3", "4"]
    assert all(grown[n] == first[n] for n in first)
    update(engine, ident, template({"group": group(2, RANDOM)}, **removed))
    assert members(engine, ident) == {n: first[n] for n in ("0", "1")}
    assert child(engine, ident) == nested
    out = outputs(engine, ident)
    assert out["removed"] == [] and out["refs"] == refs[:2]


def test_removal_policies_take_members_out_for_good(engine: Engine) -> None:
    # Heat's test_update_removal_policies, then a removal by reference.
    policies: list[Any] = []
    tmpl = template({"group": group(5, RANDOM, removal_policies=policies)},
                    removed={"get_attr": ["group", "removed_rsrc_list"]},
                    refs_map={"get_attr": ["group", "refs_map"]})
    ident = create(engine, tmpl)
    first = members(engine, ident)
    policies.append({"resource_list": ["1", "2", "3"]})
    update(engine, ident, tmpl)
    after = members(engine, ident)
    assert sorted(after, key=int) == ["0", "4", "5", "6", "7"]
    assert after["0"] == first["0"] and after["4"] == first["4"]
    assert outputs(engine, ident)["removed"] == ["1", "2", "3"]
    # By reference, as the refs attribute shows it (a RandomString's is its value).
    policies[0] = {"resource_list": [outputs(engine, ident)["refs_map"]["5"]]}
    update(engine, ident, tmpl)
    assert sorted(members(engine, ident), key=int) == ["0", "4", "6", "7", "8"]
    assert outputs(engine, ident)["removed"] == ["1", "2", "3", "5"]


def test_property_change_replaces_members_and_no_change_keeps_them(engine: Engine) -> None:
    # Heat's test_props_update and test_update_nochange.
    salted = {"type": "OS::Heat::RandomString", "properties": {"salt": "initial"}}
    tmpl = template({"group": group(2, salted)}, one={"get_attr": ["group", "resource.0"]})
    ident = create(engine, tmpl)
    nested, first = child(engine, ident), members(engine, ident)
    update(engine, ident, tmpl)
    assert members(engine, ident) == first and child(engine, ident) == nested
    salted["properties"]["salt"] = "more"
    update(engine, ident, tmpl)
    after = members(engine, ident)
    assert child(engine, ident) == nested
    assert after["0"][1] != first["0"][1] and after["1"][1] != first["1"][1]


def test_provider_template_members_from_files(engine: Engine) -> None:
    files = {"member.yaml": (
        "heat_template_version: 2016-10-14\n"
        "parameters:\n  name: {type: string}\n"
        "resources:\n  v: {type: OS::Heat::Value, properties: {value: {get_param: name}}}\n"
        "outputs:\n  name: {value: {get_attr: [v, value]}}\n")}
    tmpl = template(
        {"group": group(2, {"type": "member.yaml", "properties": {"name": "m-%index%"}})},
        names={"get_attr": ["group", "name"]},
        one={"get_attr": ["group", "resource.1.name"]},
    )
    ident = create(engine, tmpl, files=files)
    assert {n: t for n, (t, _) in members(engine, ident).items()} == {
        "0": "member.yaml", "1": "member.yaml"}
    assert outputs(engine, ident) == {"names": ["m-0", "m-1"], "one": "m-1"}


def test_a_failure_inside_a_member_fails_the_parent_with_heats_reason(engine: Engine) -> None:
    # Heat's ResourceGroupErrorResourceTest.
    files = {"fail.yaml": ("heat_template_version: 2013-05-23\nresources:\n  oops:\n"
                           "    type: OS::Heat::TestResource\n"
                           "    properties: {fail: true, wait_secs: 0.2}\n")}
    ident = engine.create_stack(CTX, "f", template({"group1": group(2, {"type": "fail.yaml"})}),
                                files=files, args={})
    action, status, reason = wait_state(engine, ident)
    assert (action, status) == ("CREATE", "FAILED")
    assert re.fullmatch(
        r"Resource CREATE failed: ValueError: resources\.group1\.resources\[[01]\]"
        r"\.resources\.oops: Test Resource failed oops", reason), reason
    listed = engine.list_stacks(CTX, show_nested=True)
    assert len(listed) == 4
    for s in listed:
        # A member cancelled by the failure of the other one settles as FAILED too.
        assert wait_state(engine, s["stack_identity"])[1] == "FAILED"
        rows = resources(engine, s["stack_identity"])
        assert all(r.status != "IN_PROGRESS" for r in rows.values()), (
            s["stack_name"], s["stack_status"],
            {n: (r.action, r.status, r.status_reason) for n, r in rows.items()})
    engine.delete_stack(CTX, ident)
    assert wait_state(engine, ident)[:2] == ("DELETE", "COMPLETE")
    assert engine.list_stacks(CTX, show_nested=True) == []


def test_rolling_update_goes_one_batch_at_a_time(engine: Engine) -> None:
    def tmpl(value: str) -> dict[str, Any]:
        grp = group(3, {"type": "OS::Heat::TestResource", "properties": {"value": value}})
        grp["update_policy"] = {"rolling_update": {"max_batch_size": 1, "pause_time": 0.5}}
        return template({"group": grp}, values={"get_attr": ["group", "output"]})

    ident = create(engine, tmpl("old"))
    first = members(engine, ident)
    update(engine, ident, tmpl("new"))
    assert outputs(engine, ident)["values"] == ["new", "new", "new"]
    assert members(engine, ident) == first  # updated in place, nothing replaced
    evs = [e for e in timed_events(engine, child(engine, ident)) if e[1] == "UPDATE"]
    # Each batch is one update of the nested stack that changes one member, highest first.
    stack_name = child(engine, ident)["stack_name"]
    stack_updates = [e for e in evs if e[0] == stack_name]
    assert [e[2] for e in stack_updates] == ["IN_PROGRESS", "COMPLETE"] * 3
    changed = [e[0] for e in evs if e[0] != stack_name and e[2] == "COMPLETE"]
    assert changed == ["2", "1", "0"]
    # And the pause separates a batch's end from the next one's start.
    for done, start in zip(stack_updates[1::2], stack_updates[2::2], strict=False):
        assert (start[3] - done[3]).total_seconds() >= 0.45


def test_batch_create(engine: Engine) -> None:
    grp = group(3, RANDOM)
    grp["update_policy"] = {"batch_create": {"max_batch_size": 2}}
    ident = create(engine, template({"group": grp}, refs={"get_attr": ["group", "refs"]}))
    assert sorted(members(engine, ident)) == ["0", "1", "2"]
    assert len(outputs(engine, ident)["refs"]) == 3
    nested = child(engine, ident)
    stack_events = [e[1:3] for e in timed_events(engine, nested) if e[0] == nested["stack_name"]]
    # An empty nested stack first, then one update per batch.
    assert stack_events == [("CREATE", "IN_PROGRESS"), ("CREATE", "COMPLETE")] + [
        ("UPDATE", "IN_PROGRESS"), ("UPDATE", "COMPLETE")] * 2


# --- chains ----------------------------------------------------------------------------------


def chain(types: list[str], **props: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::ResourceChain", "properties": {"resources": types, **props}}


def test_chain_outputs_as_heats_functional_test(engine: Engine) -> None:
    tmpl = template(
        {"my-chain": chain(["OS::Heat::RandomString"] * 2,
                           resource_properties={"length": 8})},
        ids={"get_attr": ["my-chain", "refs"]},
        zero={"get_attr": ["my-chain", "resource.0", "value"]},
        attrs={"get_attr": ["my-chain", "attributes", "value"]},
    )
    ident = create(engine, tmpl)
    assert {n: t for n, (t, _) in members(engine, ident, "my-chain").items()} == {
        "0": "OS::Heat::RandomString", "1": "OS::Heat::RandomString"}
    out = outputs(engine, ident)
    assert len(out["ids"]) == 2 and len(out["zero"]) == 8
    assert out["attrs"] == {"0": out["ids"][0], "1": out["ids"][1]}
    update(engine, ident, template({"my-chain": chain(["OS::Heat::None"])}))
    assert {n: t for n, (t, _) in members(engine, ident, "my-chain").items()} == {
        "0": "OS::Heat::None"}


@pytest.mark.parametrize("concurrent", [False, True])
def test_chain_order(engine: Engine, concurrent: bool) -> None:
    slow = {"action_wait_secs": {"create": 0.3}}
    ident = create(engine, template({"c": chain(["OS::Heat::TestResource"] * 3,
                                                 concurrent=concurrent,
                                                 resource_properties=slow)}))
    evs = [(e[0], e[2]) for e in timed_events(engine, child(engine, ident, "c"))
           if e[0] in ("0", "1", "2") and e[1] == "CREATE"]
    if concurrent:
        # Every member starts before any has finished.
        assert {e[1] for e in evs[:3]} == {"IN_PROGRESS"}
    else:
        assert evs == [("0", "IN_PROGRESS"), ("0", "COMPLETE"), ("1", "IN_PROGRESS"),
                       ("1", "COMPLETE"), ("2", "IN_PROGRESS"), ("2", "COMPLETE")]


def test_chain_refuses_an_unknown_type(engine: Engine) -> None:
    with pytest.raises(StackValidationFailed) as err:
        engine.create_stack(CTX, "c", template({"c": chain(["OS::Heat::None", "OS::Nope"])}),
                            args={})
    assert str(err.value) == "The Resource Type (OS::Nope) could not be found."


def test_preview_lists_every_member(engine: Engine) -> None:
    tmpl = template({"group": group(3, {"type": "OS::Heat::None"},
                                    removal_policies=[{"resource_list": ["1"]}]),
                     "empty": group(0, RANDOM)})
    preview = engine.preview_stack(CTX, "p", tmpl, args={})
    nested = {
        tuple(sorted(r["resource_name"] for r in entry))
        for entry in preview["resources"] if isinstance(entry, list)
    }
    assert nested == {("0", "2", "3"), ()}
    assert engine.list_stacks(CTX) == []


def test_members_may_use_other_resources_of_the_stack(engine: Engine) -> None:
    ident = create(engine, template({
        "seed": {"type": "OS::Heat::RandomString", "properties": {"length": 6}},
        "count": {"type": "OS::Heat::Value", "properties": {"value": 2, "type": "number"}},
        "group": group({"get_attr": ["count", "value"]}, {
            "type": "OS::Heat::Value",
            "properties": {"value": {"list_join": ["-", [{"get_attr": ["seed", "value"]},
                                                         "%index%"]]}}}),
    }, seed={"get_attr": ["seed", "value"]}, values={"get_attr": ["group", "value"]}))
    out = outputs(engine, ident)
    assert out["values"] == [f"{out['seed']}-0", f"{out['seed']}-1"]


def test_a_changed_provider_template_reaches_the_members(engine: Engine) -> None:
    # Heat's test_update_nochange_resource_needs_update: only the files change.
    provider = ("heat_template_version: 2013-05-23\nresources:\n  random1:\n"
                "    type: OS::Heat::RandomString\n    properties: {salt: initial}\n"
                "outputs:\n  value: {value: {get_attr: [random1, value]}}\n")
    env = {"resource_registry": {"My::RandomString": "my_random.yaml"}}
    tmpl = template({"random_group": group(2, {"type": "My::RandomString"})},
                    random1={"get_attr": ["random_group", "resource.0.value"]})
    ident = create(engine, tmpl, files={"my_random.yaml": provider}, environment=env)
    nested = child(engine, ident, "random_group")
    before = outputs(engine, ident)["random1"]
    update(engine, ident, tmpl, environment=env,
           files={"my_random.yaml": provider.replace("initial", "more")})
    assert child(engine, ident, "random_group") == nested
    after = outputs(engine, ident)["random1"]
    assert isinstance(after, str) and after != before


def test_adopt_a_group(engine: Engine) -> None:
    # Heat's ResourceGroupAdoptTest.
    main = template({"group1": group(2, RANDOM)},
                    test0={"get_attr": ["group1", "resource.0.value"]},
                    test1={"get_attr": ["group1", "resource.1.value"]})

    def member(name: str, value: str) -> dict[str, Any]:
        return {"status": "COMPLETE", "name": name, "resource_data": {"value": value},
                "resource_id": f"ID-{name}", "action": "CREATE",
                "type": "OS::Heat::RandomString", "metadata": {}}

    data = {"resources": {"group1": {
        "status": "COMPLETE", "name": "group1", "resource_data": {}, "metadata": {},
        "resource_id": "test-group1-id", "action": "CREATE", "type": "OS::Heat::ResourceGroup",
        "resources": {"0": member("0", "goopie"), "1": member("1", "different")},
    }}, "environment": {"parameters": {}}, "template": main}
    ident = engine.create_stack(CTX, "adopted", None, args={"adopt_stack_data": data})
    assert wait_state(engine, ident)[:2] == ("ADOPT", "COMPLETE")
    assert outputs(engine, ident) == {"test0": "goopie", "test1": "different"}
