"""AWS::IAM::User, AccessKey and OS::Heat::AccessPolicy through the engine (Keystone's stack
user domain in memory; tests/integration/keystone/test_iam.py has the real one): Heat's
validation and failures, the lifecycle, and what an access key's holder may read."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select

from hearth.common.context import RequestContext
from hearth.common.errors import Forbidden, StackValidationFailed
from hearth.engine.engine import Engine
from hearth.engine.plugin_access.plugin_context import EngineResourceContext
from hearth.store.models import ResourceData
from tests.integration.engine.conftest import CTX, events, resources, stack_row, wait_state
from tests.integration.engine.test_lifecycle import create
from tests.unit.resources.fakes import FakeStackUsers

TEMPLATE: dict[str, Any] = {
    "HeatTemplateFormatVersion": "2012-12-12",
    "Resources": {
        "server": {"Type": "OS::Heat::None", "Metadata": {"for": "server"}},
        "db": {"Type": "OS::Heat::None", "Metadata": {"for": "db"}},
        "policy": {"Type": "OS::Heat::AccessPolicy",
                   "Properties": {"AllowedResources": ["server"]}},
        "user": {"Type": "AWS::IAM::User",
                 "Properties": {"Policies": [{"Ref": "policy"}],
                                "LoginProfile": {"Password": "pa55word"}}},
        "key": {"Type": "AWS::IAM::AccessKey", "Properties": {"UserName": {"Ref": "user"}}},
        "open_user": {"Type": "AWS::IAM::User"},
        "open_key": {"Type": "AWS::IAM::AccessKey",
                     "Properties": {"UserName": {"Ref": "open_user"}}},
    },
    "Outputs": {
        "secret": {"Value": {"Fn::GetAtt": ["key", "SecretAccessKey"]}},
        "access": {"Value": {"Ref": "key"}},
        "user_name": {"Value": {"Fn::GetAtt": ["key", "UserName"]}},
    },
}


@pytest.fixture
def users(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeStackUsers]:
    fake = FakeStackUsers()
    monkeypatch.setattr(EngineResourceContext, "stack_users", property(lambda _self: fake))
    yield fake


def cfn(resources_: dict[str, Any]) -> dict[str, Any]:
    return {"HeatTemplateFormatVersion": "2012-12-12", "Resources": resources_}


def outputs(engine: Engine, identity: dict[str, str]) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in stack_row(engine, identity).outputs}


def stack_user(access_key: str | None) -> RequestContext:
    """A caller signed with an EC2 key (what the CFN API's ec2token gives the engine)."""
    return dataclasses.replace(CTX, user_id="agent", roles=("heat_stack_user",),
                               ec2_access_key=access_key)


def test_users_and_keys_are_made_and_removed_with_the_stack(
    engine: Engine, users: FakeStackUsers
) -> None:
    identity = create(engine, TEMPLATE)
    state = wait_state(engine, identity)
    assert state[:2] == ("CREATE", "COMPLETE"), state
    rows = resources(engine, identity)
    user, key = rows["user"], rows["key"]
    assert users.users[user.physical_resource_id]["password"] == "pa55word"
    ((owner, keypair),) = [v for v in users.keypairs.values()
                           if v[1].access == key.physical_resource_id]
    assert owner == user.physical_resource_id
    out = outputs(engine, identity)
    assert out["secret"] == keypair.secret
    assert out["access"] == keypair.access
    # UserName is the user's Ref: its name (the Keystone user's), not its id.
    assert out["user_name"] == user.attr_data["ref"]
    assert out["user_name"].startswith("s-user-")
    # The secret is in no event, and stored encrypted.
    assert all(keypair.secret not in str(e) for e in events(engine, identity))
    with engine.core.db.session() as session:
        stored = {d.key: d for d in session.scalars(
            select(ResourceData).where(ResourceData.resource_id == key.id))}
    assert set(stored) == {"credential_id", "secret_key"}
    assert all(d.redact and keypair.secret not in str(d.value) for d in stored.values())
    shown = engine.describe_stack_resource(CTX, identity, "key")
    assert shown["physical_resource_id"] == keypair.access

    engine.stack_suspend(CTX, identity)
    assert wait_state(engine, identity)[:2] == ("SUSPEND", "COMPLETE")
    assert not any(u["enabled"] for u in users.users.values())
    engine.stack_resume(CTX, identity)
    assert wait_state(engine, identity)[:2] == ("RESUME", "COMPLETE")
    assert all(u["enabled"] for u in users.users.values())

    owner_of = {cid: owner for cid, (owner, _kp) in users.keypairs.items()}
    engine.delete_stack(CTX, identity)
    assert wait_state(engine, identity)[:2] == ("DELETE", "COMPLETE")
    assert users.users == {} and users.keypairs == {}
    deleted = [(call, ident) for call, ident in users.calls if call.startswith("delete")]
    assert sorted(call for call, _ in deleted) == ["delete_ec2_keypair"] * 2 + [
        "delete_user"] * 2
    # Each key (which needs its user) goes before its user; the two pairs do not depend on
    # each other, so their deletes may interleave.
    for position, (call, ident) in enumerate(deleted):
        if call == "delete_ec2_keypair":
            assert ("delete_user", owner_of[ident]) in deleted[position + 1:]


def test_an_access_key_reads_what_its_users_policies_allow(
    engine: Engine, users: FakeStackUsers
) -> None:
    identity = create(engine, TEMPLATE)
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    rows = resources(engine, identity)
    key, open_key = rows["key"].physical_resource_id, rows["open_key"].physical_resource_id

    # The policy lists only the server.
    agent = stack_user(key)
    assert engine.describe_stack_resource(agent, identity, "server")["resource_name"] == "server"
    assert engine.resource_metadata(agent, identity, "server") == {"for": "server"}
    for name in ("db", "key", "nope"):  # an unknown name is refused, not reported missing
        for call in (engine.describe_stack_resource, engine.resource_metadata):
            with pytest.raises(Forbidden):
                call(agent, identity, name)
    # A user without policies: every resource.
    assert engine.resource_metadata(stack_user(open_key), identity, "db") == {"for": "db"}
    # No key, or one of no AccessKey of this stack: nothing.
    for ctx in (stack_user(None), stack_user("not-a-key")):
        with pytest.raises(Forbidden):
            engine.resource_metadata(ctx, identity, "server")
    # The stack's owner is not restricted.
    assert engine.resource_metadata(CTX, identity, "db") == {"for": "db"}


def test_heats_validation_and_failures(engine: Engine, users: FakeStackUsers) -> None:
    policy = {"Type": "OS::Heat::AccessPolicy", "Properties": {"AllowedResources": ["nope"]}}
    with pytest.raises(StackValidationFailed) as caught:
        create(engine, cfn({"policy": policy}), name="bad-policy")
    assert str(caught.value) == "AccessPolicy resource nope not in stack"

    bad = cfn({
        "none": {"Type": "OS::Heat::None"},
        "user": {"Type": "AWS::IAM::User", "Properties": {"Policies": ["none"]}},
    })
    identity = create(engine, bad, name="bad-user")
    assert wait_state(engine, identity)[:2] == ("CREATE", "FAILED")
    assert resources(engine, identity)["user"].status_reason == (
        "InvalidTemplateAttribute: resources.user: The Referenced Attribute (user Policies) is "
        "incorrect."
    )
    identity = create(engine, cfn({"key": {"Type": "AWS::IAM::AccessKey",
                                           "Properties": {"UserName": "bob"}}}), name="no-user")
    assert wait_state(engine, identity)[:2] == ("CREATE", "FAILED")
    assert resources(engine, identity)["key"].status_reason == (
        "NotFound: resources.key: could not find user bob"
    )
    assert users.users == {} and users.keypairs == {}


def test_without_a_stack_user_domain_the_failure_names_the_options(engine: Engine) -> None:
    identity = create(engine, cfn({"user": {"Type": "AWS::IAM::User"}}))
    assert wait_state(engine, identity)[:2] == ("CREATE", "FAILED")
    reason = resources(engine, identity)["user"].status_reason
    assert reason.startswith("HearthError: resources.user: AWS::IAM::User needs Keystone's "
                             "stack user domain: no stack user domain is configured"), reason
    assert "stack_user_domain_name" in reason and "stack_domain_admin_password" in reason
