"""The window a resource plugin has onto the engine, and Heat's physical resource names."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hearth.clients.cloud import Cloud
    from hearth.resources.base import Resource
    from hearth.resources.nested import NestedStacks
    from hearth.resources.software_api import SoftwareConfigs
    from hearth.resources.stack_users_api import StackUsers
    from hearth.template.environment import Environment

# Heat's default ``physical_resource_name_limit``.
PHYSICAL_NAME_LIMIT = 255

# The public signal URLs: /v1/signal/... takes a native signal body, /v1/waitcondition/... a
# CloudFormation one (PUT or POST, answered with the resource's metadata).
SIGNAL = "signal"
WAITCONDITION = "waitcondition"
SIGNAL_KINDS = (SIGNAL, WAITCONDITION)
# /v1/metadata/... serves a server resource's metadata to its agent (GET, HEAD).
METADATA = "metadata"
SECRET_URL_KINDS = (*SIGNAL_KINDS, METADATA)


def signal_token_key(kind: str) -> str:
    """The resource data key holding the secret of the resource's ``kind`` signal URL."""
    return f"{kind}_token"


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

    def physical_id_set(self, value: str | None) -> None:
        """Store the resource's physical id at once (an object made in another service is
        recorded before anything else can fail, so delete or a retry never orphans it)."""
        ...

    # --- other OpenStack services (hearth.clients) ---

    @property
    def cloud(self) -> Cloud:
        """The stack's credentials on the cloud (its trust, or the configured cloud)."""
        ...

    def metadata_merge(self, merge: Callable[[Any], Any]) -> Any:
        """Set the metadata to ``merge(current)`` atomically (concurrent signals lose nothing).

        ``current`` is read afresh inside the same transaction; returns the new metadata.
        """
        ...

    # --- software configs and deployments (hearth.resources.software_api) ---

    @property
    def software(self) -> SoftwareConfigs:
        """The software configs and deployments of the stack's project."""
        ...

    @property
    def stack_users(self) -> StackUsers:
        """Keystone users of the stack user domain for the server's agent."""
        ...

    # --- signals without a Keystone token, and other resources of the same stack ---

    def cfn_api_url(self) -> str | None:
        """The CFN API's public ``.../v1/`` URL (POLL_SERVER_CFN's metadata_url); None when
        the CFN API is not served."""
        ...

    def cfn_signal_url(self, kind: str, access: str, secret: str) -> str | None:
        """The CFN API's URL for signals to this resource (``kind`` "waitcondition", PUT, or
        "signal", POST), pre-signed with the EC2 keypair of one of the stack's users; None
        when the CFN API is not served."""
        ...

    def signal_url(self, kind: str, secret: str) -> str:
        """The public URL ``{public_url}/v1/{kind}/{resource_uuid}/{secret}`` (SECRET_URL_KINDS).

        The engine accepts a signal there when ``secret`` equals the resource data under
        ``signal_token_key(kind)`` (store it with ``redact=True``).
        """
        ...

    def peer(self, reference: str) -> Resource | None:
        """The resource of the same stack whose reference (get_resource / Ref) or name is
        ``reference``, as a plugin instance with fresh metadata; None when there is none."""
        ...

    def drive_peer(self, reference: str, request: Mapping[str, Any]) -> bool:
        """Have the resource of the same stack referenced by ``reference`` act on ``request``
        (a scaling policy adjusting its group). False when there is none.

        The engine builds that resource as a stack action would (child stacks included) and
        runs its ``handle_peer_request(request)`` at once: what it raises (NoActionRequired
        too) reaches the caller, and a resource that is not COMPLETE raises
        NoActionRequired. When it has ``check_peer_request_complete(cookie)``, the engine polls
        that in the background; once done, the resource's stored attributes, the stack's
        outputs and the metadata of provider-template resources are refreshed.
        """
        ...

    def authenticated_signal_url(self, project_id: str | None = None) -> str:
        """The resource-signal API URL of this resource (a Keystone token is needed there):
        ``{public_url}/v1/{tenant}/stacks/{stack_name}/{stack_id}/resources/{name}/signal``,
        with ``project_id`` (a stack user's project) in place of the tenant when given."""
        ...

    # --- for types that own a child stack (hearth.resources.nested) ---

    # The resource's stack's timeout in minutes (None: the default).
    stack_timeout_mins: int | None

    @property
    def nested(self) -> NestedStacks:
        """The engine's handling of child stacks."""
        ...

    def stack_environment(self) -> Environment:
        """The environment of the resource's stack (children start from it)."""
        ...

    def stack_files(self) -> dict[str, str]:
        """The ``files`` map of the resource's stack."""
        ...

    def update_policy(self) -> dict[str, Any]:
        """The resource's ``update_policy`` (values resolved) in the definition the current
        action works towards: the new one during an update; {} when it has none."""
        ...


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
