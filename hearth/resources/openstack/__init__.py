"""Resource types of other OpenStack services (Nova, Neutron, Glance, Cinder, Keystone) and
the AWS types Heat maps onto them, through openstacksdk (``hearth.clients``).

Registered through the ``hearth.resources`` entry point, like the built-in types: every
module below this package that has a ``resource_mapping()`` contributes its types, so a new
type is one new module. Importing this package also registers the service custom
constraints (``nova.flavor``...).
"""

from __future__ import annotations

import importlib
import pkgutil

from hearth.resources.base import Resource
from hearth.resources.openstack import constraints

constraints.register()


def resource_mapping() -> dict[str, type[Resource]]:
    mapping: dict[str, type[Resource]] = {}
    for info in sorted(pkgutil.walk_packages(__path__, prefix=f"{__name__}."),
                       key=lambda i: i.name):
        module = importlib.import_module(info.name)
        found = getattr(module, "resource_mapping", None)
        if callable(found) and not info.ispkg:
            mapping.update(found())
    return mapping
