"""Update decisions (nothing, in place, replace, refused) against Heat 27's recorded updates."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hearth.common.errors import NotSupported
from hearth.engine.running.update_plan import plan_resource
from hearth.resources.base import Resource
from hearth.resources.builtin import resource_mapping
from hearth.resources.properties import Properties
from hearth.resources.registry import PluginRegistry
from hearth.resources.schema import PropertySchema
from hearth.resources.update import UpdatePlan
from tests.unit.resources.fakes import heat27


class Immutable(Resource):
    """The plugin Heat's recording registered as Hearth::Test::Immutable."""

    properties_schema = {"fixed": PropertySchema(PropertySchema.STRING, immutable=True)}

    def handle_update(
        self, new_properties: Properties, prop_diff: Any, tmpl_diff: Any
    ) -> None:
        return None


REGISTRY = PluginRegistry({**resource_mapping(), "Hearth::Test::Immutable": Immutable})


def outcome(plan: UpdatePlan) -> str:
    if not plan.needs_update:
        return "unchanged"
    return "replace" if plan.replace else "update"


@pytest.mark.parametrize(
    "case", heat27()["updates"], ids=lambda c: f"{c['type']}:{json.dumps(c['after'])}"
)
def test_update_outcome_is_heats(case: dict[str, Any]) -> None:
    cls = REGISTRY.get_class(case["type"])
    before, after = case["before"], case["after"]
    # The engine says which parts of the definition changed, as written in the template.
    tmpl_diff = {"Properties": after} if before != after else {}
    try:
        got: Any = outcome(
            cls.plan_update("r", before, after, type_name=case["type"], tmpl_diff=tmpl_diff)
        )
    except NotSupported as exc:
        got = {"failed": f"NotSupported: resources.r: {exc}"}
    assert got == case["outcome"]


def test_prop_diff_holds_new_values_after_defaults_and_coercion() -> None:
    cls = REGISTRY.get_class("OS::Heat::TestResource")
    plan = cls.plan_update(
        "r", {"value": "a", "wait_secs": 5}, {"value": 7}, tmpl_diff={"Properties": {}}
    )
    assert plan.prop_diff == {"value": "7", "wait_secs": 0}
    assert plan.changed == frozenset({"value", "wait_secs"})
    assert not plan.replace


def test_same_values_written_differently_still_update_in_place() -> None:
    cls = REGISTRY.get_class("OS::Heat::TestResource")
    plan = cls.plan_update("r", {"wait_secs": 0}, {"wait_secs": "0"}, tmpl_diff={"Properties": 1})
    assert (plan.needs_update, plan.replace, plan.prop_diff) == (True, False, {})


def test_metadata_only_change_is_an_update_with_no_prop_diff() -> None:
    cls = REGISTRY.get_class("OS::Heat::Value")
    plan = cls.plan_update("v", {"value": 1}, {"value": 1}, tmpl_diff={"Metadata": {"a": 1}})
    assert (plan.needs_update, plan.replace, plan.prop_diff) == (True, False, {})
    assert not cls.plan_update("v", {"value": 1}, {"value": 1}).needs_update


def test_type_without_its_own_update_handler_is_replaced() -> None:
    # Every Delay property is update_allowed, but Delay has no handle_update.
    plan = REGISTRY.get_class("OS::Heat::Delay").plan_update("d", {}, {"min_wait": 1})
    assert plan.replace
    assert plan.prop_diff == {"min_wait": 1}


def test_immutable_change_names_every_property_sorted() -> None:
    class Two(Resource):
        properties_schema = {
            "b": PropertySchema(PropertySchema.STRING, immutable=True),
            "a": PropertySchema(PropertySchema.STRING, immutable=True),
        }

    with pytest.raises(NotSupported) as err:
        Two.plan_update("res", {"a": "1", "b": "1"}, {"a": "2", "b": "2"}, type_name="My::Two")
    assert str(err.value) == "Update to properties a, b of res (My::Two) is not supported."


def test_replacement_hooks_are_consulted() -> None:
    class Picky(Resource):
        properties_schema = {"p": PropertySchema(PropertySchema.STRING, update_allowed=True)}

        def handle_update(self, new_properties: Properties, prop_diff: Any, tmpl: Any) -> None:
            return None

        @classmethod
        def needs_replace(cls, after: Properties) -> bool:
            return after["p"] == "always"

        @classmethod
        def needs_replace_with_tmpl_diff(cls, tmpl_diff: Any) -> bool:
            return "UpdatePolicy" in tmpl_diff

    assert not Picky.plan_update("x", {"p": "a"}, {"p": "b"}).replace
    assert Picky.plan_update("x", {"p": "always"}, {"p": "always"}).replace
    assert Picky.plan_update("x", {"p": "a"}, {"p": "a"}, tmpl_diff={"UpdatePolicy": {}}).replace


# --- a resource an action left FAILED (Heat's needs_replace_failed) ----------------------

def _failed_plan(state: tuple[str, str], new_props: dict[str, Any],
                 replace_failed: Any = None) -> str:
    old = {"type": "OS::Heat::TestResource", "properties": {"value": "a"}}
    new = {"type": "OS::Heat::TestResource", "properties": new_props}
    return plan_resource(
        REGISTRY.get_class, "r", state, old, {"value": "a"}, new,
        has_child=True, replace_failed=replace_failed,
    ).kind


def test_a_failed_resource_is_replaced_when_its_plugin_says_so_or_cannot_be_asked() -> None:
    assert _failed_plan(("UPDATE", "FAILED"), {"value": "a"}) == "replace"
    assert _failed_plan(("UPDATE", "FAILED"), {"value": "a"}, lambda: True) == "replace"


def test_a_failed_resource_its_plugin_keeps_is_planned_like_a_sound_one() -> None:
    keep = lambda: False  # noqa: E731
    assert _failed_plan(("UPDATE", "FAILED"), {"value": "a"}, keep) == "unchanged"
    assert _failed_plan(("CREATE", "FAILED"), {"value": "b"}, keep) == "update"


def test_a_failed_check_always_replaces_without_asking() -> None:
    asked: list[bool] = []

    def keep() -> bool:
        asked.append(True)
        return False

    assert _failed_plan(("CHECK", "FAILED"), {"value": "a"}, keep) == "replace"
    assert asked == []
