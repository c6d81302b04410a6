"""AWS::IAM::User, AWS::IAM::AccessKey and OS::Heat::AccessPolicy against the real Keystone,
through ``hearth serve`` with ``auth_strategy = keystone`` and Heat's stack user domain, as the
demo user with python-heatclient.

The user is a stack domain user in the stack's user project with the stack user role; the key
is a Keystone EC2 credential of it whose secret the AccessKey's SecretAccessKey gives, and with
which boto3 reads through the CFN API what the user's AccessPolicy lists (and nothing else);
suspend and resume disable and enable the user, and the stack's delete removes all of it
(checked, and cleaned up if a test failed half-way).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3

from hearth.cli.serve import RunningServer, serving
from tests.integration.api.keystone_fixtures import (  # noqa: F401 (fixtures used by name)
    KEYSTONE_URL,
    SERVICE,
    Keystone,
    KeystoneUsers,
    keystone,
    keystone_server_conf,
    keystone_users,
    stack_domain_options,
)
from tests.integration.keystone.test_stack_users import (  # noqa: F401 (fixtures by name)
    Leftovers,
    demo_heat,
    domain_id,
    exists,
    leftovers,
    settle,
)

# It acts as the demo user, whose resources the devcloud's tests share.
pytestmark = pytest.mark.xdist_group("devcloud")


def template(password: str) -> dict[str, Any]:
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {
            "server": {"Type": "OS::Heat::None", "Metadata": {"for": "server"}},
            "policy": {"Type": "OS::Heat::AccessPolicy",
                       "Properties": {"AllowedResources": ["server"]}},
            "user": {"Type": "AWS::IAM::User",
                     "Properties": {"Policies": [{"Ref": "policy"}],
                                    "LoginProfile": {"Password": password}}},
            "key": {"Type": "AWS::IAM::AccessKey",
                    "Properties": {"UserName": {"Ref": "user"}}},
        },
        "Outputs": {
            "secret": {"Value": {"Fn::GetAtt": ["key", "SecretAccessKey"]}},
            "access": {"Value": {"Ref": "key"}},
            "user": {"Value": {"Ref": "user"}},
        },
    }


@pytest.fixture(scope="module")
def served(
    keystone: Keystone, keystone_users: KeystoneUsers,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[RunningServer]:
    conf = keystone_server_conf(tmp_path_factory.mktemp("hearth-iam"), trustee=True,
                                stack_domain=True)
    with serving(conf) as running:
        yield running


def cfn_client(served: RunningServer, access: str, secret: str) -> Any:
    return boto3.client(
        "cloudformation", endpoint_url=f"{served.cfn_url}/v1/", region_name="RegionOne",
        aws_access_key_id=access, aws_secret_access_key=secret,
        config=Config(retries={"max_attempts": 1}),
    )


def refused(call: Any, **kwargs: Any) -> tuple[str, int]:
    with pytest.raises(ClientError) as caught:
        call(**kwargs)
    info = caught.value.response
    return info["Error"]["Code"], info["ResponseMetadata"]["HTTPStatusCode"]


def user_token_roles(user_id: str, password: str, project_id: str) -> list[str]:
    auth = v3.Password(auth_url=KEYSTONE_URL, user_id=user_id, password=password,
                       project_id=project_id)
    return list(auth.get_access(ks_session.Session(auth=auth)).role_names or [])


def test_user_and_access_key_are_keystone_user_and_ec2_credential(
    served: RunningServer, keystone: Keystone, keystone_users: KeystoneUsers,  # noqa: F811
    domain_id: str, leftovers: Leftovers,  # noqa: F811
) -> None:
    hc = demo_heat(served, keystone_users)
    name = f"iam-{secrets.token_hex(3)}"
    leftovers.append(name)
    password = secrets.token_urlsafe(16)
    stack_id = hc.stacks.create(stack_name=name, template=template(password))["stack"]["id"]
    leftovers.append(stack_id[:20])  # project names keep 64 characters
    stack = settle(hc, stack_id)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    project_id = stack.stack_user_project_id
    outputs = {o["output_key"]: o["output_value"] for o in stack.outputs}

    # The user: of the stack domain, in the stack's user project, with the stack user role;
    # Ref gives its name, the resource its id; it logs in with the LoginProfile's password.
    user_id = hc.resources.get(stack_id, "user").physical_resource_id
    user = keystone._call("GET", f"/users/{user_id}").json()["user"]
    assert user["name"] == outputs["user"] and f"{name}-user-" in user["name"]
    assert (user["domain_id"], user["default_project_id"]) == (domain_id, project_id)
    role = keystone.get("/roles", "roles", name="heat_stack_user")[0]["id"]
    grants = keystone.get("/role_assignments", "role_assignments",
                          **{"user.id": user_id, "scope.project.id": project_id})
    assert [g["role"]["id"] for g in grants] == [role]
    assert user_token_roles(user_id, password, project_id) == ["heat_stack_user"]

    # The key: the user's one EC2 credential, in the same project; Ref is its access key and
    # SecretAccessKey its secret.
    (credential,) = keystone.get("/credentials", "credentials", user_id=user_id, type="ec2")
    blob = json.loads(credential["blob"])
    assert credential["project_id"] == project_id
    assert hc.resources.get(stack_id, "key").physical_resource_id == blob["access"]
    assert (outputs["access"], outputs["secret"]) == (blob["access"], blob["secret"])
    assert len(blob["secret"]) >= 32
    assert hc.resources.get(stack_id, "policy").physical_resource_id == ""

    # Signed with the key, the CFN API's DescribeStackResource reads what the user's policy
    # lists, and nothing else.
    cfn = cfn_client(served, blob["access"], blob["secret"])
    detail = cfn.describe_stack_resource(StackName=name, LogicalResourceId="server")
    assert json.loads(detail["StackResourceDetail"]["Metadata"]) == {"for": "server"}
    for other in ("user", "key", "nope"):
        assert refused(cfn.describe_stack_resource, StackName=name,
                       LogicalResourceId=other) == ("AccessDenied", 403)
    assert refused(cfn.describe_stacks, StackName=name) == ("AccessDenied", 403)

    # Suspend disables the user (its key with it), resume enables it again.
    hc.actions.suspend(stack_id)
    assert settle(hc, stack_id).stack_status == "SUSPEND_COMPLETE"
    assert keystone._call("GET", f"/users/{user_id}").json()["user"]["enabled"] is False
    code, status = refused(cfn.describe_stack_resource, StackName=name,
                           LogicalResourceId="server")
    assert status in (401, 403), (code, status)
    hc.actions.resume(stack_id)
    assert settle(hc, stack_id).stack_status == "RESUME_COMPLETE"
    assert keystone._call("GET", f"/users/{user_id}").json()["user"]["enabled"] is True

    hc.stacks.delete(stack_id)
    gone = settle(hc, stack_id)
    assert gone is None or gone.stack_status == "DELETE_COMPLETE", gone.stack_status_reason
    assert not exists(keystone, "credentials", credential["id"])
    assert not exists(keystone, "users", user_id)
    assert not exists(keystone, "projects", project_id)
    assert leftovers() == [], "the stack's delete left these in Keystone"
