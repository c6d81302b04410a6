"""Floating IPs of a server, as Heat's nova client plugin handles them for the EIP types:
the server's first interface (as Nova lists them) and its first IPv4 address."""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Any

from hearth.common.errors import HearthError
from hearth.resources.openstack.aws.common import Api
from hearth.resources.openstack.nova import rest

if TYPE_CHECKING:
    from hearth.clients.cloud import Cloud


class InterfaceNotFound(HearthError):
    def __init__(self, server_id: str) -> None:
        super().__init__(f"No network interface found for server {server_id}.")


class EntityMatchNotFound(HearthError):
    def __init__(self, entity: str, args: dict[str, Any]) -> None:
        super().__init__(f"No {entity} matching {args}.")


def _is_ipv4(value: str) -> bool:
    try:
        return ipaddress.ip_address(value).version == 4
    except ValueError:
        return False


def associate(cloud: Cloud, api: Api, server_id: str, floatingip_id: str) -> None:
    """Put the floating IP on the server's first interface."""
    found = rest.nova(cloud, "GET", f"/servers/{server_id}/os-interface")
    interfaces = (found or {}).get("interfaceAttachments") or []
    if not interfaces:
        raise InterfaceNotFound(server_id)
    first = interfaces[0]
    fixed = next((ip["ip_address"] for ip in first.get("fixed_ips") or []
                  if _is_ipv4(ip["ip_address"])), None)
    api("PUT", f"/floatingips/{floatingip_id}", {"floatingip": {
        "port_id": first["port_id"], "fixed_ip_address": fixed}})


def dissociate(api: Api, floatingip_id: str) -> None:
    api("PUT", f"/floatingips/{floatingip_id}", {"floatingip": {
        "port_id": None, "fixed_ip_address": None}})


def by_address(api: Api, address: str) -> str:
    """The id of the floating IP with this address."""
    found = api("GET", "/floatingips", params={"floating_ip_address": address})
    ips = found["floatingips"]
    if not ips:
        raise EntityMatchNotFound("floatingip", {"ip_address": address})
    return str(ips[0]["id"])
