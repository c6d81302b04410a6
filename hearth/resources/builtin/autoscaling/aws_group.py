"""AWS::AutoScaling::AutoScalingGroup: an InstanceGroup with a size range, scaling policies
and a cooldown."""

from __future__ import annotations

from typing import Any

from hearth.common.errors import NotSupported, StackValidationFailed
from hearth.resources.attributes import AttributeSchema
from hearth.resources.builtin.autoscaling.group import CooldownGroup, optional_int, optional_number
from hearth.resources.builtin.autoscaling.heat_group import check_sizes
from hearth.resources.builtin.autoscaling.instance_group import (
    AVAILABILITY_ZONES,
    INSTANCE_LIST,
    LAUNCH_CONFIGURATION_NAME,
    LOAD_BALANCER_NAMES,
    TAG_KEY,
    TAG_VALUE,
    TAGS,
    InstanceGroup,
    check_load_balancers,
    rolling_update_schema,
    tags_schema,
)
from hearth.resources.definition import ValidationScope
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.support import SupportStatus
from hearth.template.constraints import AllowedValues, CustomConstraint

MAX_SIZE, MIN_SIZE, COOLDOWN, DESIRED_CAPACITY = (
    "MaxSize", "MinSize", "Cooldown", "DesiredCapacity",
)
HEALTH_CHECK_GRACE_PERIOD, HEALTH_CHECK_TYPE, VPCZONE_IDENTIFIER, INSTANCE_ID = (
    "HealthCheckGracePeriod", "HealthCheckType", "VPCZoneIdentifier", "InstanceId",
)
AWS_TYPE = "AWS::AutoScaling::AutoScalingGroup"


# No docstring: Heat 27 serves this type's description as "No description available".
class AutoScalingGroup(CooldownGroup, InstanceGroup):
    support_status = SupportStatus(version="2014.1")
    rolling_update_key = "AutoScalingRollingUpdate"

    properties_schema = {
        AVAILABILITY_ZONES: PropertySchema(
            PropertySchema.LIST, "Not Implemented.", required=True
        ),
        LAUNCH_CONFIGURATION_NAME: PropertySchema(
            PropertySchema.STRING,
            "The reference to a LaunchConfiguration resource.",
            update_allowed=True,
        ),
        INSTANCE_ID: PropertySchema(
            PropertySchema.STRING,
            "The ID of an existing instance to use to create the Auto Scaling group. If "
            "specify this property, will create the group use an existing instance instead of "
            "a launch configuration.",
            constraints=[CustomConstraint("nova.server")],
        ),
        MAX_SIZE: PropertySchema(
            PropertySchema.INTEGER,
            "Maximum number of instances in the group.",
            required=True,
            update_allowed=True,
        ),
        MIN_SIZE: PropertySchema(
            PropertySchema.INTEGER,
            "Minimum number of instances in the group.",
            required=True,
            update_allowed=True,
        ),
        COOLDOWN: PropertySchema(
            PropertySchema.INTEGER, "Cooldown period, in seconds.", update_allowed=True
        ),
        DESIRED_CAPACITY: PropertySchema(
            PropertySchema.INTEGER, "Desired initial number of instances.", update_allowed=True
        ),
        HEALTH_CHECK_GRACE_PERIOD: PropertySchema(
            PropertySchema.INTEGER, "Not Implemented.", implemented=False
        ),
        HEALTH_CHECK_TYPE: PropertySchema(
            PropertySchema.STRING,
            "Not Implemented.",
            constraints=[AllowedValues(["EC2", "ELB"])],
            implemented=False,
        ),
        LOAD_BALANCER_NAMES: PropertySchema(
            PropertySchema.LIST, "List of LoadBalancer resources."
        ),
        VPCZONE_IDENTIFIER: PropertySchema(
            PropertySchema.LIST,
            "Use only with Neutron, to list the internal subnet to which the instance will be "
            "attached; needed only if multiple exist; list length must be exactly 1.",
            schema=PropertySchema(
                PropertySchema.STRING,
                "UUID of the internal subnet to which the instance will be attached.",
            ),
        ),
        TAGS: tags_schema(described=False),
    }
    attributes_schema = {
        INSTANCE_LIST: AttributeSchema(
            "A comma-delimited list of server ip addresses. (Heat extension).",
            type=AttributeSchema.STRING,
        ),
    }
    update_policy_schema = {
        "AutoScalingRollingUpdate": PropertySchema(
            PropertySchema.MAP, schema=rolling_update_schema()
        ),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        check_sizes(properties[MIN_SIZE], properties[MAX_SIZE], properties[DESIRED_CAPACITY])
        zones = properties[VPCZONE_IDENTIFIER]
        if zones and len(zones) != 1:
            raise NotSupported("Anything other than one VPCZoneIdentifier")
        # A value another resource gives counts as given.
        instance_id, config = (
            bool(properties[k]) or k in properties.unresolved
            for k in (INSTANCE_ID, LAUNCH_CONFIGURATION_NAME)
        )
        if scope.type_name == AWS_TYPE and instance_id == config:
            raise StackValidationFailed(
                "Either 'InstanceId' or 'LaunchConfigurationName' must be provided."
            )
        if instance_id:
            raise StackValidationFailed(
                f"{INSTANCE_ID} is not supported by Hearth (reading an existing instance "
                "needs the Compute service); use a LaunchConfiguration"
            )
        check_load_balancers(properties)

    # --- sizes ---------------------------------------------------------------------------

    def requested_size(self) -> int | None:
        return optional_int(self.properties[DESIRED_CAPACITY])

    def initial_size(self) -> int:
        return self.properties[DESIRED_CAPACITY] or self.properties[MIN_SIZE] or 0

    def min_max(self) -> tuple[int, int]:
        return int(self.properties[MIN_SIZE]), int(self.properties[MAX_SIZE])

    def cooldown(self) -> float | None:
        return optional_number(self.properties[COOLDOWN])

    # --- the members' definition ---------------------------------------------------------

    def tags(self) -> list[dict[str, Any]]:
        # The dimension cfn-push-stats reports the group by.
        own = {TAG_KEY: "metering.AutoScalingGroupName", TAG_VALUE: self.get_reference_id()}
        return [*super().tags(), own]

    def member_properties(self, props: dict[str, Any]) -> dict[str, Any]:
        props = super().member_properties(props)
        zones = self.properties[VPCZONE_IDENTIFIER]
        if zones:
            props["SubnetId"] = zones[0]
        return props
