"""The window a resource plugin has onto the engine, and Heat's physical resource names."""

from __future__ import annotations

import base64
import uuid
from typing import Any, Protocol

# Heat's default ``physical_resource_name_limit``.
PHYSICAL_NAME_LIMIT = 255


class ResourceContext(Protocol):
    """What the engine gives one resource for the duration of one step.

    ``action`` is the current *stack* action (CREATE, UPDATE, DELETE, ...). Resource data is a
    small string map kept with the resource (``redact`` stores the value encrypted and hides it
    from API output). ``cancelled()`` turns true when the operation is being abandoned (timeout,
    cancel, another resource failed), so a long handler can stop early.
    """

    stack_id: str
    stack_name: str
    tenant: str
    resource_uuid: str
    action: str

    def physical_resource_name(self) -> str: ...

    def data(self) -> dict[str, str]: ...

    def data_set(self, key: str, value: str, redact: bool = False) -> None: ...

    def data_delete(self, key: str) -> bool: ...

    def metadata_get(self) -> Any: ...

    def metadata_set(self, value: Any) -> None: ...

    def cancelled(self) -> bool: ...


def short_id(resource_uuid: str | uuid.UUID) -> str:
    """Heat's 12 lower-case base32 characters derived from a version 4 UUID.

    They encode the UUID's 60 random "time" bits, so the same resource always gets the same
    short id.
    """
    value = resource_uuid if isinstance(resource_uuid, uuid.UUID) else uuid.UUID(resource_uuid)
    if value.version != 4:
        raise ValueError(f"Invalid UUID version ({value.version})")
    # 60 bits padded on the right to 64, then the first 12 base32 digits (5 bits each).
    raw = (value.time << 4).to_bytes(8, "big")
    return base64.b32encode(raw)[:12].decode("ascii").lower()


def reduce_physical_resource_name(name: str, limit: int | None) -> str:
    """Within ``limit``: the first two characters, a hyphen, and as much of the end as fits."""
    if limit is None or len(name) <= limit:
        return name
    if limit < 4:
        raise ValueError("limit cannot be less than 4")
    return f"{name[:2]}-{name[-(limit - 3):]}"


def physical_resource_name(
    stack_name: str,
    resource_name: str,
    resource_uuid: str | uuid.UUID,
    limit: int | None = PHYSICAL_NAME_LIMIT,
) -> str:
    """``<stack>-<resource>-<short id>`` (a backup stack's trailing ``*`` dropped), shortened."""
    name = f"{stack_name.rstrip('*')}-{resource_name}-{short_id(resource_uuid)}"
    return reduce_physical_resource_name(name, limit)
