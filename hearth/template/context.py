"""The two faces a template shows to its functions.

``ParseScope`` is what parsing and template-wide validation see: the template itself (its version,
resource names, conditions, mappings). ``ResolveContext`` is what resolution sees: parameter values,
files, and the stack's resources. The engine implements ``ResourceView`` over its live resources;
the template layer never knows how.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hearth.template.versions import TemplateVersion


class ParseScope(Protocol):
    @property
    def version(self) -> TemplateVersion: ...

    def has_resource(self, name: str) -> bool:
        """Whether the template defines a resource of that name (enabled or not)."""
        ...

    def resource_enabled(self, name: str) -> bool:
        """False for a resource whose condition is false."""
        ...

    def resource_type(self, name: str) -> str | None: ...

    def has_parameter(self, name: str) -> bool: ...

    def condition(self, name_or_expr: Any, path: str) -> bool:
        """Evaluate a condition reference (name, boolean or inline expression) at parse time."""
        ...

    def is_condition_enabled(self, value: Any) -> bool:
        """A resolved condition argument: a boolean, or the name of a defined condition."""
        ...

    def parse(self, snippet: Any, path: str) -> Any:
        """Parse a snippet with the template's normal function set."""
        ...

    def mapping(self, name: str) -> Any:
        """CFN Mappings section entry (KeyError if absent)."""
        ...

    def attribute_names(self, resource: str) -> frozenset[str] | None:
        """The attribute names the resource's type declares, or None when not known here."""
        ...


class ResourceView(Protocol):
    """The stack's resources, as functions see them. Implemented by the engine."""

    def reference_id(self, name: str) -> Any:
        """What get_resource / Ref give: the physical id, or the name before there is one."""
        ...

    def attribute(self, name: str, attribute: str, path: tuple[Any, ...]) -> Any:
        """One attribute (with get_attr's path applied), or None when not available."""
        ...

    def all_attributes(self, name: str) -> Any:
        """Every attribute of the resource but ``show``, or None when not available."""
        ...


class ResolveContext(Protocol):
    @property
    def resources(self) -> ResourceView: ...

    def parameter_value(self, name: str) -> Any:
        """The value of a parameter (pseudo parameters included); UserParameterMissing if none."""
        ...

    def file(self, key: str) -> str | None: ...

    def facade(self, what: str) -> Any:
        """resource_facade: the parent resource's metadata, deletion_policy or update_policy."""
        ...

    def availability_zones(self) -> list[str]: ...

    @property
    def limits(self) -> Limits: ...


@dataclass(frozen=True)
class Limits:
    """Bounds on what a template may make the server do."""

    max_template_size: int = 524288
    max_nesting_depth: int = 64
    max_yaml_nodes: int = 200000
    yaql_limit_iterators: int = 200
    yaql_memory_quota: int = 10000
    # Hearth's own bound on one yaql evaluation (Heat has none; a runaway expression must end).
    yaql_timeout_seconds: float = 5.0
    # The most characters one resolved value (a resource's properties, an output) may take.
    max_value_chars: int = 16 * 1024 * 1024


class UnresolvedResources:
    """A ResourceView for a stack that exists only as a template: nothing is created yet.

    Reference ids are the logical names and attributes are unavailable, as Heat reports them
    for resources in INIT state.
    """

    def reference_id(self, name: str) -> Any:
        return name

    def attribute(self, name: str, attribute: str, path: tuple[Any, ...]) -> Any:
        return None

    def all_attributes(self, name: str) -> Any:
        return None


@dataclass
class StaticFacade:
    """The parent resource's view for resource_facade inside a provider template."""

    metadata: Mapping[str, Any] | None = None
    deletion_policy: str = "Delete"
    update_policy: Mapping[str, Any] | None = None

    def __call__(self, what: str) -> Any:
        """The facade function StackDefinition calls (``metadata``, ``deletion_policy``...)."""
        if what == "metadata":
            return dict(self.metadata or {})
        if what == "deletion_policy":
            return self.deletion_policy
        if what == "update_policy":
            return dict(self.update_policy or {})
        return None
