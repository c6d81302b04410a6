"""Generated templates, environments, parameters and bodies through every stack route.

Each property sends what Hypothesis draws through the real WSGI app (and the real engine
behind it); the harness checks every answer (see harness.py).
"""

from __future__ import annotations

import itertools
import time
from typing import Any
from urllib.parse import quote

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fuzz.conftest import cases
from tests.fuzz.harness import Answer, Harness
from tests.fuzz.strategies import lifecycle_bodies, parameters, plain_values, stack_bodies, strings
from tests.integration.api.conftest import NOAUTH_PROJECT

T = f"/v1/{NOAUTH_PROJECT}"
SETTLE_SECONDS = 10.0
STACK_NUMBERS = itertools.count()
POLL_SECONDS = 0.02
QUERY_FLAGS = st.sampled_from(["", "show_nested=true", "ignore_errors=x", "show_nested=maybe",
                               "show_nested=true&ignore_errors=1200", "resolve_outputs=false"])
ACTIONS = st.sampled_from([{"suspend": None}, {"resume": None}, {"check": None},
                          {"cancel_update": None}, {"cancel_without_rollback": None}, {}]) \
    | plain_values(3)


def settle(harness: Harness, stack: str) -> Any:
    """The stack once it is no longer IN_PROGRESS (or after SETTLE_SECONDS)."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        shown = harness.request("GET", stack)
        status = (shown.json or {}).get("stack", {}).get("stack_status", "")
        if not status.endswith("IN_PROGRESS") or time.monotonic() > deadline:
            return shown
        time.sleep(POLL_SECONDS)


def read_everything(harness: Harness, stack: str) -> None:
    """Every read a user can make of a stack, and of each of its resources."""
    for sub in ("", "/template", "/environment", "/files", "/export", "/events",
                "/snapshots", "/resources?nested_depth=2", "/resources?with_detail=true"):
        harness.request("GET", stack + sub)
    outputs = harness.request("GET", stack + "/outputs")
    for output in (outputs.json or {}).get("outputs", []):
        harness.request("GET", f"{stack}/outputs/{quote(str(output['output_key']), safe='')}")
    listed = harness.request("GET", stack + "/resources")
    for row in (listed.json or {}).get("resources", []):
        here = f"{stack}/resources/{quote(str(row['resource_name']), safe='')}"
        for sub in ("", "/metadata", "/events"):
            harness.request("GET", here + sub)


def created(answer: Answer, name: Any) -> str | None:
    """The created stack's URL (None when the create was refused)."""
    if answer.status != 201 or not isinstance(answer.json, dict):
        return None
    return f"{T}/stacks/{quote(str(name), safe='')}/{answer.json['stack']['id']}"


@settings(settings.get_profile("hearth-fuzz"), max_examples=cases(0.35))
@given(body=stack_bodies(named=False), query=QUERY_FLAGS)
def test_validate(harness: Harness, body: dict[str, Any], query: str) -> None:
    with harness.case("validate"):
        harness.request("POST", f"{T}/validate", body=body, query=query or None)


@settings(settings.get_profile("hearth-fuzz"), max_examples=cases(0.2))
@given(body=stack_bodies(named=True))
def test_preview(harness: Harness, body: dict[str, Any]) -> None:
    with harness.case("preview"):
        harness.request("POST", f"{T}/stacks/preview", body=body)


# Most lifecycle cases create a real stack (tens of requests each): a tenth of the run.
@settings(settings.get_profile("hearth-fuzz"), max_examples=cases(0.1))
@given(body=lifecycle_bodies(named=True), update=lifecycle_bodies(named=False), patch=parameters,
       action=ACTIONS, snapshot=strings)
def test_stack_lifecycle(harness: Harness, body: dict[str, Any], update: dict[str, Any],
                         patch: Any, action: Any, snapshot: str) -> None:
    """Create, read everything, update (PUT, PATCH, their previews), act, delete.

    Everything is drawn before the first request: what the server answers must not change
    what Hypothesis draws (a stack name taken by an earlier case, say)."""
    if isinstance(body.get("stack_name"), str):
        # a name of its own, so that each case creates (a taken name is tried by preview)
        body = {**body, "stack_name": f"{body['stack_name']}-{next(STACK_NUMBERS)}"}
    with harness.case("lifecycle"):
        stack = created(harness.request("POST", f"{T}/stacks", body=body), body["stack_name"])
        if stack is None:
            return
        settle(harness, stack)
        read_everything(harness, stack)
        harness.request("PUT", stack + "/preview", body=update)
        harness.request("PUT", stack, body=update)
        settle(harness, stack)
        harness.request("PATCH", stack + "/preview", body={"parameters": patch})
        harness.request("PATCH", stack, body={"parameters": patch})
        settle(harness, stack)
        read_everything(harness, stack)
        harness.request("POST", stack + "/actions", body=action)
        settle(harness, stack)
        harness.request("POST", stack + "/snapshots", body={"name": snapshot})
        harness.request("DELETE", stack)
        settle(harness, stack)


@settings(settings.get_profile("hearth-fuzz"), max_examples=cases(0.1))
@given(raw=st.binary(max_size=300) | st.text(max_size=300).map(str.encode),
       route=st.sampled_from([("POST", "/validate"), ("POST", "/stacks"),
                              ("POST", "/stacks/preview"), ("POST", "/software_configs"),
                              ("POST", "/software_deployments")]),
       content_type=st.sampled_from(["application/json", "text/plain", "application/yaml",
                                     "multipart/form-data", ""]))
def test_raw_bodies(harness: Harness, raw: bytes, route: tuple[str, str],
                    content_type: str) -> None:
    """Bodies that are not JSON objects at all, under any content type."""
    method, path = route
    with harness.case("raw-body"):
        harness.request(method, T + path, raw=raw, headers={"Content-Type": content_type})
