"""AWS::EC2 networking against the devcloud: one CloudFormation stack with a VPC and all that
goes with it (subnet, gateway, route table, security group, network interface, instance,
elastic IP, volumes), compared with what Neutron, Nova and Cinder say, updated in place,
checked, suspended and resumed, then deleted without leaving anything behind."""

from __future__ import annotations

import base64
import copy
import email
import email.message
from typing import Any

from openstack.connection import Connection

from hearth.engine.engine import Engine
from tests.integration.cloud.aws_helpers import (
    INGRESS_HTTP,
    INGRESS_SSH,
    assert_stack_left_nothing,
    ref,
    rules_of,
)
from tests.integration.cloud.conftest import (
    action,
    create,
    delete,
    outputs,
    physical_id,
    update,
)


def vpc_template() -> dict[str, Any]:
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {
            "VPC": {"Type": "AWS::EC2::VPC", "Properties": {"CidrBlock": "10.77.0.0/16"}},
            "Subnet": {"Type": "AWS::EC2::Subnet", "Properties": {
                "VpcId": ref("VPC"), "CidrBlock": "10.77.1.0/24", "AvailabilityZone": "nova"}},
            "Gateway": {"Type": "AWS::EC2::InternetGateway", "Properties": {}},
            "GatewayAttachment": {"Type": "AWS::EC2::VPCGatewayAttachment", "Properties": {
                "VpcId": ref("VPC"), "InternetGatewayId": ref("Gateway")}},
            "RouteTable": {"Type": "AWS::EC2::RouteTable", "Properties": {"VpcId": ref("VPC")}},
            "SubnetRoutes": {"Type": "AWS::EC2::SubnetRouteTableAssociation", "Properties": {
                "RouteTableId": ref("RouteTable"), "SubnetId": ref("Subnet")}},
            "Group": {"Type": "AWS::EC2::SecurityGroup", "Properties": {
                "GroupDescription": "web servers", "VpcId": ref("VPC"),
                "SecurityGroupIngress": [INGRESS_SSH, {"IpProtocol": "icmp"}]}},
            "Interface": {"Type": "AWS::EC2::NetworkInterface", "Properties": {
                "SubnetId": ref("Subnet"), "GroupSet": [ref("Group")],
                "PrivateIpAddress": "10.77.1.20"}},
            "BootVolume": {"Type": "AWS::EC2::Volume", "Properties": {
                "AvailabilityZone": "nova", "Size": 1,
                "Tags": [{"Key": "purpose", "Value": "data"}]}},
            "ExtraVolume": {"Type": "AWS::EC2::Volume", "Properties": {
                "AvailabilityZone": "nova", "Size": 1}},
            "Instance": {
                "Type": "AWS::EC2::Instance",
                "Metadata": {"AWS::CloudFormation::Init": {"config": {"files": {}}}},
                "Properties": {
                    "ImageId": "cirros", "InstanceType": "m1.tiny",
                    "NetworkInterfaces": [
                        {"NetworkInterfaceId": ref("Interface"), "DeviceIndex": "0"}],
                    "Tags": [{"Key": "role", "Value": "web"}],
                    "UserData": "#!/bin/sh\necho hello\n",
                    "Volumes": [{"VolumeId": ref("BootVolume"), "Device": "/dev/vdc"}],
                }},
            "Attachment": {"Type": "AWS::EC2::VolumeAttachment", "Properties": {
                "InstanceId": ref("Instance"), "VolumeId": ref("ExtraVolume"),
                "Device": "/dev/vdb"}},
            "Address": {"Type": "AWS::EC2::EIP", "Properties": {"Domain": "vpc"}},
            "AddressAssociation": {
                "Type": "AWS::EC2::EIPAssociation",
                # The port's subnet must reach the external network first.
                "DependsOn": ["GatewayAttachment", "SubnetRoutes"],
                "Properties": {"AllocationId": {"Fn::GetAtt": ["Address", "AllocationId"]},
                               "NetworkInterfaceId": ref("Interface")}},
        },
        "Outputs": {
            "PublicAddress": {"Value": ref("Address")},
            "AllocationId": {"Value": {"Fn::GetAtt": ["Address", "AllocationId"]}},
            "PrivateIp": {"Value": {"Fn::GetAtt": ["Instance", "PrivateIp"]}},
            "PublicIp": {"Value": {"Fn::GetAtt": ["Instance", "PublicIp"]}},
            "PrivateDnsName": {"Value": {"Fn::GetAtt": ["Instance", "PrivateDnsName"]}},
            "AvailabilityZone": {"Value": {"Fn::GetAtt": ["Instance", "AvailabilityZone"]}},
            "InterfaceIp": {"Value": {"Fn::GetAtt": ["Interface", "PrivateIpAddress"]}},
            "SubnetZone": {"Value": {"Fn::GetAtt": ["Subnet", "AvailabilityZone"]}},
            "Gateway": {"Value": ref("Gateway")},
            "Association": {"Value": ref("AddressAssociation")},
        },
    }


def user_data_parts(conn: Connection, server_id: str) -> dict[str, str]:
    raw = conn.compute.get(f"/servers/{server_id}",
                           microversion="2.3").json()["server"]["OS-EXT-SRV-ATTR:user_data"]
    document = email.message_from_string(base64.b64decode(raw).decode())
    return {str(p.get_filename()): str(p.get_payload()) for p in document.get_payload()
            if isinstance(p, email.message.Message)}


def test_vpc_stack_lifecycle(cloud_engine: Engine, demo_conn: Connection,
                             admin_conn: Connection) -> None:
    template = vpc_template()
    stack = create(cloud_engine, "ec2", template)
    made: dict[str, set[str]] = {"networks": set(), "floatingips": set()}
    try:
        check_vpc_stack(cloud_engine, demo_conn, admin_conn, stack, template, made)
    finally:
        assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_stack_left_nothing(demo_conn, stack, made["networks"], made["floatingips"])


def check_vpc_stack(cloud_engine: Engine, demo_conn: Connection, admin_conn: Connection,
                    stack: dict[str, str], template: dict[str, Any],
                    made: dict[str, set[str]]) -> None:
    ids = {name: physical_id(cloud_engine, stack, name) for name in (
        "VPC", "Subnet", "RouteTable", "Group", "Interface", "Instance", "BootVolume",
        "ExtraVolume", "Address")}
    made["networks"].add(ids["VPC"])
    made["floatingips"].add(ids["Address"])
    net = demo_conn.network

    # The VPC: a network and a router of the same name.
    network = net.get_network(ids["VPC"])
    (vpc_router,) = list(net.routers(name=network.name))
    assert network.name.startswith("ec2-") and "-VPC-" in network.name
    subnet = net.get_subnet(ids["Subnet"])
    assert (subnet.network_id, subnet.cidr, subnet.ip_version) == (network.id, "10.77.1.0/24", 4)

    # The route table: a router of its own, holding the subnet (moved off the VPC's router)
    # and, through the gateway attachment, the external network as gateway.
    public = net.find_network("public")
    assert public is not None
    table = net.get_router(ids["RouteTable"])
    assert table.external_gateway_info["network_id"] == public.id
    table_subnets = {ip["subnet_id"] for p in net.ports(device_id=table.id,
                                                         device_owner="network:router_interface")
                     for ip in p.fixed_ips}
    assert table_subnets == {subnet.id}
    assert list(net.ports(device_id=vpc_router.id,
                          device_owner="network:router_interface")) == []
    # The EIP association gave the VPC's own router the gateway too (Heat does).
    assert net.get_router(vpc_router.id).external_gateway_info["network_id"] == public.id

    # The security group and its rules (Neutron's default egress rules stay).
    group = net.get_security_group(ids["Group"])
    assert group.description == "web servers"
    rules = rules_of(demo_conn, group.id)
    assert ("ingress", "tcp", 22, 22, "10.0.0.0/8") in rules
    assert ("ingress", "icmp", None, None, None) in rules
    assert ("egress", None, None, None, None) in rules

    # The network interface: a port on the subnet with the group and the address asked.
    port = net.get_port(ids["Interface"])
    assert port.network_id == network.id and port.security_group_ids == [group.id]
    assert [ip["ip_address"] for ip in port.fixed_ips] == ["10.77.1.20"]

    # The instance: on that port, tags as metadata, CFN user data, both volumes attached.
    server = demo_conn.compute.get_server(ids["Instance"])
    assert server.status == "ACTIVE" and server.metadata == {"role": "web"}
    assert server.flavor.original_name == "m1.tiny"
    assert port.device_id == server.id
    parts = user_data_parts(admin_conn, server.id)
    assert parts["cfn-userdata"] == "#!/bin/sh\necho hello\n"
    assert "user: ec2-user" in parts["cloud-config"]
    assert '"AWS::CloudFormation::Init"' in parts["cfn-init-data"]
    # The fake compute driver names the devices sd*: the letters are the ones asked for.
    attached = {a.volume_id: a.device[-1]
                for a in demo_conn.compute.volume_attachments(server)}
    assert attached == {ids["BootVolume"]: "c", ids["ExtraVolume"]: "b"}
    volume = demo_conn.block_storage.get_volume(ids["BootVolume"])
    assert (volume.size, volume.availability_zone, volume.status) == (1, "nova", "in-use")
    assert volume.metadata == {"purpose": "data"}

    # The elastic IP: a floating IP on the external network, on the interface's port.
    fip = net.get_ip(ids["Address"])
    assert fip.floating_network_id == public.id and fip.port_id == port.id
    assert fip.fixed_ip_address == "10.77.1.20"

    out = outputs(cloud_engine, stack)
    assert out["PublicAddress"] == fip.floating_ip_address
    assert out["AllocationId"] == fip.id
    assert out["PrivateIp"] == out["PublicIp"] == out["PrivateDnsName"] == "10.77.1.20"
    assert out["InterfaceIp"] == "10.77.1.20"
    assert out["AvailabilityZone"] == "nova" and out["SubnetZone"] == "nova"
    assert out["Gateway"].startswith("ec2-") and "-Gateway-" in out["Gateway"]
    assert "-AddressAssociation-" in out["Association"]

    # In place: the instance's tags, the group's rules, the interface's groups.
    changed = copy.deepcopy(template)
    resources = changed["Resources"]
    resources["Instance"]["Properties"]["Tags"] = [{"Key": "role", "Value": "db"},
                                                    {"Key": "tier", "Value": "2"}]
    resources["Group"]["Properties"]["SecurityGroupIngress"] = [INGRESS_HTTP]
    resources["Other"] = {"Type": "AWS::EC2::SecurityGroup",
                          "Properties": {"GroupDescription": "other"}}
    resources["Interface"]["Properties"]["GroupSet"] = [ref("Group"), ref("Other")]
    state = update(cloud_engine, stack, changed)
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    for name, physical in ids.items():
        assert physical_id(cloud_engine, stack, name) == physical, name
    server = demo_conn.compute.get_server(ids["Instance"])
    assert server.metadata == {"role": "db", "tier": "2"}
    rules = rules_of(demo_conn, group.id)
    assert ("ingress", "tcp", 80, 80, "0.0.0.0/0") in rules or (
        "ingress", "tcp", 80, 80, None) in rules
    assert not any(r[0] == "ingress" and r[1] in ("icmp",) for r in rules)
    assert ("ingress", "tcp", 22, 22, "10.0.0.0/8") not in rules
    # Heat's rule update also drops the default egress rules the template does not list.
    assert not any(r[0] == "egress" for r in rules)
    other = physical_id(cloud_engine, stack, "Other")
    assert sorted(net.get_port(port.id).security_group_ids) == sorted([group.id, other])

    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")
    assert action(cloud_engine, stack, "suspend")[:2] == ("SUSPEND", "COMPLETE")
    assert demo_conn.compute.get_server(ids["Instance"]).status == "SUSPENDED"
    assert action(cloud_engine, stack, "resume")[:2] == ("RESUME", "COMPLETE")
    assert demo_conn.compute.get_server(ids["Instance"]).status == "ACTIVE"
