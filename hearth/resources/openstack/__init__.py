"""Resource types of other OpenStack services (Nova, Neutron, Glance, Cinder, Keystone) and
the AWS types Heat maps onto them, through openstacksdk (``hearth.clients``).

Registered through the ``hearth.resources`` entry point, like the built-in types. Importing
this package also registers the service custom constraints (``nova.flavor``...).
"""

from __future__ import annotations

import importlib

from hearth.resources.base import Resource
from hearth.resources.openstack import constraints

constraints.register()

# The families, each a module with its own resource_mapping().
FAMILIES = (
    "hearth.resources.openstack.neutron",
)


def resource_mapping() -> dict[str, type[Resource]]:
    mapping: dict[str, type[Resource]] = {}
    for name in FAMILIES:
        mapping.update(importlib.import_module(name).resource_mapping())
    return mapping
