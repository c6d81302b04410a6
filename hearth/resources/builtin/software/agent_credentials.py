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


def drop_stack_user(resource: Resource) -> None:
    user_id = resource.data().get(USER_ID)
    if not user_id:
        return
    resource.context.stack_users.delete_user(user_id)
    for key in (USER_ID, PASSWORD, PROJECT_ID, USERNAME, AUTH_URL, REGION):
        resource.data_delete(key)
