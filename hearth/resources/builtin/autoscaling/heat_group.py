"""OS::Heat::AutoScalingGroup: a group of any resource, defined in HOT by ``resource``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common.errors import InvalidTemplateAttribute, StackValidationFailed
from hearth.resources import group_size
from hearth.resources.attributes import AttributeSchema, select_from_attribute
from hearth.resources.builtin.autoscaling import members
from hearth.resources.builtin.autoscaling.group import (
    CHILD_ENVIRONMENT,
    CooldownGroup,
    optional_int,
    optional_number,
)
from hearth.resources.definition import ValidationScope
from hearth.resources.nested import ChildDefinition, NestedMember
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.support import SupportStatus
from hearth.template.constraints import Range
from hearth.template.environment import Environment

RESOURCE, MAX_SIZE, MIN_SIZE, COOLDOWN, DESIRED_CAPACITY, ROLLING_UPDATES = (
    "resource", "max_size", "min_size", "cooldown", "desired_capacity", "rolling_updates",
)
MIN_IN_SERVICE, MAX_BATCH_SIZE, PAUSE_TIME = "min_in_service", "max_batch_size", "pause_time"
OUTPUTS, OUTPUTS_LIST, CURRENT_SIZE, REFS, REFS_MAP = (
    "outputs", "outputs_list", "current_size", "refs", "refs_map",
)


def check_sizes(min_size: Any, max_size: Any, desired: Any) -> None:
    """Heat's checks of a group's sizes (shared with AWS::AutoScaling::AutoScalingGroup)."""
    for size in (min_size, max_size, desired):
        group_size.check(size)
    if min_size is None or max_size is None:
        return  # not known yet
    if max_size < min_size:
        raise StackValidationFailed("MinSize can not be greater than MaxSize")
    if min_size < 0:
        raise StackValidationFailed("The size of AutoScalingGroup can not be less than zero")
    if desired is not None and (desired < min_size or desired > max_size):
        raise StackValidationFailed("DesiredCapacity must be between MinSize and MaxSize")


class AutoScalingResourceGroup(CooldownGroup):
    """An autoscaling group that can scale arbitrary resources.

    An autoscaling group allows the creation of a desired count of similar
    resources, which are defined with the resource property in HOT format.
    If there is a need to create many of the same resources (e.g. one
    hundred sets of Server, WaitCondition and WaitConditionHandle or even
    Neutron Nets), AutoScalingGroup is a convenient and easy way to do that.
    """

    support_status = SupportStatus(version="2014.1")
    child_is_cfn = False
    refs_output = REFS_MAP

    properties_schema = {
        RESOURCE: PropertySchema(
            PropertySchema.MAP,
            "Resource definition for the resources in the group, in HOT format. The value of "
            "this property is the definition of a resource just as if it had been declared in "
            "the template itself.",
            required=True,
            update_allowed=True,
        ),
        MAX_SIZE: PropertySchema(
            PropertySchema.INTEGER,
            "Maximum number of resources in the group.",
            required=True,
            update_allowed=True,
            constraints=[Range(min=0)],
        ),
        MIN_SIZE: PropertySchema(
            PropertySchema.INTEGER,
            "Minimum number of resources in the group.",
            required=True,
            update_allowed=True,
            constraints=[Range(min=0)],
        ),
        COOLDOWN: PropertySchema(
            PropertySchema.INTEGER, "Cooldown period, in seconds.", update_allowed=True
        ),
        DESIRED_CAPACITY: PropertySchema(
            PropertySchema.INTEGER, "Desired initial number of resources.", update_allowed=True
        ),
        ROLLING_UPDATES: PropertySchema(
            PropertySchema.MAP,
            "Policy for rolling updates for this scaling group.",
            update_allowed=True,
            schema={
                MIN_IN_SERVICE: PropertySchema(
                    PropertySchema.INTEGER,
                    "The minimum number of resources in service while rolling updates are "
                    "being executed.",
                    constraints=[Range(min=0)],
                    default=0,
                ),
                MAX_BATCH_SIZE: PropertySchema(
                    PropertySchema.INTEGER,
                    "The maximum number of resources to replace at once.",
                    constraints=[Range(min=1)],
                    default=1,
                ),
                PAUSE_TIME: PropertySchema(
                    PropertySchema.NUMBER,
                    "The number of seconds to wait between batches of updates.",
                    constraints=[Range(min=0)],
                    default=0,
                ),
            },
            default={MIN_IN_SERVICE: 0, MAX_BATCH_SIZE: 1, PAUSE_TIME: 0},
        ),
    }
    attributes_schema = {
        OUTPUTS: AttributeSchema(
            "A map of resource names to the specified attribute of each individual resource "
            "that is part of the AutoScalingGroup. This map specifies output parameters that "
            "are available once the AutoScalingGroup has been instantiated.",
            support_status=SupportStatus(version="2014.2"),
            type=AttributeSchema.MAP,
        ),
        OUTPUTS_LIST: AttributeSchema(
            "A list of the specified attribute of each individual resource that is part of "
            "the AutoScalingGroup. This list of attributes is available as an output once "
            "the AutoScalingGroup has been instantiated.",
            support_status=SupportStatus(version="2014.2"),
            type=AttributeSchema.LIST,
        ),
        CURRENT_SIZE: AttributeSchema(
            "The current size of AutoscalingResourceGroup.",
            support_status=SupportStatus(version="2015.1"),
            type=AttributeSchema.INTEGER,
        ),
        REFS: AttributeSchema(
            "A list of resource IDs for the resources in the group.",
            type=AttributeSchema.LIST,
            support_status=SupportStatus(version="7.0.0"),
        ),
        REFS_MAP: AttributeSchema(
            "A map of resource names to IDs for the resources in the group.",
            type=AttributeSchema.MAP,
            support_status=SupportStatus(version="7.0.0"),
        ),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        check_sizes(properties[MIN_SIZE], properties[MAX_SIZE], properties[DESIRED_CAPACITY])

    @classmethod
    def child_for(
        cls,
        name: str,
        properties: Properties,
        environment: Environment,
        files: Mapping[str, str],
    ) -> ChildDefinition | None:
        # What the create would make, checked with the parent (member names are random).
        snippet = properties[RESOURCE]
        if not isinstance(snippet, Mapping):
            return None
        definition = members.hot_definition(snippet)
        size = properties[DESIRED_CAPACITY] or properties[MIN_SIZE] or 0
        pairs = list(members.member_definitions([], definition, size, 0))
        template = members.child_template(pairs, cfn=False, refs_output=REFS_MAP)
        return ChildDefinition(template, environment.child(CHILD_ENVIRONMENT, None, name), files)

    # --- sizes ---------------------------------------------------------------------------

    def member_definition(self) -> members.Definition:
        return members.hot_definition(self.properties[RESOURCE] or {})

    def requested_size(self) -> int | None:
        return optional_int(self.properties[DESIRED_CAPACITY])

    def initial_size(self) -> int:
        return self.properties[DESIRED_CAPACITY] or self.properties[MIN_SIZE] or 0

    def min_max(self) -> tuple[int, int]:
        return int(self.properties[MIN_SIZE]), int(self.properties[MAX_SIZE])

    def cooldown(self) -> float | None:
        return optional_number(self.properties[COOLDOWN])

    def rolling_policy(
        self, prop_diff: Mapping[str, Any], tmpl_diff: Mapping[str, Any]
    ) -> tuple[int, int, float] | None:
        if RESOURCE not in prop_diff:
            return None
        policy = self.properties[ROLLING_UPDATES] or {}
        return (
            int(policy.get(MIN_IN_SERVICE) or 0),
            int(policy.get(MAX_BATCH_SIZE) or 1),
            float(policy.get(PAUSE_TIME) or 0),
        )

    # --- attributes ----------------------------------------------------------------------

    def get_attribute(self, name: str, *path: Any) -> Any:
        if name == "show":
            return super().get_attribute(name, *path)
        if name == CURRENT_SIZE:
            return select_from_attribute(self.size(), path)
        live = self.live_members()
        if name == REFS:
            return select_from_attribute([m.reference for m in live], path)
        if name == REFS_MAP:
            return select_from_attribute({m.name: m.reference for m in live}, path)
        if name in (OUTPUTS, OUTPUTS_LIST):
            return _outputs(live, as_list=name == OUTPUTS_LIST, path=path)
        if name.startswith("resource."):
            return self.member_path(name, path)
        raise InvalidTemplateAttribute(self.name, name)


def _outputs(live: list[NestedMember], *, as_list: bool, path: tuple[Any, ...]) -> Any:
    """``outputs``/``outputs_list``: the member attribute the path names, of every member.

    Without a path (what the engine stores for later ``get_attr`` paths to select from), the
    value holds every member attribute: ``{attribute: [values]}`` or ``{attribute: {name:
    value}}``.
    """
    if not path:
        names = sorted({a for m in live for a in m.attributes if a != "show"})
        return {a: _outputs(live, as_list=as_list, path=(a,)) for a in names}
    attr, rest = path[0], path[1:]
    values = [(m.name, select_from_attribute(m.attributes.get(str(attr)), rest)) for m in live]
    return [v for _, v in values] if as_list else dict(values)
