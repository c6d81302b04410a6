"""The CFN query API driven by boto3's CloudFormation client, in embedded mode: the EC2
keypairs come from ``[cfn_api] ec2_credentials``; the signature is checked as Keystone
checks it. Create, describe, events, resources, template, update, delete, and the refusals of
badly signed requests, each leaving the stacks as they were."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlparse

import pytest
import requests
from keystoneclient.contrib.ec2.utils import Ec2Signer  # type: ignore[import-untyped]

from hearth.cli.serve import RunningServer, serving
from tests.integration.api.conftest import server_conf
from tests.integration.cfn.common import TIMEOUT, cfn_client, cfn_settled, error_of

ACCESS, SECRET, PROJECT = "AKDEMO", "demo-secret-of-the-test", "demo"
OTHER_ACCESS, OTHER_SECRET = "AKOTHER", "other-secret"

TEMPLATE = """\
HeatTemplateFormatVersion: '2012-12-12'
Description: A CFN API test
Parameters:
  Length: {Type: Number, Default: 8}
Resources:
  Secret:
    Type: OS::Heat::RandomString
    Properties: {length: {Ref: Length}}
    Metadata: {role: %s}
Outputs:
  Value:
    Value: {'Fn::GetAtt': [Secret, value]}
    Description: the random string
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    conf = server_conf(tmp_path_factory.mktemp("hearth-cfn"), cfn_api__ec2_credentials=[
        f"{ACCESS}:{SECRET}:{PROJECT}", f"{OTHER_ACCESS}:{OTHER_SECRET}:other"])
    with serving(conf) as running:
        yield running


def client(served: RunningServer, access: str = ACCESS, secret: str = SECRET) -> Any:
    return cfn_client(served, access, secret)


def test_stack_lifecycle_through_boto3(served: RunningServer) -> None:
    cfn = client(served)
    name = f"cfn-{uuid.uuid4().hex[:8]}"
    created = cfn.create_stack(StackName=name, TemplateBody=TEMPLATE % "web",
                               Parameters=[{"ParameterKey": "Length", "ParameterValue": "12"}],
                               TimeoutInMinutes=5)
    arn = created["StackId"]
    assert arn.startswith(f"arn:openstack:heat::{PROJECT}:stacks/{name}/")
    try:
        stack = cfn_settled(cfn, name)
        assert stack["StackStatus"] == "CREATE_COMPLETE", stack["StackStatusReason"]
        assert stack["StackId"] == arn and stack["Description"] == "A CFN API test"
        assert stack["TimeoutInMinutes"] == 5 and stack["DisableRollback"] is False
        params = {p["ParameterKey"]: p["ParameterValue"] for p in stack["Parameters"]}
        assert params["Length"] == "12" and params["AWS::StackName"] == name
        (output,) = stack["Outputs"]
        assert output["OutputKey"] == "Value" and len(output["OutputValue"]) == 12
        assert output["Description"] == "the random string"

        # The stack by its ARN, as listed, its resources and events.
        assert cfn.describe_stacks(StackName=arn)["Stacks"][0]["StackName"] == name
        listed = {s["StackName"]: s for s in cfn.list_stacks()["StackSummaries"]}
        assert listed[name]["StackStatus"] == "CREATE_COMPLETE"
        (summary,) = cfn.list_stack_resources(StackName=name)["StackResourceSummaries"]
        assert (summary["LogicalResourceId"], summary["ResourceType"],
                summary["ResourceStatus"]) == ("Secret", "OS::Heat::RandomString",
                                               "CREATE_COMPLETE")
        detail = cfn.describe_stack_resource(
            StackName=name, LogicalResourceId="Secret")["StackResourceDetail"]
        assert detail["Metadata"] == '{"role": "web"}'
        assert detail["PhysicalResourceId"] == summary["PhysicalResourceId"]
        (res,) = cfn.describe_stack_resources(StackName=name)["StackResources"]
        assert res["StackId"] == arn and res["LogicalResourceId"] == "Secret"
        by_physical = cfn.describe_stack_resources(PhysicalResourceId=res["PhysicalResourceId"])
        assert by_physical["StackResources"][0]["StackName"] == name
        events = cfn.describe_stack_events(StackName=name)["StackEvents"]
        assert {(e["LogicalResourceId"], e["ResourceStatus"]) for e in events} >= {
            (name, "CREATE_COMPLETE"), ("Secret", "CREATE_COMPLETE")}
        body = cfn.get_template(StackName=name)["TemplateBody"]
        assert body["Description"] == "A CFN API test"

        # An update with a new parameter value and metadata.
        cfn.update_stack(StackName=name, TemplateBody=TEMPLATE % "db",
                         Parameters=[{"ParameterKey": "Length", "ParameterValue": "20"}])
        stack = cfn_settled(cfn, name)
        assert stack["StackStatus"] == "UPDATE_COMPLETE", stack["StackStatusReason"]
        assert len(stack["Outputs"][0]["OutputValue"]) == 20
        assert "LastUpdatedTime" in stack
        detail = cfn.describe_stack_resource(
            StackName=name, LogicalResourceId="Secret")["StackResourceDetail"]
        assert detail["Metadata"] == '{"role": "db"}'
    finally:
        cfn.delete_stack(StackName=name)
    stack = cfn_settled(cfn, arn)
    assert stack["StackStatus"] == "DELETE_COMPLETE"


def test_validate_and_estimate(served: RunningServer) -> None:
    cfn = client(served)
    valid = cfn.validate_template(TemplateBody=TEMPLATE % "web")
    assert valid["Description"] == "A CFN API test"
    assert valid["Parameters"] == [{"ParameterKey": "Length", "DefaultValue": "8",
                                    "NoEcho": False, "Description": ""}]
    assert cfn.estimate_template_cost(TemplateBody=TEMPLATE % "web")["Url"].startswith("http")


def test_bad_requests_get_aws_errors_and_change_nothing(served: RunningServer) -> None:
    cfn = client(served)
    before = {s["StackId"] for s in cfn.list_stacks()["StackSummaries"]}
    assert error_of(cfn.describe_stacks, StackName="no-such-stack") == (
        "InvalidParameterValue", 400)
    assert error_of(cfn.create_stack, StackName="bad", TemplateBody="Resources: [1, 2]")[0] \
        == "InvalidParameterValue"
    name = f"twice-{uuid.uuid4().hex[:6]}"
    arn = cfn.create_stack(StackName=name, TemplateBody=TEMPLATE % "web")["StackId"]
    try:
        assert error_of(cfn.create_stack, StackName=name, TemplateBody=TEMPLATE % "web") == (
            "AlreadyExists", 400)
    finally:
        cfn_settled(cfn, arn)
        cfn.delete_stack(StackName=arn)
        assert cfn_settled(cfn, arn)["StackStatus"] == "DELETE_COMPLETE"
    # Wrong secret, an unknown key: refused before anything is read.
    assert error_of(client(served, secret="wrong").list_stacks) == (
        "SignatureDoesNotMatch", 403)
    assert error_of(client(served, access="AKNOBODY").list_stacks) == (
        "InvalidClientTokenId", 403)
    # Another project's keys see none of this project's stacks.
    other = client(served, OTHER_ACCESS, OTHER_SECRET)
    assert other.list_stacks()["StackSummaries"] == []
    after = {s["StackId"] for s in cfn.list_stacks()["StackSummaries"]
             if s["StackStatus"] != "DELETE_COMPLETE"}
    assert after <= before


def signed_v2(served: RunningServer, params: dict[str, str], *, secret: str = SECRET,
              when: datetime | None = None) -> dict[str, str]:
    """Query parameters signed with Signature Version 2, as boto 2 and cfn tools sign."""
    stamp = (when or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    full = {**params, "AWSAccessKeyId": ACCESS, "SignatureVersion": "2",
            "SignatureMethod": "HmacSHA256", "Timestamp": stamp}
    netloc = urlparse(served.cfn_url).netloc
    signature = Ec2Signer(secret).generate(
        {"params": full, "verb": "GET", "host": netloc, "path": "/v1/"})
    return {**full, "Signature": signature}


def test_signature_version_2_and_its_refusals(served: RunningServer) -> None:
    url = f"{served.cfn_url}/v1/"
    ok = requests.get(url, params=signed_v2(served, {"Action": "ListStacks"}), timeout=10)
    assert ok.status_code == 200 and ok.headers["Content-Type"].startswith("application/xml")
    assert "<ListStacksResponse><ListStacksResult><StackSummaries" in ok.text

    altered = signed_v2(served, {"Action": "ListStacks"})
    altered["Action"] = "DescribeStacks"
    resp = requests.get(url, params=altered, timeout=10)
    assert resp.status_code == 403
    assert "<Code>SignatureDoesNotMatch</Code>" in resp.text
    assert "<Type>Sender</Type>" in resp.text

    old = datetime.now(UTC) - timedelta(hours=1)
    resp = requests.get(url, params=signed_v2(served, {"Action": "ListStacks"}, when=old),
                        timeout=10)
    assert resp.status_code == 400 and "<Code>RequestExpired</Code>" in resp.text

    unsigned = requests.get(f"{url}?{urlencode({'Action': 'ListStacks'})}", timeout=10)
    assert unsigned.status_code == 400 and "<Code>IncompleteSignature</Code>" in unsigned.text

    unknown = requests.get(url, params=signed_v2(served, {"Action": "Explode"}), timeout=10)
    assert unknown.status_code == 400 and "<Code>InvalidAction</Code>" in unknown.text

    as_json = requests.get(url, params=signed_v2(
        served, {"Action": "ListStacks", "ContentType": "JSON"}), timeout=10)
    assert as_json.headers["Content-Type"].startswith("application/json")
    summaries = as_json.json()["ListStacksResponse"]["ListStacksResult"]["StackSummaries"]
    assert isinstance(summaries, list)


def test_versions_document(served: RunningServer) -> None:
    resp = requests.get(f"{served.cfn_url}/", timeout=10)
    assert resp.status_code == 300
    assert resp.json()["versions"][0]["id"] == "v1.0"


SLOW = """\
heat_template_version: 2018-08-31
parameters:
  value: {type: string}
resources:
  slow:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: value}
      action_wait_secs: {update: 30}
"""


def test_cancel_update_rolls_back(served: RunningServer) -> None:
    cfn = client(served)
    name = f"cancel-{uuid.uuid4().hex[:6]}"
    arn = cfn.create_stack(StackName=name, TemplateBody=SLOW, Parameters=[
        {"ParameterKey": "value", "ParameterValue": "one"}])["StackId"]
    try:
        assert cfn_settled(cfn, arn)["StackStatus"] == "CREATE_COMPLETE"
        # Nothing to cancel yet: refused, nothing changes.
        code = error_of(cfn.cancel_update_stack, StackName=arn)[0]
        assert code == "InvalidParameterValue"
        cfn.update_stack(StackName=arn, TemplateBody=SLOW, Parameters=[
            {"ParameterKey": "value", "ParameterValue": "two"}])
        deadline = time.monotonic() + TIMEOUT
        while cfn.describe_stacks(StackName=arn)["Stacks"][0]["StackStatus"] != \
                "UPDATE_IN_PROGRESS":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        cfn.cancel_update_stack(StackName=arn)
        stack = cfn_settled(cfn, arn)
        assert stack["StackStatus"] == "ROLLBACK_COMPLETE", stack["StackStatusReason"]
        params = {p["ParameterKey"]: p["ParameterValue"] for p in stack["Parameters"]}
        assert params["value"] == "one"
    finally:
        cfn.delete_stack(StackName=arn)
    assert cfn_settled(cfn, arn)["StackStatus"] == "DELETE_COMPLETE"


def test_signal_urls_take_only_their_method(served: RunningServer) -> None:
    arn = "arn:openstack:heat::demo:stacks/s/1/resources/handle"
    for path, allowed in (("waitcondition", "PUT"), ("signal", "POST")):
        resp = requests.get(f"{served.cfn_url}/v1/{path}/{arn}", timeout=10)
        assert (resp.status_code, resp.headers["Allow"]) == (405, allowed)
        assert "<Code>InvalidAction</Code>" in resp.text


def test_template_over_a_budget_is_refused_before_any_work(served: RunningServer) -> None:
    # 20,000 copies of a kilobyte: a value over the default 16 Mi characters.
    big = json.dumps({
        "heat_template_version": "2021-04-16",
        "parameters": {"items": {"type": "comma_delimited_list"}},
        "resources": {"big": {"type": "OS::Heat::Value", "properties": {"value": {"repeat": {
            "template": "y" * 1000, "for_each": {"%v%": {"get_param": "items"}}}}}}},
    })
    cfn = client(served)
    params = [{"ParameterKey": "items", "ParameterValue": ",".join(["i"] * 20_000)}]
    code, status = error_of(cfn.create_stack, StackName="too-big", TemplateBody=big,
                            Parameters=params)
    assert (code, status) == ("RequestLimitExceeded", 400)
    assert "too-big" not in {s["StackName"] for s in cfn.list_stacks()["StackSummaries"]}
