"""How Neutron types find the resources of their stack they implicitly wait for.

Heat compares resolved property values (a port's network with a subnet's network...).
Hearth compares the keys of ``ResourceShape``: two properties naming the same resource, or
the same literal value, match. The key of a map or list property (a router's
``external_gateway_info``, a port's ``fixed_ips``) stands for all its nested values:
``nested`` gets the candidates for one field inside it. A map naming a single resource
anywhere inside is read as naming it in the field asked for.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from hearth.resources.dependencies import ResourceShape

Key = tuple[Any, ...]
Shapes = Mapping[str, ResourceShape]

SUBNET = "OS::Neutron::Subnet"
PORT = "OS::Neutron::Port"
ROUTER = "OS::Neutron::Router"
ROUTER_INTERFACE = "OS::Neutron::RouterInterface"

_EMPTY = {"null", "[]", "{}", '""'}


def key_of(shape: ResourceShape, *names: str) -> Key | None:
    """The comparable key of the first of ``names`` the resource gives; None when none is
    given, or its value is empty or cannot be known before the stack runs."""
    for name in names:
        key = shape.properties.get(name)
        if key is None or is_empty(key):
            continue
        return key if key[0] in ("resource", "value") else None
    return None


def is_empty(key: Key | None) -> bool:
    return key is None or (key[0] == "value" and key[1] in _EMPTY)


def nested(key: Key | None, field: str) -> list[Key]:
    """The keys ``field`` may have inside a map or list property with this key."""
    if key is None:
        return []
    kind = key[0]
    if kind == "resource":
        return [key]
    if kind == "unknown":
        return [("resource", name) for name in key[1]]
    return [("value", json.dumps(v, sort_keys=True)) for v in _fields(json.loads(key[1]), field)]


def _fields(value: Any, field: str) -> Iterator[Any]:
    if isinstance(value, list):
        for item in value:
            yield from _fields(item, field)
    elif isinstance(value, dict) and value.get(field) is not None:
        yield value[field]


def referenced(shape: ResourceShape) -> set[str]:
    """The resources the properties of a resource reference."""
    names: set[str] = set()
    for key in shape.properties.values():
        if key[0] == "resource":
            names.add(key[1])
        elif key[0] == "unknown":
            names.update(key[1])
    return names


def subnets_on(shapes: Shapes, network: Key | None) -> list[str]:
    """The Subnet resources of the stack on this network."""
    if network is None:
        return []
    return [name for name, shape in shapes.items()
            if shape.type == SUBNET and key_of(shape, "network", "network_id") == network]


def port_on_interface_subnet(shapes: Shapes, port_name: str, interface: ResourceShape) -> bool:
    """Whether a Port of the stack gets an address on the subnet a RouterInterface plugs
    into (Heat's ``port_on_subnet``).

    A port with fixed IPs: one of them names that subnet. A port without: any interface
    plugged by port may be the one; one plugged by subnet is when the subnet (a resource of
    the stack) is on the port's network (Heat asks Neutron; here the template says).
    """
    port = shapes.get(port_name)
    if port is None or port.type != PORT:
        return False
    subnet = key_of(interface, "subnet", "subnet_id")
    fixed_ips = port.properties.get("fixed_ips")
    if not is_empty(fixed_ips):
        return subnet is not None and (
            subnet in nested(fixed_ips, "subnet") or subnet in nested(fixed_ips, "subnet_id")
        )
    if subnet is None:
        return True
    if subnet[0] != "resource" or subnet[1] not in shapes:
        return False
    subnet_shape = shapes[subnet[1]]
    network = key_of(port, "network", "network_id")
    return (subnet_shape.type == SUBNET and network is not None
            and key_of(subnet_shape, "network", "network_id") == network)


def interfaces_for_ports(shapes: Shapes, name: str) -> list[str]:
    """The RouterInterfaces that connect a port this resource references to a router."""
    ports = referenced(shapes[name])
    return [other for other, shape in shapes.items()
            if shape.type == ROUTER_INTERFACE
            and any(port_on_interface_subnet(shapes, port, shape) for port in ports)]


def gateway_networks(shape: ResourceShape) -> list[Key]:
    """The keys a Router's external gateway network may have."""
    return nested(shape.properties.get("external_gateway_info"), "network")
