"""Behaviours upstream's functional tests check, through python-heatclient."""

from __future__ import annotations

from typing import Any

import pytest
from heatclient import exc

from tests.integration.api.util import unique, wait_for_status

TEMPLATE = {
    "heat_template_version": "2015-04-30",
    "parameters": {"incoming": {"type": "string", "default": "abc"}},
    "resources": {
        "one": {"type": "OS::Heat::TestResource", "properties": {"value": "x"}},
        "two": {"type": "OS::Heat::TestResource",
                "properties": {"value": {"get_param": "incoming"}}},
    },
}


def test_full_update_without_tags_clears_them_and_patch_keeps_them(heat: Any) -> None:
    name = unique("tags")
    stack_id = heat.stacks.create(stack_name=name, template=TEMPLATE, tags="foo,bar")["stack"]["id"]
    assert wait_for_status(heat, stack_id, "CREATE_COMPLETE").tags == ["foo", "bar"]
    heat.stacks.update(stack_id, template=TEMPLATE, tags="tag1,tag2")
    assert wait_for_status(heat, stack_id, "UPDATE_COMPLETE").tags == ["tag1", "tag2"]
    heat.stacks.update(stack_id, existing=True, parameters={"incoming": "patched"})
    assert wait_for_status(heat, stack_id, "UPDATE_COMPLETE").tags == ["tag1", "tag2"]
    heat.stacks.update(stack_id, template=TEMPLATE, parameters={"incoming": "none"})
    assert not wait_for_status(heat, stack_id, "UPDATE_COMPLETE").tags


def test_preview_lists_each_resource_with_its_unresolved_attributes(heat: Any) -> None:
    name = unique("preview")
    preview = heat.stacks.preview(stack_name=name, template=TEMPLATE).to_dict()
    resources = {r["resource_name"]: r for r in preview["resources"]}
    assert set(resources) == {"one", "two"}
    one = resources["one"]
    assert (one["resource_action"], one["resource_status"]) == ("INIT", "COMPLETE")
    assert one["attributes"]["output"] is None
    assert one["properties"]["value"] == "x"
    assert one["resource_identity"]["stack_id"] == "None"


def test_preview_words_property_errors_as_heat_does(heat: Any) -> None:
    broken = {**TEMPLATE, "resources": {
        **TEMPLATE["resources"],
        "two": {"type": "OS::Heat::TestResource",
                "properties": {"value": {"get_param": "missing"}}},
    }}
    with pytest.raises(exc.HTTPBadRequest) as caught:
        heat.stacks.preview(stack_name=unique("broken"), template=broken)
    assert ("Property error: : resources.two.properties.value: : The Parameter (missing) was "
            "not provided.") in str(caught.value)


def test_files_from_swift_are_refused_plainly(heat: Any) -> None:
    with pytest.raises(exc.HTTPBadRequest) as caught:
        heat.stacks.create(stack_name=unique("swift"), template=TEMPLATE, files_container="c")
    assert "files_container" in str(caught.value)
