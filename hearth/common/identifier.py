"""Identities of stacks, resources and events as Heat writes them (dicts, ARNs, URL paths)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

_ARN_PATH = re.compile(r"stacks/([^/]+)/([^/]+)(.*)")


@dataclass(frozen=True)
class Identity:
    """``{tenant, stack_name, stack_id, path}``: a stack, or something inside it (path)."""

    tenant: str
    stack_name: str
    stack_id: str
    path: str = ""

    def __post_init__(self) -> None:
        if self.path and not self.path.startswith("/"):
            object.__setattr__(self, "path", "/" + self.path)
        if "/" in self.stack_name:
            raise ValueError('Stack name may not contain "/"')

    def as_dict(self) -> dict[str, str]:
        return {
            "tenant": self.tenant,
            "stack_name": self.stack_name,
            "stack_id": self.stack_id,
            "path": self.path,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Identity:
        return cls(
            str(data.get("tenant", "")),
            str(data["stack_name"]),
            str(data["stack_id"]),
            str(data.get("path", "")),
        )

    def stack(self) -> Identity:
        return Identity(self.tenant, self.stack_name, self.stack_id)

    def resource(self, name: str) -> Identity:
        return Identity(self.tenant, self.stack_name, self.stack_id, f"/resources/{name}")

    def event(self, resource_name: str, event_id: str) -> Identity:
        return Identity(
            self.tenant,
            self.stack_name,
            self.stack_id,
            f"/resources/{resource_name}/events/{event_id}",
        )

    def stack_path(self) -> str:
        return f"{quote(self.stack_name, '')}/{quote(self.stack_id, '')}"

    def tenant_path(self) -> str:
        return f"stacks/{self.stack_path()}{quote(self.path)}"

    def url_path(self) -> str:
        """``<tenant>/stacks/<name>/<id><path>``: what follows ``/v1/`` in a URL."""
        return f"{quote(self.tenant, '')}/{self.tenant_path()}"

    def arn(self) -> str:
        return f"arn:openstack:heat::{quote(self.tenant, '')}:{self.tenant_path()}"

    @classmethod
    def from_arn(cls, arn: str) -> Identity:
        fields = arn.split(":")
        if len(fields) < 6 or fields[0].lower() != "arn":
            raise ValueError(f'"{arn}" is not a valid ARN')
        match = _ARN_PATH.match(":".join(fields[5:]))
        if fields[1] != "openstack" or fields[2] != "heat" or not match:
            raise ValueError(f'"{arn}" is not a valid Heat ARN')
        return cls(
            unquote(fields[4]),
            unquote(match.group(1)),
            unquote(match.group(2)),
            unquote(match.group(3)),
        )
