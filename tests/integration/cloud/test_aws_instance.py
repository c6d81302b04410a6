"""AWS::EC2::Instance against the devcloud: on a subnet (Heat makes its port), with elastic
IPs associated by allocation id, by address and through the EIP itself, moved to another
subnet and resized in place; CHECK of an instance deleted behind the stack."""

from __future__ import annotations

from typing import Any

from openstack.connection import Connection

from hearth.engine.engine import Engine
from tests.integration.cloud.aws_helpers import (
    assert_stack_left_nothing,
    ref,
)
from tests.integration.cloud.conftest import (
    action,
    create,
    delete,
    outputs,
    physical_id,
    update,
)


def subnet_instance_template(flavor: str = "m1.tiny", subnet: str = "SubnetA",
                             second_eip_on_instance: bool = False,
                             associate_by_address: bool = False) -> dict[str, Any]:
    second: dict[str, Any] = {"Domain": "vpc"}
    if second_eip_on_instance:
        second["InstanceId"] = ref("Instance")
    association: dict[str, Any] = {"InstanceId": ref("Instance")}
    if associate_by_address:
        association["EIP"] = ref("Address")
    else:
        association["AllocationId"] = {"Fn::GetAtt": ["Address", "AllocationId"]}
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {
            "VPC": {"Type": "AWS::EC2::VPC", "Properties": {"CidrBlock": "10.78.0.0/16"}},
            "SubnetA": {"Type": "AWS::EC2::Subnet", "Properties": {
                "VpcId": ref("VPC"), "CidrBlock": "10.78.1.0/24"}},
            "SubnetB": {"Type": "AWS::EC2::Subnet", "Properties": {
                "VpcId": ref("VPC"), "CidrBlock": "10.78.2.0/24"}},
            "Group": {"Type": "AWS::EC2::SecurityGroup", "Properties": {
                "GroupDescription": "app",
                "SecurityGroupEgress": [{"IpProtocol": "tcp", "FromPort": "443",
                                         "ToPort": "443", "CidrIp": "0.0.0.0/0"}]}},
            "Instance": {"Type": "AWS::EC2::Instance", "DependsOn": ["SubnetA", "SubnetB"],
                         "Properties": {
                             "ImageId": "cirros", "InstanceType": flavor,
                             "SubnetId": ref(subnet), "SecurityGroups": [ref("Group")]}},
            "Address": {"Type": "AWS::EC2::EIP", "Properties": {}},
            "Association": {"Type": "AWS::EC2::EIPAssociation", "Properties": association},
            "SecondAddress": {"Type": "AWS::EC2::EIP", "Properties": second},
        },
        "Outputs": {
            "PrivateIp": {"Value": {"Fn::GetAtt": ["Instance", "PrivateIp"]}},
            "SecondAddress": {"Value": ref("SecondAddress")},
        },
    }


def test_instance_on_a_subnet(cloud_engine: Engine, demo_conn: Connection) -> None:
    stack = create(cloud_engine, "ec2sub", subnet_instance_template())
    made: dict[str, set[str]] = {"networks": set(), "floatingips": set()}
    try:
        check_instance_on_a_subnet(cloud_engine, demo_conn, stack, made)
    finally:
        assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_stack_left_nothing(demo_conn, stack, made["networks"], made["floatingips"])


def check_instance_on_a_subnet(cloud_engine: Engine, demo_conn: Connection,
                               stack: dict[str, str], made: dict[str, set[str]]) -> None:
    net = demo_conn.network
    ids = {name: physical_id(cloud_engine, stack, name) for name in (
        "VPC", "SubnetA", "SubnetB", "Group", "Instance", "Address", "SecondAddress")}
    made["networks"].add(ids["VPC"])
    made["floatingips"].update({ids["Address"], ids["SecondAddress"]})
    public = net.find_network("public")
    assert public is not None

    # SubnetId: Heat made a port on the subnet, with the instance's group.
    (port,) = list(net.ports(device_id=ids["Instance"]))
    assert [ip["subnet_id"] for ip in port.fixed_ips] == [ids["SubnetA"]]
    assert port.security_group_ids == [ids["Group"]]
    # Egress rules given: Neutron's allow-all egress rules were replaced by them.
    egress = {(r.direction, r.protocol, r.port_range_min, r.remote_ip_prefix)
              for r in net.security_group_rules(security_group_id=ids["Group"])
              if r.direction == "egress"}
    assert egress in ({("egress", "tcp", 443, "0.0.0.0/0")}, {("egress", "tcp", 443, None)})

    # Both subnets are on the VPC's router; the association gave it the gateway.
    network = net.get_network(ids["VPC"])
    (router,) = list(net.routers(name=network.name))
    assert router.external_gateway_info["network_id"] == public.id
    on_router = {ip["subnet_id"] for p in net.ports(device_id=router.id,
                                                    device_owner="network:router_interface")
                 for ip in p.fixed_ips}
    assert on_router == {ids["SubnetA"], ids["SubnetB"]}
    fip = net.get_ip(ids["Address"])
    assert fip.port_id == port.id
    assert net.get_ip(ids["SecondAddress"]).port_id is None
    assert outputs(cloud_engine, stack)["PrivateIp"] == port.fixed_ips[0]["ip_address"]

    # In place: another subnet (the port Heat made is swapped for a new one), the second
    # EIP put on the instance.
    state = update(cloud_engine, stack, subnet_instance_template(
        subnet="SubnetB", second_eip_on_instance=True))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "Instance") == ids["Instance"]
    (new_port,) = list(net.ports(device_id=ids["Instance"]))
    assert new_port.id != port.id and net.find_port(port.id) is None
    assert [ip["subnet_id"] for ip in new_port.fixed_ips] == [ids["SubnetB"]]
    assert new_port.security_group_ids == [ids["Group"]]
    second = net.get_ip(ids["SecondAddress"])
    assert second.port_id == new_port.id
    out = outputs(cloud_engine, stack)
    assert out["SecondAddress"] == second.floating_ip_address
    assert out["PrivateIp"] == new_port.fixed_ips[0]["ip_address"]

    # Taken off again: the EIP's InstanceId removed.
    state = update(cloud_engine, stack, subnet_instance_template(subnet="SubnetB"))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert net.get_ip(ids["SecondAddress"]).port_id is None

    # The association switched from the allocation id to the address (in place): the first
    # EIP, which lost its port with the old subnet, goes onto the instance again.
    assert net.get_ip(ids["Address"]).port_id is None
    state = update(cloud_engine, stack, subnet_instance_template(
        subnet="SubnetB", associate_by_address=True))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert net.get_ip(ids["Address"]).port_id == new_port.id
    assert physical_id(cloud_engine, stack, "Association") == fip.floating_ip_address

    # A bigger flavor: resized in place. The devcloud's single compute host cannot resize
    # (Nova's allow_resize_to_same_host is off): then the update fails in Heat's words.
    state = update(cloud_engine, stack, subnet_instance_template(
        flavor="m1.small", subnet="SubnetB", associate_by_address=True))
    assert physical_id(cloud_engine, stack, "Instance") == ids["Instance"]
    server = demo_conn.compute.get_server(ids["Instance"])
    if state[:2] == ("UPDATE", "COMPLETE"):
        assert (server.status, server.flavor.original_name) == ("ACTIVE", "m1.small")
    else:
        small = demo_conn.compute.find_flavor("m1.small")
        assert small is not None
        assert f"Error: resources.Instance: Resizing to '{small.id}' failed" in state[2], state
        assert (server.status, server.flavor.original_name) == ("ACTIVE", "m1.tiny")


def interfaces_template(*interfaces: Any) -> dict[str, Any]:
    nic = {"Type": "AWS::EC2::NetworkInterface",
           "Properties": {"SubnetId": ref("SubnetId"), "Description": "a nic"}}
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Parameters": {"SubnetId": {"Type": "String"}},
        "Resources": {
            "NicA": nic,
            "NicB": nic,
            "Instance": {"Type": "AWS::EC2::Instance", "Properties": {
                "ImageId": "cirros", "InstanceType": "m1.tiny",
                "NetworkInterfaces": list(interfaces)}},
        },
    }


def test_interfaces_swapped_then_check_of_a_deleted_instance(
    cloud_engine: Engine, demo_conn: Connection
) -> None:
    net = demo_conn.network
    subnet = net.find_subnet("private-subnet")
    assert subnet is not None
    params = {"SubnetId": subnet.id}
    stack = create(cloud_engine, "ec2nics", interfaces_template(ref("NicA")), params)
    try:
        server_id = physical_id(cloud_engine, stack, "Instance")
        nic_a = physical_id(cloud_engine, stack, "NicA")
        nic_b = physical_id(cloud_engine, stack, "NicB")
        assert [p.id for p in net.ports(device_id=server_id)] == [nic_a]
        # The group Neutron gives a port by default (GroupSet not given).
        (group,) = net.get_port(nic_b).security_group_ids
        assert net.get_security_group(group).name == "default"

        # Another interface in place of the first: detached, the other attached.
        state = update(cloud_engine, stack, interfaces_template(
            {"NetworkInterfaceId": ref("NicB"), "DeviceIndex": "0"}), params)
        assert state[:2] == ("UPDATE", "COMPLETE"), state
        assert physical_id(cloud_engine, stack, "Instance") == server_id
        assert [p.id for p in net.ports(device_id=server_id)] == [nic_b]
        assert not net.get_port(nic_a).device_id

        # The server deleted behind the stack: CHECK says so; delete succeeds all the same.
        demo_conn.compute.delete_server(server_id)
        demo_conn.compute.wait_for_delete(demo_conn.compute.get_server(server_id), wait=60)
        state = action(cloud_engine, stack, "check")
        assert state[:2] == ("CHECK", "FAILED") and "NotFound" in state[2], state
    finally:
        assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_stack_left_nothing(demo_conn, stack, set(), set())
