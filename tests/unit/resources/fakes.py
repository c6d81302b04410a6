"""A ResourceContext held in memory, and helpers to build plugin instances with it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from hearth.clients.errors import NotFound
from hearth.resources.base import Resource
from hearth.resources.context import physical_resource_name
from hearth.resources.stack_users_api import Ec2Keypair, StackUserCredentials

HEAT27 = Path(__file__).resolve().parent / "heat27" / "heat27.json"


@cache
def heat27() -> dict[str, Any]:
    """Heat 27's recorded answers (see heat27/record.py)."""
    data: dict[str, Any] = json.loads(HEAT27.read_text())
    return data


@dataclass
class FakeResourceContext:
    """What the engine would give a resource, kept in plain attributes for tests to inspect."""

    resource_name: str = "r"
    stack_id: str = "5f1e7a3c-0000-4000-8000-000000000001"
    stack_name: str = "teststack"
    tenant: str = "test_tenant"
    resource_uuid: str = field(default_factory=lambda: str(uuid.uuid4()))
    action: str = "CREATE"
    stored: dict[str, str] = field(default_factory=dict)
    redacted: set[str] = field(default_factory=set)
    metadata: Any = None
    is_cancelled: bool = False
    public_url: str = "http://hearth.test:8004"
    # Other resources of the same stack, by reference and by name (what peer() finds).
    peers: dict[str, Resource] = field(default_factory=dict)
    # By default no stack user domain is configured.
    stack_users: FakeStackUsers = field(
        default_factory=lambda: FakeStackUsers(why_not="no stack user domain is configured")
    )

    def physical_resource_name(self) -> str:
        return physical_resource_name(self.stack_name, self.resource_name, self.resource_uuid)

    def data(self) -> dict[str, str]:
        return dict(self.stored)

    def data_set(self, key: str, value: str, redact: bool = False) -> None:
        self.stored[key] = value
        if redact:
            self.redacted.add(key)
        else:
            self.redacted.discard(key)

    def data_delete(self, key: str) -> bool:
        self.redacted.discard(key)
        return self.stored.pop(key, None) is not None

    def metadata_get(self) -> Any:
        return self.metadata

    def metadata_set(self, value: Any) -> None:
        self.metadata = value

    def cancelled(self) -> bool:
        return self.is_cancelled

    def metadata_merge(self, merge: Callable[[Any], Any]) -> Any:
        self.metadata = merge(self.metadata)
        return self.metadata

    def signal_url(self, kind: str, secret: str) -> str:
        return f"{self.public_url}/v1/{kind}/{self.resource_uuid}/{secret}"

    def cfn_api_url(self) -> str | None:
        return None

    def cfn_signal_url(self, kind: str, access: str, secret: str) -> str | None:
        return None

    def authenticated_signal_url(self, project_id: str | None = None) -> str:
        return (f"{self.public_url}/v1/{project_id or 'tenant'}/stacks/stack/stack-id/"
                f"resources/{self.resource_name}/signal")

    def peer(self, reference: str) -> Resource | None:
        return self.peers.get(reference)


@dataclass
class FakeStackUsers:
    """Keystone's stack user domain in memory (hearth.resources.stack_users_api.StackUsers):
    users by id (name, password, enabled) and EC2 keypairs by credential id."""

    why_not: str | None = None
    project_id: str = "stack-user-project"
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    keypairs: dict[str, tuple[str, Ec2Keypair]] = field(default_factory=dict)
    calls: list[tuple[str, str]] = field(default_factory=list)

    def configured(self) -> str | None:
        return self.why_not

    def create_user(self, password: str) -> StackUserCredentials:
        user_id = uuid.uuid4().hex
        self.users[user_id] = {"password": password, "enabled": True}
        self.calls.append(("create_user", user_id))
        return StackUserCredentials(user_id, f"user-{user_id[:6]}", password, self.project_id)

    def delete_user(self, user_id: str) -> None:
        self.calls.append(("delete_user", user_id))
        self.users.pop(user_id, None)
        # As Keystone: a user's credentials go with it.
        for cid in [c for c, (owner, _kp) in self.keypairs.items() if owner == user_id]:
            del self.keypairs[cid]

    def create_ec2_keypair(self, user_id: str) -> Ec2Keypair:
        if user_id not in self.users:
            raise NotFound(f"Could not find user: {user_id}.", 404, "identity")
        access = uuid.uuid4().hex
        keypair = Ec2Keypair(f"cred-{access}", access, f"secret-{uuid.uuid4().hex}")
        self.keypairs[keypair.credential_id] = (user_id, keypair)
        self.calls.append(("create_ec2_keypair", user_id))
        return keypair

    def delete_ec2_keypair(self, credential_id: str) -> None:
        self.calls.append(("delete_ec2_keypair", credential_id))
        self.keypairs.pop(credential_id, None)

    def enable_user(self, user_id: str) -> None:
        self.calls.append(("enable_user", user_id))
        self.users[user_id]["enabled"] = True

    def disable_user(self, user_id: str) -> None:
        self.calls.append(("disable_user", user_id))
        self.users[user_id]["enabled"] = False


def make(
    cls: type[Resource],
    properties: dict[str, Any] | None = None,
    *,
    name: str = "r",
    type_name: str = "Test::Type",
    context: FakeResourceContext | None = None,
    resource_id: str | None = None,
) -> tuple[Resource, FakeResourceContext]:
    ctx = context or FakeResourceContext(resource_name=name)
    return cls(name, type_name, properties, ctx, resource_id=resource_id), ctx
