"""The CFN API's XML shapes, query parsing and error mapping, without a server."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from hearth.api.cfn import params, serialize
from hearth.api.cfn.errors import CfnError, from_engine
from hearth.common.errors import ActionInProgress, EntityNotFound, StackExists


def test_lists_become_members_and_json_keys_stay_text() -> None:
    doc = serialize.envelope("DescribeStackResource", {"StackResourceDetail": {
        "LogicalResourceId": "web", "Metadata": {"a": [1, 2]}, "Unset": None,
        "Outputs": [{"OutputKey": "x"}, {"OutputKey": "y"}], "Empty": [],
    }})
    root = ET.fromstring(serialize.to_xml(doc))
    assert root.tag == "DescribeStackResourceResponse"
    detail = root.find("DescribeStackResourceResult/StackResourceDetail")
    assert detail is not None
    assert detail.findtext("Metadata") == '{"a": [1, 2]}'
    assert [m.findtext("OutputKey") for m in detail.findall("Outputs/member")] == ["x", "y"]
    assert detail.find("Unset") is None and detail.find("Empty") is not None


def test_error_body() -> None:
    error = from_engine(EntityNotFound("Stack", "nope"))
    root = ET.fromstring(serialize.error_xml(error))
    assert root.findtext("Error/Code") == "InvalidParameterValue"
    assert root.findtext("Error/Type") == "Sender"
    assert root.findtext("Error/Message", "").startswith(
        "A bad or out-of-range value was supplied:")
    assert from_engine(StackExists("s")).kind.code == "AlreadyExists"
    assert from_engine(ActionInProgress("s", "UPDATE")).kind.code == "InvalidAction"
    # A bug's message is not shown.
    assert from_engine(KeyError("secret")).detail is None


def test_parameters_members_and_arguments() -> None:
    query = {"Parameters.member.2.ParameterKey": "b", "Parameters.member.2.ParameterValue": "2",
             "Parameters.member.1.ParameterKey": "a", "Parameters.member.1.ParameterValue": "1",
             "Parameters.member.3.ParameterKey": "lonely"}
    assert params.user_parameters(query) == {"a": "1", "b": "2"}
    assert params.stack_args({"TimeoutInMinutes": "5", "DisableRollback": "True"}) == {
        "timeout_mins": 5, "disable_rollback": True}
    assert params.stack_args({"OnFailure": "DO_NOTHING"}) == {"disable_rollback": True}
    for bad in ({"DisableRollback": "true", "OnFailure": "ROLLBACK"},
                {"TimeoutInMinutes": "0"}, {"TimeoutInMinutes": "soon"},
                {"DisableRollback": "maybe"}):
        with pytest.raises(CfnError):
            params.stack_args(bad)
    with pytest.raises(CfnError) as caught:
        params.template({}, 1000)
    assert caught.value.kind.code == "MissingParameter"
    with pytest.raises(CfnError) as caught:
        params.template({"TemplateBody": "x" * 2000}, 1000)
    assert caught.value.kind.code == "InvalidParameterValue"
