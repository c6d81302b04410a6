"""``hearth serve`` with ``auth_strategy = keystone`` against a real Keystone.

Real tokens (keystoneauth password auth) drive python-heatclient and the ``openstack stack``
CLI through a whole stack lifecycle; then what a caller notices about authentication and
authorization: 401 without a valid token, 403 for another project's URL, the reader role,
an admin's ``global_tenant`` list, and stack actions that finish after the caller's token is
revoked.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from heatclient import client as heat_client
from heatclient import exc as heat_exc
from keystoneauth1 import session as ks_session

from hearth.cli.serve import RunningServer
from tests.integration.api.keystone_fixtures import (  # noqa: F401 (fixtures used by name)
    ADMIN,
    DEMO,
    ISO_B,
    KEYSTONE_URL,
    READER,
    Keystone,
    KeystoneUsers,
    keystone,
    keystone_server,
    keystone_users,
    password_session,
    roles_of,
    token_of,
)

OPENSTACK = Path(__file__).resolve().parents[3] / ".venv" / "bin" / "openstack"

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  greeting: {type: string, default: hello}
  size: {type: number, default: 8}
resources:
  word:
    type: OS::Heat::RandomString
    properties: {length: {get_param: size}}
  echo:
    type: OS::Heat::TestResource
    properties:
      value: {list_join: [" ", [{get_param: greeting}, {get_attr: [word, value]}]]}
outputs:
  message:
    description: the greeting and the word
    value: {get_attr: [echo, output]}
"""

SLOW_TEMPLATE = """\
heat_template_version: 2018-08-31
resources:
  slow:
    type: OS::Heat::TestResource
    properties:
      value: finished
      action_wait_secs: {create: 3}
outputs:
  result: {value: {get_attr: [slow, output]}}
"""


def heat_for(server: RunningServer, sess: ks_session.Session, project_id: str) -> Any:
    """python-heatclient with a Keystone session, pointed at the test server."""
    return heat_client.Client(
        "1", session=sess, endpoint_override=f"{server.url}/v1/{project_id}"
    )


def wait_for(hc: Any, stack_id: str, timeout: float = 30) -> Any:
    """The stack once its action has finished."""
    deadline = time.monotonic() + timeout
    while True:
        stack = hc.stacks.get(stack_id)
        if not stack.stack_status.endswith("_IN_PROGRESS"):
            return stack
        assert time.monotonic() < deadline, f"still {stack.stack_status} after {timeout}s"
        time.sleep(0.2)


def create(hc: Any, name: str, template: str = TEMPLATE, **kwargs: Any) -> Any:
    stack_id = hc.stacks.create(stack_name=name, template=template, **kwargs)["stack"]["id"]
    return wait_for(hc, stack_id)


def message(stack: Any) -> str:
    return str({o["output_key"]: o["output_value"] for o in stack.outputs}["message"])


@pytest.fixture(scope="module")
def demo_session(keystone: Keystone) -> ks_session.Session:  # noqa: F811
    return password_session(*DEMO)


@pytest.fixture(scope="module")
def heat(
    keystone_server: RunningServer,  # noqa: F811
    keystone_users: KeystoneUsers,  # noqa: F811
    demo_session: ks_session.Session,
) -> Any:
    """python-heatclient as user demo (member) in project demo."""
    return heat_for(keystone_server, demo_session, keystone_users.demo_project_id)


@pytest.fixture(scope="module")
def demo_stack(heat: Any) -> Iterator[Any]:
    """A finished stack of project demo, for the read-only checks."""
    stack = create(heat, "ks-shared", parameters={"greeting": "shared"})
    assert stack.stack_status == "CREATE_COMPLETE"
    yield stack
    heat.stacks.delete(stack.id)


# --- the lifecycle through python-heatclient ------------------------------------------------


def test_create_list_show_update_outputs_resources_events_delete(heat: Any) -> None:
    stack = create(heat, "ks-life", parameters={"greeting": "hi"})
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    assert stack.stack_owner == "demo"
    greeting, word = message(stack).split(" ")
    assert greeting == "hi" and len(word) == 8

    listed = {s.stack_name: s for s in heat.stacks.list()}
    assert listed["ks-life"].id == stack.id
    assert listed["ks-life"].stack_status == "CREATE_COMPLETE"
    assert not hasattr(listed["ks-life"], "project")  # only admins see the project

    by_name = heat.stacks.get("ks-life")  # the lookup redirects to the canonical URL
    assert by_name.id == stack.id
    assert by_name.parameters["greeting"] == "hi"

    assert heat.stacks.output_list(stack.id) == {
        "outputs": [{"output_key": "message", "description": "the greeting and the word"}]
    }
    shown = heat.stacks.output_show(stack.id, "message")["output"]
    assert shown["output_value"] == f"hi {word}"

    resources = {r.resource_name: r for r in heat.resources.list(stack.id)}
    assert {n: r.resource_type for n, r in resources.items()} == {
        "word": "OS::Heat::RandomString", "echo": "OS::Heat::TestResource",
    }
    assert {r.resource_status for r in resources.values()} == {"CREATE_COMPLETE"}
    assert heat.resources.get(stack.id, "echo").attributes["output"] == f"hi {word}"

    events = heat.events.list(stack.id)
    seen = [(e.resource_name, e.resource_status) for e in events]
    for name in ("word", "echo"):
        assert (name, "CREATE_IN_PROGRESS") in seen and (name, "CREATE_COMPLETE") in seen
    assert seen[0] == ("ks-life", "CREATE_COMPLETE")  # newest first, as Heat lists them

    # Full update: a new greeting, the same size keeps the random word.
    heat.stacks.update(stack.id, template=TEMPLATE, parameters={"greeting": "bye"})
    updated = wait_for(heat, stack.id)
    assert updated.stack_status == "UPDATE_COMPLETE", updated.stack_status_reason
    assert message(updated) == f"bye {word}"

    # Patch update: only the size changes, the greeting given before stays.
    heat.stacks.update(stack.id, existing=True, parameters={"size": 12})
    patched = wait_for(heat, stack.id)
    assert patched.stack_status == "UPDATE_COMPLETE", patched.stack_status_reason
    greeting, new_word = message(patched).split(" ")
    assert greeting == "bye" and len(new_word) == 12

    heat.stacks.delete(stack.id)
    deleted = wait_for(heat, stack.id)
    assert deleted.stack_status == "DELETE_COMPLETE"
    assert "ks-life" not in {s.stack_name for s in heat.stacks.list()}
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.stacks.get("ks-life")


def test_suspend_resume_check(heat: Any) -> None:
    stack = create(heat, "ks-actions")
    for action, state in (
        (heat.actions.suspend, "SUSPEND_COMPLETE"),
        (heat.actions.resume, "RESUME_COMPLETE"),
        (heat.actions.check, "CHECK_COMPLETE"),
    ):
        action(stack.id)
        after = wait_for(heat, stack.id)
        assert after.stack_status == state, after.stack_status_reason
        statuses = {r.resource_status for r in heat.resources.list(stack.id)}
        assert statuses == {state}
    heat.stacks.delete(stack.id)


def test_snapshot_and_restore(heat: Any) -> None:
    stack = create(heat, "ks-snap", parameters={"greeting": "before"})
    before = message(stack)

    snap = heat.stacks.snapshot(stack.id, "first")
    assert snap["name"] == "first"
    deadline = time.monotonic() + 30
    while (shown := heat.stacks.snapshot_show(stack.id, snap["id"])["snapshot"])[
        "status"
    ] == "IN_PROGRESS":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert shown["status"] == "COMPLETE", shown["status_reason"]
    assert [s["id"] for s in heat.stacks.snapshot_list(stack.id)["snapshots"]] == [snap["id"]]

    heat.stacks.update(stack.id, existing=True, parameters={"greeting": "after"})
    assert message(wait_for(heat, stack.id)).startswith("after ")

    heat.stacks.restore(stack.id, snap["id"])
    restored = wait_for(heat, stack.id)
    assert restored.stack_status == "RESTORE_COMPLETE", restored.stack_status_reason
    assert message(restored) == before
    heat.stacks.delete(stack.id)


def test_abandon_and_adopt(heat: Any) -> None:
    stack = create(heat, "ks-abandon", parameters={"greeting": "kept"})
    kept = message(stack)

    data = heat.stacks.abandon(stack.id)
    assert data["name"] == "ks-abandon"
    assert set(data["resources"]) == {"word", "echo"}
    # As in Heat, the abandoned stack is deleted (its resources kept) after the answer.
    assert wait_for(heat, stack.id).stack_status == "DELETE_COMPLETE"
    assert "ks-abandon" not in {s.stack_name for s in heat.stacks.list()}

    adopted = create(heat, "ks-adopted", adopt_stack_data=json.dumps(data))
    assert adopted.stack_status == "ADOPT_COMPLETE", adopted.stack_status_reason
    assert message(adopted) == kept  # the random word came along
    heat.stacks.delete(adopted.id)
    assert wait_for(heat, adopted.id).stack_status == "DELETE_COMPLETE"


# --- authentication ---------------------------------------------------------------------------


def test_no_token_is_401_pointing_at_keystone(
    keystone_server: RunningServer, keystone_users: KeystoneUsers  # noqa: F811
) -> None:
    resp = requests.get(
        f"{keystone_server.url}/v1/{keystone_users.demo_project_id}/stacks", timeout=10
    )
    assert resp.status_code == 401
    assert resp.headers["WWW-Authenticate"] == f'Keystone uri="{KEYSTONE_URL}"'
    assert resp.json()["error"]["code"] == 401


def test_versions_need_no_token(keystone_server: RunningServer) -> None:  # noqa: F811
    resp = requests.get(f"{keystone_server.url}/", timeout=10)
    assert resp.status_code == 300
    assert [v["id"] for v in resp.json()["versions"]] == ["v1.0"]


@pytest.mark.parametrize("token", ["not-a-token", "gAAAAABmade-up-fernet-token"])
def test_bad_token_is_401(
    keystone_server: RunningServer,  # noqa: F811
    keystone_users: KeystoneUsers,  # noqa: F811
    heat: Any,
    token: str,
) -> None:
    resp = requests.post(
        f"{keystone_server.url}/v1/{keystone_users.demo_project_id}/stacks",
        headers={"X-Auth-Token": token},
        json={"stack_name": "never", "template": TEMPLATE},
        timeout=30,
    )
    assert resp.status_code == 401
    assert resp.json()["error"]["title"] == "Unauthorized"
    assert "never" not in {s.stack_name for s in heat.stacks.list()}


def test_revoked_token_does_not_stop_a_running_action(
    keystone: Keystone,  # noqa: F811
    keystone_server: RunningServer,  # noqa: F811
    keystone_users: KeystoneUsers,  # noqa: F811
    heat: Any,
) -> None:
    short_lived = password_session(*DEMO)
    token = token_of(short_lived)
    caller = heat_for(keystone_server, short_lived, keystone_users.demo_project_id)
    stack_id = caller.stacks.create(stack_name="ks-revoked", template=SLOW_TEMPLATE)["stack"][
        "id"
    ]

    keystone.revoke_token(token)
    assert not keystone.token_is_valid(token)
    assert heat.stacks.get(stack_id).stack_status == "CREATE_IN_PROGRESS"

    stack = wait_for(heat, stack_id)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    assert stack.outputs[0]["output_value"] == "finished"
    heat.stacks.delete(stack_id)


# --- authorization ----------------------------------------------------------------------------


def _error(resp: requests.Response) -> tuple[int, str, str]:
    err = resp.json()["error"]
    return resp.status_code, err["type"], err["message"]


def test_another_projects_url_is_403(
    keystone_server: RunningServer,  # noqa: F811
    keystone_users: KeystoneUsers,  # noqa: F811
    demo_session: ks_session.Session,
    demo_stack: Any,
    heat: Any,
) -> None:
    # B's token on the URL of demo's stack
    b_token = {"X-Auth-Token": token_of(password_session(*ISO_B))}
    stack_url = (f"{keystone_server.url}/v1/{keystone_users.demo_project_id}"
                 f"/stacks/{demo_stack.stack_name}/{demo_stack.id}")
    for method in ("GET", "DELETE"):
        resp = requests.request(method, stack_url, headers=b_token, timeout=10)
        assert resp.status_code == 403, resp.text
    assert heat.stacks.get(demo_stack.id).stack_status == "CREATE_COMPLETE"

    # demo's token on project B's URL
    other = f"{keystone_server.url}/v1/{keystone_users.iso_b_project_id}"
    token = {"X-Auth-Token": token_of(demo_session)}
    listed = requests.get(f"{other}/stacks", headers=token, timeout=10)
    assert listed.status_code == 403
    created = requests.post(
        f"{other}/stacks", headers=token, json={"stack_name": "intruder", "template": TEMPLATE},
        timeout=10,
    )
    assert created.status_code == 403
    assert created.json()["error"]["type"] == "HTTPForbidden"

    b_heat = heat_for(keystone_server, password_session(*ISO_B), keystone_users.iso_b_project_id)
    assert "intruder" not in {s.stack_name for s in b_heat.stacks.list()}


def test_reader_can_look_but_not_change(
    keystone_server: RunningServer,  # noqa: F811
    keystone_users: KeystoneUsers,  # noqa: F811
    demo_stack: Any,
    heat: Any,
) -> None:
    reader_session = password_session(*READER)
    assert roles_of(reader_session) == ["reader"]
    reader = heat_for(keystone_server, reader_session, keystone_users.demo_project_id)

    assert demo_stack.id in {s.id for s in reader.stacks.list()}
    shown = reader.stacks.get(demo_stack.id)
    assert message(shown) == message(demo_stack)
    assert {r.resource_name for r in reader.resources.list(demo_stack.id)} == {"word", "echo"}

    base = f"{keystone_server.url}/v1/{keystone_users.demo_project_id}"
    token = {"X-Auth-Token": token_of(reader_session)}
    resp = requests.post(
        f"{base}/stacks", headers=token, json={"stack_name": "by-reader", "template": TEMPLATE},
        timeout=10,
    )
    assert _error(resp) == (403, "Forbidden", "You are not authorized to use stacks:create.")
    assert resp.json()["title"] == "Forbidden"

    stack_url = f"{base}/stacks/{demo_stack.stack_name}/{demo_stack.id}"
    resp = requests.delete(stack_url, headers=token, timeout=10)
    assert _error(resp) == (403, "Forbidden", "You are not authorized to use stacks:delete.")
    resp = requests.post(f"{stack_url}/actions", headers=token, json={"suspend": None},
                         timeout=10)
    assert _error(resp) == (403, "Forbidden", "You are not authorized to use actions:suspend.")

    assert "by-reader" not in {s.stack_name for s in heat.stacks.list()}
    assert heat.stacks.get(demo_stack.id).stack_status == demo_stack.stack_status


def test_admin_lists_every_project_with_global_tenant(
    keystone_server: RunningServer,  # noqa: F811
    keystone_users: KeystoneUsers,  # noqa: F811
    demo_stack: Any,
    heat: Any,
) -> None:
    admin = heat_for(keystone_server, password_session(*ADMIN), keystone_users.admin_project_id)

    own = {s.id for s in admin.stacks.list()}
    assert demo_stack.id not in own

    every = {s.id: s for s in admin.stacks.list(global_tenant=True)}
    assert every[demo_stack.id].project == keystone_users.demo_project_id
    assert every[demo_stack.id].stack_name == demo_stack.stack_name

    with pytest.raises(heat_exc.HTTPForbidden) as denied:
        list(heat.stacks.list(global_tenant=True))
    assert "stacks:global_index" in str(denied.value)


# --- the openstack CLI ------------------------------------------------------------------------


def _cli_env() -> dict[str, str]:
    """The environment without any OS_* settings of whoever runs the tests."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env["PYTHONWARNINGS"] = "ignore"
    return env


def _run(args: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(
        [str(OPENSTACK), *args], env=env, capture_output=True, text=True, timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"openstack {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_openstack_stack_cli(
    keystone_server: RunningServer,  # noqa: F811
    keystone_users: KeystoneUsers,  # noqa: F811
    tmp_path: Path,
) -> None:
    if not OPENSTACK.exists():
        pytest.skip(f"no {OPENSTACK}")
    env = _cli_env()
    # Password auth against Keystone. The catalog's orchestration endpoint is the standard
    # port, not this server's, and heatclient's OSC plugin takes no endpoint override with
    # password auth, so the stack commands get the token and this server's endpoint.
    token = _run([
        "--os-auth-url", KEYSTONE_URL, "--os-identity-api-version", "3",
        "--os-username", DEMO[0], "--os-password", DEMO[1], "--os-project-name", DEMO[2],
        "--os-user-domain-name", "Default", "--os-project-domain-name", "Default",
        "token", "issue", "-f", "value", "-c", "id",
    ], env).strip()
    endpoint = f"{keystone_server.url}/v1/{keystone_users.demo_project_id}"
    osc = ["--os-endpoint", endpoint, "--os-token", token]
    template = tmp_path / "hello.yaml"
    template.write_text(TEMPLATE)

    out = _run([*osc, "stack", "create", "--wait", "--poll", "1", "-t", str(template),
                "--parameter", "greeting=cli", "ks-cli", "-f", "json"], env)
    # --wait prints the events as they come, then the stack
    progress, _, document = out.partition("\n{")
    assert "[ks-cli]: CREATE_COMPLETE  Stack CREATE completed successfully" in progress
    created = json.loads("{" + document)
    assert created["stack_status"] == "CREATE_COMPLETE"
    listed = json.loads(_run([*osc, "stack", "list", "-f", "json"], env))
    assert {"ID": created["id"], "Stack Name": "ks-cli",
            "Stack Status": "CREATE_COMPLETE"}.items() <= next(
        s for s in listed if s["Stack Name"] == "ks-cli").items()
    shown = json.loads(_run([*osc, "stack", "show", "ks-cli", "-f", "json"], env))
    assert shown["id"] == created["id"]
    assert shown["parameters"]["greeting"] == "cli"
    outputs = json.loads(_run([*osc, "stack", "output", "list", "ks-cli", "-f", "json"], env))
    assert outputs == [{"output_key": "message", "description": "the greeting and the word"}]
    output = json.loads(_run([*osc, "stack", "output", "show", "ks-cli", "message",
                              "-f", "json"], env))
    assert output["output_value"].startswith("cli ")
    resources = json.loads(_run([*osc, "stack", "resource", "list", "ks-cli", "-f", "json"],
                                env))
    assert {(r["resource_name"], r["resource_status"]) for r in resources} == {
        ("word", "CREATE_COMPLETE"), ("echo", "CREATE_COMPLETE"),
    }
    events = json.loads(_run([*osc, "stack", "event", "list", "ks-cli", "-f", "json"], env))
    assert events[-1]["resource_name"] == "ks-cli"
    assert events[-1]["resource_status"] == "CREATE_COMPLETE"

    _run([*osc, "stack", "delete", "--yes", "--wait", "ks-cli"], env)
    listed = json.loads(_run([*osc, "stack", "list", "-f", "json"], env))
    assert "ks-cli" not in {s["Stack Name"] for s in listed}
