"""What template functions see of a stack's resources while the engine works on it.

Each resource that finished a step leaves a ``NodeData``: its reference id and the attribute
values other resources and outputs need, read once from the plugin and stored with the resource
row. Functions read those stored values; they never call a plugin on the hot path.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hearth.common.errors import HearthError
from hearth.engine import states
from hearth.resources.attributes import select_from_attribute

# Attribute name used for "every attribute" (get_attr with no attribute name).
ALL_ATTRIBUTES = "*"


def path_key(attribute: str, path: Sequence[Any]) -> str:
    """The key of an attribute read with a path, for types that answer the whole path
    themselves (a group's ``[group, attributes, name]`` is not a selection from ``attributes``)."""
    return json.dumps([attribute, *path])


@dataclass
class NodeData:
    """A resource as its dependants see it."""

    name: str
    action: str = states.INIT
    status: str = states.COMPLETE
    physical_id: str | None = None
    reference_id: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    # Values of attributes read with a path, by ``path_key`` (see there).
    paths: dict[str, Any] = field(default_factory=dict)
    # Attributes that could not be read, with why (reading one raises that error).
    errors: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = {"ref": self.reference_id, "attrs": self.attributes}
        if self.paths:
            out["paths"] = self.paths
        if self.errors:
            out["errors"] = self.errors
        return out

    @classmethod
    def from_row(
        cls,
        name: str,
        action: str,
        status: str,
        physical_id: str | None,
        attr_data: Mapping[str, Any] | None,
    ) -> NodeData:
        data = attr_data or {}
        return cls(
            name=name,
            action=action,
            status=status,
            physical_id=physical_id,
            reference_id=data.get("ref"),
            attributes=dict(data.get("attrs") or {}),
            paths=dict(data.get("paths") or {}),
            errors=dict(data.get("errors") or {}),
        )


class StoredResources:
    """A ResourceView over the NodeData of a stack's resources."""

    def __init__(self, nodes: Mapping[str, NodeData]) -> None:
        self._nodes = nodes

    def reference_id(self, name: str) -> Any:
        node = self._nodes.get(name)
        if node is None:
            return name
        if node.reference_id is not None:
            return node.reference_id
        return node.physical_id if node.physical_id is not None else name

    def attribute(self, name: str, attribute: str, path: tuple[Any, ...]) -> Any:
        node = self._nodes.get(name)
        if node is None or node.action == states.INIT:
            return None
        if attribute in node.errors:
            raise HearthError(node.errors[attribute])
        if path and node.paths:
            key = path_key(attribute, path)
            if key in node.paths:
                return node.paths[key]
        if attribute in node.attributes:
            return select_from_attribute(node.attributes[attribute], path)
        return None

    def all_attributes(self, name: str) -> Any:
        node = self._nodes.get(name)
        if node is None or node.action == states.INIT:
            return None
        return {k: v for k, v in node.attributes.items() if k != "show"}
