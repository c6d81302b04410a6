"""A resource's property values, read through its schema with Heat's coercions and checks.

``Properties`` is a read-only mapping over the resolved property data the engine hands a
resource: every name in the schema can be read (defaults filled in, values coerced to their
type, nested maps and lists read through their own schemas); ``validate()`` reports the first
fault with Heat's message and a path relative to the properties (``wait_secs``,
``character_classes[0].class``).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources import schema as types
from hearth.resources.schema import PropertySchema
from hearth.template.constraints import to_number

PROPERTY_ERROR = "Property error"


class Properties(Mapping[Any, Any]):
    """Property values of one resource (or of one nested map or list inside a property).

    ``unresolved`` names top-level properties whose values depend on resources that do not
    exist yet: they count as given (for ``required``) but their values are not checked, and
    reading one gives what its data converts to, or its default when that fails (the engine
    passes None for them).
    """

    def __init__(
        self,
        schema: Mapping[Any, PropertySchema],
        data: Mapping[Any, Any] | None = None,
        *,
        unresolved: Collection[str] = frozenset(),
        context: Any = None,
    ) -> None:
        self.schema: dict[Any, PropertySchema] = dict(schema)
        self.data: dict[Any, Any] = dict(data or {})
        self.unresolved = frozenset(unresolved)
        self.context = context
        self._values: dict[Any, Any] = {}

    # --- Mapping -------------------------------------------------------------------------

    def __getitem__(self, key: Any) -> Any:
        if key not in self.schema:
            raise KeyError(f"Invalid Property {key}")
        if key not in self._values:
            self._values[key] = self._value(key, validate=False)
        return self._values[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.schema)

    def __len__(self) -> int:
        return len(self.schema)

    def __contains__(self, key: object) -> bool:
        return key in self.schema

    def resolved(self) -> dict[Any, Any]:
        """Every property's value (what the resource works with)."""
        return {key: self[key] for key in self.schema}

    # --- validation ----------------------------------------------------------------------

    def validate(self, with_value: bool = True) -> None:
        """Raise StackValidationFailed for the first unknown, missing or invalid property.

        Without ``with_value`` only the names are checked (what POST /validate does).
        """
        for key in self.data:
            if key not in self.schema:
                raise StackValidationFailed(f"Unknown Property {key}", [], PROPERTY_ERROR)
        for key, prop in self.schema.items():
            if with_value:
                try:
                    self._value(key, validate=True)
                except StackValidationFailed as exc:
                    raise StackValidationFailed(
                        exc.detail, [key, *exc.path], PROPERTY_ERROR
                    ) from None
                except ValueError as exc:
                    # A required property that is simply absent is reported on the section.
                    path = [] if prop.required and key not in self.data else [key]
                    raise StackValidationFailed(str(exc), path, PROPERTY_ERROR) from None
            if not prop.implemented and key in self.data:
                raise StackValidationFailed(
                    f"Property {key} not implemented yet", [], PROPERTY_ERROR
                )

    # --- values --------------------------------------------------------------------------

    def _value(self, key: Any, validate: bool) -> Any:
        prop = self.schema[key]
        if key in self.data:
            raw = self.data[key]
            if key in self.unresolved:
                try:
                    return self._coerce(prop, raw, validate=False)
                except (ValueError, StackValidationFailed):
                    pass
                try:
                    return self._coerce(prop, None, validate=False)
                except (ValueError, StackValidationFailed):
                    # A map with required keys has no empty form: unknown is all it is.
                    return None
            return self._coerce(prop, raw, validate)
        if prop.has_default:
            return self._coerce(prop, None, validate)
        if prop.required:
            raise ValueError(f"Property {key} not assigned")
        return None

    def _coerce(self, prop: PropertySchema, value: Any, validate: bool) -> Any:
        """``value`` in the property's type; ValueError (or a nested StackValidationFailed)."""
        try:
            result = coerce(prop, value, validate=validate, context=self.context)
            if validate:
                prop.check_constraints(result, self.context)
            return result
        except StackValidationFailed:
            raise
        except Exception as exc:
            # Whatever a conversion raised, the user sees its message (as in Heat).
            raise ValueError(str(exc)) from None


def _fallback(prop: PropertySchema, empty: Any) -> Any:
    # Heat's ``has_default() and default() or <empty>``: a falsy default reads as empty.
    return prop.default if prop.default else empty


def coerce(prop: PropertySchema, value: Any, *, validate: bool = False, context: Any = None) -> Any:
    """A raw value (None for "use the default") in the type ``prop`` declares."""
    kind = prop.type
    if kind == types.STRING:
        return _string(prop, value)
    if kind == types.INTEGER:
        return _integer(prop, value)
    if kind == types.NUMBER:
        return to_number(_fallback(prop, 0) if value is None else value)
    if kind == types.BOOLEAN:
        return _boolean(prop, value)
    if kind == types.MAP:
        return _map(prop, value, validate, context)
    if kind == types.LIST:
        return _list(prop, value, validate, context)
    return value


def _string(prop: PropertySchema, value: Any) -> str:
    if value is None:
        value = _fallback(prop, "")
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int):
        return str(value)
    raise ValueError(f"Value must be a string; got {value!r}")


def _integer(prop: PropertySchema, value: Any) -> int:
    if value is None:
        value = _fallback(prop, 0)
    try:
        return int(value)
    except ValueError:
        raise TypeError(f"Value '{value}' is not an integer") from None


def _boolean(prop: PropertySchema, value: Any) -> bool:
    if value is None:
        value = _fallback(prop, False)
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        lowered = value.lower()
        if lowered not in ("true", "false"):
            raise ValueError(f'"{lowered}" is not a valid boolean')
        return lowered == "true"
    raise TypeError(f'"{value}" is not a valid boolean')


def _map(prop: PropertySchema, value: Any, validate: bool, context: Any) -> Any:
    if value is None:
        value = prop.default if prop.has_default else {}
    if not isinstance(value, Mapping):
        if prop.allow_conversion:
            if isinstance(value, str):
                return value
            if isinstance(value, Sequence):
                return json.dumps(value)
        raise TypeError(f'"{value}" is not a map')
    if prop.map_schema is None:
        return dict(value)
    children = Properties(prop.map_schema, value, context=context)
    if validate:
        children.validate()
    return {key: children[key] for key in prop.map_schema}


def _list(prop: PropertySchema, value: Any, validate: bool, context: Any) -> list[Any]:
    if value is None:
        value = _fallback(prop, [])
    if prop.allow_conversion and isinstance(value, str):
        value = value.split(",") if value else []
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise TypeError(f'"{value!r}" is not a list')
    if prop.item_schema is None:
        return list(value)
    items = range(len(value))
    children = Properties(dict.fromkeys(items, prop.item_schema), dict(enumerate(value)),
                          context=context)
    if validate:
        children.validate()
    return [children[i] for i in items]
