"""PATCH updates (``existing``) after an update that failed."""

from __future__ import annotations

from typing import Any

from tests.integration.api.util import unique, wait_for_status


def test_patch_after_a_failed_update_keeps_that_update_s_template(heat: Any) -> None:
    """As Heat's convergence engine (its default): a PATCH that only changes a parameter
    retries the template of the update that failed, not the one before it."""
    failing = {
        "heat_template_version": "2014-10-16",
        "parameters": {"do_fail": {"type": "boolean", "default": False}},
        "resources": {"aresource": {"type": "OS::Heat::TestResource",
                                    "properties": {"value": "Test",
                                                   "fail": {"get_param": "do_fail"}}}},
    }
    stack_id = heat.stacks.create(stack_name=unique(),
                                  template={"heat_template_version": "2014-10-16"})["stack"]["id"]
    wait_for_status(heat, stack_id, "CREATE_COMPLETE")
    heat.stacks.update(stack_id, template=failing, parameters={"do_fail": True})
    wait_for_status(heat, stack_id, "UPDATE_FAILED")
    heat.stacks.update(stack_id, parameters={"do_fail": False}, existing=True)
    wait_for_status(heat, stack_id, "UPDATE_COMPLETE")
    resources = {r.resource_name: r.resource_type for r in heat.resources.list(stack_id)}
    assert resources == {"aresource": "OS::Heat::TestResource"}
