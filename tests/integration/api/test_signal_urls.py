"""The signal URLs wait condition handles hand out, used as a server would: no token at all."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from typing import Any

import pytest
import requests
from heatclient import client as heat_client
from heatclient import exc as heat_exc

from hearth.cli.serve import RunningServer
from tests.integration.api.conftest import NOAUTH_PROJECT
from tests.integration.api.keystone_fixtures import (  # noqa: F401 (fixtures used by name)
    DEMO,
    KeystoneUsers,
    keystone,
    keystone_server,
    keystone_users,
    password_session,
)
from tests.integration.api.util import assert_heat_error, unique, wait_for_status, wait_until

HOT = "2018-08-31"
FORBIDDEN = "Signal token is not valid"


def handle_only(handle_type: str = "OS::Heat::WaitConditionHandle") -> dict[str, Any]:
    """A handle and where to signal it: attributes of a native one, a CFN one's reference."""
    found: dict[str, Any] = {"url": {"value": {"get_resource": "handle"}}}
    if handle_type == "OS::Heat::WaitConditionHandle":
        found["curl"] = {"value": {"get_attr": ["handle", "curl_cli"]}}
        found["endpoint"] = {"value": {"get_attr": ["handle", "endpoint"]}}
    return {"heat_template_version": HOT, "resources": {"handle": {"type": handle_type}},
            "outputs": found}


def with_wait(tmpl: dict[str, Any], count: int = 1, cfn: bool = False) -> dict[str, Any]:
    tmpl = json.loads(json.dumps(tmpl))
    if cfn:
        tmpl["resources"]["wait"] = {
            "type": "AWS::CloudFormation::WaitCondition",
            "properties": {"Handle": {"get_resource": "handle"}, "Timeout": 60, "Count": count},
        }
        tmpl["outputs"]["data"] = {"value": {"get_attr": ["wait", "Data"]}}
    else:
        tmpl["resources"]["wait"] = {
            "type": "OS::Heat::WaitCondition",
            "properties": {"handle": {"get_resource": "handle"}, "timeout": 60, "count": count},
        }
        tmpl["outputs"]["data"] = {"value": {"get_attr": ["wait", "data"]}}
    return tmpl


def outputs(heat: Any, stack_id: str) -> dict[str, Any]:
    stack = heat.stacks.get(stack_id)
    return {o["output_key"]: o.get("output_value") for o in stack.outputs}


def created_then_waiting(heat: Any, handle_type: str = "OS::Heat::WaitConditionHandle",
                         cfn: bool = False) -> tuple[str, dict[str, Any]]:
    """A stack of a handle (its URLs in outputs), then updated to wait on it."""
    tmpl = handle_only(handle_type)
    stack_id = heat.stacks.create(stack_name=unique("wc"), template=tmpl)["stack"]["id"]
    wait_for_status(heat, stack_id, "CREATE_COMPLETE")
    found = outputs(heat, stack_id)
    heat.stacks.update(stack_id, template=with_wait(tmpl, cfn=cfn))
    wait_until(lambda: status_of(heat, stack_id, "wait") == "CREATE_IN_PROGRESS",
               what="the wait to start")
    return stack_id, found


def status_of(heat: Any, stack_id: str, name: str) -> str | None:
    try:
        return str(heat.resources.get(stack_id, name).resource_status)
    except heat_exc.HTTPNotFound:
        return None  # not in the stack yet


def observed(heat: Any, stack_id: str) -> Any:
    """What a user can see of the stack, to compare before and after a refused signal."""
    stack = heat.stacks.get(stack_id)
    res = {r.resource_name: (r.resource_status, r.resource_status_reason)
           for r in heat.resources.list(stack_id)}
    events = [(e.resource_name, e.resource_status, e.resource_status_reason)
              for e in heat.events.list(stack_id)]
    metadata = heat.resources.metadata(stack_id, "handle")
    return stack.stack_status, res, events, metadata


def test_curl_cli_from_an_output_completes_the_wait(heat: Any) -> None:
    stack_id, found = created_then_waiting(heat)
    curl = found["curl"]
    assert curl.startswith("curl -i -X POST -H 'Content-Type: application/json' "
                           "-H 'Accept: application/json' http")
    assert "X-Auth-Token" not in curl and curl.endswith(found["endpoint"])
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    # Exactly what a server's user_data script would run.
    run = subprocess.run(
        [*shlex.split(curl), "--data-binary", '{"status": "SUCCESS", "data": "booted"}'],
        capture_output=True, text=True, timeout=30, check=False,
    )
    assert run.returncode == 0 and run.stdout.startswith("HTTP/1.1 200"), run.stdout
    wait_for_status(heat, stack_id, "UPDATE_COMPLETE")
    assert outputs(heat, stack_id)["data"] == '{"1": "booted"}'


def test_endpoint_takes_a_post_without_any_token(heat: Any) -> None:
    tmpl = with_wait(handle_only())
    stack_id = heat.stacks.create(stack_name=unique("wc"), template=tmpl)["stack"]["id"]
    handle = wait_until(lambda: (r := heat.resources.get(stack_id, "handle"))
                        .resource_status == "CREATE_COMPLETE" and r)
    endpoint = handle.attributes["endpoint"]
    assert "/v1/signal/" in endpoint and handle.physical_resource_id not in endpoint
    resp = requests.post(endpoint, json={"reason": "web up", "data": {"ip": "10.0.0.5"}},
                         timeout=10)
    assert resp.status_code == 200, resp.text
    wait_for_status(heat, stack_id, "CREATE_COMPLETE")
    assert json.loads(outputs(heat, stack_id)["data"]) == {"1": {"ip": "10.0.0.5"}}
    assert heat.resources.metadata(stack_id, "handle") == {
        "1": {"status": "SUCCESS", "reason": "web up", "data": {"ip": "10.0.0.5"}}}
    reasons = [e.resource_status_reason for e in heat.events.list(stack_id, "handle")]
    assert "Signal: status:SUCCESS reason:web up" in reasons


def test_a_bad_secret_is_refused_and_changes_nothing(
    heat: Any, noauth_server: RunningServer
) -> None:
    stack_id, found = created_then_waiting(heat)
    endpoint = found["endpoint"]
    prefix, secret = endpoint.rsplit("/", 1)
    before = observed(heat, stack_id)
    wrong = secret[:-1] + ("A" if secret[-1] != "A" else "B")
    bodies = []
    for url in (f"{prefix}/{wrong}",
                f"{noauth_server.url}/v1/signal/00000000-0000-4000-8000-000000000000/{secret}",
                f"{noauth_server.url}/v1/waitcondition/{endpoint.split('/')[-2]}/{secret}",
                f"{noauth_server.url}/v1/signal/stacks/{secret}"):
        method = "PUT" if "/waitcondition/" in url else "POST"
        resp = requests.request(method, url, json={"status": "SUCCESS"}, timeout=10)
        bodies.append(assert_heat_error(resp, 403, FORBIDDEN, type_name="Forbidden"))
    # One answer for all: nothing tells whether the resource exists.
    assert all(b == bodies[0] for b in bodies)
    assert observed(heat, stack_id) == before
    # A malformed body is a 400 before anything is looked at; a bad status is refused.
    resp = requests.post(endpoint, data=b"{not json", timeout=10)
    assert_heat_error(resp, 400, "not valid JSON", type_name="HTTPBadRequest")
    resp = requests.post(endpoint, json={"status": "READY"}, timeout=10)
    assert_heat_error(resp, 400, "ValueError: resources.handle: Metadata format invalid",
                      type_name="ResourceFailure")
    assert observed(heat, stack_id) == before
    assert requests.post(endpoint, json={}, timeout=10).status_code == 200
    wait_for_status(heat, stack_id, "UPDATE_COMPLETE")


def test_cloudformation_handle_takes_a_put(heat: Any) -> None:
    stack_id, found = created_then_waiting(heat, "AWS::CloudFormation::WaitConditionHandle",
                                           cfn=True)
    url = found["url"]
    assert "/v1/waitcondition/" in url
    body = {"Status": "SUCCESS", "Reason": "configured", "UniqueId": "i-1", "Data": "42"}
    resp = requests.put(url, json=body, timeout=10)
    assert resp.status_code == 200, resp.text
    assert resp.json() == {"resource": "handle", "metadata": {
        "i-1": {"Status": "SUCCESS", "Reason": "configured", "Data": "42"}}}
    wait_for_status(heat, stack_id, "UPDATE_COMPLETE")
    assert outputs(heat, stack_id)["data"] == '{"i-1": "42"}'
    # The native endpoint does not open a CloudFormation handle.
    resp = requests.post(url.replace("/v1/waitcondition/", "/v1/signal/"), json={}, timeout=10)
    assert_heat_error(resp, 403, FORBIDDEN)


def test_signal_urls_take_only_their_methods(noauth_server: RunningServer) -> None:
    for method, path in (("GET", "signal"), ("DELETE", "signal"), ("GET", "waitcondition"),
                         ("DELETE", "waitcondition"), ("POST", "metadata"),
                         ("PUT", "metadata")):
        resp = requests.request(method, f"{noauth_server.url}/v1/{path}/x/y", timeout=10)
        assert resp.status_code == 405, (method, path, resp.status_code)
    # A project that happens to be called "signal" still lists its stacks.
    resp = requests.get(f"{noauth_server.url}/v1/signal/stacks", timeout=10)
    assert resp.status_code == 200 and resp.json() == {"stacks": []}
    assert NOAUTH_PROJECT != "signal"


def test_signal_urls_need_no_keystone_token(
    keystone_server: RunningServer, keystone_users: KeystoneUsers,  # noqa: F811
) -> None:
    sess = password_session(*DEMO)
    base = f"{keystone_server.url}/v1/{keystone_users.demo_project_id}"
    heat = heat_client.Client("1", session=sess, endpoint_override=base)
    stack_id, found = created_then_waiting(heat)
    before = observed(heat, stack_id)
    # Only the exact signal paths skip Keystone, and only into the signal handlers.
    for path in (f"/v1/signal/stacks/{unique()}", found["endpoint"].rsplit("/", 1)[0] + "/x"):
        url = path if path.startswith("http") else keystone_server.url + path
        assert_heat_error(requests.post(url, json={}, timeout=10), 403, FORBIDDEN)
    resp = requests.get(f"{base}/stacks", timeout=10)
    assert resp.status_code == 401
    assert observed(heat, stack_id) == before
    resp = requests.post(found["endpoint"], json={"data": "no token"}, timeout=10)
    assert resp.status_code == 200, resp.text
    wait_for_status(heat, stack_id, "UPDATE_COMPLETE")
    assert outputs(heat, stack_id)["data"] == '{"1": "no token"}'


@pytest.fixture(scope="module")
def strict_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from hearth.cli.serve import serving
    from tests.integration.api.conftest import server_conf

    conf = server_conf(tmp_path_factory.mktemp("hearth-guesses"),
                       api__secret_url_failures_per_minute=3)
    with serving(conf) as running:
        yield running


def test_guessing_is_slowed_then_refused_and_tells_nothing(strict_server: RunningServer) -> None:
    import time

    heat = heat_client.Client("1", endpoint=f"{strict_server.url}/v1/{NOAUTH_PROJECT}",
                              token="unused")
    stack_id = heat.stacks.create(stack_name=unique("guess"),
                                  template=handle_only())["stack"]["id"]
    wait_for_status(heat, stack_id, "CREATE_COMPLETE")
    endpoint = outputs(heat, stack_id)["endpoint"]
    prefix, secret = endpoint.rsplit("/", 1)
    unknown = f"{strict_server.url}/v1/signal/00000000-0000-4000-8000-000000000000/{secret}"
    took = []
    for url in (f"{prefix}/{secret[:-1]}x", unknown, f"{prefix}/wrong"):
        started = time.monotonic()
        resp = requests.post(url, json={}, timeout=10)
        took.append(time.monotonic() - started)
        assert_heat_error(resp, 403, FORBIDDEN, type_name="Forbidden")
    # Refusals take the same minimum time, whether the resource exists or not.
    assert min(took) >= 0.05
    # Past the limit the source is refused at once, even with the right secret.
    resp = requests.post(endpoint, json={}, timeout=10)
    assert resp.status_code == 429
    assert "Too many refused secret URLs" in resp.json()["error"]["message"]
    assert heat.resources.metadata(stack_id, "handle") == {}
