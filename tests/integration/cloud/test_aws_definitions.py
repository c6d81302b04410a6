"""AWS::EC2 types: replacement and immutable properties on the devcloud, validation of
definitions, and the implicit dependencies of a gateway attachment."""

from __future__ import annotations

from typing import Any

from openstack.connection import Connection

from hearth.engine.engine import Engine
from tests.integration.cloud.aws_helpers import (
    INGRESS_SSH,
    assert_stack_left_nothing,
    ref,
    rules_of,
)
from tests.integration.cloud.conftest import (
    action,
    create,
    delete,
    physical_id,
    update,
)


def small_template(description: str = "first", size: int = 1) -> dict[str, Any]:
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {
            "Group": {"Type": "AWS::EC2::SecurityGroup", "Properties": {
                "GroupDescription": description,
                "SecurityGroupIngress": [INGRESS_SSH]}},
            "Disk": {"Type": "AWS::EC2::Volume", "Properties": {
                "AvailabilityZone": "nova", "Size": size}},
        },
    }


def test_replacement_and_immutable_properties(cloud_engine: Engine,
                                              demo_conn: Connection) -> None:
    stack = create(cloud_engine, "ec2small", small_template())
    try:
        group_id = physical_id(cloud_engine, stack, "Group")
        disk_id = physical_id(cloud_engine, stack, "Disk")
        assert demo_conn.block_storage.get_volume(disk_id).size == 1

        # A new description cannot be set in place: a new group replaces the old one.
        state = update(cloud_engine, stack, small_template(description="second"))
        assert state[:2] == ("UPDATE", "COMPLETE"), state
        new_group = physical_id(cloud_engine, stack, "Group")
        assert new_group != group_id
        assert demo_conn.network.find_security_group(group_id) is None
        assert demo_conn.network.get_security_group(new_group).description == "second"
        assert ("ingress", "tcp", 22, 22, "10.0.0.0/8") in rules_of(demo_conn, new_group)

        assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

        # Every property of a volume is immutable: the update fails, the volume stays.
        state = update(cloud_engine, stack, small_template(description="second", size=2))
        assert state[:2] == ("UPDATE", "FAILED"), state
        assert "Update to properties Size of Disk (AWS::EC2::Volume)" in state[2]
        assert physical_id(cloud_engine, stack, "Disk") == disk_id
        assert demo_conn.block_storage.get_volume(disk_id).size == 1
    finally:
        assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_stack_left_nothing(demo_conn, stack, set(), set())


def _rejected(engine: Engine, resources: dict[str, Any], message: str) -> None:
    import pytest

    from hearth.common.errors import StackValidationFailed
    from tests.integration.cloud.conftest import CTX

    # N stands for a server whose id is not known before the stack runs.
    template = {"AWSTemplateFormatVersion": "2010-09-09",
                "Resources": {"N": {"Type": "OS::Heat::None"}, **resources}}
    with pytest.raises(StackValidationFailed, match=message):
        engine.create_stack(CTX, "ec2-bad", template, {})


def test_validation(cloud_engine: Engine) -> None:
    _rejected(cloud_engine, {"A": {"Type": "AWS::EC2::EIPAssociation", "Properties": {
        "InstanceId": ref("N")}}}, "Either 'EIP' or 'AllocationId' must be provided.")
    _rejected(cloud_engine, {"A": {"Type": "AWS::EC2::EIPAssociation", "Properties": {
        "EIP": "172.24.4.9", "NetworkInterfaceId": "p"}}},
        "Must specify 'InstanceId' if you specify 'EIP'.")
    _rejected(cloud_engine, {"A": {"Type": "AWS::EC2::EIPAssociation", "Properties": {
        "AllocationId": "a"}}},
        "At least one of the following properties must be specified: InstanceId, "
        "NetworkInterfaceId.")
    _rejected(cloud_engine, {"I": {"Type": "AWS::EC2::Instance", "Properties": {
        "ImageId": "cirros", "InstanceType": "m1.tiny", "SecurityGroups": ["default"],
        "NetworkInterfaces": ["p"]}}},
        "Cannot define the following properties at the same time: "
        "SecurityGroups/SecurityGroupIds, NetworkInterfaces.")
    _rejected(cloud_engine, {"I": {"Type": "AWS::EC2::Instance", "Properties": {
        "ImageId": "cirros", "InstanceType": "m1.tiny",
        "BlockDeviceMappings": [{"DeviceName": "vdb", "Ebs": {"VolumeSize": "1"}}]}}},
        "SnapshotId is missing, this is required when specifying BlockDeviceMappings.")
    _rejected(cloud_engine, {"V": {"Type": "AWS::EC2::VPC", "Properties": {
        "InstanceTenancy": "dedicated"}}}, "Property InstanceTenancy not implemented yet")


def test_gateway_attachment_waits_for_the_route_tables_of_its_vpc() -> None:
    from hearth.resources.dependencies import ResourceShape
    from hearth.resources.openstack.aws.internet_gateway import VPCGatewayAttachment

    vpc, other = ("resource", "VPC"), ("resource", "OtherVPC")
    shapes = {
        "Attach": ResourceShape("AWS::EC2::VPCGatewayAttachment", {"VpcId": vpc}),
        "Table": ResourceShape("AWS::EC2::RouteTable", {"VpcId": vpc}),
        "Table2": ResourceShape("AWS::EC2::RouteTable", {"VpcId": vpc}),
        "Elsewhere": ResourceShape("AWS::EC2::RouteTable", {"VpcId": other}),
        "Subnet": ResourceShape("AWS::EC2::Subnet", {"VpcId": vpc}),
    }
    assert list(VPCGatewayAttachment.implicit_dependencies("Attach", shapes)) == [
        "Table", "Table2"]
