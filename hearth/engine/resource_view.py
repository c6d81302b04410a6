"""What template functions see of a stack's resources while the engine works on it.

Each resource that finished a step leaves a ``NodeData``: its reference id and the attribute
values other resources and outputs need, read once from the plugin and stored with the resource
row. Functions read those stored values; they never call a plugin on the hot path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hearth.engine import states
from hearth.resources.attributes import select_from_attribute

# Attribute name used for "every attribute" (get_attr with no attribute name).
ALL_ATTRIBUTES = "*"


@dataclass
class NodeData:
    """A resource as its dependants see it."""

    name: str
    action: str = states.INIT
    status: str = states.COMPLETE
    physical_id: str | None = None
    reference_id: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"ref": self.reference_id, "attrs": self.attributes}

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
        if attribute in node.attributes:
            return select_from_attribute(node.attributes[attribute], path)
        return None

    def all_attributes(self, name: str) -> Any:
        node = self._nodes.get(name)
        if node is None or node.action == states.INIT:
            return None
        return {k: v for k, v in node.attributes.items() if k != "show"}
