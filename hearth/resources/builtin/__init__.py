"""Hearth's built-in resource types (the OS::Heat types that need no other service).

Registered through the ``hearth.resources`` entry point, like any third-party plugin package.
"""

from __future__ import annotations

from hearth.resources.base import Resource
from hearth.resources.builtin.delay import Delay
from hearth.resources.builtin.none_resource import NoneResource
from hearth.resources.builtin.random_string import RandomString
from hearth.resources.builtin.testing_resource import TestResource
from hearth.resources.builtin.value import Value


def resource_mapping() -> dict[str, type[Resource]]:
    return {
        "OS::Heat::Delay": Delay,
        "OS::Heat::None": NoneResource,
        "OS::Heat::RandomString": RandomString,
        "OS::Heat::TestResource": TestResource,
        "OS::Heat::Value": Value,
    }
