"""Hearth's built-in resource types (the OS::Heat types that need no other service).

Registered through the ``hearth.resources`` entry point, like any third-party plugin package.
"""

from __future__ import annotations

from hearth.resources.base import Resource
from hearth.resources.builtin import autoscaling, software
from hearth.resources.builtin.access_policy import AccessPolicy
from hearth.resources.builtin.delay import Delay
from hearth.resources.builtin.heat_stack import RemoteStack
from hearth.resources.builtin.iam import AccessKey, User
from hearth.resources.builtin.none_resource import NoneResource
from hearth.resources.builtin.random_string import RandomString
from hearth.resources.builtin.resource_chain import ResourceChain
from hearth.resources.builtin.resource_group import ResourceGroup
from hearth.resources.builtin.stack_types import NestedStack
from hearth.resources.builtin.testing_resource import TestResource
from hearth.resources.builtin.value import Value
from hearth.resources.builtin.wait_condition import HeatWaitCondition, WaitCondition
from hearth.resources.builtin.wait_condition_handle import (
    HeatWaitConditionHandle,
    UpdateWaitConditionHandle,
    WaitConditionHandle,
)


def resource_mapping() -> dict[str, type[Resource]]:
    return {
        "OS::Heat::Delay": Delay,
        "OS::Heat::None": NoneResource,
        "OS::Heat::RandomString": RandomString,
        "OS::Heat::ResourceGroup": ResourceGroup,
        "OS::Heat::ResourceChain": ResourceChain,
        "OS::Heat::Stack": RemoteStack,
        "AWS::CloudFormation::Stack": NestedStack,
        "OS::Heat::TestResource": TestResource,
        "OS::Heat::Value": Value,
        "OS::Heat::WaitCondition": HeatWaitCondition,
        "OS::Heat::WaitConditionHandle": HeatWaitConditionHandle,
        "OS::Heat::UpdateWaitConditionHandle": UpdateWaitConditionHandle,
        "AWS::CloudFormation::WaitCondition": WaitCondition,
        "AWS::CloudFormation::WaitConditionHandle": WaitConditionHandle,
        "AWS::IAM::User": User,
        "AWS::IAM::AccessKey": AccessKey,
        "OS::Heat::AccessPolicy": AccessPolicy,
        **autoscaling.resource_mapping(),
        **software.resource_mapping(),
    }
