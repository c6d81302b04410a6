"""OS::Heat::InstanceGroup: instances made from an AWS::AutoScaling::LaunchConfiguration.

Each member is an ``OS::Heat::ScaledResource`` whose properties are the launch
configuration's; the child's registry maps that type to ``AWS::EC2::Instance``, which a
stack's environment maps in turn (Hearth has no Nova instance of its own: a provider template
stands in for it, as in Heat's functional tests).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from hearth.common.errors import StackValidationFailed
from hearth.resources import group_size
from hearth.resources.attributes import AttributeSchema
from hearth.resources.builtin.autoscaling import capacity, members
from hearth.resources.builtin.autoscaling.group import (
    SCALED_RESOURCE_TYPE,
    ScalingGroup,
    optional_int,
)
from hearth.resources.definition import ValidationScope
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema

AVAILABILITY_ZONES, LAUNCH_CONFIGURATION_NAME, SIZE, LOAD_BALANCER_NAMES, TAGS = (
    "AvailabilityZones", "LaunchConfigurationName", "Size", "LoadBalancerNames", "Tags",
)
TAG_KEY, TAG_VALUE = "Key", "Value"
MIN_INSTANCES_IN_SERVICE, MAX_BATCH_SIZE, PAUSE_TIME = (
    "MinInstancesInService", "MaxBatchSize", "PauseTime",
)
INSTANCE_LIST = "InstanceList"
# Launch configuration properties whose list items are maps: only the keys given are passed.
_NESTED_LC_PROPERTIES = ("BlockDeviceMappings", "NovaSchedulerHints")


def rolling_update_schema() -> dict[str, PropertySchema]:
    return {
        MIN_INSTANCES_IN_SERVICE: PropertySchema(PropertySchema.INTEGER, default=0),
        MAX_BATCH_SIZE: PropertySchema(PropertySchema.INTEGER, default=1),
        PAUSE_TIME: PropertySchema(PropertySchema.STRING, default="PT0S"),
    }


def tags_schema(described: bool) -> PropertySchema:
    def item(text: str) -> PropertySchema:
        return PropertySchema(
            PropertySchema.STRING, text if described else None, required=True
        )

    return PropertySchema(
        PropertySchema.LIST,
        "Tags to attach to this group.",
        schema=PropertySchema(
            PropertySchema.MAP,
            schema={TAG_KEY: item("Tag key."), TAG_VALUE: item("Tag value.")},
        ),
    )


def check_load_balancers(properties: Properties) -> None:
    if properties.get(LOAD_BALANCER_NAMES):
        # Heat reconfigures AWS::ElasticLoadBalancing::LoadBalancer resources; Hearth has none.
        raise StackValidationFailed(
            "LoadBalancerNames is not supported by Hearth (it has no load balancer resources)"
        )


class InstanceGroup(ScalingGroup):
    """An instance group that can scale arbitrary instances.

    A resource allowing for the creating number of defined with
    AWS::AutoScaling::LaunchConfiguration instances. Allows to associate
    scaled resources with loadbalancer resources.
    """

    # The update policy key of rolling updates.
    rolling_update_key: ClassVar[str] = "RollingUpdate"

    properties_schema = {
        AVAILABILITY_ZONES: PropertySchema(
            PropertySchema.LIST, "Not Implemented.", required=True
        ),
        LAUNCH_CONFIGURATION_NAME: PropertySchema(
            PropertySchema.STRING,
            "The reference to a LaunchConfiguration resource.",
            required=True,
            update_allowed=True,
        ),
        SIZE: PropertySchema(
            PropertySchema.INTEGER,
            "Desired number of instances.",
            required=True,
            update_allowed=True,
        ),
        LOAD_BALANCER_NAMES: PropertySchema(
            PropertySchema.LIST,
            "List of LoadBalancer resources. Currently only the "
            "AWS::ElasticLoadBalancing::LoadBalancer resource type is supported.",
        ),
        TAGS: tags_schema(described=True),
    }
    attributes_schema = {
        INSTANCE_LIST: AttributeSchema(
            "A comma-delimited list of server ip addresses. (Heat extension).",
            type=AttributeSchema.STRING,
        ),
    }
    update_policy_schema = {
        "RollingUpdate": PropertySchema(PropertySchema.MAP, schema=rolling_update_schema()),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        group_size.check(properties.get(SIZE))
        check_load_balancers(properties)

    @classmethod
    def child_for(cls, *args: Any, **kwargs: Any) -> None:
        # The members come from the launch configuration, only known once it exists.
        return None

    # --- sizes ---------------------------------------------------------------------------

    def requested_size(self) -> int | None:
        return optional_int(self.properties[SIZE])

    def rolling_policy(
        self, prop_diff: Mapping[str, Any], tmpl_diff: Mapping[str, Any]
    ) -> tuple[int, int, float] | None:
        if LAUNCH_CONFIGURATION_NAME not in prop_diff:
            return None
        # The update policy of the new definition.
        data = self.context.update_policy()
        policy = Properties(self.update_policy_schema, data)[self.rolling_update_key]
        if not policy:
            return None
        rolling = Properties(rolling_update_schema(), policy)
        pause = capacity.parse_isoduration(str(rolling[PAUSE_TIME]))
        if pause > 3600:
            raise ValueError(f"Maximum {PAUSE_TIME} is 1 hour.")
        return (
            int(rolling[MIN_INSTANCES_IN_SERVICE]), int(rolling[MAX_BATCH_SIZE]), float(pause)
        )

    # --- the members' definition ---------------------------------------------------------

    def tags(self) -> list[dict[str, Any]]:
        """The group's tags, with the one Ceilometer meters the group by."""
        tags = list(self.properties[TAGS] or [])
        if any(str(t.get(TAG_KEY, "")).startswith("metering.") for t in tags):
            return tags
        return [*tags, {TAG_KEY: "metering.groupname", TAG_VALUE: self.get_reference_id()}]

    def launch_config_properties(self) -> tuple[dict[str, Any], Any]:
        """The launch configuration's properties (those given) and metadata."""
        reference = self.properties[LAUNCH_CONFIGURATION_NAME]
        conf = self.context.peer(str(reference))
        if conf is None:
            raise ValueError(
                f"{LAUNCH_CONFIGURATION_NAME} ({reference}) reference can not be found."
            )
        if conf.name == reference and conf.get_reference_id() != reference:
            raise ValueError(
                f"{LAUNCH_CONFIGURATION_NAME} ({reference}) requires a reference to the "
                "configuration not just the name of the resource."
            )
        given = conf.properties.data
        props = {k: conf.properties[k] for k in given if k in conf.properties}
        for key in _NESTED_LC_PROPERTIES:
            if props.get(key) is not None:
                props[key] = [
                    {k: v for k, v in item.items() if k in given[key][index]}
                    for index, item in enumerate(props[key])
                ]
        props.pop("InstanceId", None)
        return props, conf.metadata

    def member_properties(self, props: dict[str, Any]) -> dict[str, Any]:
        """Hook: the members' properties from the launch configuration's."""
        props[TAGS] = self.tags()
        return props

    def member_definition(self) -> members.Definition:
        props, metadata = self.launch_config_properties()
        definition: members.Definition = {
            "Type": SCALED_RESOURCE_TYPE, "Properties": self.member_properties(props),
        }
        if metadata:
            definition["Metadata"] = metadata
        return definition

    # --- attributes ----------------------------------------------------------------------

    def _resolve_attribute(self, name: str) -> Any:
        if name != INSTANCE_LIST or self.resource_id is None:
            return None
        ips = [m.attributes.get("PublicIp") for m in self.live_members()]
        return ",".join("0.0.0.0" if ip is None else str(ip) for ip in ips) or None
