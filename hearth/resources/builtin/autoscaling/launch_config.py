"""AWS::AutoScaling::LaunchConfiguration: the properties an AutoScalingGroup gives its
instances (nothing is made for it; the groups read it)."""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping
from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.base import Resource
from hearth.resources.definition import ValidationScope
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.template import custom_constraints
from hearth.template.constraints import CustomConstraint

IMAGE_ID, INSTANCE_TYPE, KEY_NAME, USER_DATA, SECURITY_GROUPS = (
    "ImageId", "InstanceType", "KeyName", "UserData", "SecurityGroups",
)
KERNEL_ID, RAM_DISK_ID, BLOCK_DEVICE_MAPPINGS, NOVA_SCHEDULER_HINTS, INSTANCE_ID = (
    "KernelId", "RamDiskId", "BlockDeviceMappings", "NovaSchedulerHints", "InstanceId",
)
DEVICE_NAME, EBS, NO_DEVICE, VIRTUAL_NAME = "DeviceName", "Ebs", "NoDevice", "VirtualName"
DELETE_ON_TERMINATION, IOPS, SNAPSHOT_ID, VOLUME_SIZE, VOLUME_TYPE = (
    "DeleteOnTermination", "Iops", "SnapshotId", "VolumeSize", "VolumeType",
)


def _string(description: str | None, constraint: str | None = None, **kw: Any) -> PropertySchema:
    constraints = [CustomConstraint(constraint)] if constraint else []
    return PropertySchema(PropertySchema.STRING, description, constraints=constraints, **kw)


_EBS = {
    DELETE_ON_TERMINATION: PropertySchema(
        PropertySchema.BOOLEAN,
        "Indicate whether the volume should be deleted when the instance is terminated.",
        default=True,
    ),
    IOPS: PropertySchema(
        PropertySchema.NUMBER,
        "The number of I/O operations per second that the volume supports.",
        implemented=False,
    ),
    SNAPSHOT_ID: _string("The ID of the snapshot to create a volume from.", "cinder.snapshot"),
    VOLUME_SIZE: _string(
        "The size of the volume, in GB. Must be equal or greater than the size of the "
        "snapshot. It is safe to leave this blank and have the Compute service infer the size."
    ),
    VOLUME_TYPE: _string("The volume type.", implemented=False),
}
_BLOCK_DEVICE_MAPPING = {
    DEVICE_NAME: _string(
        "A device name where the volume will be attached in the system at "
        "/dev/device_name.e.g. vdb",
        required=True,
    ),
    EBS: PropertySchema(
        PropertySchema.MAP, "The ebs volume to attach to the instance.", schema=_EBS
    ),
    NO_DEVICE: PropertySchema(
        PropertySchema.MAP, "The can be used to unmap a defined device.", implemented=False
    ),
    VIRTUAL_NAME: _string(
        "The name of the virtual device. The name must be in the form ephemeralX where X is "
        "a number starting from zero (0); for example, ephemeral0.",
        implemented=False,
    ),
}


def _without_service_constraints(schema: Mapping[str, PropertySchema]) -> dict[str, Any]:
    """The schema with the constraints that need another OpenStack service left out."""
    out: dict[str, Any] = {}
    for key, prop in schema.items():
        relaxed = copy.copy(prop)
        relaxed.constraints = tuple(
            c for c in prop.constraints
            if not (isinstance(c, CustomConstraint)
                    and custom_constraints.is_service_constraint(c.name))
        )
        if prop.map_schema is not None:
            relaxed.map_schema = _without_service_constraints(prop.map_schema)
        if prop.item_schema is not None:
            relaxed.item_schema = _without_service_constraints({"": prop.item_schema})[""]
        out[key] = relaxed
    return out


# No docstring: Heat 27 serves this type's description as "No description available".
class LaunchConfiguration(Resource):
    properties_schema = {
        IMAGE_ID: _string("Glance image ID or name.", "glance.image"),
        INSTANCE_TYPE: _string("Nova instance type (flavor).", "nova.flavor"),
        INSTANCE_ID: _string(
            "The ID of an existing instance you want to use to create the launch "
            "configuration. All properties are derived from the instance with the exception "
            "of BlockDeviceMapping.",
            "nova.server",
        ),
        KEY_NAME: _string("Optional Nova keypair name.", "nova.keypair"),
        USER_DATA: _string("User data to pass to instance."),
        SECURITY_GROUPS: PropertySchema(PropertySchema.LIST, "Security group names to assign."),
        KERNEL_ID: _string("Not Implemented.", implemented=False),
        RAM_DISK_ID: _string("Not Implemented.", implemented=False),
        BLOCK_DEVICE_MAPPINGS: PropertySchema(
            PropertySchema.LIST,
            "Block device mappings to attach to instance.",
            schema=PropertySchema(PropertySchema.MAP, schema=_BLOCK_DEVICE_MAPPING),
        ),
        NOVA_SCHEDULER_HINTS: PropertySchema(
            PropertySchema.LIST,
            "Scheduler hints to pass to Nova (Heat extension).",
            schema=PropertySchema(
                PropertySchema.MAP,
                schema={
                    "Key": PropertySchema(PropertySchema.STRING, required=True),
                    "Value": PropertySchema(PropertySchema.STRING, required=True),
                },
            ),
        ),
    }

    @classmethod
    def build_properties(
        cls, data: Mapping[str, Any] | None, *, unresolved: Collection[str] = frozenset()
    ) -> Properties:
        # The image, flavor and keypair are checked by whatever AWS::EC2::Instance maps to
        # (Hearth has no Compute service to look them up in); the schema shown keeps them.
        return Properties(_RELAXED_SCHEMA, data, unresolved=unresolved)

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        for mapping in properties[BLOCK_DEVICE_MAPPINGS] or []:
            ebs = mapping.get(EBS)
            if not ebs:
                raise StackValidationFailed(
                    "Ebs is missing, this is required when specifying BlockDeviceMappings."
                )
            if not ebs.get(SNAPSHOT_ID):
                raise StackValidationFailed(
                    "SnapshotId is missing, this is required when specifying "
                    "BlockDeviceMappings."
                )
        if properties[INSTANCE_ID]:
            raise StackValidationFailed(
                f"{INSTANCE_ID} is not supported by Hearth (reading an existing instance "
                "needs the Compute service)"
            )
        given = [properties[k] or k in properties.unresolved for k in (IMAGE_ID, INSTANCE_TYPE)]
        if not all(given):
            raise StackValidationFailed(
                "If without InstanceId, ImageId and InstanceType are required."
            )

    @classmethod
    def needs_replace_with_tmpl_diff(cls, tmpl_diff: Mapping[str, Any]) -> bool:
        # The metadata is the members' metadata: a change makes a new configuration.
        return "Metadata" in tmpl_diff

    def get_reference_id(self) -> str | None:
        return self.physical_resource_name()


_RELAXED_SCHEMA = _without_service_constraints(LaunchConfiguration.properties_schema)
