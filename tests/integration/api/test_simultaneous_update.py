"""PUT and PATCH of a stack whose create or update is in progress: accepted (202), as Heat's
convergence engine accepts them; the newest one decides the stack's template."""

from __future__ import annotations

from typing import Any

import requests

from tests.integration.api.util import base, create_stack, unique, wait_for_status, wait_until

HOT = "2018-08-31"


def _template(value: str, wait: int = 0) -> dict[str, Any]:
    return {"heat_template_version": HOT, "resources": {"r": {
        "type": "OS::Heat::TestResource",
        "properties": {"value": value, "action_wait_secs": {"create": wait, "update": wait}},
    }}}


def test_put_and_patch_during_an_action_are_accepted(noauth_server: Any, heat: Any) -> None:
    url = noauth_server.url
    name, stack_id = create_stack(url, unique(), _template("one", wait=3))
    stack_url = f"{base(url)}/stacks/{name}/{stack_id}"
    wait_until(lambda: heat.stacks.get(stack_id).stack_status == "CREATE_IN_PROGRESS",
               what="the create")

    put = requests.put(stack_url, json={"template": _template("two", wait=3)}, timeout=10)
    assert put.status_code == 202, put.text
    patch = requests.patch(stack_url, json={"template": _template("three")}, timeout=10)
    assert patch.status_code == 202, patch.text

    wait_for_status(heat, stack_id, "UPDATE_COMPLETE")
    assert heat.stacks.template(stack_id) == _template("three")
    assert heat.resources.get(stack_id, "r").attributes["output"] == "three"
    failed = [(e.resource_name, e.resource_status_reason)
              for e in heat.events.list(stack_id) if e.resource_status.endswith("FAILED")]
    assert failed == []
