"""The address attributes of a server: ``networks``, ``addresses`` and ``first_address``.

``networks`` and ``first_address`` come from Nova's view of the server (its ``addresses``,
keyed by network name); ``addresses`` is built from Neutron as Heat 27 builds it: one entry
per fixed IP of each port bound to the server (with its port, subnets and network) and one
per floating IP on that address. Both maps also list each network under its id when its name
is unique, as Heat does.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.resources.openstack.nova import rest

if TYPE_CHECKING:
    from hearth.clients.cloud import Cloud


def networks_of(server: Mapping[str, Any]) -> dict[str, list[str]]:
    """Network name to the server's addresses on it (novaclient's ``Server.networks``)."""
    return {
        label: [a["addr"] for a in addrs]
        for label, addrs in (server.get("addresses") or {}).items()
    }


def first_address(server: Mapping[str, Any]) -> str:
    networks = networks_of(server)
    for label in sorted(networks, reverse=True):
        if networks[label]:
            return networks[label][0]
    return ""


def with_network_ids(cloud: Cloud, by_name: dict[str, Any],
                     known: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``by_name`` plus the same values under each network's id (when the name is unique)."""
    out = dict(by_name)
    for name, value in by_name.items():
        network_id = (known or {}).get(name)
        if network_id is None:
            found = rest.neutron(cloud, "GET", "/networks", params={"name": name})
            named = (found or {}).get("networks", [])
            if len(named) != 1:
                continue
            network_id = str(named[0]["id"])
        out[network_id] = value
    return out


def _version(address: str | None) -> Any:
    try:
        # Heat 27 serves the version as a one-element list (a tuple in its code).
        return [ipaddress.ip_address(address or "").version]
    except ValueError:
        return None


def addresses_of(cloud: Cloud, server_id: str) -> dict[str, Any]:
    """Heat 27's ``addresses`` attribute, from Neutron."""
    ports = rest.neutron(cloud, "GET", "/ports", params={"device_id": server_id})["ports"]
    networks: dict[str, dict[str, Any]] = {}
    subnets: dict[str, dict[str, Any]] = {}
    by_name: dict[str, list[dict[str, Any]]] = {}
    names: dict[str, str] = {}
    for port in ports:
        network_id = port["network_id"]
        if network_id not in networks:
            networks[network_id] = rest.neutron(cloud, "GET", f"/networks/{network_id}")[
                "network"]
        label = networks[network_id]["name"]
        names.setdefault(label, network_id)
        entries = by_name.setdefault(label, [])
        port_subnets = []
        for fixed in port.get("fixed_ips", []):
            subnet_id = fixed.get("subnet_id")
            if subnet_id and subnet_id not in subnets:
                subnets[subnet_id] = rest.neutron(cloud, "GET", f"/subnets/{subnet_id}")[
                    "subnet"]
            if subnet_id:
                port_subnets.append(subnets[subnet_id])
        for fixed in port.get("fixed_ips", []):
            address = fixed.get("ip_address")
            version = _version(address)
            if address:
                floating = rest.neutron(cloud, "GET", "/floatingips",
                                        params={"fixed_ip_address": address})
                for fip in floating.get("floatingips", []):
                    entries.append({
                        "addr": fip["floating_ip_address"], "version": version,
                        "OS-EXT-IPS-MAC:mac_addr": port["mac_address"],
                        "OS-EXT-IPS:type": "floating", "port": None,
                    })
            entries.append({
                "addr": address, "OS-EXT-IPS-MAC:mac_addr": port["mac_address"],
                "OS-EXT-IPS:type": "fixed", "port": port["id"], "version": version,
                "subnets": list(port_subnets), "network": networks[network_id],
            })
    return with_network_ids(cloud, by_name, names)
