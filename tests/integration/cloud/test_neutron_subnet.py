"""OS::Neutron::Subnet against the devcloud's real Neutron."""

from __future__ import annotations

import os
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


def template(**subnet: Any) -> dict[str, Any]:
    props = {"network": {"get_attr": ["net", "name"]}, "cidr": "10.91.0.0/24", **subnet}
    return hot(
        {"net": {"type": "OS::Neutron::Net"},
         "subnet": {"type": "OS::Neutron::Subnet", "properties": props}},
        {"gateway_ip": {"get_attr": ["subnet", "gateway_ip"]},
         "cidr": {"get_attr": ["subnet", "cidr"]},
         "pools": {"get_attr": ["subnet", "allocation_pools"]},
         "network_id": {"get_attr": ["subnet", "network_id"]},
         "net": {"get_resource": "net"},
         "show_name": {"get_attr": ["subnet", "show", "name"]}},
    )


def test_subnet_lifecycle(cloud_engine: Engine, demo_conn: Connection) -> None:
    before = inventory(demo_conn)
    stack = create_stack(cloud_engine, "subnet", template(
        gateway_ip="10.91.0.254",
        allocation_pools=[{"start": "10.91.0.10", "end": "10.91.0.20"}],
        dns_nameservers=["10.91.0.2"],
        host_routes=[{"destination": "10.92.0.0/24", "nexthop": "10.91.0.5"}],
        enable_dhcp=False,
        tags=["a"],
        value_specs={"description": "made by a stack"},
    ))
    subnet_id = physical_id(cloud_engine, stack, "subnet")
    subnet = demo_conn.network.get_subnet(subnet_id)
    outputs = out(cloud_engine, stack)
    # The network was given by name: the subnet is on the stack's network.
    assert subnet.network_id == outputs["net"] == outputs["network_id"]
    assert subnet.gateway_ip == outputs["gateway_ip"] == "10.91.0.254"
    assert subnet.allocation_pools == outputs["pools"] == [
        {"start": "10.91.0.10", "end": "10.91.0.20"}]
    assert subnet.dns_nameservers == ["10.91.0.2"]
    assert subnet.host_routes == [{"destination": "10.92.0.0/24", "nexthop": "10.91.0.5"}]
    assert (subnet.is_dhcp_enabled, subnet.tags, subnet.description) == (
        False, ["a"], "made by a stack")
    assert outputs["cidr"] == "10.91.0.0/24" and outputs["show_name"] == subnet.name
    assert subnet.name.startswith(f"{PREFIX}-subnet") and "-subnet-" in subnet.name

    # In place: name, pools, DNS, routes, DHCP, tags; gateway null means "no gateway".
    state = update(cloud_engine, stack, template(
        name=f"{PREFIX}-renamed",
        gateway_ip=None,
        allocation_pools=[{"start": "10.91.0.30", "end": "10.91.0.40"}],
        dns_nameservers=[],
        enable_dhcp=True,
        tags=["b"],
    ))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "subnet") == subnet_id
    subnet = demo_conn.network.get_subnet(subnet_id)
    assert subnet.name == f"{PREFIX}-renamed"
    assert subnet.gateway_ip is None and out(cloud_engine, stack)["gateway_ip"] is None
    assert subnet.allocation_pools == [{"start": "10.91.0.30", "end": "10.91.0.40"}]
    assert (subnet.dns_nameservers, subnet.host_routes) == ([], [])
    assert (subnet.is_dhcp_enabled, subnet.tags) == (True, ["b"])

    # A gateway again, then removed from the template: Heat detaches it.
    state = update(cloud_engine, stack, template(gateway_ip="10.91.0.1"))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert demo_conn.network.get_subnet(subnet_id).gateway_ip == "10.91.0.1"
    state = update(cloud_engine, stack, template())
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert demo_conn.network.get_subnet(subnet_id).gateway_ip is None

    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Replacement: the CIDR cannot change in place.
    state = update(cloud_engine, stack, template(cidr="10.93.0.0/24"))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(cloud_engine, stack, "subnet")
    assert new_id != subnet_id
    assert demo_conn.network.find_subnet(subnet_id) is None
    assert demo_conn.network.get_subnet(new_id).cidr == "10.93.0.0/24"

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_subnet_without_gateway_and_check_after_loss(
    cloud_engine: Engine, demo_conn: Connection
) -> None:
    before = inventory(demo_conn)
    # "" (like null and ~) makes a subnet without a gateway.
    stack = create_stack(cloud_engine, "subnet-nogw", template(gateway_ip=""))
    subnet_id = physical_id(cloud_engine, stack, "subnet")
    assert demo_conn.network.get_subnet(subnet_id).gateway_ip is None
    demo_conn.network.delete_subnet(subnet_id)
    checked = action(cloud_engine, stack, "check")
    assert checked[:2] == ("CHECK", "FAILED") and "NotFound" in checked[2]
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


@pytest.mark.parametrize(("props", "message"), [
    ({"prefixlen": 28}, "Cannot define the following properties at the same time: "
                        "prefixlen, cidr."),
    ({"cidr": None}, "At least one of the following properties must be specified: "
                     "subnetpool, cidr."),
    ({"ipv6_ra_mode": "slaac"}, "ipv6_ra_mode and ipv6_address_mode are not supported for "
                                "ipv4."),
    ({"gateway_ip": "not-an-ip"}, 'Gateway IP address "not-an-ip" is in invalid format.'),
])
def test_subnet_validation(cloud_engine: Engine, props: dict[str, Any], message: str) -> None:
    tmpl = template(**props)
    subnet_props = tmpl["resources"]["subnet"]["properties"]
    for key in [k for k, v in props.items() if v is None]:
        del subnet_props[key]
    with pytest.raises(StackValidationFailed) as raised:
        cloud_engine.create_stack(CTX, f"{PREFIX}-bad", tmpl, {})
    assert message in str(raised.value)


def test_subnet_from_a_pool_and_ipv6_modes(cloud_engine: Engine, demo_conn: Connection) -> None:
    before = inventory(demo_conn)
    pool = demo_conn.network.create_subnet_pool(
        name=f"{PREFIX}-pool-{os.getpid()}", prefixes=["10.98.0.0/16"], default_prefixlen=26)
    try:
        stack = create_stack(cloud_engine, "subnet-pool", hot({
            "net": {"type": "OS::Neutron::Net"},
            # The pool by name; the prefix length overrides the pool's default.
            "pooled": {"type": "OS::Neutron::Subnet",
                       "properties": {"network": {"get_resource": "net"},
                                      "subnetpool": pool.name, "prefixlen": 28}},
            "v6": {"type": "OS::Neutron::Subnet",
                   "properties": {"network": {"get_resource": "net"}, "ip_version": 6,
                                  "cidr": "fd00:98::/64", "ipv6_ra_mode": "slaac",
                                  "ipv6_address_mode": "slaac"}},
        }))
        pooled = demo_conn.network.get_subnet(physical_id(cloud_engine, stack, "pooled"))
        assert pooled.subnet_pool_id == pool.id and pooled.cidr.endswith("/28")
        assert pooled.cidr.startswith("10.98.")
        v6 = demo_conn.network.get_subnet(physical_id(cloud_engine, stack, "v6"))
        assert (v6.ip_version, v6.ipv6_ra_mode, v6.ipv6_address_mode) == (6, "slaac", "slaac")
        assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    finally:
        demo_conn.network.delete_subnet_pool(pool.id)
    assert_nothing_left(demo_conn, before)
