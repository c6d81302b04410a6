"""A template bound to parameter values and a stack: conditions, resources, outputs, graph.

``StackDefinition`` is the scope functions are parsed in and the context they resolve in. The
engine hands it a ``ResourceView`` over live resources; on its own (validation, previews) it uses
``UnresolvedResources``, where nothing is created yet.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property
from typing import Any, Protocol

from hearth.common.errors import (
    CircularDependencyException,
    InvalidExternalResourceDependency,
    InvalidTemplateReference,
    StackValidationFailed,
)
from hearth.template.context import Limits, ResourceView, UnresolvedResources
from hearth.template.definitions import OutputDefinition, ResourceDefinition
from hearth.template.functions import base
from hearth.template.functions.base import Function
from hearth.template.template import HOT_TO_CFN_RESOURCE_KEYS, Template
from hearth.template.versions import TemplateVersion

_IN_PROGRESS = object()


class ParameterValues(Protocol):
    """What binding needs of the parameters: values by name (pseudo parameters included)."""

    def __contains__(self, name: object) -> bool: ...

    def value(self, name: str) -> Any: ...


class Conditions:
    """The conditions section, parsed once, each condition evaluated once on demand."""

    def __init__(self, definition: StackDefinition) -> None:
        self._stack = definition
        tmpl = definition.template
        raw = tmpl.conditions_section
        if not isinstance(raw, Mapping):
            raise StackValidationFailed(
                f"Condition definitions must be a map. Found a {type(raw).__name__} instead",
                error="Conditions validation error",
            )
        section = tmpl.section_name("conditions")
        functions = tmpl.version.condition_functions
        self._parsed: dict[str, Any] = {
            name: base.parse(expr, f"{section}.{name}", definition, functions)
            for name, expr in raw.items()
        }
        self._resolved: dict[str, Any] = {}

    def __contains__(self, name: object) -> bool:
        return name in self._parsed

    def validate(self) -> None:
        for name, expr in self._parsed.items():
            self._check_type(name, expr)
            base.validate(expr, self._stack)

    @staticmethod
    def _check_type(name: str, value: Any) -> None:
        if not isinstance(value, bool | Function):
            raise StackValidationFailed(
                f'The definition of condition "{name}" is invalid: {value}',
                error="Condition validation error",
            )

    def is_enabled(self, value: Any) -> bool:
        if value is None:
            return True
        if isinstance(value, bool):
            return value
        if not isinstance(value, str) or value not in self._parsed:
            raise ValueError(f'Invalid condition "{value}"')
        if value not in self._resolved:
            self._resolved[value] = _IN_PROGRESS
            result = base.resolve(self._parsed[value], self._stack)
            self._check_type(value, result)
            self._resolved[value] = result
        result = self._resolved[value]
        if result is _IN_PROGRESS:
            raise StackValidationFailed(
                f'Circular definition for condition "{value}"',
                error="Condition validation error",
            )
        return bool(result)

    def evaluated(self) -> dict[str, bool]:
        return {name: self.is_enabled(name) for name in self._parsed}


class StackDefinition:
    """A template with parameter values: the thing a stack is made from."""

    def __init__(
        self,
        template: Template,
        parameters: ParameterValues,
        *,
        resources: ResourceView | None = None,
        facade: Callable[[str], Any] | None = None,
        availability_zones: Callable[[], list[str]] | None = None,
        attribute_names: Callable[[str, str], frozenset[str] | None] | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.template = template
        self.parameters = parameters
        self._resources = resources or UnresolvedResources()
        self._facade = facade
        self._zones = availability_zones
        # (resource name, type) -> attribute names the type declares, when plugins are known.
        self._attribute_names = attribute_names
        self._limits = limits or Limits()

    # --- ParseScope ----------------------------------------------------------------------

    @property
    def version(self) -> TemplateVersion:
        return self.template.version

    def has_resource(self, name: str) -> bool:
        resources = self.template.resources_section
        return isinstance(resources, Mapping) and name in resources

    def resource_enabled(self, name: str) -> bool:
        return name in self.enabled_resource_names

    def resource_type(self, name: str) -> str | None:
        body = self.template.resources_section.get(name)
        if isinstance(body, Mapping):
            value = body.get(self.template.resource_key("type"))
            return value if isinstance(value, str) else None
        return None

    def has_parameter(self, name: str) -> bool:
        return name in self.parameters

    def condition(self, name_or_expr: Any, path: str) -> bool:
        functions = self.version.condition_functions
        parsed = base.parse(name_or_expr, path, self, functions)
        base.validate(parsed, self)
        return self.is_condition_enabled(base.resolve(parsed, self))

    def is_condition_enabled(self, value: Any) -> bool:
        return self.conditions.is_enabled(value)

    def parse(self, snippet: Any, path: str) -> Any:
        return base.parse(snippet, path, self, self.version.functions)

    def mapping(self, name: str) -> Any:
        return self.template.mappings[name]

    def attribute_names(self, resource: str) -> frozenset[str] | None:
        if self._attribute_names is None:
            return None
        rtype = self.resource_type(resource)
        return None if rtype is None else self._attribute_names(resource, rtype)

    # --- ResolveContext ------------------------------------------------------------------

    @property
    def resources(self) -> ResourceView:
        return self._resources

    def parameter_value(self, name: str) -> Any:
        return self.parameters.value(name)

    def file(self, key: str) -> str | None:
        return self.template.files.get(key)

    def facade(self, what: str) -> Any:
        if self._facade is None:
            # Outside a provider template there is no parent resource.
            return None
        return self._facade(what)

    def availability_zones(self) -> list[str]:
        return self._zones() if self._zones is not None else ["nova"]

    @property
    def limits(self) -> Limits:
        return self._limits

    # --- sections ------------------------------------------------------------------------

    @cached_property
    def conditions(self) -> Conditions:
        return Conditions(self)

    @cached_property
    def resource_definitions(self) -> dict[str, ResourceDefinition]:
        """The enabled resources, parsed; resources disabled by a condition are left out."""
        out: dict[str, ResourceDefinition] = {}
        for name, body in self.template.resources_section.items():
            defn = self._resource_definition(name, body)
            if defn is not None:
                out[name] = defn
        return out

    @cached_property
    def enabled_resource_names(self) -> frozenset[str]:
        """Resources whose condition (if any) is true."""
        resources = self.template.resources_section
        return frozenset(name for name, body in resources.items() if self._enabled(name, body))

    def _enabled(self, name: str, body: Any) -> bool:
        """Whether one resource's condition (if any) is true."""
        tmpl = self.template
        cond_key = tmpl.resource_key("condition")
        if not (tmpl.version.supports_conditions and isinstance(body, Mapping)):
            return True
        if cond_key not in body:
            return True
        path = [tmpl.section_name("resources"), name, cond_key]
        functions = tmpl.version.condition_functions
        cond = base.parse(body[cond_key], ".".join(path), self, functions)
        if not isinstance(cond, str | bool | Function):
            typename = "string_or_boolean" if tmpl.is_hot else "string or boolean"
            raise StackValidationFailed(f"Resource {name} {cond_key} type must be {typename}")
        try:
            return self.conditions.is_enabled(base.resolve(cond, self))
        except ValueError as exc:
            raise StackValidationFailed(str(exc), path) from None

    @cached_property
    def _resource_keys(self) -> dict[str, str]:
        """HOT resource keys as this template spells them (looked up per resource field)."""
        return {hot: self.template.resource_key(hot) for hot in HOT_TO_CFN_RESOURCE_KEYS}

    def _resource_definition(self, name: str, body: Any) -> ResourceDefinition | None:
        tmpl = self.template
        section = tmpl.section_name("resources")
        key = self._resource_keys.__getitem__
        if not isinstance(name, str):
            # YAML reads a key such as 1.5 as a number (Heat fails here on joining its path).
            raise StackValidationFailed(
                f"Resource name {name!r} must be a string (quote it in YAML)", [section])
        if not isinstance(body, Mapping):
            raise StackValidationFailed(
                f"Resources must contain Resource. Found a [{type(body)}] instead"
            )
        # Heat checks the keys of HOT resources only; CFN ignores keys it does not know.
        invalid = [k for k in body if k not in tmpl.version.resource_keys] if tmpl.is_hot else []
        if invalid:
            raise StackValidationFailed(
                "Invalid keyword(s) inside a resource definition: " + ", ".join(invalid)
            )
        if "/" in name:
            raise StackValidationFailed(
                'Resource name may not contain "/"', [section, name]
            )

        def field(hot_key: str, types: tuple[type, ...], typename: str, *, parse: bool) -> Any:
            raw_key = key(hot_key)
            if raw_key not in body:
                return None
            path = f"{section}.{name}.{raw_key}"
            try:
                value = self.parse(body[raw_key], path) if parse else body[raw_key]
            except (TypeError, ValueError, KeyError) as exc:
                raise StackValidationFailed(str(exc)) from None
            if not isinstance(value, types):
                raise StackValidationFailed(
                    f"Resource {name} {raw_key} type must be {typename}"
                )
            return value

        if key("type") not in body:
            raise StackValidationFailed(f'Resource {name} is missing "{key("type")}"')

        rtype = field("type", (str,), "string", parse=True)
        properties = field("properties", (Mapping, Function), "object", parse=True)
        metadata = field("metadata", (Mapping, Function), "object", parse=True)
        depends = field("depends_on", (str, list), "list or string", parse=False)
        if isinstance(depends, str):
            depends = [depends]
        elif depends:
            if not all(isinstance(d, str) for d in depends):
                raise StackValidationFailed(
                    f"Resource {name} {key('depends_on')} must be a list of strings"
                )
        policy_raw = field("deletion_policy", (str, Function), "string", parse=True)
        policy = base.resolve(policy_raw, self) if policy_raw is not None else None
        if policy is not None and policy not in tmpl.version.deletion_policies:
            raise StackValidationFailed(f'Invalid deletion policy "{policy}"')
        update_policy = field("update_policy", (Mapping, Function), "object", parse=True)
        description = field("description", (str,), "string", parse=False)
        external_id = None
        if "external_id" in tmpl.version.resource_keys:
            external_id = field("external_id", (str, Function), "string", parse=True)
        # As Heat: every field is read (and its faults reported) before the condition.
        if not self._enabled(name, body):
            return None
        return ResourceDefinition(
            name=name,
            type=rtype,
            properties=properties,
            metadata=metadata,
            depends_on=tuple(depends or ()),
            deletion_policy=str(policy).capitalize() if policy else "Delete",
            update_policy=update_policy,
            description=description,
            external_id=external_id,
            raw=body,
        )

    @cached_property
    def outputs(self) -> dict[str, OutputDefinition]:
        tmpl = self.template
        section = tmpl.section_name("outputs")
        value_key, desc_key = tmpl.output_key("value"), tmpl.output_key("description")
        out: dict[str, OutputDefinition] = {}
        for name, body in tmpl.outputs_section.items():
            if not isinstance(body, Mapping):
                raise StackValidationFailed(
                    f"Output definitions must be a map. Found a {type(body).__name__} instead",
                    [section, name],
                    "Output validation error",
                )
            if value_key not in body:
                raise StackValidationFailed(
                    f"Each output definition must contain a {value_key} key.",
                    [section, name],
                    "Output validation error",
                )
            description = body.get(desc_key)
            cond_key = tmpl.output_key("condition")
            if tmpl.version.supports_conditions and cond_key in body:
                path = [section, name, cond_key]
                cond = base.parse(
                    body[cond_key], ".".join(path), self, tmpl.version.condition_functions
                )
                try:
                    enabled = self.conditions.is_enabled(base.resolve(cond, self))
                except ValueError as exc:
                    raise StackValidationFailed(str(exc), path) from None
                if not enabled:
                    out[name] = OutputDefinition(name, None, description, enabled=False)
                    continue
            value = self.parse(body[value_key], f"{section}.{name}.{value_key}")
            out[name] = OutputDefinition(name, value, description)
        return out

    # --- dependencies --------------------------------------------------------------------

    def check_references(self) -> None:
        """Every enabled resource's references (see ``_check_references``)."""
        for defn in self.resource_definitions.values():
            self._check_references(defn)

    def _check_references(self, defn: ResourceDefinition) -> None:
        """A reference to no resource, in Heat's order and words: the first function in the
        properties, then the metadata, that names one (at its place), then depends_on (at the
        resource). A function may not name a resource its condition leaves out; depends_on
        may."""
        for fn in base.walk([defn.properties, defn.metadata]):
            for dep in fn.dependencies():
                if not self.resource_enabled(dep):
                    raise InvalidTemplateReference(dep, self._reference_path(defn.name, fn))
        for dep in defn.depends_on:
            if not self.has_resource(dep):
                raise InvalidTemplateReference(dep, defn.name)

    def _reference_path(self, resource: str, fn: base.Function) -> str:
        """Where Heat says a reference is: ``r.Properties.value`` for a function at
        ``resources.r.properties.value.get_resource`` (its own name left off)."""
        prefix = f"{self.template.section_name('resources')}.{resource}."
        rest = fn.path.removeprefix(prefix).removesuffix(f".{fn.name}")
        field_name, dot, inner = rest.partition(".")
        return f"{resource}.{field_name[:1].upper()}{field_name[1:]}{dot}{inner}"

    def dependency_graph(self) -> dict[str, set[str]]:
        """For each enabled resource, the enabled resources it needs first."""
        self.check_references()
        defns = self.resource_definitions
        graph: dict[str, set[str]] = {}
        for name, defn in defns.items():
            required: set[str] = set()
            for dep in (*defn.depends_on, *sorted(defn.referenced_resources())):
                if dep in defns:
                    required.add(dep)
                # else: disabled by a condition; nothing to wait for.
            if defn.external_id is not None and defn.depends_on:
                raise InvalidExternalResourceDependency(str(defn.external_id), defn.type)
            graph[name] = required
        check_acyclic(graph)
        return graph


def check_acyclic(graph: Mapping[str, set[str]]) -> None:
    """Raise CircularDependencyException naming one cycle, e.g. ``a -> b -> a``."""
    white, grey, black = 0, 1, 2
    colour = dict.fromkeys(graph, white)
    for start in graph:
        if colour[start] != white:
            continue
        # Iterative DFS: a deep chain must not hit Python's recursion limit.
        stack: list[tuple[str, Any]] = [(start, iter(sorted(graph[start])))]
        colour[start] = grey
        trail = [start]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                colour[node] = black
                stack.pop()
                trail.pop()
                continue
            if colour.get(child, black) == grey:
                cycle = [*trail[trail.index(child) :], child]
                raise CircularDependencyException(" -> ".join(cycle))
            if colour.get(child) == white:
                colour[child] = grey
                trail.append(child)
                stack.append((child, iter(sorted(graph[child]))))


def validate_resource_functions(stack: StackDefinition, res: ResourceDefinition) -> None:
    """The template-wide checks of every function in one resource definition."""
    for snippet in (res.properties, res.metadata, res.update_policy, res.external_id):
        base.validate(snippet, stack)


def validate_definitions(stack: StackDefinition) -> None:
    """Template-level checks of every enabled resource and output, in Heat's order: every
    reference to a resource, the outputs' shapes, cycles, then each one's functions."""
    stack.check_references()
    stack.outputs  # noqa: B018
    stack.dependency_graph()
    for res in stack.resource_definitions.values():
        validate_resource_functions(stack, res)
    for output in stack.outputs.values():
        base.validate(output.value, stack)
