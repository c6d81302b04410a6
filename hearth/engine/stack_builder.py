"""From a stack's source (``hearth.engine.stack_source``) to a definition the engine can
act on: ``BoundStack`` binds a source to a stack identity and to the current state of its
resources: parameters, conditions, resource definitions (parsed once), plugin classes, the
dependency graph.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any

from hearth.common import urlfetch
from hearth.common.errors import (
    HearthError,
    RequestLimitExceeded,
    ResourceTypeNotFound,
    StackValidationFailed,
    UserParameterMissing,
)
from hearth.engine.checked_children import CheckedChildren
from hearth.engine.running.resource_view import ALL_ATTRIBUTES, NodeData, StoredResources
from hearth.engine.stack_source import StackSource
from hearth.resources.dependencies import (
    ResourceShape,
    has_implicit_dependencies,
    snippet_key,
)
from hearth.resources.nested import ChildDefinition
from hearth.resources.stack_resource import StackResource
from hearth.resources.template_resource import (
    FacadeMismatch,
    TemplateResource,
    check_facade,
    provider_class,
)
from hearth.template.context import Limits, StaticFacade
from hearth.template.definitions import ResourceDefinition
from hearth.template.environment import Environment
from hearth.template.functions import base
from hearth.template.functions.budget import check_value_size
from hearth.template.parameter_groups import ParameterGroups
from hearth.template.parameters import Parameters, StackIdentity
from hearth.template.registry import RegistryEntry
from hearth.template.stack_definition import StackDefinition, validate_resource_functions
from hearth.template.template import Template
from hearth.template.validate import CheckedValues

if TYPE_CHECKING:
    from hearth.engine.plugin_access.cloud_access import CloudValidation
    from hearth.resources.base import Resource
    from hearth.resources.registry import PluginRegistry


def add_implicit_dependencies(graph: dict[str, set[str]],
                              candidates: Mapping[str, set[str]]) -> None:
    """Add each candidate edge that does not close a cycle (Heat's implicit dependencies
    never override what the template says)."""
    for name in sorted(candidates):
        for required in sorted(candidates[name]):
            if required in graph and required not in graph[name] and not _reaches(
                graph, required, name
            ):
                graph[name].add(required)


def _reaches(graph: Mapping[str, set[str]], start: str, target: str) -> bool:
    seen = {start}
    todo = [start]
    while todo:
        node = todo.pop()
        if node == target:
            return True
        for nxt in graph.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


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
        depth: int = 0,
        max_depth: int = 5,
        facade: Callable[[str], Any] | None = None,
    ) -> None:
        self.source = source
        # Set by the engine before validate(): the caller's cloud (None: not checked).
        self.cloud_validation: CloudValidation | None = None
        # The children of the tree found valid so far, while a tree is checked whole.
        self.checked_children: CheckedChildren | None = None
        # What resource_facade reads: the parent resource of a provider template.
        self.facade = facade
        # How deep this stack is nested, and how deep nesting may go.
        self.depth = depth
        self.max_depth = max_depth
        self.identity = identity
        self.plugins = plugins
        self.global_env = global_env
        # Each resource's class, once found (validation, the graph and the run all ask).
        self._classes: dict[tuple[str, str], type[Resource]] = {}
        self._types: dict[tuple[str, str], str] = {}
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
            attribute_names=self.env.plugin_attribute_names(self.plugins.attribute_names),
            limits=limits,
            facade=facade,
        )

    # --- definitions ---------------------------------------------------------------------

    @property
    def resources(self) -> dict[str, ResourceDefinition]:
        return self.definition.resource_definitions

    @cached_property
    def graph(self) -> dict[str, set[str]]:
        """For each resource, the resources it needs first (explicit and implicit)."""
        graph = self.definition.dependency_graph()
        add_implicit_dependencies(graph, self._implicit_candidates())
        return graph

    def _implicit_candidates(self) -> dict[str, set[str]]:
        """What plugins' ``implicit_dependencies`` hooks add (Heat's ``add_dependencies``:
        a port waits for the subnets of its network, a floating IP for router interfaces)."""
        hooks: dict[str, type[Resource]] = {}
        for name in self.resources:
            try:
                cls = self.resource_class(name)
            except HearthError:
                continue
            if has_implicit_dependencies(cls):
                hooks[name] = cls
        if not hooks:
            return {}
        shapes = {name: self._shape(name) for name in self.resources}
        return {
            name: set(cls.implicit_dependencies(name, shapes)) - {name}
            for name, cls in hooks.items()
        }

    def _shape(self, name: str) -> ResourceShape:
        """A resource's type and its properties in a comparable form."""
        defn = self.resources[name]
        props: dict[str, Any] = {}
        raw = defn.properties if isinstance(defn.properties, Mapping) else {}
        for key, value in raw.items():
            props[str(key)] = snippet_key(value, self.definition)
        return ResourceShape(self.resource_type(name), props)

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

    @cached_property
    def attribute_paths(self) -> dict[str, set[tuple[Any, ...]]]:
        """Attribute reads with a path (``get_attr: [group, attributes, name]``) of each
        resource: types that answer a whole path themselves store each one's value."""
        paths: dict[str, set[tuple[Any, ...]]] = {}
        snippets: list[Any] = [d.properties for d in self.resources.values()]
        snippets += [d.metadata for d in self.resources.values()]
        snippets += [o.value for o in self.definition.outputs.values()]
        for fn in base.walk(snippets):
            for name, path in fn.attribute_references():
                if len(path) > 1 and all(isinstance(p, str | int) for p in path):
                    paths.setdefault(name, set()).add(tuple(path))
        return paths

    def resource_type(self, name: str) -> str:
        """The type a resource is stored as: the concrete plugin type after the environment's
        mappings, or the type as the template names it when a provider template serves it."""
        defn = self.resources[name]
        key = (str(defn.type), name)
        found = self._types.get(key)
        if found is None:
            entry = self.env.resolve_type(defn.type, name)
            found = str(defn.type) if entry.kind == "template" else str(entry.name)
            self._types[key] = found
        return found

    def resource_class(self, name: str) -> type[Resource]:
        defn = self.resources[name]
        return self.class_of(str(defn.type), name)

    def class_of(self, type_name: str, resource_name: str) -> type[Resource]:
        """The class serving ``type_name`` for this resource, provider templates included."""
        key = (type_name, resource_name)
        found = self._classes.get(key)
        if found is None:
            entry = self.env.resolve_type(type_name, resource_name)
            if entry.kind == "template":
                found = self._template_class(type_name, entry, resource_name)
            else:
                found = self.plugins.get_class(str(entry.name))
            self._classes[key] = found
        return found

    def stored_class(self, type_name: str, resource_name: str) -> type[Resource]:
        """The class of a stored resource, also when the environment no longer maps its type
        (a resource left over from an older template): a provider-template resource is then
        handled as a plain nested stack, which is all its delete needs."""
        try:
            return self.class_of(type_name, resource_name)
        except HearthError:
            if type_name in self.plugins:
                return self.plugins.get_class(type_name)
            return TemplateResource

    def _template_class(
        self, type_name: str, entry: RegistryEntry, resource_name: str | None = None
    ) -> type[TemplateResource]:
        template_name = str(entry.template_name)
        text = self.source.files.get(template_name)
        if text is None and urlfetch.is_url(template_name):
            try:
                text = urlfetch.fetch_template(template_name, Limits().max_template_size)
            except urlfetch.FetchError as exc:
                raise StackValidationFailed(
                    f"Could not fetch remote template \"{template_name}\": {exc}"
                ) from None
            # Kept with the stack, as Heat does, so it is fetched once.
            self.source.files[template_name] = text
        if text is None:
            raise StackValidationFailed(
                f"Could not fetch remote template \"{template_name}\": Invalid URL scheme "
            )
        cls = provider_class(type_name, template_name, text, frozenset(self.env.param_defaults))
        # A type served by something else as well (a plugin, or a global mapping overridden
        # per resource) is a facade: the template must offer the same interface.
        if resource_name is None:
            return cls
        facade = self.env.get_resource_info(type_name, resource_name, ignore=entry)
        if facade is not None and facade.kind == "plugin" and str(facade.name) in self.plugins:
            check_facade(self.plugins.get_class(str(facade.name)), cls)
        elif facade is not None and facade.kind == "template":
            check_facade(self._template_class(type_name, facade), cls)
        return cls

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
        # Values known only now (other resources' attributes) may make it larger than the
        # request's preflight saw.
        check_value_size(value, self.definition.limits.max_value_chars,
                         f"resources.{name}.properties")
        return dict(value)

    def resolve_metadata(self, name: str) -> Any:
        return base.resolve_nullable(self.resources[name].metadata, self.definition)

    def update_policy(self, name: str) -> Any:
        """A resource's resolved update_policy (None without one, or once it left the
        template)."""
        defn = self.resources.get(name)
        if defn is None:
            return None
        return base.resolve_nullable(defn.update_policy, self.definition)

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
        cloud = self.cloud_validation
        self.params.validate(validate_value=strict, context=cloud)
        ParameterGroups(tmpl.parameter_groups_section, list(self.params)).validate()
        self.definition.conditions.validate()
        resources = self.resources
        duplicates = set(self.params.declared_names) & set(resources)
        if duplicates:
            raise StackValidationFailed(f"Duplicate names {duplicates}")
        section = tmpl.section_name("resources")
        types = self._resource_types()
        for name, defn in resources.items():
            try:
                validate_resource_functions(self.definition, defn)
                if defn.external_id is not None:
                    continue
                cls = self.resource_class(name)
                if cloud is not None:
                    cloud.check(cls, self.resource_type(name))
            except FacadeMismatch:
                raise  # Heat reports these without a path
            except StackValidationFailed as exc:
                if exc.path and str(exc.path[0]).split(".")[0] == section:
                    raise
                raise StackValidationFailed.wrap(exc, [section, name]) from None
            # The plugin's own checks report their paths (or none) as Heat does.
            unresolved = self.unresolved_properties(name)
            if not strict:
                unresolved |= self._unknown_parameters(name)
            try:
                cls.validate_definition(
                    name,
                    self._properties_for_validation(name, unresolved),
                    unresolved=unresolved,
                    update_policy=base.resolve_nullable(defn.update_policy, self.definition),
                    deletion_policy=defn.deletion_policy,
                    type_name=self.resource_type(name),
                    cfn=not tmpl.is_hot,
                    context=cloud,
                    environment=self.env,
                    files=self.source.files,
                    resources=types,
                )
            except StackValidationFailed as exc:
                if strict or exc.error != "Property error" or len(exc.path) < 2:
                    raise
                # Heat's nested (non-strict) validation names the resource, not the
                # property: "resources.r: : <message>".
                raise StackValidationFailed(
                    f": {exc.detail}", list(exc.path[:2]), exc.error
                ) from None
        for output in self.definition.outputs.values():
            base.validate(output.value, self.definition)
        _ = self.graph
        # As Heat: a tree is checked whole before its root is created or updated, so a
        # child's own create or update (strict, below the root) checks only its level.
        if self.depth == 0 or not strict:
            self._validate_children()

    def _resource_types(self) -> dict[str, str]:
        """Every resource's stored type, for plugins that check references to others (an
        access policy's resources); a type that does not resolve is reported where its own
        resource is checked, so here it is only named."""
        types: dict[str, str] = {}
        for name, defn in self.resources.items():
            try:
                types[name] = self.resource_type(name)
            except HearthError:
                types[name] = str(defn.type)
        return types

    def _validate_children(self) -> None:
        """Nested stacks are checked with their parent, so that nothing is created when a
        child (at any depth) is wrong or nests too deep."""
        section = self.template.section_name("resources")
        # Shared with the children below: an identical child is checked once per tree.
        checked = self.checked_children = self.checked_children or CheckedChildren()
        for name, defn in self.resources.items():
            if defn.external_id is not None:
                continue
            cls = self.resource_class(name)
            if not issubclass(cls, StackResource):
                continue
            unresolved = self.unresolved_properties(name)
            props = cls.build_properties(
                self._properties_for_validation(name, unresolved), unresolved=unresolved
            )
            where = f"{name}<{getattr(cls, 'template_name', '') or 'nested_stack'}>"
            try:
                child = cls.child_for(name, props, self.env, self.source.files)
                if child is None:
                    continue
                if self.depth >= self.max_depth:
                    raise RequestLimitExceeded(f"Recursion depth exceeds {self.max_depth}.")
                facade = self.facade_of(name)
                child_name = self.child_name(name)
                key = checked.key(child, self.depth + 1, facade, child_name)
                if checked.seen_valid(key):
                    continue
                bound = self.child_bound(child, name, facade)
                bound.checked_children = checked
                bound.validate(strict=False)
                checked.add_valid(key)
            except (RequestLimitExceeded, ResourceTypeNotFound):
                # A group's member type is checked before its child, unwrapped (as Heat).
                raise
            except HearthError as exc:
                if isinstance(exc, StackValidationFailed):
                    raise StackValidationFailed.wrap(exc, [section, where]) from None
                raise StackValidationFailed(str(exc), [section, where]) from None

    def with_source(self, source: StackSource) -> BoundStack:
        """The same stack and resources with another definition (an update's new one)."""
        return BoundStack(
            source, self.identity, plugins=self.plugins, global_env=self.global_env,
            nodes=dict(self.nodes), limits=self.definition.limits, depth=self.depth,
            max_depth=self.max_depth, facade=self.facade,
        )

    def child_name(self, resource_name: str) -> str:
        """The name a child stack of resource ``resource_name`` is checked under."""
        return f"{self.identity.stack_name}-{resource_name}"

    def child_bound(
        self, child: ChildDefinition, resource_name: str, facade: StaticFacade | None = None
    ) -> BoundStack:
        """The definition of a child stack of this one (for validation and creation);
        ``facade``: ``facade_of(resource_name)``, when the caller has it."""
        source = StackSource(
            dict(child.template), dict(child.files), child.environment.env_as_dict()
        )
        identity = StackIdentity(self.identity.tenant, self.child_name(resource_name), None)
        bound = BoundStack(
            source, identity, plugins=self.plugins, global_env=self.global_env,
            limits=self.definition.limits, depth=self.depth + 1, max_depth=self.max_depth,
            facade=facade if facade is not None else self.facade_of(resource_name),
        )
        bound.cloud_validation = self.cloud_validation
        return bound

    def facade_of(self, name: str) -> StaticFacade:
        """What a child of resource ``name`` sees through resource_facade."""
        defn = self.resources[name]
        try:
            metadata = self.resolve_metadata(name)
        except HearthError:
            metadata = None
        try:
            update_policy = base.resolve_nullable(defn.update_policy, self.definition)
        except HearthError:
            update_policy = None
        return StaticFacade(
            metadata if isinstance(metadata, Mapping) else None,
            defn.deletion_policy or "Delete",
            update_policy if isinstance(update_policy, Mapping) else None,
        )

    def _unknown_parameters(self, name: str) -> frozenset[str]:
        """Properties read from parameters that have no value: in a child stack checked with
        its parent, the parent's value may come from a resource that does not exist yet (Heat
        checks only the child's templates then)."""
        props = self.resources[name].properties
        if not isinstance(props, Mapping):
            return frozenset()
        out = set()
        for key, value in props.items():
            try:
                base.resolve(value, self.definition)
            except UserParameterMissing:
                out.add(str(key))
            except (HearthError, TypeError, ValueError):
                pass  # reported where the value is resolved
        return frozenset(out)

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
            tmpl = self.template
            where = [tmpl.section_name("resources"), name,
                     "properties" if tmpl.is_hot else "Properties", str(key)]
            try:
                resolved = base.resolve_nullable(value, self.definition)
            except StackValidationFailed:
                raise
            except (HearthError, TypeError, ValueError) as exc:
                # A function given arguments of the wrong kind says so, as Heat's does, with
                # the template's own section names (Resources/Properties in CFN).
                raise StackValidationFailed(str(exc), where, "Property error") from None
            if resolved is not base.ELIDED:
                out[str(key)] = resolved
                continue
            # An `if` without a false branch leaves the property unset; Heat names it when
            # the type requires it.
            schema = self.resource_class(name).properties_schema.get(str(key))
            if schema is not None and schema.required:
                raise StackValidationFailed(f"Property {key} not assigned", where,
                                            "Property error")
        return out
