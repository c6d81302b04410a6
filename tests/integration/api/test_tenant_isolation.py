"""One project cannot see or touch another's stacks, snapshots, software configs or deployments.

Project A owns a stack (with a snapshot), a software config and a deployment; project B (a
member, not an admin) tries every route on them and gets 404 (never 403, which would confirm
they exist, nor a redirect to them), sees none of them in its lists, cannot list across
projects, and afterwards A's things are exactly as they were. The same checks run twice: in
noauth mode (project from the URL, the default configuration: no admin role; needs no
Keystone) and
with real Keystone tokens (demo's project against ``hearth-iso-b``).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests

from hearth.cli.serve import RunningServer, serving
from tests.integration.api.conftest import server_conf
from tests.integration.api.keystone_fixtures import (  # noqa: F401 (fixtures used by name)
    DEMO,
    ISO_B,
    KeystoneUsers,
    keystone,
    keystone_server,
    keystone_users,
    password_session,
    token_of,
)

SECRET = "a-secret-only-project-a-knows"
SERVER_ID = "0b5ea1c4-6f3e-4a11-9c3e-6d8e2f7a9b10"

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "parameters": {"word": {"type": "string", "default": "default-word"}},
    "resources": {
        "echo": {"type": "OS::Heat::TestResource", "properties": {"value": {"get_param": "word"}}}
    },
    "outputs": {"message": {"value": {"get_attr": ["echo", "output"]}}},
}


@dataclass
class Tenant:
    """One project's view of the API: its URL prefix and its credentials."""

    url: str
    project_id: str
    headers: dict[str, str] = field(default_factory=dict)

    def call(self, method: str, path: str, body: Any = None, **params: str) -> requests.Response:
        return requests.request(
            method, f"{self.url}/v1/{self.project_id}{path}", headers=self.headers,
            json=body, params=params, allow_redirects=False, timeout=30,
        )

    def ok(self, method: str, path: str, body: Any = None, **params: str) -> Any:
        resp = self.call(method, path, body, **params)
        assert resp.status_code < 300, f"{method} {path}: {resp.status_code} {resp.text}"
        return resp.json() if resp.content else None

    def wait(self, name: str, stack_id: str) -> dict[str, Any]:
        deadline = time.monotonic() + 30
        while True:
            stack: dict[str, Any] = self.ok("GET", f"/stacks/{name}/{stack_id}")["stack"]
            if not stack["stack_status"].endswith("_IN_PROGRESS"):
                return stack
            assert time.monotonic() < deadline, stack["stack_status"]
            time.sleep(0.1)

    def create_stack(self, name: str, word: str) -> dict[str, Any]:
        created = self.ok("POST", "/stacks", {
            "stack_name": name, "template": TEMPLATE, "parameters": {"word": word},
        })
        stack = self.wait(name, created["stack"]["id"])
        assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
        return stack


@dataclass
class Projects:
    a: Tenant
    b: Tenant


@dataclass
class Owned:
    """What project A owns."""

    name: str
    stack_id: str
    snapshot_id: str
    config_id: str
    deployment_id: str

    @property
    def path(self) -> str:
        return f"/stacks/{self.name}/{self.stack_id}"


@pytest.fixture(scope="module")
def noauth_default_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    # The embedded default as it ships: projects kept apart without any configuration.
    conf = server_conf(tmp_path_factory.mktemp("hearth-iso"))
    with serving(conf) as running:
        yield running


@pytest.fixture(scope="module", params=["noauth", "keystone"])
def projects(request: pytest.FixtureRequest) -> Projects:
    if request.param == "noauth":
        server: RunningServer = request.getfixturevalue("noauth_default_server")
        return Projects(
            a=Tenant(server.url, "iso-project-a"), b=Tenant(server.url, "iso-project-b")
        )
    server = request.getfixturevalue("keystone_server")
    users: KeystoneUsers = request.getfixturevalue("keystone_users")
    a_token = token_of(password_session(*DEMO))
    b_token = token_of(password_session(*ISO_B))
    return Projects(
        a=Tenant(server.url, users.demo_project_id, {"X-Auth-Token": a_token}),
        b=Tenant(server.url, users.iso_b_project_id, {"X-Auth-Token": b_token}),
    )


@pytest.fixture(scope="module")
def owned(projects: Projects) -> Iterator[Owned]:
    a = projects.a
    stack = a.create_stack("iso-a-stack", SECRET)
    snapshot = a.ok("POST", f"/stacks/iso-a-stack/{stack['id']}/snapshots", {"name": "a-snap"})
    deadline = time.monotonic() + 30
    while a.ok("GET", f"/stacks/iso-a-stack/{stack['id']}/snapshots/{snapshot['id']}")[
        "snapshot"
    ]["status"] == "IN_PROGRESS":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    config = a.ok("POST", "/software_configs", {
        "name": "a-config", "group": "script", "config": f"#!/bin/sh\necho {SECRET}",
    })["software_config"]
    deployment = a.ok("POST", "/software_deployments", {
        "config_id": config["id"], "server_id": SERVER_ID, "status": "COMPLETE",
        "action": "CREATE", "input_values": {"word": SECRET},
    })["software_deployment"]
    yield Owned("iso-a-stack", stack["id"], snapshot["id"], config["id"], deployment["id"])
    a.call("DELETE", f"/software_deployments/{deployment['id']}")
    a.call("DELETE", f"/software_configs/{config['id']}")
    a.call("DELETE", f"/stacks/iso-a-stack/{stack['id']}")


@pytest.fixture(scope="module")
def b_stack(projects: Projects) -> Iterator[dict[str, Any]]:
    stack = projects.b.create_stack("iso-b-stack", "b-word")
    yield stack
    projects.b.call("DELETE", f"/stacks/iso-b-stack/{stack['id']}")


def sealed_as_placeholder(value: Any) -> Any:
    """A sealed secret (a fresh encryption at each read) as a placeholder, to compare."""
    if isinstance(value, dict):
        if set(value) == {"$sealed", "token"}:
            return "<sealed>"
        return {k: sealed_as_placeholder(v) for k, v in value.items()}
    if isinstance(value, list):
        return [sealed_as_placeholder(v) for v in value]
    return value


def a_state(a: Tenant, o: Owned) -> dict[str, Any]:
    """Everything A can read about what it owns (sealed secrets as placeholders)."""
    return sealed_as_placeholder({
        "stack": a.ok("GET", o.path)["stack"],
        "listed": [s for s in a.ok("GET", "/stacks")["stacks"] if s["id"] == o.stack_id],
        "resources": a.ok("GET", f"{o.path}/resources")["resources"],
        "events": a.ok("GET", f"{o.path}/events")["events"],
        "outputs": a.ok("GET", f"{o.path}/outputs/message")["output"],
        "template": a.ok("GET", f"{o.path}/template"),
        "snapshots": a.ok("GET", f"{o.path}/snapshots")["snapshots"],
        "config": a.ok("GET", f"/software_configs/{o.config_id}")["software_config"],
        "deployment": a.ok("GET", f"/software_deployments/{o.deployment_id}"),
        "metadata": a.ok("GET", f"/software_deployments/metadata/{SERVER_ID}"),
    })


# (method, path with {name} {id} {snap} {config} {deployment}, body) that B tries on A's things
ATTEMPTS: list[tuple[str, str, Any]] = [
    ("GET", "/stacks/{name}", None),
    ("GET", "/stacks/{id}", None),
    ("GET", "/stacks/{name}/{id}", None),
    ("GET", "/stacks/{name}/resources", None),
    ("GET", "/stacks/{name}/events", None),
    ("GET", "/stacks/{name}/{id}/resources", None),
    ("GET", "/stacks/{name}/{id}/resources/echo", None),
    ("GET", "/stacks/{name}/{id}/resources/echo/metadata", None),
    ("GET", "/stacks/{name}/{id}/resources/echo/events", None),
    ("GET", "/stacks/{name}/{id}/events", None),
    ("GET", "/stacks/{name}/{id}/outputs", None),
    ("GET", "/stacks/{name}/{id}/outputs/message", None),
    ("GET", "/stacks/{name}/{id}/template", None),
    ("GET", "/stacks/{name}/{id}/environment", None),
    ("GET", "/stacks/{name}/{id}/files", None),
    ("GET", "/stacks/{name}/{id}/export", None),
    ("GET", "/stacks/{name}/{id}/snapshots", None),
    ("GET", "/stacks/{name}/{id}/snapshots/{snap}", None),
    ("PUT", "/stacks/{name}/{id}", {"template": TEMPLATE, "parameters": {"word": "by-b"}}),
    ("PATCH", "/stacks/{name}/{id}", {"parameters": {"word": "by-b"}}),
    ("PUT", "/stacks/{name}/{id}/preview", {"template": TEMPLATE}),
    ("PATCH", "/stacks/{name}/{id}/preview", {"parameters": {"word": "by-b"}}),
    ("PATCH", "/stacks/{name}", {"parameters": {"word": "by-b"}}),
    ("POST", "/stacks/{name}/{id}/actions", {"suspend": None}),
    ("POST", "/stacks/{name}/{id}/actions", {"check": None}),
    ("POST", "/stacks/{name}/{id}/actions", {"cancel_update": None}),
    ("POST", "/stacks/{name}/{id}/snapshots", {"name": "b-snap"}),
    ("POST", "/stacks/{name}/{id}/snapshots/{snap}/restore", None),
    ("DELETE", "/stacks/{name}/{id}/snapshots/{snap}", None),
    ("PATCH", "/stacks/{name}/{id}/resources/echo",
     {"mark_unhealthy": True, "resource_status_reason": "by b"}),
    ("POST", "/stacks/{name}/{id}/resources/echo/signal", {"by": "b"}),
    ("DELETE", "/stacks/{name}/{id}/abandon", None),
    ("DELETE", "/stacks/{name}", None),
    ("DELETE", "/stacks/{name}/{id}", None),
    ("GET", "/software_configs/{config}", None),
    ("DELETE", "/software_configs/{config}", None),
    ("GET", "/software_deployments/{deployment}", None),
    ("PUT", "/software_deployments/{deployment}", {"status": "FAILED", "status_reason": "b"}),
    ("DELETE", "/software_deployments/{deployment}", None),
]


def _fill(path: str, o: Owned) -> str:
    return path.format(name=o.name, id=o.stack_id, snap=o.snapshot_id, config=o.config_id,
                       deployment=o.deployment_id)


@pytest.mark.parametrize(
    ("method", "path", "body"), ATTEMPTS, ids=[f"{m} {p}" for m, p, _ in ATTEMPTS]
)
def test_b_gets_404_for_a_thing_of_a(
    projects: Projects, owned: Owned, method: str, path: str, body: Any
) -> None:
    resp = projects.b.call(method, _fill(path, owned), body)
    assert resp.status_code == 404, f"{resp.status_code} {resp.text}"
    assert "Location" not in resp.headers
    assert SECRET not in resp.text
    if "{id}" not in path:  # nothing B sent gives away the stack's id
        assert owned.stack_id not in resp.text
    error = resp.json()["error"]
    if path.startswith("/stacks/"):
        asked = owned.stack_id if path.startswith("/stacks/{id}") else owned.name
        assert (error["type"], error["message"]) == (
            "EntityNotFound", f"The Stack ({asked}) could not be found."
        )
    else:
        assert error["type"] == "NotFound"
    # Word for word what B gets for things that exist nowhere: no hint that A's exist.
    ghost = Owned("iso-ghost", *(str(uuid.uuid4()) for _ in range(4)))
    ghost_resp = projects.b.call(method, _fill(path, ghost), body)
    assert ghost_resp.status_code == 404
    assert _unfill(resp.text, owned) == _unfill(ghost_resp.text, ghost)


def _unfill(text: str, o: Owned) -> str:
    for value, placeholder in ((o.stack_id, "{id}"), (o.snapshot_id, "{snap}"),
                               (o.config_id, "{config}"), (o.deployment_id, "{deployment}"),
                               (o.name, "{name}")):
        text = text.replace(value, placeholder)
    return text


def test_b_lists_only_its_own(projects: Projects, owned: Owned, b_stack: dict[str, Any]) -> None:
    b, a = projects.b, projects.a
    for path in ("/stacks", "/stacks/detail"):
        assert [s["id"] for s in b.ok("GET", path)["stacks"]] == [b_stack["id"]]
    assert b_stack["id"] not in {s["id"] for s in a.ok("GET", "/stacks")["stacks"]}
    assert owned.config_id not in {
        c["id"] for c in b.ok("GET", "/software_configs")["software_configs"]
    }
    assert b.ok("GET", "/software_deployments")["software_deployments"] == []
    assert b.ok("GET", "/software_deployments", server_id=SERVER_ID)[
        "software_deployments"
    ] == []
    assert b.ok("GET", f"/software_deployments/metadata/{SERVER_ID}") == {"metadata": []}


def test_b_cannot_list_across_projects(projects: Projects, owned: Owned) -> None:
    resp = projects.b.call("GET", "/stacks", global_tenant="true")
    assert resp.status_code == 403
    assert resp.json()["error"] == {
        "type": "Forbidden", "message": "You are not authorized to use stacks:global_index.",
        "traceback": None,
    }


def test_b_can_reuse_a_stack_name_of_a(projects: Projects, owned: Owned) -> None:
    b = projects.b
    mine = b.create_stack(owned.name, "b-word")
    try:
        assert mine["id"] != owned.stack_id
        found = b.call("GET", f"/stacks/{owned.name}")
        assert found.status_code == 302
        assert found.headers["Location"].endswith(f"/v1/{b.project_id}/stacks/"
                                                  f"{owned.name}/{mine['id']}")
        outputs = b.ok("GET", f"/stacks/{owned.name}/{mine['id']}/outputs/message")
        assert outputs["output"]["output_value"] == "b-word"
        assert projects.a.ok("GET", owned.path)["stack"]["parameters"]["word"] == SECRET
    finally:
        b.call("DELETE", f"/stacks/{owned.name}/{mine['id']}")
        b.wait(owned.name, mine["id"])


def test_a_is_unchanged_after_all_of_bs_attempts(projects: Projects, owned: Owned) -> None:
    before = a_state(projects.a, owned)
    assert before["stack"]["stack_status"] == "SNAPSHOT_COMPLETE"
    assert before["outputs"]["output_value"] == SECRET
    for method, path, body in ATTEMPTS:
        projects.b.call(method, _fill(path, owned), body)
        projects.b.call(method, _fill(path, owned), body)  # twice: no lazy second effect
    time.sleep(0.5)  # anything B had started would show by now
    after = a_state(projects.a, owned)
    assert after == before
