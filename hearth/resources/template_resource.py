"""Provider templates: a resource whose type is a template (``type: server.yaml`` or a
``resource_registry`` mapping to one).

Each distinct provider template gets its own class, made once: the template's parameters
become the properties and its outputs the attributes. Properties are passed to the child as
its parameters; ``get_attr`` reads the child's outputs.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from hearth.common.errors import (
    InvalidTemplateAttribute,
    StackValidationFailed,
    TemplateOutputError,
)
from hearth.resources.attributes import AttributeSchema, select_from_attribute
from hearth.resources.base import Resource
from hearth.resources.nested import ChildDefinition
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.stack_resource import StackResource, stack_arn
from hearth.template.constraints import DataType
from hearth.template.environment import Environment
from hearth.template.loader import load_template_text
from hearth.template.parameter_schema import ParameterSchema, parameter_schemata
from hearth.template.template import Template

# The output that, when a provider template has it, is the resource's reference.
STACK_ID_OUTPUT = "OS::stack_id"

_PROPERTY_TYPES = {
    DataType.STRING: PropertySchema.STRING,
    DataType.NUMBER: PropertySchema.NUMBER,
    DataType.INTEGER: PropertySchema.INTEGER,
    DataType.LIST: PropertySchema.LIST,
    DataType.MAP: PropertySchema.MAP,
    DataType.BOOLEAN: PropertySchema.BOOLEAN,
}


def property_from_parameter(param: ParameterSchema, defaulted: bool = False) -> PropertySchema:
    """The property a provider template's parameter becomes (updatable: the child decides).

    ``defaulted``: the environment's parameter_defaults give it a value, so it is optional.
    """
    kind = _PROPERTY_TYPES.get(param.kind, PropertySchema.MAP)
    description = param.description if isinstance(param.description, str) else None
    return PropertySchema(
        kind,
        description=description,
        required=param.required and not defaulted,
        constraints=param.constraints,
        update_allowed=True,
        allow_conversion=kind in (PropertySchema.LIST, PropertySchema.MAP),
    )


class TemplateResource(StackResource):
    """A resource implemented by a provider template (one subclass per template)."""

    # The type as templates name it, and the provider template it resolves to.
    template_type: ClassVar[str] = ""
    template_name: ClassVar[str] = ""
    provider_template: ClassVar[Mapping[str, Any]] = {}
    has_stack_id_output: ClassVar[bool] = False

    @classmethod
    def child_for(
        cls,
        name: str,
        properties: Properties,
        environment: Environment,
        files: Mapping[str, str],
    ) -> ChildDefinition | None:
        entry = environment.resolve_type(cls.template_type, name)
        params = child_parameters(properties)
        env = environment.child(params, entry, name)
        return ChildDefinition(cls.provider_template, env, files)

    # --- references and attributes ----------------------------------------------------

    def get_reference_id(self) -> str | None:
        if self.resource_id is None:
            return self.name
        if self.has_stack_id_output:
            value = self.child_outputs().get(STACK_ID_OUTPUT)
            if value is not None:
                return str(value)
        return stack_arn(self.context.tenant, self._child_name(), self.resource_id)

    def _child_name(self) -> str:
        return self.context.physical_resource_name()

    @classmethod
    def attribute_names(cls) -> frozenset[str] | None:
        # ``resource.<name>...`` reaches into the child, so any name may be asked for.
        return None

    def get_attribute(self, name: str, *path: Any) -> Any:
        if name == "show":
            return super().get_attribute(name, *path)
        if name.startswith("resource."):
            return member_attribute(self, name, path)
        if name not in self._outputs_declared():
            raise InvalidTemplateAttribute(self.name, name)
        if self.resource_id is None:
            return None
        outputs = self.child_outputs()
        if name == STACK_ID_OUTPUT and not self.has_stack_id_output:
            return self.resource_id
        if outputs.get(name) is None:
            error = self.context.nested.output_errors(self.resource_id).get(name)
            if error is not None:
                raise TemplateOutputError(self.name, name, error)
        return select_from_attribute(outputs.get(name), path)

    @classmethod
    def _outputs_declared(cls) -> frozenset[str]:
        return frozenset(cls.attributes_schema) - {"show"}


def member_attribute(resource: StackResource, name: str, path: tuple[Any, ...]) -> Any:
    """``resource.<member>[.<attribute>...]``: a child resource's reference or attribute."""
    # ``resource.x.attr`` and ``[resource.x, attr]`` are the same (Heat joins them).
    parts = [*name.split(".", 2)[1:], *path]
    member_name = str(parts[0]) if parts else ""
    for member in resource.child_members():
        if member.name != member_name:
            continue
        if len(parts) < 2:
            return member.reference
        return select_from_attribute(member.attributes.get(str(parts[1])), parts[2:])
    raise InvalidTemplateAttribute(resource.name, name)


def child_parameters(properties: Properties) -> dict[str, Any]:
    """The child's parameters from the properties, in the forms Heat's parameters take."""
    params: dict[str, Any] = {}
    for key, prop in properties.schema.items():
        # Only values the template gives: the child applies its own defaults.
        if not prop.implemented or properties.data.get(key) is None:
            continue
        value = properties.get(key)
        if value is None:
            continue
        if prop.type == PropertySchema.LIST and isinstance(value, list):
            params[key] = _delimited(value)
        else:
            params[key] = value
    return params


def _delimited(items: list[Any]) -> str:
    """A list as a comma-delimited parameter (maps flattened as Heat's ``.member.N.key=v``)."""
    if not items:
        return ""
    if isinstance(items[0], Mapping):
        return ",".join(
            f".member.{index}.{key}={value}"
            for index, item in enumerate(items)
            for key, value in item.items()
        )
    return ",".join("" if item is None else str(item) for item in items)


# Provider templates up to this size have their class cached by their text (a bound on what
# the caches hold: 256 of them each).
PROVIDER_TEXT_CACHED_MAX = 64 * 1024


@functools.lru_cache(maxsize=256)
def _class_for(
    type_name: str, template_name: str, text: str, defaulted: frozenset[str]
) -> type[TemplateResource]:
    data = json.loads(text)
    tmpl = Template(data)
    try:
        params = parameter_schemata(tmpl.version, tmpl.parameters_section)
    except Exception as exc:
        raise StackValidationFailed(f"Failed to parse {template_name}: {exc}") from None
    props = {
        name: property_from_parameter(p, name in defaulted) for name, p in params.items()
    }
    attrs: dict[str, AttributeSchema] = {}
    for out_name, body in (tmpl.outputs_section or {}).items():
        description = (
            body.get(tmpl.output_key("description")) if isinstance(body, Mapping) else None
        )
        attrs[str(out_name)] = AttributeSchema(
            description if isinstance(description, str) else None
        )
    has_stack_id = STACK_ID_OUTPUT in attrs
    attrs.setdefault(STACK_ID_OUTPUT, AttributeSchema("The nested stack's id."))
    namespace = {
        "template_type": type_name,
        "template_name": template_name,
        "provider_template": data,
        "has_stack_id_output": has_stack_id,
        "properties_schema": props,
        "attributes_schema": attrs,
        "__doc__": f"Provider template {template_name}.",
    }
    return type(f"TemplateResource[{template_name}]", (TemplateResource,), namespace)


def template_resource_class(
    type_name: str,
    template_name: str,
    template: Mapping[str, Any],
    param_defaults: Collection[str] = (),
) -> type[TemplateResource]:
    """The class of resources of ``type_name`` served by this provider template (cached);
    ``param_defaults`` names the parameters the environment gives defaults to."""
    text = json.dumps(template, sort_keys=True, default=str)
    make = _class_for if len(text) <= PROVIDER_TEXT_CACHED_MAX else _class_for.__wrapped__
    return make(type_name, template_name, text, frozenset(param_defaults))


def provider_class(
    type_name: str, template_name: str, text: str, param_defaults: frozenset[str]
) -> type[TemplateResource]:
    """``template_resource_class`` of a provider template's text, cached by the text when it
    is not large: every stack of a tree resolves the same files again, and parsing them was
    most of that."""
    if len(text) > PROVIDER_TEXT_CACHED_MAX:
        return _provider_class(type_name, template_name, text, param_defaults)
    return _cached_provider_class(type_name, template_name, text, param_defaults)


def _provider_class(
    type_name: str, template_name: str, text: str, param_defaults: frozenset[str]
) -> type[TemplateResource]:
    data = load_template_text(text)
    if not isinstance(data, dict):
        raise StackValidationFailed(f"Template {template_name} is not a mapping")
    return template_resource_class(type_name, template_name, data, param_defaults)


_cached_provider_class = functools.lru_cache(maxsize=256)(_provider_class)


class FacadeMismatch(StackValidationFailed):
    """A provider template does not offer the interface of the type it stands in for."""


def check_facade(facade: type[Resource], provider: type[TemplateResource]) -> None:
    """A registry mapping a plugin type to a template: the template must look like it."""
    kinds = {PropertySchema.INTEGER: PropertySchema.NUMBER}
    for name, prop in facade.properties_schema.items():
        mine = provider.properties_schema.get(name)
        if mine is None:
            if prop.required:
                raise FacadeMismatch(
                    f"Required property {name} for facade {provider.template_type} "
                    "missing in provider"
                )
            continue
        if kinds.get(prop.type, prop.type) != kinds.get(mine.type, mine.type):
            raise FacadeMismatch(
                f"Property {name} type mismatch between facade {provider.template_type} "
                f"({prop.type}) and provider ({mine.type})"
            )
    for name in provider.properties_schema:
        if name not in facade.properties_schema and provider.properties_schema[name].required:
            raise FacadeMismatch(
                f"Provider requires property {name} unknown in facade {provider.template_type}"
            )
    for attr in facade.attributes_schema:
        if attr != "show" and attr not in provider.attributes_schema:
            raise FacadeMismatch(
                f"Attribute {attr} for facade {provider.template_type} missing in provider"
            )
