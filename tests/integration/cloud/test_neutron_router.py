"""OS::Neutron::Router and OS::Neutron::RouterInterface against the devcloud's Neutron
(routers there are database objects only: no L3 agent)."""

from __future__ import annotations

from typing import Any

import pytest
from openstack.connection import Connection

from hearth.common.errors import StackValidationFailed
from hearth.engine.engine import Engine
from tests.integration.cloud import neutron_checks
from tests.integration.cloud.conftest import CTX, action, delete, physical_id, update
from tests.integration.cloud.neutron_checks import (
    PREFIX,
    assert_nothing_left,
    create_stack,
    hot,
    inventory,
    out,
)

delete_leftover_stacks = neutron_checks.delete_leftover_stacks


def template(router: dict[str, Any], interface: dict[str, Any] | None = None) -> dict[str, Any]:
    resources: dict[str, Any] = {
        "net": {"type": "OS::Neutron::Net"},
        "subnet": {"type": "OS::Neutron::Subnet",
                   "properties": {"network": {"get_resource": "net"}, "cidr": "10.95.0.0/24"}},
        # A router has one port per subnet: the port for an interface is on another one.
        "net2": {"type": "OS::Neutron::Net"},
        "subnet2": {"type": "OS::Neutron::Subnet",
                    "properties": {"network": {"get_resource": "net2"},
                                   "cidr": "10.96.0.0/24"}},
        "port": {"type": "OS::Neutron::Port",
                 "properties": {"network": {"get_resource": "net2"},
                                "fixed_ips": [{"ip_address": "10.96.0.77"}]}},
        "router": {"type": "OS::Neutron::Router", "properties": router},
    }
    outputs: dict[str, Any] = {
        "gateway": {"get_attr": ["router", "external_gateway_info"]},
        "status": {"get_attr": ["router", "status"]},
        "name": {"get_attr": ["router", "name"]},
        "subnet": {"get_resource": "subnet"},
        "port": {"get_resource": "port"},
    }
    if interface is not None:
        resources["iface"] = {"type": "OS::Neutron::RouterInterface",
                              "properties": {"router": {"get_resource": "router"}, **interface}}
        outputs["iface"] = {"get_resource": "iface"}
        outputs["iface_show"] = {"get_attr": ["iface", "show"]}
    return hot(resources, outputs)


def public_id(conn: Connection) -> str:
    public = conn.network.find_network("public")
    assert public is not None
    return str(public.id)


def test_router_lifecycle(cloud_engine: Engine, demo_conn: Connection) -> None:
    before = inventory(demo_conn)
    stack = create_stack(cloud_engine, "router", template({
        # The external network by name.
        "external_gateway_info": {"network": "public"},
        "admin_state_up": False,
        "tags": ["a"],
        "value_specs": {"description": "made by a stack"},
    }))
    router_id = physical_id(cloud_engine, stack, "router")
    router = demo_conn.network.get_router(router_id)
    outputs = out(cloud_engine, stack)
    assert router.external_gateway_info["network_id"] == public_id(demo_conn)
    assert outputs["gateway"] == router.external_gateway_info
    assert (router.is_admin_state_up, router.tags, router.description) == (
        False, ["a"], "made by a stack")
    assert outputs["status"] == router.status == "ACTIVE"
    assert outputs["name"] == router.name and router.name.startswith(f"{PREFIX}-router")

    # In place: the gateway goes, the name, state and tags change.
    state = update(cloud_engine, stack, template({"name": f"{PREFIX}-renamed", "tags": ["b"]}))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "router") == router_id
    router = demo_conn.network.get_router(router_id)
    assert router.external_gateway_info is None
    assert (router.name, router.is_admin_state_up, router.tags) == (
        f"{PREFIX}-renamed", True, ["b"])

    # ... and comes back (by id this time).
    state = update(cloud_engine, stack, template(
        {"name": f"{PREFIX}-renamed", "external_gateway_info": {"network": public_id(demo_conn)}}))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    router = demo_conn.network.get_router(router_id)
    assert router.external_gateway_info["network_id"] == public_id(demo_conn)

    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Replacement: tenant_id cannot change in place (here: set to the same project).
    state = update(cloud_engine, stack, template(
        {"name": f"{PREFIX}-renamed", "tenant_id": demo_conn.current_project_id}))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(cloud_engine, stack, "router")
    assert new_id != router_id and demo_conn.network.find_router(router_id) is None

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def router_ports(conn: Connection, router_id: str) -> list[Any]:
    return list(conn.network.ports(device_id=router_id,
                                   device_owner="network:router_interface"))


def test_router_interface_lifecycle(cloud_engine: Engine, demo_conn: Connection) -> None:
    before = inventory(demo_conn)
    stack = create_stack(cloud_engine, "iface", template(
        {}, {"subnet": {"get_resource": "subnet"}}))
    router_id = physical_id(cloud_engine, stack, "router")
    outputs = out(cloud_engine, stack)
    # Heat's physical id: router id, then what was plugged.
    assert outputs["iface"] == f"{router_id}:subnet_id={outputs['subnet']}"
    assert outputs["iface_show"] is None
    ports = router_ports(demo_conn, router_id)
    assert [p.fixed_ips[0]["subnet_id"] for p in ports] == [outputs["subnet"]]
    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Any change replaces the interface: now the router is plugged onto the port.
    state = update(cloud_engine, stack, template({}, {"port": {"get_resource": "port"}}))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    outputs = out(cloud_engine, stack)
    assert outputs["iface"] == f"{router_id}:port_id={outputs['port']}"
    assert [p.id for p in router_ports(demo_conn, router_id)] == [outputs["port"]]
    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Unplugged behind the stack's back: check says so.
    demo_conn.network.remove_interface_from_router(router_id, port=outputs["port"])
    checked = action(cloud_engine, stack, "check")
    assert checked[:2] == ("CHECK", "FAILED") and "NotFound" in checked[2], checked

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


@pytest.mark.parametrize(("props", "message"), [
    ({"subnet": {"get_resource": "subnet"}, "port": {"get_resource": "port"}},
     "Cannot define the following properties at the same time: subnet, port."),
    ({}, "At least one of the following properties must be specified: subnet, port."),
])
def test_router_interface_validation(
    cloud_engine: Engine, props: dict[str, Any], message: str
) -> None:
    with pytest.raises(StackValidationFailed) as raised:
        cloud_engine.create_stack(CTX, f"{PREFIX}-bad", template({}, props), {})
    assert message in str(raised.value)


def test_admin_router_distributed_then_ha(
    admin_cloud_engine: Engine, admin_conn: Connection
) -> None:
    """distributed, ha, SNAT and the gateway's fixed IPs are admin-only; the first two
    cannot change in place."""
    before = inventory(admin_conn)
    gateway = {"network": "public", "enable_snat": False,
               "external_fixed_ips": [{"subnet": "public-subnet"}]}
    stack = create_stack(admin_cloud_engine, "router-admin", hot(
        {"router": {"type": "OS::Neutron::Router",
                    "properties": {"distributed": True, "external_gateway_info": gateway}}}))
    router_id = physical_id(admin_cloud_engine, stack, "router")
    router = admin_conn.network.get_router(router_id)
    assert (router.is_distributed, router.is_ha) == (True, False)
    public_subnet = admin_conn.network.find_subnet("public-subnet")
    assert public_subnet is not None
    info = router.external_gateway_info
    assert info["enable_snat"] is False
    assert [ip["subnet_id"] for ip in info["external_fixed_ips"]] == [public_subnet.id]

    # SNAT on again, in place.
    state = update(admin_cloud_engine, stack, hot(
        {"router": {"type": "OS::Neutron::Router",
                    "properties": {"distributed": True, "external_gateway_info": {
                        **gateway, "enable_snat": True}}}}))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(admin_cloud_engine, stack, "router") == router_id
    assert admin_conn.network.get_router(router_id).external_gateway_info["enable_snat"] is True

    state = update(admin_cloud_engine, stack, hot(
        {"router": {"type": "OS::Neutron::Router", "properties": {"ha": True}}}))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(admin_cloud_engine, stack, "router")
    assert new_id != router_id and admin_conn.network.find_router(router_id) is None
    router = admin_conn.network.get_router(new_id)
    assert (router.is_distributed, router.is_ha) == (False, True)

    assert delete(admin_cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(admin_conn, before)
