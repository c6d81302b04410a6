"""Helpers shared by the API tests: waiting for a stack's state, raw requests, error bodies."""

from __future__ import annotations

import time
import uuid
from typing import Any

import requests

from tests.integration.api.conftest import NOAUTH_PROJECT

POLL_INTERVAL = 0.05
WAIT_TIMEOUT = 30.0

ERROR_KEYS = {"code", "title", "explanation", "error"}

# One TestResource whose value comes from a parameter, one None, and an output.
TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "description": "An API test stack",
    "parameters": {
        "value": {"type": "string", "default": "first"},
        "secret": {"type": "string", "default": "hush", "hidden": True},
    },
    "resources": {
        "store": {"type": "OS::Heat::TestResource",
                  "properties": {"value": {"get_param": "value"}}},
        "nothing": {"type": "OS::Heat::None", "depends_on": "store"},
    },
    "outputs": {
        "stored": {"description": "What the store holds",
                   "value": {"get_attr": ["store", "output"]}},
    },
}


def unique(prefix: str = "s") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def base(url: str) -> str:
    return f"{url}/v1/{NOAUTH_PROJECT}"


def wait_for_status(heat: Any, stack_id: str, status: str,
                    timeout: float = WAIT_TIMEOUT) -> Any:
    """Poll the stack until it reaches ``status``; fail early when the same action settles
    otherwise (another action's end, e.g. UPDATE_FAILED before a ROLLBACK, is waited past)."""
    action = status.rsplit("_", 1)[0]
    deadline = time.monotonic() + timeout
    while True:
        stack = heat.stacks.get(stack_id)
        if stack.stack_status == status:
            return stack
        if stack.stack_status.startswith(action) and not stack.stack_status.endswith(
            "IN_PROGRESS"
        ):
            raise AssertionError(
                f"stack {stack_id} is {stack.stack_status} ({stack.stack_status_reason}), "
                f"expected {status}"
            )
        if time.monotonic() > deadline:
            raise AssertionError(f"stack {stack_id} still {stack.stack_status} after {timeout}s")
        time.sleep(POLL_INTERVAL)


def wait_until(predicate: Any, timeout: float = WAIT_TIMEOUT, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(POLL_INTERVAL)


def assert_heat_error(resp: requests.Response, status: int, *fragments: str,
                      type_name: str | None = None) -> dict[str, Any]:
    """``resp`` is ``status`` with Heat's error body whose message names each fragment."""
    assert resp.status_code == status, (resp.status_code, resp.text)
    assert resp.headers["Content-Type"].startswith("application/json"), resp.headers
    body = resp.json()
    assert set(body) == ERROR_KEYS, body
    assert body["code"] == status
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["explanation"], str) and body["explanation"]
    assert set(body["error"]) == {"type", "message", "traceback"}, body
    assert body["error"]["traceback"] is None
    if type_name is not None:
        assert body["error"]["type"] == type_name, body
    for fragment in fragments:
        assert fragment in body["error"]["message"], (fragment, body)
    return body


def create_stack(url: str, name: str | None = None, template: Any = None,
                 **extra: Any) -> tuple[str, str]:
    """Create a stack over plain HTTP; its (name, id)."""
    name = name or unique()
    resp = requests.post(
        f"{base(url)}/stacks",
        json={"stack_name": name, "template": template or TEMPLATE, **extra},
        timeout=10,
    )
    assert resp.status_code == 201, resp.text
    return name, resp.json()["stack"]["id"]


def wait_created(url: str, name: str, stack_id: str) -> None:
    """Poll over plain HTTP until the stack is CREATE_COMPLETE."""

    def status() -> str:
        resp = requests.get(f"{base(url)}/stacks/{name}/{stack_id}", timeout=10)
        return str(resp.json()["stack"]["stack_status"])

    state = wait_until(lambda: (s := status()) != "CREATE_IN_PROGRESS" and s, what="the create")
    assert state == "CREATE_COMPLETE", state
