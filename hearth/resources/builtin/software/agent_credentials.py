"""What a resource hands the in-instance agent to reach Hearth: a secret URL of Hearth's own
(no Keystone needed), or the Keystone credentials of a stack user (hearth.resources
.stack_users_api), both kept in the resource's data (secrets redacted)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hearth.common.errors import HearthError
from hearth.resources.context import METADATA, SIGNAL, signal_token_key

if TYPE_CHECKING:
    from hearth.resources.base import Resource

USER_ID, PASSWORD, PROJECT_ID, USERNAME, AUTH_URL, REGION = (
    "user_id", "password", "stack_user_project_id", "stack_username", "stack_user_auth_url",
    "stack_user_region",
)
# The stack user's EC2 keypair (CFN API: POLL_SERVER_CFN, CFN_SIGNAL with Keystone).
ACCESS_KEY, SECRET_KEY, CREDENTIAL_ID = "access_key", "secret_key", "credential_id"


def secret_url(resource: Resource, kind: str) -> str:
    """The resource's URL of ``kind`` (signal or metadata), made once per resource."""
    key = signal_token_key(kind)
    secret = resource.data().get(key)
    if not secret:
        secret = secrets.token_urlsafe(32)
        resource.data_set(key, secret, redact=True)
    return resource.context.signal_url(kind, secret)


def drop_secret_urls(resource: Resource) -> None:
    data = resource.data()
    for kind in (SIGNAL, METADATA):
        if signal_token_key(kind) in data:
            resource.data_delete(signal_token_key(kind))


@dataclass(frozen=True)
class AgentUser:
    user_id: str
    username: str
    password: str
    project_id: str
    auth_url: str
    region_name: str | None


def stack_user(resource: Resource) -> AgentUser:
    """The resource's stack user (made on first use): POLL_SERVER_HEAT / HEAT_SIGNAL."""
    data = resource.data()
    if data.get(USER_ID) and data.get(PASSWORD):
        return AgentUser(data[USER_ID], data.get(USERNAME, ""), data[PASSWORD],
                         data.get(PROJECT_ID, ""), data.get(AUTH_URL, ""),
                         data.get(REGION) or None)
    users = resource.context.stack_users
    why = users.configured()
    if why is not None:
        raise HearthError(f"Keystone credentials for the server's agent need a stack user "
                          f"domain: {why}")
    password = secrets.token_urlsafe(24)
    made = users.create_user(password)
    resource.data_set(USER_ID, made.user_id)
    resource.data_set(PASSWORD, password, redact=True)
    resource.data_set(PROJECT_ID, made.project_id)
    resource.data_set(USERNAME, made.username)
    resource.data_set(AUTH_URL, made.auth_url)
    if made.region_name:
        resource.data_set(REGION, made.region_name)
    return AgentUser(made.user_id, made.username, password, made.project_id, made.auth_url,
                     made.region_name)


def signs_for_cfn(resource: Resource) -> bool:
    """Whether the resource's agent can use the CFN API as a stack user: a stack user domain
    is configured and the CFN API is served."""
    context = resource.context
    return context.stack_users.configured() is None and context.cfn_api_url() is not None


def keypair(resource: Resource) -> tuple[str, str]:
    """The stack user's EC2 keypair (access, secret), made on first use."""
    data = resource.data()
    if data.get(ACCESS_KEY) and data.get(SECRET_KEY):
        return data[ACCESS_KEY], data[SECRET_KEY]
    user = stack_user(resource)
    made = resource.context.stack_users.create_ec2_keypair(user.user_id)
    resource.data_set(CREDENTIAL_ID, made.credential_id)
    resource.data_set(ACCESS_KEY, made.access)
    resource.data_set(SECRET_KEY, made.secret, redact=True)
    return made.access, made.secret


def cfn_signal_url(resource: Resource, kind: str = SIGNAL) -> str | None:
    """The CFN API's ``/v1/<kind>/<ARN>`` URL pre-signed with the stack user's keypair."""
    access, secret = keypair(resource)
    return resource.context.cfn_signal_url(kind, access, secret)


def drop_stack_user(resource: Resource) -> None:
    data = resource.data()
    user_id = data.get(USER_ID)
    if not user_id:
        return
    if data.get(CREDENTIAL_ID):
        resource.context.stack_users.delete_ec2_keypair(data[CREDENTIAL_ID])
    resource.context.stack_users.delete_user(user_id)
    for key in (USER_ID, PASSWORD, PROJECT_ID, USERNAME, AUTH_URL, REGION, ACCESS_KEY,
                SECRET_KEY, CREDENTIAL_ID):
        resource.data_delete(key)
