"""The CFN query API with Keystone: boto3 signs with EC2 credentials made in Keystone
(``openstack ec2 credentials create``), Hearth has Keystone check each signature through
``/v3/ec2tokens`` as its service user. The credentials are removed at the end."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlparse

import pytest
import requests
from keystoneclient.contrib.ec2.utils import Ec2Signer  # type: ignore[import-untyped]

from hearth.cli.serve import RunningServer, serving
from tests.integration.api.keystone_fixtures import (
    DEMO,
    ISO_B,
    KEYSTONE_URL,
    Keystone,
    KeystoneUsers,
    keystone,  # noqa: F401 - the fixture
    keystone_server_conf,
    keystone_users,  # noqa: F401 - the fixture
    password_session,
)
from tests.integration.cfn.common import cfn_client, cfn_settled, error_of

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  length: {type: number, default: 8}
resources:
  secret:
    type: OS::Heat::RandomString
    properties: {length: {get_param: length}}
outputs:
  value: {value: {get_attr: [secret, value]}}
"""


@pytest.fixture(scope="module")
def served(keystone: Keystone, keystone_users: KeystoneUsers,  # noqa: F811
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    conf = keystone_server_conf(tmp_path_factory.mktemp("hearth-cfn-keystone"), trustee=True)
    with serving(conf) as running:
        yield running


@pytest.fixture(scope="module")
def ec2_keys() -> Iterator[Callable[[tuple[str, str, str]], tuple[str, str]]]:
    """EC2 credentials of a Keystone user in its project: (access, secret); deleted after."""
    made: list[tuple[Any, str, str]] = []

    def make(who: tuple[str, str, str]) -> tuple[str, str]:
        session = password_session(*who)
        user_id = session.get_user_id()
        cred = session.post(f"{KEYSTONE_URL}/users/{user_id}/credentials/OS-EC2",
                            json={"tenant_id": session.get_project_id()}).json()["credential"]
        made.append((session, user_id, cred["access"]))
        return cred["access"], cred["secret"]

    yield make
    for session, user_id, access in made:
        session.delete(f"{KEYSTONE_URL}/users/{user_id}/credentials/OS-EC2/{access}",
                       raise_exc=False)


def test_boto3_drives_a_stack_with_keystone_ec2_credentials(
    served: RunningServer, ec2_keys: Callable[[tuple[str, str, str]], tuple[str, str]],
    keystone_users: KeystoneUsers,  # noqa: F811
) -> None:
    access, secret = ec2_keys(DEMO)
    cfn = cfn_client(served, access, secret)
    name = f"cfn-ks-{uuid.uuid4().hex[:6]}"
    arn = cfn.create_stack(StackName=name, TemplateBody=TEMPLATE,
                           Parameters=[{"ParameterKey": "length", "ParameterValue": "10"}]
                           )["StackId"]
    # The stack is the demo project's: Keystone's token said whose the keys are.
    assert arn.startswith(f"arn:openstack:heat::{keystone_users.demo_project_id}:stacks/")
    try:
        stack = cfn_settled(cfn, arn)
        assert stack["StackStatus"] == "CREATE_COMPLETE", stack["StackStatusReason"]
        assert len(stack["Outputs"][0]["OutputValue"]) == 10
        events = cfn.describe_stack_events(StackName=arn)["StackEvents"]
        assert ("secret", "CREATE_COMPLETE") in {
            (e["LogicalResourceId"], e["ResourceStatus"]) for e in events}
        summaries = cfn.list_stack_resources(StackName=arn)["StackResourceSummaries"]
        assert [s["LogicalResourceId"] for s in summaries] == ["secret"]
        assert "resources" in cfn.get_template(StackName=arn)["TemplateBody"]
        cfn.update_stack(StackName=arn, TemplateBody=TEMPLATE,
                         Parameters=[{"ParameterKey": "length", "ParameterValue": "16"}])
        stack = cfn_settled(cfn, arn)
        assert stack["StackStatus"] == "UPDATE_COMPLETE", stack["StackStatusReason"]
        assert len(stack["Outputs"][0]["OutputValue"]) == 16

        # Another project's keys neither see nor touch the stack.
        other = cfn_client(served, *ec2_keys(ISO_B))
        assert name not in {s["StackName"] for s in other.list_stacks()["StackSummaries"]}
        assert error_of(other.delete_stack, StackName=arn)[0] in (
            "InvalidParameterValue", "AccessDenied")
        assert cfn_settled(cfn, arn)["StackStatus"] == "UPDATE_COMPLETE"
    finally:
        cfn.delete_stack(StackName=arn)
    assert cfn_settled(cfn, arn)["StackStatus"] == "DELETE_COMPLETE"
    # After the delete, the name is free and the stack is not listed.
    assert name not in {s["StackName"] for s in cfn.list_stacks()["StackSummaries"]}


def test_refused_signatures(
    served: RunningServer, ec2_keys: Callable[[tuple[str, str, str]], tuple[str, str]],
) -> None:
    access, secret = ec2_keys(DEMO)
    assert error_of(cfn_client(served, access, "not-the-secret").list_stacks) == (
        "SignatureDoesNotMatch", 403)
    assert error_of(cfn_client(served, "no-such-access-key", secret).list_stacks) == (
        "InvalidClientTokenId", 403)

    def v2(params: dict[str, str], when: datetime) -> dict[str, str]:
        full = {**params, "AWSAccessKeyId": access, "SignatureVersion": "2",
                "SignatureMethod": "HmacSHA256",
                "Timestamp": when.strftime("%Y-%m-%dT%H:%M:%SZ")}
        host = urlparse(served.cfn_url).netloc
        return {**full, "Signature": Ec2Signer(secret).generate(
            {"params": full, "verb": "GET", "host": host, "path": "/v1/"})}

    url = f"{served.cfn_url}/v1/"
    fresh = v2({"Action": "ListStacks"}, datetime.now(UTC))
    assert requests.get(url, params=fresh, timeout=10).status_code == 200
    altered = {**fresh, "Action": "DescribeStacks"}
    resp = requests.get(url, params=altered, timeout=10)
    assert (resp.status_code, "<Code>SignatureDoesNotMatch</Code>" in resp.text) == (403, True)
    old = v2({"Action": "ListStacks"}, datetime.now(UTC) - timedelta(hours=1))
    resp = requests.get(url, params=old, timeout=10)
    assert (resp.status_code, "<Code>RequestExpired</Code>" in resp.text) == (400, True)
