"""What the API serves about a resource type: its schema, and a template that wraps it.

Both are Heat's documents exactly (GET /resource_types/{type} and .../template): HIDDEN
properties and attributes are left out, every type has ``show``, and the generated template
turns each property into a parameter and each attribute into an output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hearth.common.errors import NotSupported
from hearth.resources import schema as types
from hearth.resources.attributes import AttributeSchema
from hearth.resources.schema import PropertySchema
from hearth.template.constraints import AllowedPattern, AllowedValues, Constraint, Length, Range

if TYPE_CHECKING:
    from hearth.resources.base import Resource

_CFN_TYPES = {
    types.INTEGER: "Number",
    types.STRING: "String",
    types.NUMBER: "Number",
    types.BOOLEAN: "Boolean",
    types.MAP: "Json",
    types.LIST: "CommaDelimitedList",
}
_HOT_TYPES = {
    types.INTEGER: "number",
    types.STRING: "string",
    types.NUMBER: "number",
    types.BOOLEAN: "boolean",
    types.MAP: "json",
    types.LIST: "comma_delimited_list",
}


def visible_properties(cls: type[Resource]) -> dict[str, PropertySchema]:
    return {
        name: prop
        for name, prop in cls.properties_schema.items()
        if prop.implemented and not prop.support_status.hidden
    }


def visible_attributes(cls: type[Resource]) -> dict[str, AttributeSchema]:
    return {
        name: attr
        for name, attr in cls.attributes_schema.items()
        if not attr.support_status.hidden
    }


def resource_schema(
    cls: type[Resource], type_name: str, with_description: bool = False
) -> dict[str, Any]:
    """Heat's ``resource_schema`` answer for a type implemented by ``cls``."""
    out: dict[str, Any] = {
        "resource_type": type_name,
        "properties": {name: p.to_dict() for name, p in visible_properties(cls).items()},
        "attributes": {name: a.to_dict() for name, a in visible_attributes(cls).items()},
        "support_status": cls.support_status.to_dict(),
    }
    if with_description:
        out["description"] = cls.description()
    return out


# --- generated templates -------------------------------------------------------------------


def _bounds(constraint: Length | Range) -> dict[str, Any]:
    return {k: v for k, v in (("min", constraint.min), ("max", constraint.max)) if v is not None}


def _cfn_parameter(prop: PropertySchema) -> dict[str, Any]:
    out: dict[str, Any] = {"Type": _CFN_TYPES[prop.type]}
    if prop.description is not None:
        out["Description"] = prop.description
    if prop.default is not None:
        out["Default"] = prop.default
    for constraint in prop.constraints:
        if isinstance(constraint, Length):
            out.update({f"{k.capitalize()}Length": v for k, v in _bounds(constraint).items()})
        elif isinstance(constraint, Range):
            out.update({f"{k.capitalize()}Value": v for k, v in _bounds(constraint).items()})
        elif isinstance(constraint, AllowedValues):
            out["AllowedValues"] = list(constraint.allowed)
        elif isinstance(constraint, AllowedPattern):
            out["AllowedPattern"] = constraint.pattern
    if prop.type == types.BOOLEAN:
        out["AllowedValues"] = ["True", "true", "False", "false"]
    return out


def _hot_constraint(constraint: Constraint) -> dict[str, Any]:
    # Only the constraints a parameter can express; others become an empty entry, as in Heat.
    if isinstance(constraint, Length):
        return {"length": _bounds(constraint)}
    if isinstance(constraint, Range):
        return {"range": _bounds(constraint)}
    if isinstance(constraint, AllowedValues):
        return {"allowed_values": list(constraint.allowed)}
    if isinstance(constraint, AllowedPattern):
        return {"allowed_pattern": constraint.pattern}
    return {}


def _hot_parameter(prop: PropertySchema) -> dict[str, Any]:
    out: dict[str, Any] = {"type": _HOT_TYPES[prop.type]}
    if prop.description is not None:
        out["description"] = prop.description
    if prop.default is not None:
        out["default"] = prop.default
    if prop.constraints:
        out["constraints"] = [_hot_constraint(c) for c in prop.constraints]
    return out


def generate_template(
    cls: type[Resource], type_name: str, template_type: str = "cfn"
) -> dict[str, Any]:
    """Heat's provider template mirroring the type: properties as parameters, attributes as
    outputs. A property of type Any has no parameter type to become (NotSupported)."""
    hot = template_type == "hot"
    res_name = cls.__name__
    params: dict[str, Any] = {}
    props: dict[str, Any] = {}
    for name, prop in visible_properties(cls).items():
        if prop.type == types.ANY:
            raise NotSupported(
                f"Generating a template for {type_name} (property {name} is of type Any)"
            )
        if hot:
            params[name] = _hot_parameter(prop)
            props[name] = {"get_param": name}
        else:
            params[name] = _cfn_parameter(prop)
            ref = {"Ref": name}
            props[name] = {"Fn::Split": [",", ref]} if prop.type == types.LIST else ref
    outputs: dict[str, Any] = {}
    for name, attr in visible_attributes(cls).items():
        if hot:
            outputs[name] = {
                "value": {"get_attr": [res_name, name]},
                "description": attr.description,
            }
        else:
            outputs[name] = {
                "Value": {"Fn::GetAtt": [res_name, name]},
                "Description": attr.description,
            }
    description = f"Initial template of {res_name}"
    if hot:
        outputs["OS::stack_id"] = {"value": {"get_resource": res_name}}
        return {
            "heat_template_version": "2016-10-14",
            "description": description,
            "parameters": params,
            "outputs": outputs,
            "resources": {res_name: {"type": type_name, "properties": props}},
        }
    outputs["OS::stack_id"] = {"Value": {"Ref": res_name}}
    return {
        "HeatTemplateFormatVersion": "2012-12-12",
        "Description": description,
        "Parameters": params,
        "Resources": {res_name: {"Type": type_name, "Properties": props}},
        "Outputs": outputs,
    }
