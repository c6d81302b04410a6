"""The schemas of AWS::EC2::Instance (Heat 27's, descriptions as Heat serves them)."""

from __future__ import annotations

from hearth.resources.attributes import AttributeSchema
from hearth.resources.openstack.aws.common import tags_schema
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import AllowedValues, CustomConstraint

NOT_IMPLEMENTED = "Not Implemented."


def _not_implemented(data_type: str, **kwargs: object) -> P:
    return P(data_type, NOT_IMPLEMENTED, implemented=False, **kwargs)  # type: ignore[arg-type]


def _key_value() -> P:
    return P(P.MAP, schema={"Key": P(P.STRING, required=True),
                            "Value": P(P.STRING, required=True)})


EBS = {
    "DeleteOnTermination": P(
        P.BOOLEAN,
        "Indicate whether the volume should be deleted when the instance is terminated.",
        default=True,
    ),
    "Iops": P(
        P.NUMBER, "The number of I/O operations per second that the volume supports.",
        implemented=False,
    ),
    "SnapshotId": P(
        P.STRING, "The ID of the snapshot to create a volume from.",
        constraints=[CustomConstraint("cinder.snapshot")],
    ),
    "VolumeSize": P(
        P.STRING,
        "The size of the volume, in GB. Must be equal or greater than the size of the "
        "snapshot. It is safe to leave this blank and have the Compute service infer the "
        "size.",
    ),
    "VolumeType": P(P.STRING, "The volume type.", implemented=False),
}

PROPERTIES = {
    "ImageId": P(
        P.STRING, "Glance image ID or name.", required=True,
        constraints=[CustomConstraint("glance.image")],
    ),
    # AWS does not need it; Nova does (a flavor).
    "InstanceType": P(
        P.STRING, "Nova instance type (flavor).", required=True, update_allowed=True,
        constraints=[CustomConstraint("nova.flavor")],
    ),
    "KeyName": P(
        P.STRING, "Optional Nova keypair name.", constraints=[CustomConstraint("nova.keypair")]
    ),
    "AvailabilityZone": P(P.STRING, "Availability zone to launch the instance in."),
    "DisableApiTermination": _not_implemented(P.STRING),
    "KernelId": _not_implemented(P.STRING),
    "Monitoring": _not_implemented(P.BOOLEAN),
    "PlacementGroupName": _not_implemented(P.STRING),
    "PrivateIpAddress": _not_implemented(P.STRING),
    "RamDiskId": _not_implemented(P.STRING),
    "SecurityGroups": P(P.LIST, "Security group names to assign."),
    "SecurityGroupIds": P(P.LIST, "Security group IDs to assign."),
    "NetworkInterfaces": P(
        P.LIST, "Network interfaces to associate with instance.", update_allowed=True
    ),
    "SourceDestCheck": _not_implemented(P.BOOLEAN),
    "SubnetId": P(P.STRING, "Subnet ID to launch instance in.", update_allowed=True),
    "Tags": tags_schema(description="Tags to attach to instance.", update_allowed=True),
    "NovaSchedulerHints": P(
        P.LIST, "Scheduler hints to pass to Nova (Heat extension).", schema=_key_value()
    ),
    "Tenancy": _not_implemented(
        P.STRING, constraints=[AllowedValues(["dedicated", "default"])]
    ),
    "UserData": P(P.STRING, "User data to pass to instance."),
    "Volumes": P(
        P.LIST,
        "Volumes to attach to instance.",
        default=[],
        schema=P(P.MAP, schema={
            "Device": P(
                P.STRING,
                "The device where the volume is exposed on the instance. This assignment "
                "may not be honored and it is advised that the path "
                "/dev/disk/by-id/virtio-<VolumeId> be used instead.",
                required=True,
            ),
            "VolumeId": P(
                P.STRING, "The ID of the volume to be attached.", required=True,
                constraints=[CustomConstraint("cinder.volume")],
            ),
        }),
    ),
    "BlockDeviceMappings": P(
        P.LIST,
        "Block device mappings to attach to instance.",
        schema=P(P.MAP, schema={
            "DeviceName": P(
                P.STRING,
                "A device name where the volume will be attached in the system at "
                "/dev/device_name.e.g. vdb",
                required=True,
            ),
            "Ebs": P(P.MAP, "The ebs volume to attach to the instance.", schema=EBS),
            "NoDevice": P(P.MAP, "The can be used to unmap a defined device.",
                          implemented=False),
            "VirtualName": P(
                P.STRING,
                "The name of the virtual device. The name must be in the form ephemeralX "
                "where X is a number starting from zero (0); for example, ephemeral0.",
                implemented=False,
            ),
        }),
    ),
}

ATTRIBUTES = {
    "AvailabilityZone": AttributeSchema(
        "The Availability Zone where the specified instance is launched.",
        type=AttributeSchema.STRING,
    ),
    "PrivateDnsName": AttributeSchema(
        "Private DNS name of the specified instance.", type=AttributeSchema.STRING
    ),
    "PublicDnsName": AttributeSchema(
        "Public DNS name of the specified instance.", type=AttributeSchema.STRING
    ),
    "PrivateIp": AttributeSchema(
        "Private IP address of the specified instance.", type=AttributeSchema.STRING
    ),
    "PublicIp": AttributeSchema(
        "Public IP address of the specified instance.", type=AttributeSchema.STRING
    ),
}
