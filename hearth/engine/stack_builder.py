"""From a request (or stored rows) to a stack definition the engine can act on.

``StackSource`` is what is stored for a stack: template, files and environment. ``BoundStack``
binds a source to a stack identity and to the current state of its resources: parameters,
conditions, resource definitions (parsed once), plugin classes, the dependency graph.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from hearth.common.errors import (
    HearthError,
    NotSupported,
    StackValidationFailed,
)
from hearth.engine.resource_view import ALL_ATTRIBUTES, NodeData, StoredResources
from hearth.template.context import Limits
from hearth.template.definitions import ResourceDefinition
from hearth.template.env_merge import merge_environments, request_environment
from hearth.template.environment import Environment
from hearth.template.functions import base
from hearth.template.loader import load_template_text
from hearth.template.parameter_groups import ParameterGroups
from hearth.template.parameters import Parameters, StackIdentity
from hearth.template.stack_definition import StackDefinition, validate_resource_functions
from hearth.template.template import Template
from hearth.template.validate import CheckedValues, parameter_types

if TYPE_CHECKING:
    from hearth.resources.base import Resource
    from hearth.resources.registry import PluginRegistry


@dataclass
class StackSource:
    """What a stack is made from, as stored: template, files and the merged environment."""

    template: dict[str, Any]
    files: dict[str, str] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)


def source_from_request(
    template: Mapping[str, Any] | str | None,
    *,
    params: Mapping[str, Any] | None = None,
    files: Mapping[str, Any] | None = None,
    environment: Mapping[str, Any] | str | None = None,
    environment_files: Sequence[str] | None = None,
    global_env: Environment | None = None,
    limits: Limits | None = None,
) -> StackSource:
    """A request's template and environment, loaded and merged the way Heat merges them."""
    if template is None:
        raise HearthError("No Template provided.")
    files = dict(files or {})
    data = load_template_text(template, limits) if isinstance(template, str) else dict(template)
    if not isinstance(data, dict):
        raise StackValidationFailed("The template is not a JSON object or YAML mapping.")
    tmpl = Template(data, {k: v for k, v in files.items() if isinstance(v, str)})
    env_doc = request_environment(environment, params, environment_files)
    merge_environments(environment_files, files, env_doc, parameter_types(tmpl, files))
    env = Environment(env_doc, global_env=global_env)
    return StackSource(
        template=data,
        files={k: v for k, v in files.items() if isinstance(v, str)},
        environment=env.env_as_dict(),
    )


class BoundStack:
    """A stack source bound to an identity and to the state of the stack's resources."""

    def __init__(
        self,
        source: StackSource,
        identity: StackIdentity,
        *,
        plugins: PluginRegistry,
        global_env: Environment | None,
        nodes: dict[str, NodeData] | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.source = source
        self.identity = identity
        self.plugins = plugins
        self.template = Template(source.template, source.files)
        self.env = Environment(source.environment, global_env=global_env)
        self.params = Parameters(
            self.template.version,
            self.template.parameters_section,
            self.env.params,
            self.env.param_defaults,
            stack=identity,
        )
        # The state of resources functions see; the engine updates it as resources finish.
        self.nodes: dict[str, NodeData] = nodes if nodes is not None else {}
        self.view = StoredResources(self.nodes)
        self.definition = StackDefinition(
            self.template,
            CheckedValues(self.params),
            resources=self.view,
            attribute_names=self._attribute_names,
            limits=limits,
        )

    # --- definitions ---------------------------------------------------------------------

    @property
    def resources(self) -> dict[str, ResourceDefinition]:
        return self.definition.resource_definitions

    @cached_property
    def graph(self) -> dict[str, set[str]]:
        """For each resource, the resources it needs first (explicit and implicit)."""
        return self.definition.dependency_graph()

    @cached_property
    def required_by(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {name: [] for name in self.graph}
        for name, reqs in self.graph.items():
            for req in reqs:
                out[req].append(name)
        return out

    @cached_property
    def needed_attributes(self) -> dict[str, set[str]]:
        """Attributes of each resource that other resources or outputs read (ALL for all)."""
        needed: dict[str, set[str]] = {}
        snippets: list[Any] = [d.properties for d in self.resources.values()]
        snippets += [d.metadata for d in self.resources.values()]
        snippets += [o.value for o in self.definition.outputs.values()]
        for fn in base.walk(snippets):
            for name, path in fn.attribute_references():
                attr = path[0] if path else ALL_ATTRIBUTES
                needed.setdefault(name, set()).add(str(attr))
        return needed

    def resource_type(self, name: str) -> str:
        """The concrete plugin type of a resource, after the environment's mappings."""
        defn = self.resources[name]
        entry = self.env.resolve_type(defn.type, name)
        if entry.kind == "template":
            # Provider templates arrive with composition (nested stacks); say so plainly.
            raise NotSupported(
                f"Resource {name}: provider template type {entry.template_name} (nested "
                "stacks come in a later version of Hearth)"
            )
        return str(entry.name)

    def resource_class(self, name: str) -> type[Resource]:
        return self.plugins.get_class(self.resource_type(name))

    def _attribute_names(self, resource: str, rtype: str) -> frozenset[str] | None:
        try:
            entry = self.env.resolve_type(rtype, resource)
        except HearthError:
            return None
        if entry.kind != "plugin":
            return None
        return self.plugins.attribute_names(str(entry.name))

    # --- resolution ----------------------------------------------------------------------

    def resolve_properties(self, name: str) -> dict[str, Any] | None:
        defn = self.resources[name]
        try:
            value = base.resolve_nullable(defn.properties, self.definition)
        except StackValidationFailed:
            raise
        except HearthError as exc:
            raise StackValidationFailed(
                str(exc), ["resources", name, "properties"], "Property error"
            ) from None
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise StackValidationFailed(
                "Properties must be a map", ["resources", name, "properties"]
            )
        return dict(value)

    def resolve_metadata(self, name: str) -> Any:
        return base.resolve_nullable(self.resources[name].metadata, self.definition)

    def resolve_snippet(self, snippet: Any) -> Any:
        return base.resolve(snippet, self.definition)

    def unresolved_properties(self, name: str) -> frozenset[str]:
        """Top-level properties whose values read resources that do not exist yet."""
        props = self.resources[name].properties
        if not isinstance(props, Mapping):
            return frozenset()
        out = set()
        for key, value in props.items():
            for dep in base.dependencies(value):
                node = self.nodes.get(dep)
                if node is None or (node.physical_id is None and node.reference_id is None):
                    out.add(str(key))
                    break
        return frozenset(out)

    def frozen_definition(self, name: str) -> dict[str, Any]:
        """The resolved definition of a resource, as stored and compared on update."""
        defn = self.resources[name]
        frozen = {
            "type": self.resource_type(name),
            "properties": self.resolve_properties(name),
            "metadata": self.resolve_metadata(name),
            "update_policy": base.resolve_nullable(defn.update_policy, self.definition),
            "deletion_policy": defn.deletion_policy,
        }
        if defn.external_id is not None:
            external = base.resolve(defn.external_id, self.definition)
            frozen["external_id"] = None if external is None else str(external)
        return frozen

    # --- validation ----------------------------------------------------------------------

    def validate(self, *, strict: bool = True) -> None:
        """The checks Heat runs before a create or update: raise the first fault found."""
        tmpl = self.template
        tmpl.validate_structure()
        self.params.validate(validate_value=strict)
        ParameterGroups(tmpl.parameter_groups_section, list(self.params)).validate()
        self.definition.conditions.validate()
        resources = self.resources
        duplicates = set(self.params.declared_names) & set(resources)
        if duplicates:
            raise StackValidationFailed(f"Duplicate names {duplicates}")
        section = tmpl.section_name("resources")
        for name, defn in resources.items():
            try:
                validate_resource_functions(self.definition, defn)
                if defn.external_id is not None:
                    continue
                cls = self.resource_class(name)
            except StackValidationFailed as exc:
                if exc.path and str(exc.path[0]).split(".")[0] == section:
                    raise
                raise StackValidationFailed.wrap(exc, [section, name]) from None
            # The plugin's own checks report their paths (or none) as Heat does.
            unresolved = self.unresolved_properties(name)
            cls.validate_definition(
                name,
                self._properties_for_validation(name, unresolved),
                unresolved=unresolved,
                update_policy=base.resolve_nullable(defn.update_policy, self.definition),
                deletion_policy=defn.deletion_policy,
                type_name=self.resource_type(name),
                cfn=not tmpl.is_hot,
            )
        for output in self.definition.outputs.values():
            base.validate(output.value, self.definition)
        _ = self.graph

    def _properties_for_validation(
        self, name: str, unresolved: frozenset[str]
    ) -> dict[str, Any] | None:
        props = self.resources[name].properties
        if not isinstance(props, Mapping):
            return self.resolve_properties(name)
        out: dict[str, Any] = {}
        for key, value in props.items():
            if key in unresolved:
                out[str(key)] = None
                continue
            try:
                out[str(key)] = base.resolve(value, self.definition)
            except StackValidationFailed:
                raise
            except HearthError as exc:
                raise StackValidationFailed(
                    str(exc), ["resources", name, "properties", str(key)], "Property error"
                ) from None
        return out
