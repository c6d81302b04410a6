"""AWS wait conditions signalled by heat-cfntools' cfn-signal, with Keystone: the handle's
reference is the CFN API's ``/v1/waitcondition/<ARN>`` URL pre-signed with the EC2 keypair of
a stack user Hearth made for the handle in the stack user domain; cfn-signal PUTs its JSON
there, Keystone checks the signature, the wait condition completes (or fails with the reason
sent). The URL stops working when the stack is deleted."""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from hearth.cli.serve import RunningServer, serving
from tests.integration.api.keystone_fixtures import (
    Keystone,
    KeystoneUsers,
    demo_heat,
    keystone,  # noqa: F401 - the fixture
    keystone_server_conf,
    keystone_users,  # noqa: F401 - the fixture
)
from tests.integration.cfn.common import TIMEOUT, heat_settled

# The stack users are the demo project's, as are its trusts: one worker runs such tests.
pytestmark = pytest.mark.xdist_group("devcloud")

# The handle first (its URL is an output once the stack is made), then the wait condition
# on it, added by an update that waits for the signal.
HANDLE_ONLY = {
    "HeatTemplateFormatVersion": "2012-12-12",
    "Resources": {"handle": {"Type": "AWS::CloudFormation::WaitConditionHandle"}},
    "Outputs": {"url": {"Value": {"Ref": "handle"}}},
}
TEMPLATE = {
    "HeatTemplateFormatVersion": "2012-12-12",
    "Resources": {
        **HANDLE_ONLY["Resources"],
        "wait": {"Type": "AWS::CloudFormation::WaitCondition",
                 "Properties": {"Handle": {"Ref": "handle"}, "Timeout": 120}},
    },
    "Outputs": {
        **HANDLE_ONLY["Outputs"],
        "data": {"Value": {"Fn::GetAtt": ["wait", "Data"]}},
    },
}


@pytest.fixture(scope="module")
def served(keystone: Keystone, keystone_users: KeystoneUsers,  # noqa: F811
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    conf = keystone_server_conf(tmp_path_factory.mktemp("hearth-cfn-signal"), trustee=True,
                                stack_domain=True)
    with serving(conf) as running:
        yield running


@pytest.fixture()
def heat(served: RunningServer) -> Any:
    return demo_heat(served.url)


def waiting_stack(heat: Any, name: str) -> tuple[str, str]:
    """A stack whose wait condition waits (an update in progress), and its handle's URL."""
    stack_id = heat.stacks.create(stack_name=f"{name}-{uuid.uuid4().hex[:6]}",
                                  template=HANDLE_ONLY, disable_rollback=True)["stack"]["id"]
    stack = heat_settled(heat, stack_id)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    url = heat.stacks.output_show(stack_id, "url")["output"]["output_value"]
    heat.stacks.update(stack_id, template=TEMPLATE, disable_rollback=True)
    deadline = time.monotonic() + TIMEOUT
    while {r.resource_name: r.resource_status
           for r in heat.resources.list(stack_id)}.get("wait") != "CREATE_IN_PROGRESS":
        assert time.monotonic() < deadline, "the wait condition did not start"
        time.sleep(0.2)
    return stack_id, str(url)


def cfn_signal(cfntools: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(cfntools / "cfn-signal"), *args], capture_output=True,
                          text=True, timeout=60, check=False)


def credential_of(keystone: Keystone, url: str) -> dict[str, Any] | None:  # noqa: F811
    """The Keystone EC2 credential whose access key signed ``url``, if it still exists."""
    access = parse_qs(urlsplit(url).query)["AWSAccessKeyId"][0]
    for cred in keystone.get("/credentials", "credentials", type="ec2"):
        if json.loads(cred["blob"]).get("access") == access:
            return cred
    return None


def test_cfn_signal_completes_the_wait_condition(
    heat: Any, served: RunningServer, cfntools: Path, keystone: Keystone,  # noqa: F811
) -> None:
    stack_id, url = waiting_stack(heat, "cfn-signal")
    try:
        assert url.startswith(f"{served.cfn_url}/v1/waitcondition/arn%3Aopenstack%3Aheat%3A%3A")
        assert "Signature=" in url and "AWSAccessKeyId=" in url
        # Signed with the keypair of a stack user (heat_stack_user in the stack domain).
        cred = credential_of(keystone, url)
        assert cred is not None
        (user,) = keystone.get(f"/users/{cred['user_id']}/projects", "projects")
        assert user["id"] == cred["project_id"]
        done = cfn_signal(cfntools, "-e", "0", "-i", "smoke_status",
                          "-d", "smoke test complete", url)
        assert done.returncode == 0, done.stderr
        stack = heat_settled(heat, stack_id)
        assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
        data = heat.stacks.output_show(stack_id, "data")["output"]["output_value"]
        assert json.loads(data) == {"smoke_status": "smoke test complete"}
    finally:
        heat.stacks.delete(stack_id)
    assert heat_settled(heat, stack_id).stack_status == "DELETE_COMPLETE"
    # The stack user and its keypair went with the stack: the URL now opens nothing.
    assert credential_of(keystone, url) is None
    assert keystone._call("GET", f"/users/{cred['user_id']}", raise_exc=False).status_code == 404
    replay = requests.put(url, data=json.dumps({"Status": "SUCCESS", "Reason": "again",
                                                "UniqueId": "2", "Data": "x"}), timeout=10)
    assert replay.status_code == 403 and "<Code>InvalidClientTokenId</Code>" in replay.text


def test_a_failure_signal_fails_the_stack_with_its_reason(
    heat: Any, cfntools: Path,
) -> None:
    stack_id, url = waiting_stack(heat, "cfn-fail")
    try:
        done = cfn_signal(cfntools, "-s", "false", "-r", "the smoke test broke", "-i", "s1", url)
        assert done.returncode == 0, done.stderr
        stack = heat_settled(heat, stack_id)
        assert stack.stack_status == "UPDATE_FAILED"
        assert stack.stack_status_reason == (
            "Resource CREATE failed: WaitConditionFailure: resources.wait: "
            "the smoke test broke"), stack.stack_status_reason
    finally:
        heat.stacks.delete(stack_id)
    assert heat_settled(heat, stack_id).stack_status == "DELETE_COMPLETE"


def test_a_signal_with_a_wrong_signature_changes_nothing(heat: Any) -> None:
    stack_id, url = waiting_stack(heat, "cfn-forged")
    try:
        forged = url.replace("Signature=", "Signature=x")
        resp = requests.put(forged, data=json.dumps({"Status": "SUCCESS", "Reason": "r",
                                                     "UniqueId": "1", "Data": "d"}), timeout=10)
        assert resp.status_code == 403 and "<Code>SignatureDoesNotMatch</Code>" in resp.text
        assert heat.stacks.get(stack_id).stack_status == "UPDATE_IN_PROGRESS"
        assert heat.resources.metadata(stack_id, "handle") == {}
    finally:
        heat.stacks.delete(stack_id)
    assert heat_settled(heat, stack_id).stack_status == "DELETE_COMPLETE"


NATIVE = {
    "heat_template_version": "2018-08-31",
    "parameters": {"transport": {"type": "string"}},
    "resources": {"handle": {"type": "OS::Heat::WaitConditionHandle",
                             "properties": {"signal_transport": {"get_param": "transport"}}}},
    "outputs": {"signal": {"value": {"get_attr": ["handle", "signal"]}}},
}


def native_waiting(heat: Any, transport: str) -> tuple[str, dict[str, Any]]:
    """An OS::Heat handle with ``transport`` whose wait condition waits; its signal data."""
    stack_id = heat.stacks.create(stack_name=f"native-{uuid.uuid4().hex[:6]}", template=NATIVE,
                                  parameters={"transport": transport},
                                  disable_rollback=True)["stack"]["id"]
    stack = heat_settled(heat, stack_id)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    signal = json.loads(heat.stacks.output_show(stack_id, "signal")["output"]["output_value"])
    waiting = {**NATIVE, "resources": {**NATIVE["resources"], "wait": {
        "type": "OS::Heat::WaitCondition",
        "properties": {"handle": {"get_resource": "handle"}, "timeout": 120}}}}
    heat.stacks.update(stack_id, template=waiting, parameters={"transport": transport},
                       disable_rollback=True)
    deadline = time.monotonic() + TIMEOUT
    while {r.resource_name: r.resource_status
           for r in heat.resources.list(stack_id)}.get("wait") != "CREATE_IN_PROGRESS":
        assert time.monotonic() < deadline, "the wait condition did not start"
        time.sleep(0.2)
    return stack_id, signal


def test_native_handle_cfn_signal_is_a_presigned_cfn_url(
    heat: Any, served: RunningServer,
) -> None:
    stack_id, signal = native_waiting(heat, "CFN_SIGNAL")
    try:
        url = signal["alarm_url"]
        assert url.startswith(f"{served.cfn_url}/v1/waitcondition/arn%3Aopenstack%3Aheat")
        resp = requests.put(url, data=json.dumps({"status": "SUCCESS", "data": "done"}),
                            timeout=10)
        assert resp.status_code == 200, resp.text
        stack = heat_settled(heat, stack_id)
        assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    finally:
        heat.stacks.delete(stack_id)
    assert heat_settled(heat, stack_id).stack_status == "DELETE_COMPLETE"


def test_native_handle_heat_signal_gives_a_stack_users_credentials(
    heat: Any, served: RunningServer,
) -> None:
    from keystoneauth1 import session as ks_session
    from keystoneauth1.identity import v3

    stack_id, signal = native_waiting(heat, "HEAT_SIGNAL")
    try:
        assert signal["alarm_url"].startswith(f"{served.url}/v1/{signal['project_id']}/stacks/")
        # As an instance would: log in as the stack user and POST to the signal URL.
        auth = v3.Password(auth_url=signal["auth_url"], user_id=signal["user_id"],
                           password=signal["password"], project_id=signal["project_id"])
        session = ks_session.Session(auth=auth)
        resp = session.post(signal["alarm_url"], json={"status": "SUCCESS", "reason": "up"},
                            raise_exc=False)
        assert resp.status_code == 200, resp.text
        stack = heat_settled(heat, stack_id)
        assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
        # The stack user may signal, not read the stack.
        listed = session.get(f"{served.url}/v1/{signal['project_id']}/stacks", raise_exc=False)
        assert listed.status_code == 403 or listed.json()["stacks"] == []
    finally:
        heat.stacks.delete(stack_id)
    assert heat_settled(heat, stack_id).stack_status == "DELETE_COMPLETE"
    gone = v3.Password(auth_url=signal["auth_url"], user_id=signal["user_id"],
                       password=signal["password"], project_id=signal["project_id"])
    with pytest.raises(Exception, match="401|Unauthorized|authenticate"):
        ks_session.Session(auth=gone).get_token()
