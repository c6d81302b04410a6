"""OS::Neutron::FloatingIP and OS::Neutron::FloatingIPAssociation against the devcloud's
Neutron, and the classic topology that only the implicit dependencies put in order."""

from __future__ import annotations

from typing import Any

from openstack.connection import Connection

from hearth.engine.engine import Engine
from tests.integration.cloud import neutron_checks
from tests.integration.cloud.conftest import action, delete, physical_id
from tests.integration.cloud.neutron_checks import (
    assert_nothing_left,
    create_stack,
    hot,
    inventory,
    out,
    update_stack,
)
from tests.integration.engine.conftest import events

delete_leftover_stacks = neutron_checks.delete_leftover_stacks


def topology(extra: dict[str, Any] | None = None, fip: dict[str, Any] | None = None,
             cidr: str = "10.97.0.0/24") -> dict[str, Any]:
    """net, subnet, router with its gateway on public, interface, port, floating IP: no
    depends_on anywhere, and nothing references the subnet from the port or the floating
    IP, so only the implicit dependencies order them."""
    resources: dict[str, Any] = {
        "net": {"type": "OS::Neutron::Net"},
        "subnet": {"type": "OS::Neutron::Subnet",
                   "properties": {"network": {"get_resource": "net"}, "cidr": cidr}},
        "router": {"type": "OS::Neutron::Router",
                   "properties": {"external_gateway_info": {"network": "public"}}},
        "iface": {"type": "OS::Neutron::RouterInterface",
                  "properties": {"router": {"get_resource": "router"},
                                 "subnet": {"get_resource": "subnet"}}},
        "port": {"type": "OS::Neutron::Port",
                 "properties": {"network": {"get_resource": "net"}}},
        "fip": {"type": "OS::Neutron::FloatingIP",
                "properties": fip if fip is not None else {
                    "floating_network": "public", "port_id": {"get_resource": "port"}}},
        **(extra or {}),
    }
    return hot(resources, {
        "address": {"get_attr": ["fip", "floating_ip_address"]},
        "fixed": {"get_attr": ["fip", "fixed_ip_address"]},
        "fip_port": {"get_attr": ["fip", "port_id"]},
        "fip_router": {"get_attr": ["fip", "router_id"]},
        "fip_network": {"get_attr": ["fip", "floating_network_id"]},
        "port": {"get_resource": "port"},
        "port_ips": {"get_attr": ["port", "fixed_ips"]},
        "router": {"get_resource": "router"},
    })


def public_id(conn: Connection) -> str:
    public = conn.network.find_network("public")
    assert public is not None
    return str(public.id)


def completed(engine: Engine, stack: dict[str, str], action_: str) -> list[str]:
    """Resources in the order their ``action_`` completed."""
    return [name for name, act, status, _ in events(engine, stack)
            if act == action_ and status == "COMPLETE"]


def test_classic_topology_is_ordered_by_implicit_dependencies(
    cloud_engine: Engine, demo_conn: Connection
) -> None:
    before = inventory(demo_conn)
    stack = create_stack(cloud_engine, "topology", topology())
    outputs = out(cloud_engine, stack)
    created = completed(cloud_engine, stack, "CREATE")
    # The port waited for the subnet; the floating IP for the router and its interface.
    assert created.index("subnet") < created.index("port")
    assert created.index("router") < created.index("fip")
    assert created.index("iface") < created.index("fip")
    fip = demo_conn.network.get_ip(physical_id(cloud_engine, stack, "fip"))
    port = demo_conn.network.get_port(outputs["port"])
    assert fip.port_id == port.id == outputs["fip_port"]
    assert fip.fixed_ip_address == port.fixed_ips[0]["ip_address"] == outputs["fixed"]
    assert fip.router_id == outputs["router"] == outputs["fip_router"]
    assert fip.floating_network_id == public_id(demo_conn) == outputs["fip_network"]
    assert fip.floating_ip_address == outputs["address"]
    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Delete goes the other way: the interface is only removed once the floating IP that
    # needs it is gone (Neutron refuses otherwise).
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    deleted = completed(cloud_engine, stack, "DELETE")
    assert deleted.index("fip") < deleted.index("iface") < deleted.index("subnet")
    assert_nothing_left(demo_conn, before)


def test_floating_ip_updates(cloud_engine: Engine, demo_conn: Connection) -> None:
    before = inventory(demo_conn)
    # Made alone first (the network by name), then given to the port, then taken back.
    stack = create_stack(cloud_engine, "fip", topology(fip={"floating_network": "public"}))
    fip_id = physical_id(cloud_engine, stack, "fip")
    fip = demo_conn.network.get_ip(fip_id)
    assert fip.port_id is None and fip.status == "DOWN"
    assert out(cloud_engine, stack)["fip_port"] is None

    port_ip = out(cloud_engine, stack)["port_ips"][0]["ip_address"]
    state = update_stack(cloud_engine, stack, topology(fip={
        "floating_network": "public", "port_id": {"get_resource": "port"},
        "fixed_ip_address": port_ip}))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "fip") == fip_id
    fip = demo_conn.network.get_ip(fip_id)
    assert (fip.port_id, fip.fixed_ip_address) == (out(cloud_engine, stack)["port"], port_ip)
    assert out(cloud_engine, stack)["fip_port"] == fip.port_id

    state = update_stack(cloud_engine, stack, topology(fip={"floating_network": "public"}))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert demo_conn.network.get_ip(fip_id).port_id is None

    # Replacement: the value specs cannot change in place (the network, by id this time,
    # is the same; the subnet is given by name).
    state = update_stack(cloud_engine, stack, topology(fip={
        "floating_network": public_id(demo_conn), "floating_subnet": "public-subnet",
        "value_specs": {"description": "again"}}))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(cloud_engine, stack, "fip")
    assert new_id != fip_id and demo_conn.network.find_ip(fip_id) is None
    assert demo_conn.network.get_ip(new_id).description == "again"

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def association(fip: str, port: str) -> dict[str, Any]:
    return {"type": "OS::Neutron::FloatingIPAssociation",
            "properties": {"floatingip_id": {"get_resource": fip},
                           "port_id": {"get_resource": port}}}


def test_floating_ip_association(cloud_engine: Engine, demo_conn: Connection) -> None:
    before = inventory(demo_conn)
    second_port = {"type": "OS::Neutron::Port",
                   "properties": {"network": {"get_resource": "net"}}}
    lone_fip = {"floating_network": "public"}
    stack = create_stack(cloud_engine, "assoc", topology(
        {"port2": second_port, "assoc": association("fip", "port")}, fip=lone_fip))
    fip_id = physical_id(cloud_engine, stack, "fip")
    port_id = out(cloud_engine, stack)["port"]
    assert demo_conn.network.get_ip(fip_id).port_id == port_id
    # It waited for the interface that connects the port's subnet (no reference to it).
    created = completed(cloud_engine, stack, "CREATE")
    assert created.index("iface") < created.index("assoc")
    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # In place: the association moves to the other port.
    state = update_stack(cloud_engine, stack, topology(
        {"port2": second_port, "assoc": association("fip", "port2")}, fip=lone_fip))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    port2 = physical_id(cloud_engine, stack, "port2")
    assert demo_conn.network.get_ip(fip_id).port_id == port2

    # Taken off behind the stack's back: check says so.
    demo_conn.network.update_ip(fip_id, port_id=None)
    checked = action(cloud_engine, stack, "check")
    assert checked[:2] == ("CHECK", "FAILED") and "NotFound" in checked[2], checked
    demo_conn.network.update_ip(fip_id, port_id=port2)

    # Removing the association lets go of the port; the floating IP stays.
    state = update_stack(cloud_engine, stack, topology({"port2": second_port}, fip=lone_fip))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert demo_conn.network.get_ip(fip_id).port_id is None

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)
