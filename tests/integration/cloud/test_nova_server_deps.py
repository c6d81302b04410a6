"""OS::Nova::Server's implicit dependencies (Heat's Server.add_dependencies): a server waits
for the subnets of the networks it names, and for every subnet of the stack when an entry
names no network it can compare (a port, a subnet). No cloud needed."""

from __future__ import annotations

import json
from typing import Any

from hearth.resources.dependencies import ResourceShape
from hearth.resources.openstack.nova.server import Server


def value(data: Any) -> tuple[str, str]:
    return ("value", json.dumps(data, sort_keys=True))


def shapes(networks: Any) -> dict[str, ResourceShape]:
    return {
        "server": ResourceShape("OS::Nova::Server", {"networks": networks}),
        "net": ResourceShape("OS::Neutron::Net", {}),
        "port": ResourceShape("OS::Neutron::Port", {"network": ("resource", "net")}),
        "subnet_of_net": ResourceShape("OS::Neutron::Subnet", {"network": ("resource", "net")}),
        "subnet_of_private": ResourceShape("OS::Neutron::Subnet",
                                           {"network": value("private")}),
        "subnet_of_public": ResourceShape("OS::Neutron::Subnet", {"network": value("public")}),
        "subnet_unknown": ResourceShape("OS::Neutron::Subnet",
                                        {"network": ("unknown", ("a", "b"))}),
    }


def deps(networks: Any) -> list[str]:
    return list(Server.implicit_dependencies("server", shapes(networks)))


def test_waits_for_the_subnets_of_a_network_named_in_the_template() -> None:
    assert deps(value([{"network": "private"}])) == ["subnet_of_private", "subnet_unknown"]


def test_waits_for_the_subnets_of_a_network_of_the_stack() -> None:
    assert deps(("resource", "net")) == ["subnet_of_net", "subnet_unknown"]


def test_an_entry_without_a_network_waits_for_every_subnet() -> None:
    every = ["subnet_of_net", "subnet_of_private", "subnet_of_public", "subnet_unknown"]
    assert deps(value([{"network": "private"}, {"port": "p1"}])) == every
    assert deps(("resource", "port")) == every


def test_no_networks_no_dependencies() -> None:
    assert deps(None) == []
    assert list(Server.implicit_dependencies("server", {
        "server": ResourceShape("OS::Nova::Server", {}),
        "subnet": ResourceShape("OS::Neutron::Subnet", {"network": value("x")}),
    })) == []
