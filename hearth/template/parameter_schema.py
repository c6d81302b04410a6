"""Parameter declarations: the types, the keys a declaration may have, and its parsed schema.

HOT and CloudFormation spell declarations differently; both parse into ``ParameterSchema``.
Values (conversion, checking, the stack's parameter collection) live in ``parameters``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hearth.common.errors import (
    InvalidSchemaError,
    StackValidationFailed,
)
from hearth.template.constraints import (
    AllowedPattern,
    AllowedValues,
    Constraint,
    CustomConstraint,
    DataType,
    Length,
    Modulo,
    Range,
    ValueType,
    constraint_invalid_for,
    to_number,
)
from hearth.template.custom_constraints import ConstraintRegistry
from hearth.template.versions import TemplateVersion

HOT_TYPES: dict[str, DataType] = {
    "string": DataType.STRING,
    "number": DataType.NUMBER,
    "comma_delimited_list": DataType.LIST,
    "json": DataType.MAP,
    "boolean": DataType.BOOLEAN,
}
CFN_TYPES: dict[str, DataType] = {
    "String": DataType.STRING,
    "Number": DataType.NUMBER,
    "CommaDelimitedList": DataType.LIST,
    "Json": DataType.MAP,
    "Boolean": DataType.BOOLEAN,
}
# The names POST /validate reports, whatever the template format.
API_TYPES: dict[DataType, str] = {kind: name for name, kind in CFN_TYPES.items()}

HOT_KEYS = (
    "type",
    "description",
    "default",
    "schema",
    "constraints",
    "hidden",
    "label",
    "immutable",
)
HOT_TAGS_KEY = "tags"
HOT_CONSTRAINT_KEYS = (
    "description",
    "length",
    "range",
    "modulo",
    "allowed_values",
    "allowed_pattern",
    "custom_constraint",
)
CFN_KEYS = (
    "Type",
    "Default",
    "NoEcho",
    "AllowedValues",
    "AllowedPattern",
    "MaxLength",
    "MinLength",
    "MaxValue",
    "MinValue",
    "Description",
    "ConstraintDescription",
    "Label",
)


# --- schema ------------------------------------------------------------------------------


@dataclass
class ParameterSchema:
    """One parameter's declaration. ``type_name`` is the type as the template spells it."""

    kind: DataType
    type_name: str
    description: Any = None
    default: Any = None
    constraints: tuple[Constraint, ...] = ()
    hidden: bool = False
    label: Any = None
    immutable: bool = False
    tags: list[Any] | None = None

    @property
    def value_type(self) -> ValueType:
        return ValueType(self.kind, self.type_name)

    @property
    def required(self) -> bool:
        return self.default is None

    @property
    def api_type(self) -> str:
        return API_TYPES[self.kind]

    def validate(self, context: Any = None) -> None:
        """The constraints suit the type, and the declared default meets them.

        Custom constraints are not applied to the default. Raises InvalidSchemaError.
        """
        for constraint in self.constraints:
            if not constraint.valid_for(self.kind):
                raise constraint_invalid_for(constraint, self.type_name)
        if self.default is None:
            return
        default = self.default
        if self.kind is DataType.LIST:
            if isinstance(default, list):
                default = [str(item) for item in default]
            else:
                try:
                    default = default.split(",")
                except AttributeError as exc:
                    raise InvalidSchemaError(
                        f"Default must be a comma-delimited list string: {exc}"
                    ) from None
        try:
            self.check_constraints(default, context, skip_custom=True)
        except StackValidationFailed as exc:
            raise InvalidSchemaError(f"Invalid default {self.default} ({exc})") from None

    def check_constraints(self, value: Any, context: Any = None, skip_custom: bool = False) -> None:
        value_type = self.value_type
        for constraint in self.constraints:
            if skip_custom and isinstance(constraint, CustomConstraint):
                continue
            constraint.validate(value, value_type, context)


def _check_mapping(data: Any, allowed: tuple[str, ...], entity: str) -> None:
    if not isinstance(data, dict):
        raise InvalidSchemaError(f"Invalid {entity}, expected a mapping")
    for key in data:
        if key not in allowed:
            raise InvalidSchemaError(f"Invalid key '{key}' for {entity}")


def _number(data: Any, key: str) -> Any:
    value = data.get(key)
    if value is None:
        return None
    try:
        return to_number(value)
    except (ValueError, TypeError) as exc:
        # Heat lets Python's own conversion error through.
        raise InvalidSchemaError(str(exc)) from None


def _kind_of(type_name: Any, types: Mapping[str, DataType]) -> DataType:
    for name, kind in types.items():
        if type_name == name:
            return kind
    raise InvalidSchemaError(f"Invalid type ({type_name})")


def _check_common(
    name: str, body: Any, allowed: tuple[str, ...], type_key: str, tags_key: str
) -> None:
    _check_mapping(body, allowed, f"parameter ({name})")
    if type_key not in body:
        raise InvalidSchemaError(f"Missing parameter type for parameter: {name}")
    if not isinstance(body.get(tags_key, []), list):
        raise InvalidSchemaError(f"Tags property should be a list for parameter: {name}")


def _hot_constraint(
    definition: Mapping[str, Any], modulo: bool, registry: ConstraintRegistry | None
) -> Constraint:
    desc = definition.get("description")
    if modulo and "modulo" in definition:
        body = definition.get("modulo")
        _check_mapping(body, ("step", "offset"), "modulo constraint")
        return Modulo(_number(body, "step"), _number(body, "offset"), desc)
    if "range" in definition:
        body = definition.get("range")
        _check_mapping(body, ("min", "max"), "range constraint")
        return Range(_number(body, "min"), _number(body, "max"), desc)
    if "length" in definition:
        body = definition.get("length")
        _check_mapping(body, ("min", "max"), "length constraint")
        return Length(_number(body, "min"), _number(body, "max"), desc)
    if "allowed_values" in definition:
        return AllowedValues(definition.get("allowed_values"), desc)
    if "allowed_pattern" in definition:
        return AllowedPattern(definition.get("allowed_pattern"), desc)
    if "custom_constraint" in definition:
        return CustomConstraint(definition.get("custom_constraint"), desc, registry)
    raise InvalidSchemaError("No constraint expressed")


def _hot_constraints(
    name: str, body: Mapping[str, Any], modulo: bool, registry: ConstraintRegistry | None
) -> tuple[Constraint, ...]:
    raw = body.get("constraints")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InvalidSchemaError(
            f"Invalid parameter constraints for parameter {name}, expected a list"
        )
    out: list[Constraint] = []
    for definition in raw:
        _check_mapping(definition, HOT_CONSTRAINT_KEYS, "parameter constraints")
        out.append(_hot_constraint(definition, modulo, registry))
    return tuple(out)


def hot_parameter_schema(
    name: str,
    body: Any,
    *,
    modulo: bool = True,
    tags: bool = True,
    registry: ConstraintRegistry | None = None,
) -> ParameterSchema:
    """A HOT parameter declaration; ``modulo``/``tags`` say whether the version has them."""
    allowed = HOT_KEYS + ((HOT_TAGS_KEY,) if tags else ())
    _check_common(name, body, allowed, "type", HOT_TAGS_KEY)
    constraints = _hot_constraints(name, body, modulo, registry)
    type_name = body["type"]
    kind = _kind_of(type_name, HOT_TYPES)
    return ParameterSchema(
        kind=kind,
        type_name=type_name,
        description=body.get("description"),
        default=body.get("default"),
        constraints=constraints,
        hidden=bool(body.get("hidden", False)),
        label=body.get("label"),
        immutable=bool(body.get("immutable", False)),
        tags=body.get(HOT_TAGS_KEY) if tags else None,
    )


def cfn_parameter_schema(name: str, body: Any) -> ParameterSchema:
    """A CloudFormation parameter declaration."""
    _check_common(name, body, CFN_KEYS, "Type", "Tags")
    desc = body.get("ConstraintDescription")
    constraints: list[Constraint] = []
    if "MinValue" in body or "MaxValue" in body:
        constraints.append(Range(_number(body, "MinValue"), _number(body, "MaxValue"), desc))
    if "MinLength" in body or "MaxLength" in body:
        constraints.append(Length(_number(body, "MinLength"), _number(body, "MaxLength"), desc))
    if "AllowedValues" in body:
        constraints.append(AllowedValues(body["AllowedValues"], desc))
    if "AllowedPattern" in body:
        constraints.append(AllowedPattern(body["AllowedPattern"], desc))
    type_name = body["Type"]
    kind = _kind_of(type_name, CFN_TYPES)
    return ParameterSchema(
        kind=kind,
        type_name=type_name,
        description=body.get("Description"),
        default=body.get("Default"),
        constraints=tuple(constraints),
        hidden=str(body.get("NoEcho", "false")).lower() == "true",
        label=body.get("Label"),
    )


def parameter_schema(
    version: TemplateVersion, name: str, body: Any, registry: ConstraintRegistry | None = None
) -> ParameterSchema:
    if version.kind == "hot":
        return hot_parameter_schema(
            name, body, modulo=version.param_modulo, tags=version.param_tags, registry=registry
        )
    return cfn_parameter_schema(name, body)


def parameter_schemata(
    version: TemplateVersion, section: Any, registry: ConstraintRegistry | None = None
) -> dict[str, ParameterSchema]:
    """Every declared parameter's schema, in template order. Raises InvalidSchemaError."""
    if section is None:
        return {}
    if not isinstance(section, Mapping):
        raise InvalidSchemaError(
            f"Invalid {'parameters' if version.kind == 'hot' else 'Parameters'}, expected a mapping"
        )
    return {name: parameter_schema(version, name, body, registry) for name, body in section.items()}
