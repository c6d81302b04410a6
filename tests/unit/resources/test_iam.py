"""AWS::IAM::User, AWS::IAM::AccessKey and OS::Heat::AccessPolicy as plugins (Keystone in
memory), and the rule deciding what an access key's holder may read of its stack."""

from __future__ import annotations

from typing import Any

import pytest

from hearth.common.errors import (
    HearthError,
    InvalidTemplateAttribute,
    NotFound,
    StackValidationFailed,
)
from hearth.resources.builtin.access_policy import AccessPolicy
from hearth.resources.builtin.iam import AccessKey, User
from hearth.resources.iam_access import (
    ACCESS_KEY_TYPE,
    ACCESS_POLICY_TYPE,
    USER_TYPE,
    IamResource,
    access_key_allows,
)
from tests.unit.resources.fakes import FakeResourceContext, FakeStackUsers, make

# --- the access rule ---------------------------------------------------------------------------


def key(access: str = "AK", user: str = "stack-user-abc", name: str = "key") -> IamResource:
    return IamResource(name, ACCESS_KEY_TYPE, access, access, {"UserName": user})


def user(policies: Any = None, ref: str = "stack-user-abc", name: str = "user") -> IamResource:
    return IamResource(name, USER_TYPE, "keystone-id", ref, {"Policies": policies})


def policy(name: str, *allowed: str) -> IamResource:
    return IamResource(name, ACCESS_POLICY_TYPE, None, name, {"AllowedResources": list(allowed)})


def test_a_user_without_policies_lets_its_keys_read_every_resource() -> None:
    for policies in (None, []):
        stack = [key(), user(policies)]
        assert access_key_allows(stack, "AK", "server")
        assert access_key_allows(stack, "AK", "anything")


def test_every_policy_of_the_user_must_list_the_resource() -> None:
    stack = [key(), user(["p1", "p2"]), policy("p1", "server", "db"), policy("p2", "server")]
    assert access_key_allows(stack, "AK", "server")
    assert not access_key_allows(stack, "AK", "db")  # p2 does not list it
    assert not access_key_allows(stack, "AK", "web")


def test_non_string_policies_are_ignored_and_bad_names_grant_nothing() -> None:
    assert access_key_allows([key(), user([{"inline": "iam"}])], "AK", "server")
    assert not access_key_allows([key(), user(["gone"])], "AK", "server")
    # A resource of another type is no policy, whatever its properties say.
    fake = IamResource("p", "OS::Heat::None", None, "p", {"AllowedResources": ["server"]})
    assert not access_key_allows([key(), user(["p"]), fake], "AK", "server")


def test_only_the_key_the_caller_signed_with_and_its_own_user_count() -> None:
    stack = [key("AK1", user="alice-ref"), key("AK2", user="bob-ref", name="key2"),
             user(["p"], ref="alice-ref", name="alice"), user(None, ref="bob-ref", name="bob"),
             policy("p", "server")]
    assert not access_key_allows(stack, "AK1", "db")
    assert access_key_allows(stack, "AK2", "db")  # bob has no policies
    assert not access_key_allows(stack, "nope", "server")
    assert not access_key_allows(stack, "", "server")
    # A key whose user is not in the stack grants nothing.
    assert not access_key_allows([key(user="someone-else"), user()], "AK", "server")


# --- the plugins -----------------------------------------------------------------------------


def iam_context(name: str, users: FakeStackUsers, **peers: Any) -> FakeResourceContext:
    return FakeResourceContext(resource_name=name, stack_users=users, peers=dict(peers))


def make_user(users: FakeStackUsers, props: dict[str, Any] | None = None,
              **peers: Any) -> User:
    made, _ctx = make(User, props or {}, name="user", type_name="AWS::IAM::User",
                      context=iam_context("user", users, **peers))
    assert isinstance(made, User)
    return made


def test_a_user_is_a_stack_user_named_by_its_physical_name() -> None:
    users = FakeStackUsers()
    res = make_user(users, {"LoginProfile": {"Password": "pa55word"}, "Path": "/x",
                            "Groups": ["g"]})
    res.handle_create()
    assert res.resource_id in users.users
    assert users.users[str(res.resource_id)]["password"] == "pa55word"
    # Ref is the user's name, not its Keystone id.
    assert res.get_reference_id() == res.physical_resource_name()
    assert res.get_reference_id().startswith("teststack-user-")

    res.handle_suspend()
    assert users.users[str(res.resource_id)]["enabled"] is False
    res.handle_resume()
    assert users.users[str(res.resource_id)]["enabled"] is True
    res.handle_delete()
    assert users.users == {}


def test_a_user_without_login_profile_gets_a_password_nobody_knows() -> None:
    users = FakeStackUsers()
    res = make_user(users)
    res.handle_create()
    assert len(users.users[str(res.resource_id)]["password"]) >= 24


def test_user_policies_must_name_access_policies_of_the_stack() -> None:
    users = FakeStackUsers()
    pol, _ = make(AccessPolicy, {"AllowedResources": ["user"]}, name="pol")
    other, _ = make(AccessPolicy, {"AllowedResources": ["user"]}, name="other")
    ok = make_user(users, {"Policies": ["pol", {"inline": 1}]}, pol=pol)
    ok.handle_create()
    assert ok.resource_id in users.users
    for policies, peers in ((["gone"], {}), (["pol"], {"pol": other}),
                            (["user"], {"user": ok})):
        bad = make_user(users, {"Policies": policies}, **peers)
        with pytest.raises(InvalidTemplateAttribute) as caught:
            bad.handle_create()
        assert str(caught.value) == "The Referenced Attribute (user Policies) is incorrect."
    assert len(users.users) == 1  # nothing was made for the bad ones


def test_without_a_stack_user_domain_the_message_names_the_options() -> None:
    users = FakeStackUsers(why_not="no stack user domain is configured (stack_domain_admin)")
    with pytest.raises(HearthError, match=r"^AWS::IAM::User needs Keystone's stack user "
                                          r"domain: no stack user domain .*stack_domain_admin"):
        make_user(users).handle_create()


def make_key(users: FakeStackUsers, user_name: str, **peers: Any) -> AccessKey:
    made, _ctx = make(AccessKey, {"UserName": user_name}, name="key",
                      type_name="AWS::IAM::AccessKey", context=iam_context("key", users, **peers))
    assert isinstance(made, AccessKey)
    return made


def test_an_access_key_is_an_ec2_keypair_of_its_user() -> None:
    users = FakeStackUsers()
    owner = make_user(users)
    owner.handle_create()
    ref = str(owner.get_reference_id())
    res = make_key(users, ref, **{ref: owner})
    assert res.get_attribute("SecretAccessKey") == "000-000-000"  # not created yet
    res.handle_create()
    ((credential_id, (user_id, keypair)),) = users.keypairs.items()
    assert user_id == owner.resource_id
    assert res.get_reference_id() == keypair.access == res.resource_id
    assert res.get_attribute("SecretAccessKey") == keypair.secret
    assert res.get_attribute("UserName") == ref
    ctx = res.context
    assert isinstance(ctx, FakeResourceContext)
    assert ctx.stored == {"credential_id": credential_id, "secret_key": keypair.secret}
    assert ctx.redacted == {"credential_id", "secret_key"}
    # The secret is read when asked for, never stored with the other attributes.
    assert "SecretAccessKey" in AccessKey.uncached_attributes

    res.handle_delete()
    assert users.keypairs == {} and ctx.stored == {}
    res.handle_delete()  # again: nothing left to do


def test_an_access_key_of_an_unknown_user_is_not_found() -> None:
    users = FakeStackUsers()
    owner = make_user(users)
    owner.handle_create()
    for name, peers in (("bob", {}), ("user", {"user": owner})):  # by name is not by Ref
        with pytest.raises(NotFound, match=rf"^could not find user {name}$"):
            make_key(users, name, **peers).handle_create()
    assert users.keypairs == {}


def test_two_keys_of_one_user_each_get_their_own_keypair() -> None:
    # Heat fails the second one (AttributeError); Hearth makes both.
    users = FakeStackUsers()
    owner = make_user(users)
    owner.handle_create()
    ref = str(owner.get_reference_id())
    first, second = make_key(users, ref, **{ref: owner}), make_key(users, ref, **{ref: owner})
    first.handle_create()
    second.handle_create()
    assert first.resource_id != second.resource_id and len(users.keypairs) == 2
    owner.handle_delete()
    assert users.keypairs == {}


def test_access_policy_resources_must_be_in_the_stack() -> None:
    types = {"pol": ACCESS_POLICY_TYPE, "server": "OS::Heat::None"}
    AccessPolicy.validate_definition("pol", {"AllowedResources": ["server", "pol"]},
                                     resources=types)
    with pytest.raises(StackValidationFailed) as caught:
        AccessPolicy.validate_definition("pol", {"AllowedResources": ["server", "db"]},
                                         resources=types)
    assert str(caught.value) == "AccessPolicy resource db not in stack"
    # Without a stack (a lone definition) only the schema is checked.
    AccessPolicy.validate_definition("pol", {"AllowedResources": ["db"]})
    with pytest.raises(StackValidationFailed, match="Property AllowedResources not assigned"):
        AccessPolicy.validate_definition("pol", {}, resources=types)
    pol, _ = make(AccessPolicy, {"AllowedResources": ["server"]}, name="pol")
    assert isinstance(pol, AccessPolicy)
    assert pol.access_allowed("server") and not pol.access_allowed("db")


def test_access_key_serial_and_status_are_not_implemented() -> None:
    for props, message in (
        ({"UserName": "u", "Status": "Active"}, "Property Status not implemented yet"),
        ({"UserName": "u", "Serial": 1}, "Property Serial not implemented yet"),
        ({"UserName": "u", "Status": "X"},
         'Status: "X" is not an allowed value ["Active", "Inactive"]'),
        ({}, "Property UserName not assigned"),
    ):
        with pytest.raises(StackValidationFailed) as caught:
            AccessKey.validate_definition("K", props, cfn=True)
        assert str(caught.value).endswith(message), str(caught.value)
