"""What the AWS::EC2 types share: the CFN Tags schema, Heat's VPC conventions in Neutron (a
VPC is a network plus a router of the same name; the external network is the only one) and
the few Neutron lookups several types make.

Types that are not Neutron objects (Instance, the EIP association) reach Neutron through
``hearth.resources.openstack.nova.rest.neutron``; an ``Api`` is either that or a
``NeutronResource.api``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any

from hearth.clients.errors import is_not_found
from hearth.common.errors import EntityNotFound, HearthError
from hearth.resources.base import Resource
from hearth.resources.openstack.finders import PhysicalResourceNameAmbiguity
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.schema import PropertySchema as P

# One Neutron call: api(method, path, body=None, params=None) -> the JSON answer.
Api = Callable[..., Any]


class Error(HearthError):
    """Heat's generic ``exception.Error`` (status reasons read ``Error: ...``)."""


def tags_schema(item_description: str | None = None, *, description: str | None = None,
                implemented: bool = True, update_allowed: bool = False,
                immutable: bool = False) -> P:
    """The CFN ``Tags`` property: a list of ``{Key, Value}`` maps."""
    return P(
        P.LIST,
        description,
        schema=P(
            P.MAP,
            item_description,
            schema={"Key": P(P.STRING, required=True), "Value": P(P.STRING, required=True)},
            implemented=implemented,
        ),
        update_allowed=update_allowed,
        immutable=immutable,
    )


def tags_as_metadata(tags: Sequence[Any] | None) -> dict[str, str] | None:
    """CFN tags as the key/value metadata Nova and Cinder keep (None when there are none)."""
    if tags is None:
        return None
    return {str(t["Key"]): t["Value"] for t in tags}


def ignore_not_found(fn: Callable[[], Any]) -> Any:
    """``fn()``, or None when what it acts on is already gone."""
    try:
        return fn()
    except Exception as exc:
        if is_not_found(exc):
            return None
        raise


def router_for_vpc(api: Api, network_id: str) -> dict[str, Any] | None:
    """The router a VPC made with its network: the one router named as the network."""
    network = api("GET", f"/networks/{network_id}")["network"]
    routers = api("GET", "/routers", params={"name": network["name"]})["routers"]
    if not routers:
        # A network made outside a VPC resource has no router of its own.
        return None
    if len(routers) > 1:
        raise Error(f"Multiple routers found with name {network['name']}")
    return dict(routers[0])


def external_network_id(api: Api) -> str:
    """The cloud's external network; Heat expects exactly one."""
    found = api("GET", "/networks", params={"router:external": True, "fields": "id"})
    networks = found["networks"]
    if len(networks) != 1:
        raise Error(f"Expected 1 external network, found {len(networks)}")
    return str(networks[0]["id"])


def network_of_subnet(api: Api, subnet_id: str) -> str:
    return str(api("GET", f"/subnets/{subnet_id}")["subnet"]["network_id"])


def is_uuid_like(value: str) -> bool:
    try:
        return str(uuid.UUID(value)).replace("-", "") == value.replace("-", "").lower()
    except (TypeError, ValueError, AttributeError):
        return False


def security_group_ids(api: Api, project_id: str | None, groups: Sequence[str]) -> list[str]:
    """Ids of the groups given by id or by name (names among the project's own groups), as
    Heat's ``get_secgroup_uuids``."""
    ids: list[str] = []
    mine: list[dict[str, Any]] | None = None
    for group in groups:
        if is_uuid_like(group):
            ids.append(group)
            continue
        if mine is None:
            params = {"project_id": project_id} if project_id else {}
            mine = list(api("GET", "/security-groups", params=params)["security_groups"])
        named = [g["id"] for g in mine if g.get("name") == group]
        if not named:
            raise EntityNotFound("Resource", group)
        if len(named) > 1:
            raise PhysicalResourceNameAmbiguity(group)
        ids.append(str(named[0]))
    return ids


def set_router_gateway(api: Api, router_id: str, network_id: str) -> None:
    api("PUT", f"/routers/{router_id}",
        {"router": {"external_gateway_info": {"network_id": network_id}}})


def clear_router_gateway(api: Api, router_id: str) -> None:
    api("PUT", f"/routers/{router_id}", {"router": {"external_gateway_info": {}}})


def add_router_interface(api: Api, router_id: str, subnet_id: str) -> None:
    api("PUT", f"/routers/{router_id}/add_router_interface", {"subnet_id": subnet_id})


def remove_router_interface(api: Api, router_id: str, subnet_id: str) -> None:
    api("PUT", f"/routers/{router_id}/remove_router_interface", {"subnet_id": subnet_id})


class Ec2NeutronResource(NeutronResource):
    """An AWS type made of Neutron objects: no ``show`` and no CHECK of its own (Heat's AWS
    types have neither), and the reference is the physical id or else the name."""

    handle_check = None  # type: ignore[assignment]
    # Heat's AWS types are plain resources: replaced after any failure.
    replace_failed_statuses = None

    def _show_resource(self) -> Any:
        return None

    def get_reference_id(self) -> str | None:
        return Resource.get_reference_id(self)
