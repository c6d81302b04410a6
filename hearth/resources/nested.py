"""What a resource that owns a nested stack sees of it: the SDK side of composition.

A plugin never drives a child stack itself. It asks the engine, through
``ResourceContext.nested``, to create, update, delete or act on the child, and then polls the
child's state from ``check_*_complete``, exactly as it would poll a remote service.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from hearth.template.environment import Environment


@dataclass(frozen=True)
class NestedState:
    """A child stack's ``action``, ``status`` and ``status_reason``."""

    action: str
    status: str
    reason: str


@dataclass(frozen=True)
class NestedMember:
    """One current resource of a child stack, as groups read their members."""

    name: str
    physical_id: str | None
    reference: str | None
    action: str
    status: str
    attributes: dict[str, Any] = field(default_factory=dict)
    # The member's own child stack, when it is itself a nested stack.
    nested_id: str | None = None


@dataclass(frozen=True)
class ChildDefinition:
    """What a child stack is made from: template, environment (the child's own) and files."""

    template: Mapping[str, Any]
    environment: Environment
    files: Mapping[str, str] = field(default_factory=dict)


class NestedStacks(Protocol):
    """The engine's handling of one resource's child stack.

    ``create`` validates the child (depth and resource limits included) and starts its create;
    it answers the child's stack id, which the plugin keeps as its physical id. The other calls
    start an action and return; ``state`` then tells how it goes (None once the child is gone).
    """

    def create(
        self,
        child: ChildDefinition,
        *,
        timeout_mins: int | None = None,
        adopt_data: Mapping[str, Any] | None = None,
    ) -> str: ...

    def update(
        self, stack_id: str, child: ChildDefinition, *, timeout_mins: int | None = None
    ) -> None: ...

    def delete(self, stack_id: str, *, abandon: bool = False) -> None: ...

    def act(self, stack_id: str, action: str) -> None:
        """SUSPEND, RESUME or CHECK the child."""
        ...

    def cancel(self, stack_id: str) -> None: ...

    def state(self, stack_id: str) -> NestedState | None: ...

    def outputs(self, stack_id: str) -> dict[str, Any]:
        """The child's resolved outputs (name to value; an output in error maps to None)."""
        ...

    def output_errors(self, stack_id: str) -> dict[str, str]:
        """The child's outputs that could not be resolved, with why."""
        ...

    def members(self, stack_id: str) -> list[NestedMember]: ...

    def template(self, stack_id: str) -> dict[str, Any]:
        """The child's current template (the last one its create or update was given);
        groups read their members' current definitions from it ({} once the child is gone)."""
        ...

    def template_files(self, stack_id: str) -> dict[str, str]:
        """The ``files`` of the child's current template (a batched update keeps them for the
        members that still have their old definitions)."""
        ...
