"""Autoscaling: scaling groups (Heat's AutoScalingGroups and InstanceGroup), launch
configurations and the scaling policies that resize the groups when signalled."""

from __future__ import annotations

from hearth.resources.base import Resource
from hearth.resources.builtin.autoscaling.aws_group import AutoScalingGroup
from hearth.resources.builtin.autoscaling.heat_group import AutoScalingResourceGroup
from hearth.resources.builtin.autoscaling.instance_group import InstanceGroup
from hearth.resources.builtin.autoscaling.launch_config import LaunchConfiguration
from hearth.resources.builtin.autoscaling.policy import AutoScalingPolicy, AWSScalingPolicy

__all__ = [
    "AWSScalingPolicy",
    "AutoScalingGroup",
    "AutoScalingPolicy",
    "AutoScalingResourceGroup",
    "InstanceGroup",
    "LaunchConfiguration",
    "resource_mapping",
]


def resource_mapping() -> dict[str, type[Resource]]:
    return {
        "OS::Heat::AutoScalingGroup": AutoScalingResourceGroup,
        "OS::Heat::ScalingPolicy": AutoScalingPolicy,
        "OS::Heat::InstanceGroup": InstanceGroup,
        "AWS::AutoScaling::AutoScalingGroup": AutoScalingGroup,
        "AWS::AutoScaling::LaunchConfiguration": LaunchConfiguration,
        "AWS::AutoScaling::ScalingPolicy": AWSScalingPolicy,
    }
