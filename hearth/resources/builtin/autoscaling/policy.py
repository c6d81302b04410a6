"""Scaling policies: a signal (from an alarm, or anyone holding the URL) adjusts a group.

The policy finds its group among the resources of its stack by the group's reference, as Heat
does, and has the engine run the adjustment on the group (``ResourceContext.drive_peer``): the
group decides, under its cooldown, and resizes its child stack. Signals are taken at the
policy's ``alarm_url`` (a secret URL on Hearth's API, no token needed, standing in for Heat's
EC2-signed one) and at ``signal_url`` (the authenticated resource-signal API).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from typing import Any, ClassVar

from hearth.common.errors import HearthError, NotFound
from hearth.resources.attributes import AttributeSchema
from hearth.resources.base import Resource
from hearth.resources.builtin.autoscaling import capacity
from hearth.resources.builtin.autoscaling.group import ADJUST
from hearth.resources.context import SIGNAL, signal_token_key
from hearth.resources.definition import ValidationScope
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.support import SupportStatus
from hearth.template.constraints import AllowedValues, Range

LOG = logging.getLogger(__name__)
# Bytes of randomness in the alarm URL's secret.
SECRET_BYTES = 32


class ResourcePropertyValueDependency(HearthError):
    def __init__(self, prop1: str, prop2: str, value: str) -> None:
        super().__init__(
            f"{prop1} property should only be specified for {prop2} with value {value}."
        )


def _min_step_description(percent: str, adjustment_type: str) -> str:
    return (
        "Minimum number of resources that are added or removed when the AutoScaling group "
        f"scales up or down. This can be used only when specifying {percent} for the "
        f"{adjustment_type} property."
    )


class AutoScalingPolicy(Resource):
    """A resource to manage scaling of `OS::Heat::AutoScalingGroup`.

    **Note** while it may incidentally support
    `AWS::AutoScaling::AutoScalingGroup` for now, please don't use it for that
    purpose and use `AWS::AutoScaling::ScalingPolicy` instead.

    Resource to manage scaling for `OS::Heat::AutoScalingGroup`, i.e. define
    which metric should be scaled and scaling adjustment, set cooldown etc.
    """

    # The property names, native or CloudFormation.
    GROUP: ClassVar[str] = "auto_scaling_group_id"
    ADJUSTMENT: ClassVar[str] = "scaling_adjustment"
    ADJUSTMENT_TYPE: ClassVar[str] = "adjustment_type"
    COOLDOWN: ClassVar[str] = "cooldown"
    MIN_STEP: ClassVar[str] = "min_adjustment_step"
    PERCENT: ClassVar[str] = capacity.PERCENT_CHANGE_IN_CAPACITY
    ALARM_URL: ClassVar[str] = "alarm_url"
    SIGNAL_URL: ClassVar[str] = "signal_url"

    requires_deferred_auth = True

    properties_schema = {
        "auto_scaling_group_id": PropertySchema(
            PropertySchema.STRING, "AutoScaling group ID to apply policy to.", required=True
        ),
        "scaling_adjustment": PropertySchema(
            PropertySchema.NUMBER, "Size of adjustment.", required=True, update_allowed=True
        ),
        "adjustment_type": PropertySchema(
            PropertySchema.STRING,
            "Type of adjustment (absolute or percentage).",
            required=True,
            constraints=[AllowedValues(list(capacity.ADJUSTMENT_TYPES))],
            update_allowed=True,
        ),
        "cooldown": PropertySchema(
            PropertySchema.NUMBER, "Cooldown period, in seconds.", update_allowed=True
        ),
        "min_adjustment_step": PropertySchema(
            PropertySchema.INTEGER,
            _min_step_description(capacity.PERCENT_CHANGE_IN_CAPACITY, "adjustment_type"),
            constraints=[Range(min=0)],
            update_allowed=True,
        ),
    }
    attributes_schema = {
        "alarm_url": AttributeSchema(
            "A signed url to handle the alarm.",
            type=AttributeSchema.STRING,
            cache_mode=AttributeSchema.CACHE_NONE,
        ),
        "signal_url": AttributeSchema(
            "A url to handle the alarm using native API.",
            support_status=SupportStatus(version="5.0.0"),
            type=AttributeSchema.STRING,
        ),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        if properties[cls.ADJUSTMENT_TYPE] != cls.PERCENT and properties[cls.MIN_STEP] is not None:
            raise ResourcePropertyValueDependency(cls.MIN_STEP, cls.ADJUSTMENT_TYPE, cls.PERCENT)

    # --- lifecycle ---------------------------------------------------------------------

    def handle_create(self) -> None:
        # The alarm URL's secret stands in for Heat's stack-user keypair.
        self.data_set(signal_token_key(SIGNAL), secrets.token_urlsafe(SECRET_BYTES), redact=True)
        self.resource_id_set(self.physical_resource_name())

    def handle_update(
        self, new_properties: Properties, prop_diff: Mapping[str, Any], tmpl_diff: Any
    ) -> None:
        # Only updatable properties reach here; the next signal reads the stored new ones.
        self.properties = new_properties

    def handle_delete(self) -> None:
        # The URL stops working at once, not when the row goes.
        self.data_delete(signal_token_key(SIGNAL))

    # --- signals -------------------------------------------------------------------------

    def handle_signal(self, details: Any = None) -> None:
        # Any alarm state scales (the template author picks the alarm actions); it is logged.
        if details is None:
            state = "alarm"
        elif isinstance(details, Mapping):
            state = str(details.get("current", details.get("state", "alarm"))).lower()
        else:
            raise TypeError(f"Signal details must be a map, not {type(details).__name__}")
        LOG.info("Alarm %s, new state %s", self.name, state)
        group = str(self.properties[self.GROUP])
        request = {
            "action": ADJUST,
            "adjustment": self.properties[self.ADJUSTMENT],
            "adjustment_type": self.properties[self.ADJUSTMENT_TYPE],
            "min_adjustment_step": self.properties[self.MIN_STEP],
            "cooldown": self.properties[self.COOLDOWN],
        }
        if not self.context.drive_peer(group, request):
            raise NotFound(f'Alarm {self.name} could not find scaling group named "{group}"')

    # --- attributes ----------------------------------------------------------------------

    def alarm_url(self) -> str | None:
        secret = self.data().get(signal_token_key(SIGNAL))
        return self.context.signal_url(SIGNAL, secret) if secret else None

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == self.ALARM_URL:
            return self.alarm_url()
        if name == self.SIGNAL_URL:
            return self.context.authenticated_signal_url()
        return None


# No docstring: Heat 27 serves this type's description as "No description available".
class AWSScalingPolicy(AutoScalingPolicy):
    GROUP = "AutoScalingGroupName"
    ADJUSTMENT = "ScalingAdjustment"
    ADJUSTMENT_TYPE = "AdjustmentType"
    COOLDOWN = "Cooldown"
    MIN_STEP = "MinAdjustmentStep"
    PERCENT = capacity.CFN_PERCENT_CHANGE_IN_CAPACITY
    ALARM_URL = "AlarmUrl"
    SIGNAL_URL = ""

    properties_schema = {
        "AutoScalingGroupName": PropertySchema(
            PropertySchema.STRING, "AutoScaling group name to apply policy to.", required=True
        ),
        "ScalingAdjustment": PropertySchema(
            PropertySchema.INTEGER, "Size of adjustment.", required=True, update_allowed=True
        ),
        "AdjustmentType": PropertySchema(
            PropertySchema.STRING,
            "Type of adjustment (absolute or percentage).",
            required=True,
            constraints=[AllowedValues(list(capacity.CFN_ADJUSTMENT_TYPES))],
            update_allowed=True,
        ),
        "Cooldown": PropertySchema(
            PropertySchema.INTEGER, "Cooldown period, in seconds.", update_allowed=True
        ),
        "MinAdjustmentStep": PropertySchema(
            PropertySchema.INTEGER,
            _min_step_description(capacity.CFN_PERCENT_CHANGE_IN_CAPACITY, "AdjustmentType"),
            constraints=[Range(min=0)],
            update_allowed=True,
        ),
    }
    attributes_schema = {
        "AlarmUrl": AttributeSchema(
            "A signed url to handle the alarm. (Heat extension).",
            type=AttributeSchema.STRING,
            cache_mode=AttributeSchema.CACHE_NONE,
        ),
    }

    def get_reference_id(self) -> str | None:
        # An alarm's action is the policy's reference: its URL.
        if self.resource_id is not None:
            url = self.alarm_url()
            if url:
                return url
        return self.name
