"""OS::Nova::Server's ports with ``port_extra_properties``: changed in place when only
updatable keys change, replaced (detach, new port, attach) otherwise."""

from __future__ import annotations

from typing import Any

from openstack.connection import Connection

from hearth.engine.engine import Engine
from tests.integration.cloud.conftest import (
    assert_nothing_left,
    create,
    delete,
    inventory,
    outputs,
    physical_id,
    update,
)


def template(extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"server": {"type": "OS::Nova::Server", "properties": {
            "image": "cirros", "flavor": "m1.tiny", "user_data_format": "RAW",
            "networks": [{"network": "private", "port_extra_properties": extra}]}}},
    }


def test_port_extra_properties_update(cloud_engine: Engine, demo_conn: Connection) -> None:
    before = inventory(demo_conn, ("servers", "ports"))
    stack = create(cloud_engine, "srv-extra", template(
        {"admin_state_up": True, "value_specs": {"description": "one"}}))
    try:
        server_id = physical_id(cloud_engine, stack, "server")
        (iface,) = demo_conn.compute.server_interfaces(server_id)
        port = demo_conn.network.get_port(iface.port_id)
        # Heat made the port (its name says so), with the extra properties.
        assert (port.name, port.description, port.is_admin_state_up) == (
            "server-port-0", "one", True)

        # Updatable keys only: the same port, changed in place, still attached.
        state = update(cloud_engine, stack, template(
            {"admin_state_up": False, "value_specs": {"description": "two"}}))
        assert state[:2] == ("UPDATE", "COMPLETE"), state
        assert physical_id(cloud_engine, stack, "server") == server_id
        (iface,) = demo_conn.compute.server_interfaces(server_id)
        assert iface.port_id == port.id
        port = demo_conn.network.get_port(port.id)
        assert (port.description, port.is_admin_state_up) == ("two", False)

        # mac_address cannot change on a port: a new port replaces the old one.
        state = update(cloud_engine, stack, template(
            {"admin_state_up": False, "value_specs": {"description": "two"},
             "mac_address": "fa:16:3e:12:34:56"}))
        assert state[:2] == ("UPDATE", "COMPLETE"), state
        assert physical_id(cloud_engine, stack, "server") == server_id
        (iface,) = demo_conn.compute.server_interfaces(server_id)
        assert iface.port_id != port.id and iface.mac_addr == "fa:16:3e:12:34:56"
        assert demo_conn.network.find_port(port.id) is None
    finally:
        assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_allocate_network_none_then_a_network(cloud_engine: Engine,
                                              demo_conn: Connection) -> None:
    before = inventory(demo_conn, ("servers", "ports"))
    tmpl = template({})
    server_props = tmpl["resources"]["server"]["properties"]
    server_props["networks"] = [{"allocate_network": "none"}]
    tmpl["outputs"] = {"first": {"value": {"get_attr": ["server", "first_address"]}},
                       "networks": {"value": {"get_attr": ["server", "networks"]}}}
    stack = create(cloud_engine, "srv-none", tmpl)
    try:
        server_id = physical_id(cloud_engine, stack, "server")
        assert list(demo_conn.compute.server_interfaces(server_id)) == []
        assert outputs(cloud_engine, stack) == {"first": "", "networks": {}}

        server_props["networks"] = [{"network": "private"}]
        state = update(cloud_engine, stack, tmpl)
        assert state[:2] == ("UPDATE", "COMPLETE"), state
        assert physical_id(cloud_engine, stack, "server") == server_id
        (iface,) = demo_conn.compute.server_interfaces(server_id)
        address = iface.fixed_ips[0]["ip_address"]
        private = demo_conn.network.find_network("private")
        assert private is not None
        assert outputs(cloud_engine, stack)["networks"] == {"private": [address],
                                                            private.id: [address]}
    finally:
        assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)
