"""Implicit dependencies: what a resource waits for besides what it references.

Heat's ``add_dependencies``: a Neutron port waits for the subnets of its network, a floating
IP for the router interfaces that make its external network reachable. A plugin overrides
``Resource.implicit_dependencies(name, shapes)``; ``shapes`` describes every resource of the
stack (its type, its properties in a comparable form) so the plugin can find what it needs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hearth.common.errors import HearthError
from hearth.template.functions import base

if TYPE_CHECKING:
    from hearth.resources.base import Resource
    from hearth.template.stack_definition import StackDefinition


@dataclass(frozen=True)
class ResourceShape:
    """What a plugin's ``implicit_dependencies`` sees of each resource of the stack.

    ``properties`` maps each given property to a comparable key: ``("resource", name)`` for a
    reference to one resource (get_resource / get_attr), ``("value", json)`` for a value known
    now, ``("unknown", ...)`` otherwise. Two resources naming the same network compare equal.
    """

    type: str
    properties: dict[str, Any]


def snippet_key(value: Any, definition: StackDefinition) -> Any:
    """A property value in a comparable form (see ResourceShape)."""
    deps = sorted(base.dependencies(value))
    if len(deps) == 1:
        return ("resource", deps[0])
    if deps:
        return ("unknown", tuple(deps))
    try:
        resolved = base.resolve(value, definition)
    except HearthError:
        return ("unknown", ())
    try:
        return ("value", json.dumps(resolved, sort_keys=True))
    except (TypeError, ValueError):
        return ("unknown", ())


def has_implicit_dependencies(cls: type[Resource]) -> bool:
    from hearth.resources.base import Resource

    return cls.implicit_dependencies.__func__ is not (  # type: ignore[attr-defined]
        Resource.implicit_dependencies.__func__  # type: ignore[attr-defined]
    )
