"""Changing a server's ``networks`` in place: which interfaces to detach and which to attach.

As Heat does: the old entries are first matched to the server's interfaces (so an entry that
named only a network learns its port and address), entries the update keeps are left alone
(an internal port whose ``port_extra_properties`` changed only in updatable keys is updated
in place), the ports of the old entries left over are detached, and the new entries left
over are attached (Heat creating their ports when they name a subnet or port extras).
Internal ports are deleted only once Nova confirms their detach.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hearth.clients.errors import is_not_found
from hearth.common.errors import HearthError
from hearth.resources.openstack.nova import rest
from hearth.resources.openstack.nova.server_networks import (
    IFACE_KEYS,
    Ports,
    allocate_value,
    normalised,
    stored_ports,
)
from hearth.resources.openstack.nova.server_schema_nested import PORT_EXTRA_PROPERTIES

Step = dict[str, Any]


class UnableToAutoAllocateNetwork(HearthError):
    """allocate_network 'auto' found no single network to use (Heat's error)."""


def interfaces(ports: Ports, server_id: str) -> list[dict[str, Any]]:
    found = rest.nova(ports.cloud, "GET", f"/servers/{server_id}/os-interface")
    return list((found or {}).get("interfaceAttachments", []))


def _iface_props(iface: Mapping[str, Any]) -> dict[str, Any]:
    fixed = iface.get("fixed_ips") or []
    first = fixed[0] if fixed else {}
    return {"port": iface.get("port_id"), "network": iface.get("net_id"),
            "fixed_ip": first.get("ip_address"), "subnet": first.get("subnet_id")}


def _subset(small: Mapping[str, Any], big: Mapping[str, Any]) -> bool:
    return all(k in big and big[k] == v for k, v in small.items())


def _best_match(candidates: list[dict[str, Any]], wanted: Mapping[str, Any]
                ) -> dict[str, Any] | None:
    for key in ("port", "fixed_ip"):
        if wanted.get(key) is not None:
            return next((c for c in candidates
                         if c.get(key) == wanted[key] and _subset(wanted, c)), None)
    best, score = None, 0
    for cand in candidates:
        if _subset(wanted, cand):
            hits = sum(1 for k, v in wanted.items() if cand.get(k) == v)
            if hits > score:
                best, score = cand, hits
    return best


def _extras_update_in_place(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None
                            ) -> bool:
    if new is None:
        return False
    before = old or {}
    for key in set(before) | set(new):
        if before.get(key) != new.get(key):
            schema = PORT_EXTRA_PROPERTIES.get(key)
            if schema is None or not schema.update_allowed:
                return False
    return True


def plan_network_update(
    ports: Ports, server_id: str, old_networks: Sequence[Mapping[str, Any]] | None,
    new_networks: Sequence[Mapping[str, Any]] | None, security_groups: Sequence[str],
) -> list[Step]:
    """The detach and attach steps (ports Heat must create are created now, as in Heat)."""
    ifaces = interfaces(ports, server_id)
    allocate = allocate_value(new_networks)
    if allocate:
        steps = [_detach(i["port_id"]) for i in ifaces]
        if allocate == "auto":
            steps.append(_attach(None, _auto_network(ports), None, security_groups, ports))
        return steps
    old = [normalised(n) for n in old_networks or ()]
    new = [normalised(n) for n in new_networks or ()]
    if not old and not new:
        return []
    if not old or allocate_value(old):
        detach = [i["port_id"] for i in ifaces]
        kept: list[dict[str, Any]] = []
    else:
        kept = _keep_unchanged(ports, old, new, ifaces)
        detach = []
        for entry in old:
            if entry["port"]:
                detach.append(entry["port"])
            if entry["floating_ip"]:
                ports.disassociate_floating_ip(entry["floating_ip"])
    steps = [_detach(p) for p in detach]
    if not new and not kept:
        steps.append(_attach(None, None, None, security_groups, ports))
        return steps
    for index, entry in enumerate(new):
        port_id = None
        if entry["port"]:
            port_id = ports.find("port", entry["port"])
        elif entry["subnet"] or entry["port_extra_properties"]:
            port_id = ports.create_internal(entry, index, security_groups)
        network = None if port_id else ports.network_of(entry)
        fixed = entry["fixed_ip"] if network else None
        steps.append(_attach(port_id, network, fixed, security_groups, ports))
        if entry["floating_ip"] and port_id:
            ports.associate_floating_ip(entry["floating_ip"], port_id, entry["fixed_ip"])
    return steps


def _keep_unchanged(ports: Ports, old: list[dict[str, Any]], new: list[dict[str, Any]],
                    ifaces: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Take the entries the update keeps out of ``old`` and ``new``; returns them."""
    props = [_iface_props(i) for i in ifaces]
    for entry in old + new:
        _resolve_ids(ports, entry)
    for entry in old:
        wanted = {k: v for k, v in entry.items() if k in IFACE_KEYS and v is not None}
        match = _best_match(props, wanted)
        if match is not None:
            entry.update(match)
            props.remove(match)
    internal = stored_ports(ports.resource)
    kept: list[dict[str, Any]] = []
    for entry in list(new):
        reduced = {k: v for k, v in entry.items() if k not in IFACE_KEYS or v is not None}
        match = _best_match(old, reduced)
        if match is None:
            without_extras = {k: v for k, v in reduced.items()
                              if k != "port_extra_properties"}
            match = _best_match(old, without_extras)
            port = match.get("port") if match else None
            if match is None or port not in internal or not _extras_update_in_place(
                match.get("port_extra_properties"), entry["port_extra_properties"]
            ):
                continue
            ports.update_internal(str(port), entry["port_extra_properties"])
        kept.append(match)
        new.remove(entry)
        old.remove(match)
    return kept


def _resolve_ids(ports: Ports, entry: dict[str, Any]) -> None:
    """Names to ids, as Heat's translation rules do before any comparison."""
    if entry["port"]:
        entry["port"] = ports.find("port", entry["port"])
    if entry["subnet"]:
        entry["subnet"] = ports.find("subnet", entry["subnet"])
    if entry["port"] is None:
        entry["network"] = ports.network_of(entry)


def _auto_network(ports: Ports) -> str:
    """The one network 'auto' means: the project's own, else a shared one."""
    project = ports.cloud.conn.current_project_id
    own = rest.neutron(ports.cloud, "GET", "/networks", params={
        "tenant_id": project, "shared": False, "admin_state_up": True})["networks"]
    shared = rest.neutron(ports.cloud, "GET", "/networks", params={"shared": True})["networks"]
    ids = [n["id"] for n in own + shared]
    if not ids:
        topology = rest.neutron(ports.cloud, "GET", f"/auto-allocated-topology/{project}")
        ids = [topology["auto_allocated_topology"]["id"]]
    if len(ids) > 1:
        raise UnableToAutoAllocateNetwork("Multiple possible networks found.")
    return str(ids[0])


def _detach(port_id: str) -> Step:
    return {"op": "detach", "port": port_id, "called": False, "done": False}


def _attach(port_id: str | None, network: str | None, fixed_ip: str | None,
            security_groups: Sequence[str], ports: Ports) -> Step:
    groups = ports.security_group_ids(security_groups) if security_groups and not port_id \
        else []
    return {"op": "attach", "port": port_id, "network": network, "fixed_ip": fixed_ip,
            "security_groups": groups, "called": False, "done": False}


# --- running the steps -------------------------------------------------------------------

def start_detach(ports: Ports, server_id: str, step: Step) -> None:
    try:
        rest.nova(ports.cloud, "DELETE", f"/servers/{server_id}/os-interface/{step['port']}")
    except Exception as exc:
        if not is_not_found(exc):
            raise


def detach_done(ports: Ports, server: Mapping[str, Any], step: Step) -> bool:
    """Neutron no longer binds the port to the server and Nova no longer lists its MAC."""
    try:
        port = rest.neutron(ports.cloud, "GET", f"/ports/{step['port']}")["port"]
    except Exception as exc:
        if is_not_found(exc):
            return True
        raise
    if port.get("device_id") == server["id"]:
        return False
    return not any(
        a.get("OS-EXT-IPS:type") == "fixed" and a.get("OS-EXT-IPS-MAC:mac_addr")
        == port.get("mac_address")
        for addrs in (server.get("addresses") or {}).values() for a in addrs
    )


def start_attach(ports: Ports, server_id: str, step: Step) -> None:
    body: dict[str, Any] = {}
    if step["port"]:
        body["port_id"] = step["port"]
    if step["network"]:
        body["net_id"] = step["network"]
    if step["fixed_ip"]:
        body["fixed_ips"] = [{"ip_address": step["fixed_ip"]}]
    found = rest.nova(ports.cloud, "POST", f"/servers/{server_id}/os-interface",
                      {"interfaceAttachment": body})
    attached = (found or {}).get("interfaceAttachment", {})
    step["port"] = step["port"] or attached.get("port_id")
    if step["security_groups"] and step["port"]:
        rest.neutron(ports.cloud, "PUT", f"/ports/{step['port']}",
                     {"port": {"security_groups": step["security_groups"]}})


def attach_done(ports: Ports, server: Mapping[str, Any], step: Step) -> bool:
    """The port's fixed IPs show in the server's addresses (what attributes read)."""
    if not step["port"]:
        return True
    port = rest.neutron(ports.cloud, "GET", f"/ports/{step['port']}")["port"]
    wanted = {f["ip_address"] for f in port.get("fixed_ips", []) if f.get("ip_address")}
    if not wanted:
        return step["port"] in {i["port_id"] for i in interfaces(ports, server["id"])}
    shown = {a["addr"] for addrs in (server.get("addresses") or {}).values() for a in addrs
             if a.get("OS-EXT-IPS:type") == "fixed"}
    return wanted <= shown
