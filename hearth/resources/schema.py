"""Property schemas: what a resource type accepts under ``properties`` (and ``update_policy``).

A schema is checked when it is built (a plugin with a contradictory schema fails to load, not
the first stack that uses it) and serialises to the JSON Heat serves for a resource type.
Constraints are the template layer's own classes (``hearth.template.constraints``), shared with
parameters.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hearth.common.errors import InvalidSchemaError, StackValidationFailed
from hearth.resources.support import SupportStatus
from hearth.template.constraints import (
    AllowedPattern,
    AllowedValues,
    Constraint,
    CustomConstraint,
    DataType,
    Length,
    Range,
    ValueType,
    constraint_invalid_for,
    to_number,
)

INTEGER = "Integer"
STRING = "String"
NUMBER = "Number"
BOOLEAN = "Boolean"
MAP = "Map"
LIST = "List"
ANY = "Any"
TYPES: tuple[str, ...] = (INTEGER, STRING, NUMBER, BOOLEAN, MAP, LIST, ANY)

_KINDS: dict[str, DataType] = {
    INTEGER: DataType.INTEGER,
    STRING: DataType.STRING,
    NUMBER: DataType.NUMBER,
    BOOLEAN: DataType.BOOLEAN,
    MAP: DataType.MAP,
    LIST: DataType.LIST,
}

_DEFAULT_SUPPORT = SupportStatus()


class PropertySchema:
    """One property: its type, default, nested schema, constraints and update behaviour.

    ``schema`` is a single ``PropertySchema`` for the items of a List, or a mapping of key to
    ``PropertySchema`` for a Map (keys outside it are refused).
    """

    INTEGER = INTEGER
    STRING = STRING
    NUMBER = NUMBER
    BOOLEAN = BOOLEAN
    MAP = MAP
    LIST = LIST
    ANY = ANY

    __slots__ = (
        "allow_conversion",
        "constraints",
        "default",
        "description",
        "immutable",
        "implemented",
        "item_schema",
        "map_schema",
        "required",
        "support_status",
        "type",
        "update_allowed",
    )

    def __init__(
        self,
        data_type: str,
        description: str | None = None,
        default: Any = None,
        schema: PropertySchema | Mapping[str, PropertySchema] | None = None,
        required: bool = False,
        constraints: Iterable[Constraint] = (),
        implemented: bool = True,
        update_allowed: bool = False,
        immutable: bool = False,
        support_status: SupportStatus = _DEFAULT_SUPPORT,
        allow_conversion: bool = False,
    ) -> None:
        if data_type not in TYPES:
            raise InvalidSchemaError(f"Invalid type ({data_type})")
        self.type = data_type
        self.description = description
        self.default = default
        self.required = required
        self.constraints: tuple[Constraint, ...] = tuple(constraints)
        self.implemented = implemented
        self.update_allowed = update_allowed
        self.immutable = immutable
        self.support_status = support_status
        # Provider-template facades: a List may come as a comma-delimited string, a Map as JSON.
        self.allow_conversion = allow_conversion
        self.item_schema: PropertySchema | None = None
        self.map_schema: dict[str, PropertySchema] | None = None
        if isinstance(schema, PropertySchema):
            if data_type != LIST:
                raise InvalidSchemaError(f"Single schema valid only for {LIST}, not {data_type}")
            self.item_schema = schema
        elif schema is not None:
            if data_type not in (LIST, MAP):
                raise InvalidSchemaError(
                    f"Schema valid only for {LIST} or {MAP}, not {data_type}"
                )
            self.map_schema = dict(schema)
        self._check()

    # --- what the schema says ------------------------------------------------------------

    @property
    def kind(self) -> DataType | None:
        """The constraint layer's kind of value; None for Any."""
        return _KINDS.get(self.type)

    @property
    def value_type(self) -> ValueType | None:
        kind = self.kind
        return None if kind is None else ValueType(kind, self.type)

    @property
    def has_default(self) -> bool:
        return self.default is not None

    def _check(self) -> None:
        if self.update_allowed and self.immutable:
            raise InvalidSchemaError("Options UpdateAllowed and Immutable cannot both be True")
        kind = self.kind
        for constraint in self.constraints:
            if kind is None or not constraint.valid_for(kind):
                raise constraint_invalid_for(constraint, self.type)
        if self.default is not None:
            try:
                self.check_constraints(self.default, skip_custom=True)
            except StackValidationFailed as exc:
                raise InvalidSchemaError(
                    f"Invalid default {self.default} ({exc.detail})"
                ) from None

    def check_constraints(self, value: Any, context: Any = None, skip_custom: bool = False) -> None:
        """Raise StackValidationFailed (no path) unless ``value`` meets every constraint."""
        value_type = self.value_type
        for constraint in self.constraints:
            if skip_custom and isinstance(constraint, CustomConstraint):
                continue
            constraint.validate(value, value_type, context)

    # --- serialisation -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON Heat serves for this property in a resource type's schema."""
        out: dict[str, Any] = {"type": self.type.lower()}
        if self.description is not None:
            out["description"] = self.description
        if self.default is not None:
            out["default"] = self.default
        if self.item_schema is not None:
            out["schema"] = {"*": self.item_schema.to_dict()}
        elif self.map_schema is not None:
            out["schema"] = {k: s.to_dict() for k, s in self.map_schema.items()}
        out["required"] = self.required
        if self.constraints:
            out["constraints"] = [c.to_dict() for c in self.constraints]
        out["update_allowed"] = self.update_allowed
        out["immutable"] = self.immutable
        return out

    def __repr__(self) -> str:
        return f"PropertySchema({self.to_dict()!r})"

    # --- Heat's older dictionary form ----------------------------------------------------

    @classmethod
    def from_legacy(cls, data: PropertySchema | Mapping[str, Any]) -> PropertySchema:
        """A schema from Heat's capitalised dictionary form (``{'Type': 'String', ...}``)."""
        if isinstance(data, PropertySchema):
            return data
        unknown = [k for k in data if k not in _LEGACY_KEYS]
        if unknown:
            raise InvalidSchemaError(f"Unknown key(s) {unknown}")
        if "Type" not in data:
            raise InvalidSchemaError("No Type specified")
        data_type = data["Type"]
        nested: PropertySchema | dict[str, PropertySchema] | None = None
        if "Schema" in data:
            if data_type == LIST:
                nested = cls.from_legacy(data["Schema"])
            elif data_type == MAP:
                nested = {k: cls.from_legacy(v) for k, v in data["Schema"].items()}
            else:
                raise InvalidSchemaError(f"Schema supplied for Type {data_type}")
        return cls(
            data_type,
            description=data.get("Description"),
            default=data.get("Default"),
            schema=nested,
            required=data.get("Required", False),
            constraints=list(_legacy_constraints(data)),
            implemented=data.get("Implemented", True),
            update_allowed=data.get("UpdateAllowed", False),
            immutable=data.get("Immutable", False),
        )


_LEGACY_KEYS = frozenset(
    {
        "Required",
        "Implemented",
        "Default",
        "Type",
        "Schema",
        "AllowedPattern",
        "MinValue",
        "MaxValue",
        "AllowedValues",
        "MinLength",
        "MaxLength",
        "Description",
        "UpdateAllowed",
        "Immutable",
    }
)


def _legacy_number(data: Mapping[str, Any], key: str) -> Any:
    value = data.get(key)
    return None if value is None else to_number(value)


def _legacy_constraints(data: Mapping[str, Any]) -> Iterable[Constraint]:
    if "MinValue" in data or "MaxValue" in data:
        yield Range(_legacy_number(data, "MinValue"), _legacy_number(data, "MaxValue"))
    if "MinLength" in data or "MaxLength" in data:
        yield Length(_legacy_number(data, "MinLength"), _legacy_number(data, "MaxLength"))
    if "AllowedValues" in data:
        yield AllowedValues(data["AllowedValues"])
    if "AllowedPattern" in data:
        yield AllowedPattern(data["AllowedPattern"])


def schemata(
    schemas: Mapping[str, PropertySchema | Mapping[str, Any]],
) -> dict[str, PropertySchema]:
    """Every entry as a ``PropertySchema`` (legacy dictionaries converted)."""
    return {name: PropertySchema.from_legacy(s) for name, s in schemas.items()}
