"""A server's network interfaces, as Heat handles them.

Each ``networks`` entry becomes one nic. An entry with an existing ``port`` uses it; one with
a ``subnet`` or ``port_extra_properties`` gets a port that Heat itself creates (an *internal*
port, named ``<resource>-port-<index>``, remembered in resource data under
``internal_ports`` so that delete removes it); any other entry lets Nova make the port (those
are recorded as ``external_ports`` once the server is ACTIVE). A ``floating_ip`` is associated
with the entry's port.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hearth.clients.errors import is_not_found
from hearth.common.errors import StackValidationFailed
from hearth.resources.openstack.finders import neutron_find
from hearth.resources.openstack.nova import rest
from hearth.resources.openstack.nova.server_schema_nested import PORT_EXTRA_PROPERTIES

if TYPE_CHECKING:
    from hearth.clients.cloud import Cloud
    from hearth.resources.base import Resource

INTERNAL_PORTS = "internal_ports"
EXTERNAL_PORTS = "external_ports"
NETWORK_KEYS = ("uuid", "network", "fixed_ip", "port", "subnet", "port_extra_properties",
                "floating_ip", "allocate_network", "tag")
# The keys an interface tells about itself (what matching old entries to interfaces uses).
IFACE_KEYS = ("port", "network", "fixed_ip", "subnet")


# --- validation --------------------------------------------------------------------------

def validate_entry(entry: Mapping[str, Any], server: str) -> None:
    """Heat's checks of one ``networks`` entry (no service needed)."""
    network = entry.get("network") or entry.get("uuid")
    port, subnet = entry.get("port"), entry.get("subnet")
    allocate = entry.get("allocate_network")
    if network is None and port is None and subnet is None and not allocate:
        raise StackValidationFailed(
            'One of the properties "network", "port", "allocate_network" or "subnet" should '
            f'be set for the specified network of server "{server}".'
        )
    given = [k for k, v in entry.items() if v is not None]
    if allocate and len(given) != 1:
        raise StackValidationFailed(
            'Can not specify "allocate_network" with other keys of networks at the same '
            "time."
        )
    if entry.get("fixed_ip") and port is not None:
        raise StackValidationFailed(
            "Cannot define the following properties at the same time: networks/fixed_ip, "
            "networks/port."
        )
    if (entry.get("floating_ip") is not None and network is not None and port is None
            and subnet is None and not entry.get("port_extra_properties")):
        raise StackValidationFailed(
            'Property "floating_ip" is not supported if only "network" is specified, '
            "because the corresponding port can not be retrieved."
        )


def allocate_value(networks: Sequence[Mapping[str, Any]] | None) -> str | None:
    """The ``allocate_network`` string (auto/none) when an entry gives one."""
    for entry in networks or ():
        if entry.get("allocate_network"):
            return str(entry["allocate_network"])
    return None


def normalised(entry: Mapping[str, Any]) -> dict[str, Any]:
    """An entry with every key present, '' as None, ``uuid`` folded into ``network``."""
    out = {key: entry.get(key) or None for key in NETWORK_KEYS}
    if out["uuid"] and not out["network"]:
        out["network"] = out["uuid"]
    out["uuid"] = None
    return out


# --- resource data -----------------------------------------------------------------------

def stored_ports(resource: Resource, kind: str = INTERNAL_PORTS) -> list[str]:
    raw = resource.data().get(kind)
    return [str(p["id"]) for p in json.loads(raw)] if raw else []


def store_ports(resource: Resource, ids: Sequence[str], kind: str = INTERNAL_PORTS) -> None:
    if ids:
        resource.data_set(kind, json.dumps([{"id": i} for i in ids]))
    else:
        resource.data_delete(kind)


def remember_port(resource: Resource, port_id: str) -> None:
    store_ports(resource, [*stored_ports(resource), port_id])


def forget_port(resource: Resource, port_id: str) -> None:
    store_ports(resource, [p for p in stored_ports(resource) if p != port_id])


# --- ports Heat creates ------------------------------------------------------------------

class Ports:
    """What a server does with Neutron: resolve names, create and delete internal ports."""

    def __init__(self, resource: Resource, cloud: Cloud) -> None:
        self.resource = resource
        self.cloud = cloud
        self._ids: dict[tuple[str, str], str] = {}

    def find(self, kind: str, value: str) -> str:
        key = (kind, value)
        if key not in self._ids:
            found = neutron_find(self.cloud, kind, value)
            self._ids[key] = self._ids[(kind, found)] = found
        return self._ids[key]

    def network_of(self, entry: Mapping[str, Any]) -> str | None:
        """The entry's network id (from its subnet when it names none)."""
        network = entry.get("network") or entry.get("uuid")
        if network:
            return self.find("network", str(network))
        subnet = entry.get("subnet")
        if not subnet:
            return None
        found = rest.neutron(self.cloud, "GET", f"/subnets/{self.find('subnet', subnet)}")
        return str(found["subnet"]["network_id"])

    def security_group_ids(self, groups: Sequence[str]) -> list[str]:
        return [self.find("security_group", g) for g in groups]

    def extra_body(self, extra: Mapping[str, Any] | None) -> dict[str, Any]:
        """port_extra_properties as a Neutron port body."""
        if not extra:
            return {}
        body: dict[str, Any] = dict(extra.get("value_specs") or {})
        for key in PORT_EXTRA_PROPERTIES:
            value = extra.get(key)
            if key in ("value_specs", "no_fixed_ips") or value is None:
                continue
            if key == "qos_policy":
                body["qos_policy_id"] = self.find("qos_policy", str(value))
            elif key == "allowed_address_pairs":
                body[key] = [{k: v for k, v in pair.items() if v is not None}
                             for pair in value]
            else:
                body[key] = value
        if extra.get("no_fixed_ips"):
            body["fixed_ips"] = []
        return body

    def create_internal(self, entry: Mapping[str, Any], index: int,
                        security_groups: Sequence[str]) -> str:
        """A port for the entry, remembered in resource data before anything else."""
        body: dict[str, Any] = {
            "network_id": self.network_of(entry),
            "name": f"{self.resource.name}-port-{index}",
        }
        fixed: dict[str, str] = {}
        if entry.get("fixed_ip"):
            fixed["ip_address"] = str(entry["fixed_ip"])
        if entry.get("subnet"):
            fixed["subnet_id"] = self.find("subnet", str(entry["subnet"]))
        if fixed:
            body["fixed_ips"] = [fixed]
        if security_groups:
            body["security_groups"] = self.security_group_ids(security_groups)
        body.update(self.extra_body(entry.get("port_extra_properties")))
        port = rest.neutron(self.cloud, "POST", "/ports", {"port": body})["port"]
        remember_port(self.resource, str(port["id"]))
        return str(port["id"])

    def update_internal(self, port_id: str, extra: Mapping[str, Any] | None) -> None:
        body = self.extra_body(extra)
        if body:
            rest.neutron(self.cloud, "PUT", f"/ports/{port_id}", {"port": body})

    def delete_internal(self, port_id: str) -> None:
        try:
            rest.neutron(self.cloud, "DELETE", f"/ports/{port_id}")
        except Exception as exc:
            if not is_not_found(exc):
                raise
        forget_port(self.resource, port_id)

    def delete_all_internal(self) -> None:
        for port_id in stored_ports(self.resource):
            self.delete_internal(port_id)
        self.resource.data_delete(INTERNAL_PORTS)

    def associate_floating_ip(self, floating_ip: str, port_id: str,
                              fixed_ip: str | None) -> None:
        body: dict[str, Any] = {"port_id": port_id}
        if fixed_ip:
            body["fixed_ip_address"] = fixed_ip
        rest.neutron(self.cloud, "PUT", f"/floatingips/{floating_ip}", {"floatingip": body})

    def disassociate_floating_ip(self, floating_ip: str) -> None:
        try:
            rest.neutron(self.cloud, "PUT", f"/floatingips/{floating_ip}",
                         {"floatingip": {"port_id": None}})
        except Exception as exc:
            if not is_not_found(exc):
                raise

    # --- create ---------------------------------------------------------------------------

    def nics(self, networks: Sequence[Mapping[str, Any]] | None,
             security_groups: Sequence[str]) -> Any:
        """Nova's ``networks`` for a create ('auto' when the template gives none)."""
        if not networks:
            # Nova needs networks since microversion 2.37; 'auto' is what leaving them out
            # meant before.
            return "auto"
        allocate = allocate_value(networks)
        if allocate:
            return allocate
        nics: list[dict[str, Any]] = []
        for index, entry in enumerate(networks):
            nic: dict[str, Any] = {}
            network = self.network_of(entry)
            if network:
                nic["uuid"] = network
            if entry.get("port"):
                nic["port"] = self.find("port", str(entry["port"]))
            elif entry.get("subnet") or entry.get("port_extra_properties"):
                self._check_subnet_in_network(entry, network)
                nic["port"] = self.create_internal(entry, index, security_groups)
            if not nic.get("port") and entry.get("fixed_ip"):
                nic["fixed_ip"] = str(entry["fixed_ip"])
            if entry.get("floating_ip") and nic.get("port"):
                self.associate_floating_ip(str(entry["floating_ip"]), nic["port"],
                                           entry.get("fixed_ip"))
            if entry.get("tag"):
                nic["tag"] = str(entry["tag"])
            nics.append(nic)
        return nics

    def _check_subnet_in_network(self, entry: Mapping[str, Any], network: str | None) -> None:
        subnet = entry.get("subnet")
        named = entry.get("network") or entry.get("uuid")
        if not subnet or not named or network is None:
            return
        subnet_id = self.find("subnet", str(subnet))
        found = rest.neutron(self.cloud, "GET", f"/subnets/{subnet_id}")["subnet"]
        if found["network_id"] != network:
            raise StackValidationFailed(
                f"Specified subnet {subnet_id} does not belongs to network {network}."
            )
