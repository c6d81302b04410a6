"""OS::Heat::Value (a typed value as an attribute) and OS::Heat::None (a placeholder)."""

from __future__ import annotations

import uuid

from hearth.resources.builtin.none_resource import NoneResource
from hearth.resources.builtin.value import Value
from tests.unit.resources.fakes import make


def test_value_attribute_has_the_declared_type() -> None:
    res, ctx = make(Value, {"value": "42", "type": "number"}, type_name="OS::Heat::Value")
    res.handle_create()
    assert res.resource_id == ctx.physical_resource_name()
    assert res.get_attribute("value") == 42
    untyped, _ = make(Value, {"value": {"a": [1, 2]}})
    assert untyped.get_attribute("value", "a", 1) == 2


def test_value_updates_in_place() -> None:
    res, _ = make(Value, {"value": 1})
    plan = Value.plan_update("v", {"value": 1}, {"value": "x", "type": "string"})
    assert (plan.replace, plan.prop_diff) == (False, {"value": "x", "type": "string"})
    res.handle_update(Value.build_properties({"value": "x"}), plan.prop_diff, {})
    assert res.get_attribute("value") == "x"


def test_none_accepts_anything_and_answers_null() -> None:
    NoneResource.validate_definition(
        "n", {"flavor": "big", "x": [1]}, update_policy={"whatever": 1}, deletion_policy="Snapshot"
    )
    res, ctx = make(NoneResource, {"flavor": "big"})
    assert dict(res.properties) == {}
    res.handle_create()
    assert uuid.UUID(str(res.resource_id)).version == 4
    assert ctx.stored == {"is_placeholder": "True"}
    assert res.get_attribute("anything", "at", "all") is None
    assert NoneResource.attribute_names() is None
    assert res.handle_delete() == res.resource_id


def test_none_never_updates() -> None:
    plan = NoneResource.plan_update("n", {"a": 1}, {"a": 2}, tmpl_diff={"Properties": {"a": 2}})
    assert not plan.needs_update
