"""Attribute schemas (what ``get_attr`` may read from a resource type) and attribute paths."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import reduce
from typing import Any

from hearth.common.errors import InvalidSchemaError
from hearth.resources.support import SupportStatus

STRING = "String"
MAP = "Map"
LIST = "List"
INTEGER = "Integer"
BOOLEAN = "Boolean"
TYPES: tuple[str | None, ...] = (None, STRING, MAP, LIST, INTEGER, BOOLEAN)

# A value is kept for the rest of the operation (and stored for other resources) once it is
# not null...
CACHE_LOCAL = "cache_local"
# ...or read afresh every time (``show``, tokens, anything that changes behind Heat's back).
CACHE_NONE = "cache_none"
CACHE_MODES = (CACHE_LOCAL, CACHE_NONE)

SHOW = "show"

_DEFAULT_SUPPORT = SupportStatus()


class AttributeSchema:
    """One attribute: its description, optional type, cache mode and support status."""

    STRING = STRING
    MAP = MAP
    LIST = LIST
    INTEGER = INTEGER
    BOOLEAN = BOOLEAN
    CACHE_LOCAL = CACHE_LOCAL
    CACHE_NONE = CACHE_NONE

    __slots__ = ("cache_mode", "description", "support_status", "type")

    def __init__(
        self,
        description: str | None = None,
        support_status: SupportStatus = _DEFAULT_SUPPORT,
        cache_mode: str = CACHE_LOCAL,
        type: str | None = None,
    ) -> None:
        if type not in TYPES:
            raise InvalidSchemaError(f"Invalid type ({type})")
        if cache_mode not in CACHE_MODES:
            raise InvalidSchemaError(f"Invalid cache mode ({cache_mode})")
        self.description = description
        self.support_status = support_status
        self.cache_mode = cache_mode
        self.type = type

    def to_dict(self) -> dict[str, Any]:
        """The JSON Heat serves for this attribute in a resource type's schema."""
        out: dict[str, Any] = {}
        if self.description is not None:
            out["description"] = self.description
        if self.type is not None:
            out["type"] = self.type.lower()
        return out

    def __repr__(self) -> str:
        return f"AttributeSchema({self.to_dict()!r}, cache_mode={self.cache_mode!r})"


# Every resource type has it: the resource as the underlying service describes it.
BASE_ATTRIBUTES: dict[str, AttributeSchema] = {
    SHOW: AttributeSchema(
        "Detailed information about resource.", cache_mode=CACHE_NONE, type=MAP
    ),
}


def select_from_attribute(value: Any, path: Sequence[Any]) -> Any:
    """Follow a get_attr path into an attribute value; a path that leads nowhere gives None."""

    def step(collection: Any, key: Any) -> Any:
        if not isinstance(collection, Mapping | Sequence):
            raise TypeError("Can't traverse attribute path")
        if not isinstance(key, str | int):
            raise TypeError("Path components in attributes must be strings")
        # A string key into a list raises TypeError, which reads as "nowhere", as in Heat.
        found: Any = collection
        return found[key]

    try:
        return reduce(step, path, value)
    except (KeyError, IndexError, TypeError):
        return None
