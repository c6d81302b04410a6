"""How a server's agent gets its metadata (Heat's ``software_config_transport``): the
``os-collect-config`` settings written into the server resource's metadata, beside its
``deployments``.

POLL_SERVER_CFN gives the agent's ``cfn`` collector the CFN API and a stack user's EC2
keypair (with Keystone: Heat's way); without a stack user domain it is served like
POLL_TEMP_URL, which points the ``request`` collector at a secret metadata URL of Hearth's.
POLL_SERVER_HEAT gives the ``heat`` collector a stack user's Keystone credentials. Zaqar is
not supported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hearth.common.errors import StackValidationFailed
from hearth.resources import definition
from hearth.resources.builtin.software import agent_credentials as agent
from hearth.resources.context import METADATA

if TYPE_CHECKING:
    from hearth.resources.base import Resource

POLL_SERVER_CFN, POLL_SERVER_HEAT, POLL_TEMP_URL, ZAQAR_MESSAGE = (
    "POLL_SERVER_CFN", "POLL_SERVER_HEAT", "POLL_TEMP_URL", "ZAQAR_MESSAGE",
)
TRANSPORTS = (POLL_SERVER_CFN, POLL_SERVER_HEAT, POLL_TEMP_URL, ZAQAR_MESSAGE)
TRANSPORT_PROPERTY = "software_config_transport"
SWIFT_DATA_PROPERTY = "deployment_swift_data"
OCC = "os-collect-config"
DEPLOYMENTS = "deployments"
OWNED_KEYS = (DEPLOYMENTS, OCC)
_COLLECTOR_KEYS = ("heat", "zaqar", "cfn", "request")


def check_transport(transport: Any, swift_data: Any = None) -> None:
    """Refuse (at validation) what needs a service Hearth does not use."""
    if transport == ZAQAR_MESSAGE:
        raise StackValidationFailed(
            "software_config_transport ZAQAR_MESSAGE needs the Zaqar messaging service, "
            "which Hearth does not support: use POLL_TEMP_URL or POLL_SERVER_HEAT",
            [definition.PROPERTIES, TRANSPORT_PROPERTY],
        )
    if isinstance(swift_data, dict) and any(swift_data.values()):
        raise StackValidationFailed(
            "deployment_swift_data needs Swift, which Hearth does not use: Hearth serves the "
            "server's metadata itself (leave deployment_swift_data out)",
            [definition.PROPERTIES, SWIFT_DATA_PROPERTY],
        )


def _settings(resource: Resource, transport: str) -> tuple[str, dict[str, Any]] | None:
    if transport == POLL_SERVER_HEAT:
        user = agent.stack_user(resource)
        return "heat", {
            "user_id": user.user_id,
            "password": user.password,
            "auth_url": user.auth_url,
            "project_id": user.project_id,
            "stack_id": f"{resource.context.stack_name}/{resource.context.stack_id}",
            "resource_name": resource.name,
            "region_name": user.region_name,
        }
    if transport == POLL_SERVER_CFN and agent.signs_for_cfn(resource):
        access, secret = agent.keypair(resource)
        return "cfn", {
            "metadata_url": resource.context.cfn_api_url(),
            "access_key_id": access,
            "secret_access_key": secret,
            "stack_name": resource.context.stack_name,
            "path": f"{resource.name}.Metadata",
        }
    if transport in (POLL_TEMP_URL, POLL_SERVER_CFN):
        return "request", {"metadata_url": agent.secret_url(resource, METADATA)}
    return None


def populate(resource: Resource, transport: str, default_collectors: Sequence[str]) -> Any:
    """Write the agent's settings for ``transport`` into the resource's metadata (keeping
    its deployments); returns the new metadata."""
    chosen = _settings(resource, transport)

    def merge(current: Any) -> Any:
        metadata = dict(current) if isinstance(current, dict) else {}
        metadata.setdefault(DEPLOYMENTS, [])
        occ = dict(metadata.get(OCC) or {})
        # Values of an earlier transport are blanked, as Heat does, so none lingers.
        for key in _COLLECTOR_KEYS:
            if isinstance(occ.get(key), dict):
                occ[key] = dict.fromkeys(occ[key])
        collectors = list(default_collectors)
        if chosen is not None:
            occ[chosen[0]] = chosen[1]
            collectors.append(chosen[0])
        collectors.append("local")
        occ["collectors"] = collectors
        metadata[OCC] = occ
        return metadata

    return resource.context.metadata_merge(merge)


def forget(resource: Resource) -> None:
    """Drop the agent's credentials (its metadata URL secret, its stack user)."""
    agent.drop_secret_urls(resource)
    agent.drop_stack_user(resource)
