"""Who is asking: the request context every engine call receives first."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RequestContext:
    """The caller of one request (from a Keystone token, or the noauth defaults).

    Long operations keep this object, never the token: an action goes on after the caller's
    token has expired.
    """

    project_id: str
    user_id: str = ""
    username: str = ""
    roles: tuple[str, ...] = ()
    is_admin: bool = False
    auth_token: str | None = field(default=None, repr=False)
    region_name: str | None = None
    request_id: str = field(default_factory=lambda: f"req-{uuid.uuid4()}")
    # The EC2 access key a CFN API request was signed with (stack users' access rules).
    ec2_access_key: str | None = None

    @property
    def tenant(self) -> str:
        return self.project_id

    def to_dict(self) -> dict[str, Any]:
        """What travels with a unit of work (no token)."""
        return {
            "project_id": self.project_id,
            "user_id": self.user_id,
            "username": self.username,
            "roles": list(self.roles),
            "is_admin": self.is_admin,
            "region_name": self.region_name,
            "request_id": self.request_id,
            "ec2_access_key": self.ec2_access_key,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RequestContext:
        return cls(
            project_id=data["project_id"],
            user_id=data.get("user_id", ""),
            username=data.get("username", ""),
            roles=tuple(data.get("roles", ())),
            is_admin=bool(data.get("is_admin", False)),
            region_name=data.get("region_name"),
            request_id=data.get("request_id") or f"req-{uuid.uuid4()}",
            ec2_access_key=data.get("ec2_access_key"),
        )

    @classmethod
    def admin(cls, project_id: str = "admin") -> RequestContext:
        return cls(project_id=project_id, user_id="admin", username="admin",
                   roles=("admin",), is_admin=True)
