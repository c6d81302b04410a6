"""OS::Neutron::Port against the devcloud's real Neutron."""

from __future__ import annotations

import os
from typing import Any

from openstack.connection import Connection

from hearth.engine.engine import Engine
from tests.integration.cloud import neutron_checks
from tests.integration.cloud.conftest import (
    CTX,
    STACK_TIMEOUT,
    action,
    delete,
    physical_id,
    update,
)
from tests.integration.cloud.neutron_checks import (
    PREFIX,
    assert_nothing_left,
    create_stack,
    hot,
    inventory,
    out,
)
from tests.integration.engine.conftest import resources, wait_state

# Looked up by name (a literal, not a reference): unique to this run.
SG_NAME = f"{PREFIX}-port-sg-{os.getpid()}"

delete_leftover_stacks = neutron_checks.delete_leftover_stacks


def template(port: dict[str, Any], subnet_cidr: str = "10.94.0.0/24") -> dict[str, Any]:
    return hot(
        {"net": {"type": "OS::Neutron::Net"},
         # No depends_on: the port waits for the subnet of its network by itself.
         "subnet": {"type": "OS::Neutron::Subnet",
                    "properties": {"network": {"get_resource": "net"}, "cidr": subnet_cidr,
                                   "name": f"{PREFIX}-port-subnet"}},
         "sg": {"type": "OS::Neutron::SecurityGroup", "properties": {"name": SG_NAME}},
         # The group is named, not referenced: the template says to wait for it.
         "port": {"type": "OS::Neutron::Port", "properties": port, "depends_on": ["sg"]}},
        {"fixed_ips": {"get_attr": ["port", "fixed_ips"]},
         "mac": {"get_attr": ["port", "mac_address"]},
         "network_id": {"get_attr": ["port", "network_id"]},
         "status": {"get_attr": ["port", "status"]},
         "subnets": {"get_attr": ["port", "subnets"]},
         "mtu": {"get_attr": ["port", "network", "mtu"]},
         "show_id": {"get_attr": ["port", "show", "id"]},
         "net": {"get_resource": "net"},
         "subnet": {"get_resource": "subnet"},
         "sg": {"get_resource": "sg"}},
    )


def full_port(**changes: Any) -> dict[str, Any]:
    props: dict[str, Any] = {
        # By name: the network's and the subnet's, and the security group's.
        "network": {"get_attr": ["net", "name"]},
        "fixed_ips": [{"subnet": {"get_attr": ["subnet", "name"]}, "ip_address": "10.94.0.50"}],
        "security_groups": [SG_NAME],
        "allowed_address_pairs": [{"ip_address": "10.94.0.200"}],
        "mac_address": "fa:16:3e:00:11:22",
        "binding:vnic_type": "normal",
        "device_owner": "hearth:test",
        "device_id": "some-device",
        "tags": ["a"],
        "value_specs": {"description": "made by a stack"},
    }
    props.update(changes)
    for key in [k for k, v in changes.items() if v is None]:
        del props[key]
    return props


def test_port_lifecycle(cloud_engine: Engine, demo_conn: Connection) -> None:
    before = inventory(demo_conn)
    stack = create_stack(cloud_engine, "port", template(full_port()))
    port_id = physical_id(cloud_engine, stack, "port")
    port = demo_conn.network.get_port(port_id)
    outputs = out(cloud_engine, stack)
    assert port.network_id == outputs["net"] == outputs["network_id"]
    assert [(ip["subnet_id"], ip["ip_address"]) for ip in port.fixed_ips] == [
        (outputs["subnet"], "10.94.0.50")]
    assert outputs["fixed_ips"] == port.fixed_ips
    assert port.security_group_ids == [outputs["sg"]]
    assert port.allowed_address_pairs == [
        {"ip_address": "10.94.0.200", "mac_address": "fa:16:3e:00:11:22"}]
    assert port.mac_address == outputs["mac"] == "fa:16:3e:00:11:22"
    assert (port.device_owner, port.device_id) == ("hearth:test", "some-device")
    assert (port.tags, port.description, port.binding_vnic_type) == (
        ["a"], "made by a stack", "normal")
    # No agents in the devcloud: DOWN counts as built, as in Heat.
    assert port.status == outputs["status"] == "DOWN"
    assert [s["id"] for s in outputs["subnets"]] == [outputs["subnet"]]
    assert outputs["mtu"] == demo_conn.network.get_network(outputs["net"]).mtu
    assert outputs["show_id"] == port_id

    # In place: name, address, groups (removed: back to "default"), pairs, state, tags.
    state = update(cloud_engine, stack, template(full_port(
        name=f"{PREFIX}-renamed",
        fixed_ips=[{"subnet": {"get_resource": "subnet"}, "ip_address": "10.94.0.60"}],
        security_groups=None,
        allowed_address_pairs=[],
        admin_state_up=False,
        port_security_enabled=True,
        tags=["b"],
        value_specs={"description": "changed"},
    )))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "port") == port_id
    port = demo_conn.network.get_port(port_id)
    assert port.name == f"{PREFIX}-renamed"
    assert [ip["ip_address"] for ip in port.fixed_ips] == ["10.94.0.60"]
    default = demo_conn.network.find_security_group(
        "default", project_id=demo_conn.current_project_id)
    assert default is not None and port.security_group_ids == [default.id]
    assert port.allowed_address_pairs == []
    assert (port.is_admin_state_up, port.tags, port.description) == (False, ["b"], "changed")

    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Replacement: the MAC address cannot change in place (nor the network).
    state = update(cloud_engine, stack, template(full_port(
        mac_address="fa:16:3e:00:11:33", fixed_ips=None)))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(cloud_engine, stack, "port")
    assert new_id != port_id and demo_conn.network.find_port(port_id) is None
    assert demo_conn.network.get_port(new_id).mac_address == "fa:16:3e:00:11:33"

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_port_waits_for_the_subnets_of_its_network(
    cloud_engine: Engine, demo_conn: Connection
) -> None:
    """A port with nothing but its network gets an address: it was made after the subnet
    although the template does not say so. REPLACE_ALWAYS replaces it on any update."""
    before = inventory(demo_conn)
    port = {"network": {"get_resource": "net"}, "replacement_policy": "REPLACE_ALWAYS"}
    stack = create_stack(cloud_engine, "port-wait", template(port))
    rows = resources(cloud_engine, stack)
    assert rows["port"].status == "COMPLETE", rows["port"].status_reason
    outputs = out(cloud_engine, stack)
    assert [ip["subnet_id"] for ip in outputs["fixed_ips"]] == [outputs["subnet"]]
    port_id = physical_id(cloud_engine, stack, "port")

    state = update(cloud_engine, stack, template({**port, "name": f"{PREFIX}-again"}))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "port") != port_id
    assert demo_conn.network.find_port(port_id) is None

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_replacing_a_port_that_pins_its_address_keeps_the_address(
    cloud_engine: Engine, demo_conn: Connection
) -> None:
    """The old port gives its fixed IP up before its replacement is made (Heat's
    prepare_for_replace): the replacement gets the same address."""
    before = inventory(demo_conn)
    pinned = {"network": {"get_resource": "net"},
              "fixed_ips": [{"subnet": {"get_resource": "subnet"}, "ip_address": "10.94.0.50"}]}
    stack = create_stack(cloud_engine, "port-pin", template(pinned))
    old_id = physical_id(cloud_engine, stack, "port")
    # mac_address cannot change in place: the port is replaced, with the same address.
    state = update(cloud_engine, stack, template({**pinned, "mac_address": "fa:16:3e:00:22:44"}))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(cloud_engine, stack, "port")
    assert new_id != old_id
    assert [ip.get("ip_address") for ip in demo_conn.network.get_port(new_id).fixed_ips] == [
        "10.94.0.50"]
    assert demo_conn.network.find_port(old_id) is None
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_a_rolled_back_replacement_gives_the_address_back(
    cloud_engine: Engine, demo_conn: Connection
) -> None:
    """The replacement fails after the old port gave its fixed IP up: the rollback keeps the
    old port, which takes its address back (Heat's restore_prev_rsrc)."""
    before = inventory(demo_conn)
    pinned = {"network": {"get_resource": "net"},
              "fixed_ips": [{"subnet": {"get_resource": "subnet"}, "ip_address": "10.94.0.51"}]}
    stack = create_stack(cloud_engine, "port-back", template(pinned))
    old_id = physical_id(cloud_engine, stack, "port")
    # A new MAC replaces the port; the address outside the subnet fails the replacement.
    failing = {**pinned, "mac_address": "fa:16:3e:00:22:55",
               "fixed_ips": [{"subnet": {"get_resource": "subnet"}, "ip_address": "10.95.0.9"}]}
    cloud_engine.update_stack(CTX, stack, template(failing), {},
                              args={"disable_rollback": False})
    state = wait_state(cloud_engine, stack, timeout=STACK_TIMEOUT)
    assert state[:2] == ("ROLLBACK", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "port") == old_id
    assert [ip.get("ip_address") for ip in demo_conn.network.get_port(old_id).fixed_ips] == [
        "10.94.0.51"]
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_ports_made_at_once_go_to_neutron_in_bulk(
    cloud_engine: Engine, demo_conn: Connection
) -> None:
    """Twelve ports that start together reach Neutron in fewer requests than ports (one
    bulk POST carries those that queued while another was in flight), each resource gets
    its own port; two ports asking for the same address make Neutron refuse the bulk
    request, and sent again one by one exactly one of them fails, with Neutron's words."""
    before = inventory(demo_conn)
    ports = {f"p{i}": {"type": "OS::Neutron::Port",
                       "properties": {"network": {"get_resource": "net"},
                                      "name": f"{PREFIX}-bulk-{i}"}}
             for i in range(12)}
    tmpl = hot({"net": {"type": "OS::Neutron::Net"},
                "subnet": {"type": "OS::Neutron::Subnet",
                           "properties": {"network": {"get_resource": "net"},
                                          "cidr": "10.95.0.0/24"}},
                **ports})
    stack = create_stack(cloud_engine, "bulk", tmpl)
    assert wait_state(cloud_engine, stack)[:2] == ("CREATE", "COMPLETE")
    grouped = cloud_engine.core.clouds.for_stack(stack["stack_id"]).grouped_creates(
        "network/ports")
    assert grouped.created == 12
    assert grouped.requests < 12
    made = {name: physical_id(cloud_engine, stack, name) for name in ports}
    assert len(set(made.values())) == 12
    for name, port_id in made.items():
        assert demo_conn.network.get_port(port_id).name == ports[name]["properties"]["name"]
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")

    same_address = {"network": {"get_resource": "net"},
                    "fixed_ips": [{"subnet": {"get_resource": "subnet"},
                                   "ip_address": "10.95.0.77"}]}
    clash = hot({**{k: v for k, v in tmpl["resources"].items() if k in ("net", "subnet")},
                 **{f"p{i}": {"type": "OS::Neutron::Port", "properties": same_address}
                    for i in range(2)},
                 **{f"q{i}": {"type": "OS::Neutron::Port",
                              "properties": {"network": {"get_resource": "net"}}}
                    for i in range(6)}})
    stack = create_stack(cloud_engine, "bulk-clash", clash)
    state = wait_state(cloud_engine, stack)
    assert state[:2] == ("CREATE", "FAILED"), state
    rows = resources(cloud_engine, stack)
    failed = [n for n, row in rows.items() if row.status == "FAILED"]
    assert len(failed) == 1 and failed[0] in ("p0", "p1"), {
        n: rows[n].status_reason for n in failed}
    assert "10.95.0.77" in str(rows[failed[0]].status_reason)
    assert "Conflict" in str(rows[failed[0]].status_reason)
    assert all(rows[f"q{i}"].status == "COMPLETE" for i in range(6))
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)
