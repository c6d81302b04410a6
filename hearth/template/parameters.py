"""Template parameter values: conversion, pseudo parameters, the collection and its checks.

``Parameters`` is what a stack is given: it is built from the template version, the raw
parameters section, the user's values and the environment's ``parameter_defaults``, and gives
each parameter's value converted to its type. ``validate()`` checks the schemas (and, unless told
not to, the values), with Heat's messages; ``validate_output()`` is the ``Parameters`` part of
Heat's POST /validate answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from hearth.common.errors import (
    HearthError,
    ImmutableParameterModified,
    InvalidSchemaError,
    StackValidationFailed,
    UnknownUserParameter,
    UserParameterMissing,
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
    to_bool,
    to_number,
)
from hearth.template.custom_constraints import ConstraintRegistry
from hearth.template.parameter_schema import ParameterSchema, parameter_schemata
from hearth.template.versions import TemplateVersion

HOT_PSEUDO_PARAMETERS = ("OS::stack_id", "OS::stack_name", "OS::region", "OS::project_id")
CFN_PSEUDO_PARAMETERS = ("AWS::StackId", "AWS::StackName", "AWS::Region")
AWS_REGIONS = (
    "us-east-1",
    "us-west-1",
    "us-west-2",
    "sa-east-1",
    "eu-west-1",
    "ap-southeast-1",
    "ap-northeast-1",
)
DEFAULT_AWS_REGION = "ap-southeast-1"

HIDDEN_VALUE = "******"


# --- values ------------------------------------------------------------------------------


def parse_list(value: Any) -> list[str]:
    """A comma_delimited_list value: a list (items as strings) or a string split on commas."""
    if isinstance(value, list):
        return [str(item) for item in value]
    if value == "":
        return []
    try:
        parts: list[str] = value.split(",")
    except (AttributeError, KeyError) as exc:
        raise ValueError(f"Value must be a comma-delimited list string: {exc}") from None
    return parts


def parse_json(value: Any) -> Any:
    """A json value: a JSON string parsed, anything else put through JSON and back."""
    try:
        text = value if isinstance(value, str) else json.dumps(value)
        if text:
            return json.loads(text)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"Value must be valid JSON: {exc}") from None
    return value


def convert(kind: DataType, value: Any) -> Any:
    """A raw parameter value in the parameter's type (ValueError/TypeError when it can't be)."""
    if kind is DataType.STRING:
        return str(value)
    if kind is DataType.NUMBER:
        return to_number(value)
    if kind is DataType.BOOLEAN:
        return to_bool(str(value))
    if kind is DataType.LIST:
        return parse_list(value)
    if kind is DataType.MAP:
        return parse_json(value)
    return value


def _as_text(kind: DataType, value: Any) -> str:
    if kind is DataType.LIST:
        return ",".join(value)
    if kind is DataType.MAP:
        return json.dumps(value)
    return str(value)


class Parameter:
    """A parameter with its schema, the user's value and the environment's default."""

    def __init__(self, name: str, schema: ParameterSchema, user_value: Any = None) -> None:
        self.name = name
        self.schema = schema
        self.user_value = user_value
        self.user_default: Any = None

    # --- what the schema says ---------------------------------------------------------

    @property
    def hidden(self) -> bool:
        return self.schema.hidden

    @property
    def immutable(self) -> bool:
        return self.schema.immutable

    @property
    def description(self) -> Any:
        return self.schema.description or ""

    @property
    def label(self) -> Any:
        return self.schema.label or self.name

    @property
    def tags(self) -> list[Any]:
        return self.schema.tags or []

    # --- defaults and values ----------------------------------------------------------

    def set_default(self, value: Any) -> None:
        """The environment's parameter_defaults entry, which overrides the template's."""
        self.user_default = value

    def has_default(self) -> bool:
        return self.schema.default is not None or self.user_default is not None

    def default(self) -> Any:
        return self.user_default if self.user_default is not None else self.schema.default

    def has_value(self) -> bool:
        return self.user_value is not None or self.has_default()

    def raw_value(self) -> Any:
        """The value as given: the user's, else the default. UserParameterMissing if none."""
        if self.user_value is not None:
            return self.user_value
        if self.has_default():
            return self.default()
        raise UserParameterMissing(self.name)

    def value(self) -> Any:
        """The value converted to the parameter's type."""
        raw = self.raw_value()
        try:
            return convert(self.schema.kind, raw)
        except (ValueError, TypeError) as exc:
            raise StackValidationFailed(self._invalid(str(exc))) from None

    def display(self) -> str:
        """The value as stack show lists it (hidden ones masked)."""
        value = self.value()
        if self.hidden:
            return HIDDEN_VALUE
        return _as_text(self.schema.kind, value)

    def __str__(self) -> str:
        return self.display()

    # --- validation -------------------------------------------------------------------

    def _invalid(self, detail: str) -> str:
        return f"Parameter '{self.name}' is invalid: {detail}"

    def validate(self, validate_value: bool = True, context: Any = None) -> None:
        """Check the schema, then (when ``validate_value``) the user's value or the default."""
        try:
            self.schema.validate(context)
            if not validate_value:
                return
            if self.user_value is not None:
                self.check_value(self.user_value, context)
            elif self.has_default():
                self.check_value(self.default(), context)
            else:
                raise UserParameterMissing(self.name)
        except StackValidationFailed as exc:
            raise StackValidationFailed(self._invalid(str(exc))) from None
        except InvalidSchemaError as exc:
            raise InvalidSchemaError(self._invalid(str(exc))) from None

    def check_value(self, value: Any, context: Any = None) -> None:
        """Raise StackValidationFailed (unprefixed) unless ``value`` is a valid value."""
        kind = self.schema.kind
        checked = value
        try:
            if kind is DataType.NUMBER:
                to_number(value)
            elif kind is DataType.BOOLEAN:
                to_bool(value)
            elif kind is DataType.LIST:
                checked = parse_list(value)
            elif kind is DataType.MAP:
                checked = parse_json(value)
        except (ValueError, TypeError) as exc:
            raise StackValidationFailed(str(exc)) from None
        self.schema.check_constraints(checked, context)

    # --- POST /validate ---------------------------------------------------------------

    def validate_output(self) -> dict[str, Any]:
        """This parameter as Heat's POST /validate describes it."""
        out: dict[str, Any] = {
            "Type": self.schema.api_type,
            "Description": self.description,
            "NoEcho": "true" if self.hidden else "false",
            "Label": self.label,
        }
        if self.has_default():
            out["Default"] = self.default()
        if self.user_value:
            out["Value"] = self.user_value
        if self.tags:
            out["Tags"] = self.tags
        descriptions: list[str] = []
        for constraint in self.schema.constraints:
            if isinstance(constraint, Length):
                _put_bounds(out, "MinLength", "MaxLength", constraint.min, constraint.max)
            elif isinstance(constraint, Range):
                _put_bounds(out, "MinValue", "MaxValue", constraint.min, constraint.max)
            elif isinstance(constraint, Modulo):
                out["Step"] = constraint.step
                out["Offset"] = constraint.offset
            elif isinstance(constraint, AllowedValues):
                out["AllowedValues"] = list(constraint.allowed)
            elif isinstance(constraint, AllowedPattern):
                out["AllowedPattern"] = constraint.pattern
            elif isinstance(constraint, CustomConstraint):
                out["CustomConstraint"] = constraint.name
            if constraint.description:
                descriptions.append(str(constraint.description))
        if descriptions:
            out["ConstraintDescription"] = " ".join(descriptions)
        return out


def _put_bounds(out: dict[str, Any], low_key: str, high_key: str, low: Any, high: Any) -> None:
    if low is not None:
        out[low_key] = low
    if high is not None:
        out[high_key] = high


# --- the collection ----------------------------------------------------------------------


@dataclass(frozen=True)
class StackIdentity:
    """Who the stack is, for the pseudo parameters. ``stack_id`` is None before it is stored."""

    tenant: str
    stack_name: str
    stack_id: str | None = None
    path: str = ""

    def arn(self) -> str:
        path = self.path if not self.path or self.path.startswith("/") else "/" + self.path
        return (
            f"arn:openstack:heat::{quote(self.tenant, safe='')}:stacks/"
            f"{quote(self.stack_name, safe='')}/{quote(str(self.stack_id), safe='')}"
            f"{quote(path)}"
        )


def _pseudo_schema(
    description: Any, default: str, constraints: tuple[Constraint, ...] = ()
) -> ParameterSchema:
    return ParameterSchema(
        kind=DataType.STRING,
        type_name="String",
        description=description,
        default=default,
        constraints=constraints,
    )


def pseudo_parameter_names(kind: str) -> tuple[str, ...]:
    """Every pseudo parameter name of the format (the ones excluded from validate output)."""
    return HOT_PSEUDO_PARAMETERS if kind == "hot" else CFN_PSEUDO_PARAMETERS


def pseudo_parameters(kind: str, stack: StackIdentity | None) -> list[Parameter]:
    """The pseudo parameters defined for a stack (some only exist once it has a name)."""
    out: list[Parameter] = []
    if kind == "hot":
        stack_id = str(stack.stack_id) if stack is not None else ""
        tenant = str(stack.tenant) if stack is not None else ""
        out.append(Parameter("OS::stack_id", _pseudo_schema("Stack ID", stack_id)))
        out.append(Parameter("OS::project_id", _pseudo_schema("Project ID", tenant)))
        if stack is not None and stack.stack_name:
            out.append(Parameter("OS::stack_name", _pseudo_schema("Stack Name", stack.stack_name)))
        return out
    arn = stack.arn() if stack is not None else "None"
    out.append(Parameter("AWS::StackId", _pseudo_schema("Stack ID", arn)))
    if stack is not None and stack.stack_name:
        out.append(Parameter("AWS::StackName", _pseudo_schema("Stack Name", stack.stack_name)))
        out.append(
            Parameter(
                "AWS::Region",
                _pseudo_schema(None, DEFAULT_AWS_REGION, (AllowedValues(list(AWS_REGIONS)),)),
            )
        )
    return out


class Parameters(Mapping[str, Any]):
    """A stack's parameters: name -> value in the parameter's type (pseudo parameters too).

    Schemas are parsed on construction (InvalidSchemaError for a malformed declaration); values
    are converted when read. ``validate`` checks all of it as Heat does.
    """

    def __init__(
        self,
        version: TemplateVersion,
        section: Any,
        user_values: Mapping[str, Any] | None = None,
        param_defaults: Mapping[str, Any] | None = None,
        *,
        stack: StackIdentity | None = None,
        registry: ConstraintRegistry | None = None,
    ) -> None:
        self.version = version
        self._user_values: dict[str, Any] = dict(user_values or {})
        self._param_defaults: dict[str, Any] = dict(param_defaults or {})
        self.schemata = parameter_schemata(version, section, registry)
        self.pseudo_names = pseudo_parameter_names(version.kind)
        params: dict[str, Parameter] = {p.name: p for p in pseudo_parameters(version.kind, stack)}
        for name, schema in self.schemata.items():
            params[name] = Parameter(name, schema, self._user_values.get(name))
        for name, default in self._param_defaults.items():
            if name in params:
                params[name].set_default(default)
        self.params = params

    @property
    def kind(self) -> str:
        return self.version.kind

    @property
    def user_values(self) -> Mapping[str, Any]:
        return self._user_values

    @property
    def param_defaults(self) -> Mapping[str, Any]:
        return self._param_defaults

    @property
    def declared_names(self) -> list[str]:
        """The template's own parameters (no pseudo parameters), in template order."""
        return [name for name in self.params if name not in self.pseudo_names]

    # --- Mapping ----------------------------------------------------------------------

    def __getitem__(self, name: str) -> Any:
        return self.params[name].value()

    def __iter__(self) -> Iterator[str]:
        return iter(self.params)

    def __len__(self) -> int:
        return len(self.params)

    def __contains__(self, name: object) -> bool:
        return name in self.params

    def value(self, name: str) -> Any:
        """The value of a parameter (KeyError if undeclared, UserParameterMissing if unset)."""
        return self.params[name].value()

    def parameter(self, name: str) -> Parameter:
        return self.params[name]

    # --- checks -----------------------------------------------------------------------

    def validate(self, validate_value: bool = True, context: Any = None) -> None:
        """Every user value is declared, every schema is sound and (when ``validate_value``)
        every parameter has a valid value. POST /validate passes ``validate_value=False``."""
        for name in self.user_values:
            if name not in self.schemata:
                raise UnknownUserParameter(name)
        for param in self.params.values():
            param.validate(validate_value, context)

    # --- identity ---------------------------------------------------------------------

    def set_stack_id(self, stack: StackIdentity | None) -> bool:
        """Give the stack id pseudo parameter its value once the stack is stored."""
        if stack is None:
            return False
        if self.kind == "hot":
            self.params["OS::stack_id"].schema.default = str(stack.stack_id)
        else:
            self.params["AWS::StackId"].schema.default = stack.arn()
        return True

    # --- output -----------------------------------------------------------------------

    def validate_output(self) -> dict[str, dict[str, Any]]:
        """The ``Parameters`` part of POST /validate's answer (pseudo parameters left out)."""
        return {name: self.params[name].validate_output() for name in self.declared_names}

    def display_values(self) -> dict[str, str]:
        """Every parameter as text, hidden ones masked: what stack show lists."""
        return {name: param.display() for name, param in self.params.items()}

    def hidden_names(self) -> list[str]:
        return [name for name, param in self.params.items() if param.hidden]


def immutable_parameters_modified(old: Parameters, new: Parameters) -> list[str]:
    """The immutable parameters (per the new template) present in both stacks whose value
    changes, in the new template's order.

    Values are compared after conversion to their types, so ``'5'`` and ``5`` for a number
    are the same value.
    """
    old_names = set(old.declared_names)
    changed: list[str] = []
    for name in new.declared_names:
        if name not in old_names or not new.params[name].immutable:
            continue
        try:
            before = old.value(name)
            after = new.value(name)
        except HearthError:
            # A missing or invalid value is reported by validation, not here.
            continue
        if before != after:
            changed.append(name)
    return changed


def check_immutable_parameters(old: Parameters, new: Parameters) -> None:
    """Raise ImmutableParameterModified when an update changes an immutable parameter."""
    changed = immutable_parameters_modified(old, new)
    if changed:
        raise ImmutableParameterModified(changed)
