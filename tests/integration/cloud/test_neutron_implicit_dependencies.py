"""The implicit dependencies of the Neutron core types (Heat's ``add_dependencies``), on the
dependency graph of a stack (no cloud needed)."""

from __future__ import annotations

from typing import Any

from hearth.engine.stack_builder import BoundStack
from hearth.engine.stack_source import StackSource
from hearth.resources.registry import PluginRegistry
from hearth.template.parameters import StackIdentity

PLUGINS = PluginRegistry.load()


def graph(resources: dict[str, Any]) -> dict[str, set[str]]:
    tmpl = {"heat_template_version": "2018-08-31", "resources": resources}
    stack = BoundStack(StackSource(tmpl), StackIdentity("t", "s", "id"), plugins=PLUGINS,
                       global_env=PLUGINS.global_environment())
    return stack.graph


def res(type_: str, **props: Any) -> dict[str, Any]:
    return {"type": f"OS::Neutron::{type_}", "properties": props}


REF = {"get_resource": "net"}


def test_a_port_waits_for_the_subnets_of_its_network_only() -> None:
    found = graph({
        "net": res("Net"), "other": res("Net"),
        "subnet": res("Subnet", network=REF, cidr="10.0.0.0/24"),
        "subnet_by_attr": res("Subnet", network={"get_attr": ["net", "name"]},
                              cidr="10.0.1.0/24"),
        "elsewhere": res("Subnet", network={"get_resource": "other"}, cidr="10.0.2.0/24"),
        "literal": res("Subnet", network="private", cidr="10.0.3.0/24"),
        "port": res("Port", network=REF),
        "old_style": res("Port", network_id=REF),
        "on_private": res("Port", network="private"),
    })
    assert found["port"] == {"net", "subnet", "subnet_by_attr"}
    assert found["old_style"] == {"net", "subnet", "subnet_by_attr"}
    assert found["on_private"] == {"literal"}


def test_a_router_waits_for_the_subnets_of_its_gateway_network() -> None:
    found = graph({
        "ext": res("Net"),
        "ext_subnet": res("Subnet", network={"get_resource": "ext"}, cidr="10.0.0.0/24"),
        "router": res("Router", external_gateway_info={"network": {"get_resource": "ext"}}),
        "public_subnet": res("Subnet", network="public", cidr="10.0.1.0/24"),
        "public_router": res("Router", external_gateway_info={"network": "public",
                                                              "enable_snat": False}),
        "bare": res("Router"),
    })
    assert found["router"] == {"ext", "ext_subnet"}
    assert found["public_router"] == {"public_subnet"}
    assert found["bare"] == set()


def topology(**extra: Any) -> dict[str, Any]:
    return {
        "net": res("Net"),
        "subnet": res("Subnet", network=REF, cidr="10.0.0.0/24"),
        "subnet2": res("Subnet", network=REF, cidr="10.0.1.0/24"),
        "router": res("Router", external_gateway_info={"network": "public"}),
        "iface": res("RouterInterface", router={"get_resource": "router"},
                     subnet={"get_resource": "subnet"}),
        "other_net": res("Net"),
        "other_subnet": res("Subnet", network={"get_resource": "other_net"},
                            cidr="10.1.0.0/24"),
        "other_iface": res("RouterInterface", router={"get_resource": "router"},
                           subnet={"get_resource": "other_subnet"}),
        **extra,
    }


def test_a_floating_ip_waits_for_the_gateway_and_the_interface_of_its_port() -> None:
    found = graph(topology(
        # A port with no fixed IPs is on every subnet of its network.
        port=res("Port", network=REF),
        fixed=res("Port", network=REF, fixed_ips=[{"subnet": {"get_resource": "subnet2"}}]),
        fip=res("FloatingIP", floating_network="public", port_id={"get_resource": "port"}),
        fip_fixed=res("FloatingIP", floating_network="public",
                      port_id={"get_resource": "fixed"}),
        lone=res("FloatingIP", floating_network="public"),
        elsewhere=res("FloatingIP", floating_network="other-external"),
    ))
    assert found["fip"] == {"port", "router", "iface"}
    # Its port is on subnet2, which no interface plugs: only the gateway matters.
    assert found["fip_fixed"] == {"fixed", "router"}
    assert found["lone"] == {"router"}
    assert found["elsewhere"] == set()


def test_an_association_waits_for_the_interface_of_its_port() -> None:
    found = graph(topology(
        port=res("Port", network=REF, fixed_ips=[{"subnet": {"get_resource": "subnet"}}]),
        fip=res("FloatingIP", floating_network="public"),
        assoc=res("FloatingIPAssociation", floatingip_id={"get_resource": "fip"},
                  port_id={"get_resource": "port"}),
    ))
    assert found["assoc"] == {"fip", "port", "iface"}


def test_an_implicit_edge_that_would_close_a_cycle_is_left_out() -> None:
    # The subnet references the port (contrived): the port cannot also wait for it.
    found = graph({
        "net": res("Net"),
        "port": res("Port", network=REF),
        "subnet": res("Subnet", network=REF, cidr="10.0.0.0/24",
                      name={"get_attr": ["port", "name"]}),
    })
    assert found["port"] == {"net"} and found["subnet"] == {"net", "port"}
