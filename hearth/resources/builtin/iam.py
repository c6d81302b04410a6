"""AWS::IAM::User and AWS::IAM::AccessKey: a Keystone user of the stack user domain
(hearth.resources.stack_users_api) and EC2 keypairs of it, with which instances sign their
CFN API calls (cfn-hup, cfn-get-metadata, os-collect-config's cfn source).

What a key's holder may read of the stack is decided by hearth.resources.iam_access from the
user's ``Policies`` (OS::Heat::AccessPolicy resources). As in Heat, Groups, Path and the
key's Serial and Status are accepted and do nothing.
"""

from __future__ import annotations

import secrets
from typing import Any

from hearth.common.errors import HearthError, InvalidTemplateAttribute, NotFound
from hearth.resources.attributes import AttributeSchema
from hearth.resources.base import NO_DESCRIPTION, Resource
from hearth.resources.builtin.access_policy import AccessPolicy
from hearth.resources.iam_access import POLICIES, USER_NAME
from hearth.resources.schema import PropertySchema as P
from hearth.resources.stack_users_api import StackUsers
from hearth.template.constraints import AllowedValues

LOGIN_PROFILE = "LoginProfile"
PASSWORD = "Password"
SECRET_ACCESS_KEY = "SecretAccessKey"
# The AccessKey's resource data (both redacted): its Keystone credential and the secret.
CREDENTIAL_ID_KEY = "credential_id"
SECRET_KEY = "secret_key"
# Heat's SecretAccessKey when the key has no secret (not created, or it was lost).
NO_SECRET = "000-000-000"
NOT_IMPLEMENTED = "Not Implemented."


def _stack_users(resource: Resource) -> StackUsers:
    """The stack users, or an error naming what to configure for them."""
    users = resource.context.stack_users
    why = users.configured()
    if why is not None:
        raise HearthError(f"{resource.type_name} needs Keystone's stack user domain: {why}")
    return users


class User(Resource):
    type_description = NO_DESCRIPTION
    properties_schema = {
        "Path": P(P.STRING, NOT_IMPLEMENTED),
        "Groups": P(P.LIST, NOT_IMPLEMENTED),
        LOGIN_PROFILE: P(
            P.MAP, "A login profile for the user.", schema={PASSWORD: P(P.STRING)}
        ),
        POLICIES: P(P.LIST, "Access policies to apply to the user."),
    }

    def _policies_exist(self) -> bool:
        """Every string in Policies names an AccessPolicy of the stack (others are ignored:
        Heat never applied inline IAM policies, and templates carrying them still work)."""
        for policy in self.properties[POLICIES] or ():
            if not isinstance(policy, str):
                continue
            found = self.context.peer(policy)
            if not isinstance(found, AccessPolicy) or found.name != policy:
                return False
        return True

    def handle_create(self) -> None:
        # Heat checks the template's policies before it asks Keystone for anything.
        if self.properties[POLICIES] and not self._policies_exist():
            raise InvalidTemplateAttribute(self.name, POLICIES)
        users = _stack_users(self)
        profile = self.properties[LOGIN_PROFILE] or {}
        # Without a login profile nobody is meant to log in: a password nobody knows.
        password = profile.get(PASSWORD) or secrets.token_urlsafe(24)
        made = users.create_user(password)
        self.resource_id_set(made.user_id)

    def get_reference_id(self) -> str | None:
        # The user's name (what AWS gives); the resource id is Keystone's user id.
        return self.physical_resource_name()

    def handle_delete(self) -> None:
        # Keystone deletes the user's EC2 credentials with it (an AccessKey whose delete was
        # skipped, e.g. by its Retain policy, leaves nothing behind).
        if self.resource_id:
            self.context.stack_users.delete_user(self.resource_id)

    def handle_suspend(self) -> None:
        if self.resource_id:
            self.context.stack_users.disable_user(self.resource_id)

    def handle_resume(self) -> None:
        if self.resource_id:
            self.context.stack_users.enable_user(self.resource_id)


class AccessKey(Resource):
    type_description = NO_DESCRIPTION
    properties_schema = {
        "Serial": P(P.INTEGER, NOT_IMPLEMENTED, implemented=False),
        USER_NAME: P(
            P.STRING, "The name of the user that the new key will belong to.", required=True
        ),
        "Status": P(
            P.STRING, NOT_IMPLEMENTED, implemented=False,
            constraints=[AllowedValues(["Active", "Inactive"])],
        ),
    }
    attributes_schema = {
        USER_NAME: AttributeSchema(
            "Username associated with the AccessKey.",
            cache_mode=AttributeSchema.CACHE_NONE, type=AttributeSchema.STRING,
        ),
        SECRET_ACCESS_KEY: AttributeSchema(
            "Keypair secret key.",
            cache_mode=AttributeSchema.CACHE_NONE, type=AttributeSchema.STRING,
        ),
    }
    # The secret is read from the (encrypted) resource data when a template asks for it,
    # never kept in the clear with the attributes resource show reports.
    uncached_attributes = frozenset({SECRET_ACCESS_KEY})

    def _user(self) -> User | None:
        """The User of the stack whose reference (its user name) is UserName."""
        name = self.properties[USER_NAME]
        found = self.context.peer(name)
        if isinstance(found, User) and found.get_reference_id() == name:
            return found
        return None

    def handle_create(self) -> None:
        user = self._user()
        if user is None or not user.resource_id:
            raise NotFound(f"could not find user {self.properties[USER_NAME]}")
        users = _stack_users(self)
        keypair = users.create_ec2_keypair(user.resource_id)
        # Recorded before anything else can fail, so the delete finds the credential.
        self.data_set(CREDENTIAL_ID_KEY, keypair.credential_id, redact=True)
        self.data_set(SECRET_KEY, keypair.secret, redact=True)
        # The access key is the resource id, so Ref gives it (as AWS and Heat do).
        self.resource_id_set(keypair.access)

    def handle_delete(self) -> None:
        credential_id = self.data().get(CREDENTIAL_ID_KEY)
        if credential_id:
            self.context.stack_users.delete_ec2_keypair(credential_id)
            self.data_delete(CREDENTIAL_ID_KEY)
        self.data_delete(SECRET_KEY)

    def _resolve_attribute(self, name: str) -> Any:
        if name == USER_NAME:
            return self.properties[USER_NAME]
        if name == SECRET_ACCESS_KEY:
            return (self.data().get(SECRET_KEY) if self.resource_id else None) or NO_SECRET
        return None
