"""Resource and output definitions: what one entry of the resources/outputs section says."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from hearth.template.functions.base import dependencies, walk


@dataclass(frozen=True, eq=False)
class ResourceDefinition:
    """One enabled resource of a template, with its fields parsed (functions in place)."""

    name: str
    type: str
    properties: Any = None
    metadata: Any = None
    depends_on: tuple[str, ...] = ()
    deletion_policy: str = "Delete"
    update_policy: Any = None
    description: str | None = None
    external_id: Any = None
    # The raw definition as written, for storage and for comparing definitions on update.
    raw: Any = field(default=None, repr=False)

    def referenced_resources(self) -> set[str]:
        """Resources named by get_resource/get_attr/Ref/Fn::GetAtt in properties and metadata."""
        return dependencies(self.properties) | dependencies(self.metadata)

    def attribute_references(self) -> Iterator[tuple[str, tuple[Any, ...]]]:
        for fn in walk([self.properties, self.metadata]):
            yield from fn.attribute_references()


@dataclass(frozen=True, eq=False)
class OutputDefinition:
    name: str
    # None when the output is disabled by its condition (it still shows, with value null).
    value: Any
    description: str | None = None
    enabled: bool = True
