"""A stack named by its ARN (what get_resource gives for a provider-template resource) in
python-heatclient's calls: the ARN's slashes stay in the path, and Hearth redirects to the
canonical URL with the rest of the path, as Heat does."""

from __future__ import annotations

import json
from typing import Any

from tests.integration.api.util import unique, wait_for_status

CHILD = {"heat_template_version": "2018-08-31",
         "resources": {"inner": {"type": "OS::Heat::Value", "properties": {"value": "x"}}}}
PARENT = {"heat_template_version": "2018-08-31",
          "resources": {"child": {"type": "child.yaml"}},
          "outputs": {"child_arn": {"value": {"get_resource": "child"}}}}


def test_heatclient_reaches_a_stack_and_its_resources_by_arn(heat: Any) -> None:
    name = unique()
    stack_id = heat.stacks.create(stack_name=name, template=PARENT,
                                  files={"child.yaml": json.dumps(CHILD)})["stack"]["id"]
    wait_for_status(heat, stack_id, "CREATE_COMPLETE")
    arn = heat.stacks.output_show(stack_id, "child_arn")["output"]["output_value"]
    assert arn.startswith("arn:openstack:heat::") and "/" in arn
    child = heat.stacks.get(arn)
    assert child.stack_status == "CREATE_COMPLETE"
    assert heat.resources.get(arn, "inner").resource_status == "CREATE_COMPLETE"
    assert [r.resource_name for r in heat.resources.list(arn)] == ["inner"]
