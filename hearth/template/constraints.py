"""Value constraints shared by parameter (and property) schemas, with Heat's messages.

Each constraint knows which kinds of value it applies to, checks a value and, when the value
fails, raises ``StackValidationFailed`` whose message is the constraint's ``description`` when
one was given and Heat's own wording otherwise. Malformed constraint definitions raise
``InvalidSchemaError``.
"""

from __future__ import annotations

import json
import numbers
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

import regex  # type: ignore[import-untyped]

from hearth.common.errors import InvalidSchemaError, StackValidationFailed
from hearth.template import custom_constraints
from hearth.template.custom_constraints import ConstraintRegistry


class DataType(StrEnum):
    """The kinds of value a schema can describe (whatever a template calls them)."""

    INTEGER = "INTEGER"
    STRING = "STRING"
    NUMBER = "NUMBER"
    BOOLEAN = "BOOLEAN"
    MAP = "MAP"
    LIST = "LIST"


TRUE_STRINGS = ("1", "t", "true", "on", "y", "yes")
FALSE_STRINGS = ("0", "f", "false", "off", "n", "no")
_ACCEPTABLE_BOOLS = ", ".join(f"'{s}'" for s in sorted(TRUE_STRINGS + FALSE_STRINGS))


def to_bool(value: Any) -> bool:
    """Strict boolean parsing: true/false, yes/no, on/off, 1/0, t/f, y/n in any case."""
    if isinstance(value, bool):
        return value
    text = value if isinstance(value, str) else str(value)
    lowered = text.strip().lower()
    if lowered in TRUE_STRINGS:
        return True
    if lowered in FALSE_STRINGS:
        return False
    raise ValueError(f"Unrecognized value '{text}', acceptable values are: {_ACCEPTABLE_BOOLS}")


def to_number(value: Any) -> Any:
    """A number as is; otherwise ``int()`` of it, or ``float()`` when that fails.

    Raises Python's own ValueError / TypeError (their messages reach the user, as in Heat).
    """
    if isinstance(value, numbers.Number):
        return value
    try:
        return int(value)
    except ValueError:
        return float(value)


@dataclass(frozen=True)
class ValueType:
    """The type a constraint checks against: its kind and its name as the template spells it."""

    kind: DataType
    name: str

    def convert(self, value: Any) -> Any:
        """The value in this type, as allowed_values compares them."""
        try:
            if self.kind is DataType.INTEGER:
                num = to_number(value)
                if isinstance(num, float):
                    raise ValueError(f"{num} is not an integer.")
                return num
            if self.kind is DataType.NUMBER:
                return to_number(value)
            if self.kind is DataType.STRING:
                return str(value)
            if self.kind is DataType.BOOLEAN:
                return to_bool(str(value))
        except ValueError:
            raise ValueError(f'Value "{value}" is invalid for data type "{self.name}".') from None
        return value


def _within(number: Any, low: Any, high: Any) -> bool:
    if low is not None and number < low:
        return False
    return not (high is not None and number > high)


def _is_numeric(value: Any) -> bool:
    return value is None or isinstance(value, (int, float))


class Constraint(ABC):
    """One constraint, with an optional description that replaces the failure message."""

    key: ClassVar[str]  # the constraint's key in a HOT constraints list
    heat_name: ClassVar[str]  # how Heat names it in "X constraint invalid for <type>"
    valid_types: ClassVar[frozenset[DataType]]

    def __init__(self, description: Any = None) -> None:
        self.description = description

    def valid_for(self, kind: DataType) -> bool:
        return kind in self.valid_types

    def validate(
        self, value: Any, value_type: ValueType | None = None, context: Any = None
    ) -> None:
        """Raise StackValidationFailed unless ``value`` satisfies the constraint."""
        try:
            failure = self._failure(value, value_type, context)
        except (ValueError, TypeError) as exc:
            raise StackValidationFailed(str(exc)) from None
        if failure is not None:
            raise StackValidationFailed(str(self.description) if self.description else failure)

    @abstractmethod
    def _failure(self, value: Any, value_type: ValueType | None, context: Any) -> str | None:
        """Heat's message for a value that fails the constraint; None when it passes."""

    @abstractmethod
    def _summary(self) -> str: ...

    @abstractmethod
    def definition(self) -> Any:
        """The value under the constraint's key (``{'min': 1}``, a list, a pattern...)."""

    def to_dict(self) -> dict[str, Any]:
        """The HOT form: ``{'<key>': definition, 'description': ...}``."""
        out: dict[str, Any] = {}
        if self.description is not None:
            out["description"] = self.description
        out[self.key] = self.definition()
        return out

    def describe(self) -> str:
        """A human description of what the constraint requires."""
        parts = [str(self.description)] if self.description else []
        parts.append(self._summary())
        return "\n".join(parts)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Constraint) or type(self) is not type(other):
            return False
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((type(self).__name__, json.dumps(self.to_dict(), sort_keys=True, default=str)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_dict()!r})"


class _Bounded(Constraint):
    """A constraint with an optional ``min`` and ``max`` on some measure of the value."""

    # What the bounds measure, as the summary names it.
    measure = "value"
    min: Any
    max: Any

    def _summary(self) -> str:
        what = f"The {self.measure} must"
        if self.max is None:
            return f"{what} be at least {self.min}."
        if self.min is None:
            return f"{what} be no greater than {self.max}."
        return f"{what} be in the range {self.min} to {self.max}."

    def definition(self) -> dict[str, Any]:
        return {k: v for k, v in (("min", self.min), ("max", self.max)) if v is not None}


class Range(_Bounded):
    key = "range"
    heat_name = "Range"
    valid_types = frozenset({DataType.INTEGER, DataType.NUMBER})

    def __init__(self, min: Any = None, max: Any = None, description: Any = None) -> None:
        super().__init__(description)
        for bound in (min, max):
            if not _is_numeric(bound):
                raise InvalidSchemaError("min/max must be numeric")
        if min is None and max is None:
            raise InvalidSchemaError(
                "A range constraint must have a min value and/or a max value specified."
            )
        self.min = min
        self.max = max

    def _in_bounds(self, number: Any) -> bool:
        return _within(number, self.min, self.max)

    def _failure(self, value: Any, value_type: ValueType | None, context: Any) -> str | None:
        if self._in_bounds(to_number(value)):
            return None
        return f"{value} is out of range (min: {self.min}, max: {self.max})"



class Length(_Bounded):
    key = "length"
    measure = "length"
    heat_name = "Length"
    valid_types = frozenset({DataType.STRING, DataType.LIST, DataType.MAP})

    def __init__(self, min: Any = None, max: Any = None, description: Any = None) -> None:
        super().__init__(description)
        if min is None and max is None:
            raise InvalidSchemaError(
                "A length constraint must have a min value and/or a max value specified."
            )
        for bound in (min, max):
            if not _is_numeric(bound):
                raise InvalidSchemaError("min/max must be numeric")
        for bound in (min, max):
            if not (bound is None or isinstance(bound, int)):
                raise InvalidSchemaError("min/max length must be integral")
        self.min = min
        self.max = max

    def _failure(self, value: Any, value_type: ValueType | None, context: Any) -> str | None:
        size = len(value)
        if _within(size, self.min, self.max):
            return None
        return f"length ({size}) is out of range (min: {self.min}, max: {self.max})"



class Modulo(Constraint):
    key = "modulo"
    heat_name = "Modulo"
    valid_types = frozenset({DataType.INTEGER, DataType.NUMBER})

    def __init__(self, step: Any = None, offset: Any = None, description: Any = None) -> None:
        super().__init__(description)
        if step is None or offset is None:
            raise InvalidSchemaError(
                "A modulo constraint must have a step value and an offset value specified."
            )
        for item in (step, offset):
            if not isinstance(item, (int, float)):
                raise InvalidSchemaError("step/offset must be numeric")
            if isinstance(item, float) and not item.is_integer():
                raise InvalidSchemaError("step/offset must be integer")
        istep, ioffset = int(step), int(offset)
        if istep == 0:
            raise InvalidSchemaError("step cannot be 0.")
        if abs(ioffset) >= abs(istep):
            raise InvalidSchemaError("offset must be smaller (by absolute value) than step.")
        if istep * ioffset < 0:
            raise InvalidSchemaError("step and offset must be both positive or both negative.")
        self.step = step
        self.offset = offset

    def _failure(self, value: Any, value_type: ValueType | None, context: Any) -> str | None:
        if to_number(value) % self.step == self.offset:
            return None
        return f"{value} is not a multiple of {self.step} with an offset of {self.offset}"

    def _summary(self) -> str:
        return f"The value must be a multiple of {self.step} with an offset of {self.offset}."

    def definition(self) -> dict[str, Any]:
        return {"step": self.step, "offset": self.offset}


def _json(value: Any) -> str:
    return json.dumps(value, default=str)


class AllowedValues(Constraint):
    key = "allowed_values"
    heat_name = "AllowedValues"
    valid_types = frozenset(
        {DataType.STRING, DataType.INTEGER, DataType.NUMBER, DataType.BOOLEAN, DataType.LIST}
    )

    def __init__(self, allowed: Any, description: Any = None) -> None:
        super().__init__(description)
        if not isinstance(allowed, Sequence) or isinstance(allowed, (str, bytes)):
            raise InvalidSchemaError("AllowedValues must be a list")
        self.allowed: tuple[Any, ...] = tuple(allowed)

    def _allows(self, value: Any, value_type: ValueType | None) -> bool:
        if isinstance(value, list):
            # A list is allowed when each of its items is (compared as they are).
            return all(item in self.allowed for item in value)
        if value_type is not None:
            choices = [value_type.convert(choice) for choice in self.allowed]
            return value_type.convert(value) in choices
        return value in self.allowed

    def _failure(self, value: Any, value_type: ValueType | None, context: Any) -> str | None:
        if self._allows(value, value_type):
            return None
        choices = ", ".join(_json(choice) for choice in self.allowed)
        return f"{_json(value)} is not an allowed value [{choices}]"

    def _summary(self) -> str:
        return "Allowed values: " + ", ".join(_json(choice) for choice in self.allowed)

    def definition(self) -> list[Any]:
        return list(self.allowed)


# How long an allowed_pattern may take to match one value.
PATTERN_MATCH_SECONDS = 1.0


class AllowedPattern(Constraint):
    key = "allowed_pattern"
    heat_name = "AllowedPattern"
    valid_types = frozenset({DataType.STRING})

    def __init__(self, pattern: Any, description: Any = None) -> None:
        super().__init__(description)
        if not isinstance(pattern, str):
            raise InvalidSchemaError("AllowedPattern must be a string")
        try:
            # The regex module, in re's own syntax (V0): its matches can be given a time limit.
            self._regex = regex.compile(pattern, flags=regex.V0)
        except regex.error as exc:
            raise InvalidSchemaError(f'Invalid AllowedPattern "{pattern}": {exc}') from None
        self.pattern = pattern

    def _failure(self, value: Any, value_type: ValueType | None, context: Any) -> str | None:
        # The whole value must match, not just a prefix of it. A pattern that backtracks
        # without end (such as "(a|aa)+$") stops at the limit instead of holding the worker.
        if not isinstance(value, str):
            # re's words, which Heat's message carries.
            raise TypeError(f"expected string or bytes-like object, got '{type(value).__name__}'")
        try:
            found = self._regex.match(value, timeout=PATTERN_MATCH_SECONDS, concurrent=True)
        except TimeoutError:
            return (f'"{self.pattern}" took more than {PATTERN_MATCH_SECONDS:g}s to match '
                    "the value (a pattern that backtracks without end)")
        if found is not None and found.end() == len(value):
            return None
        return f'"{value}" does not match pattern "{self.pattern}"'

    def _summary(self) -> str:
        return f"Value must match pattern: {self.pattern}"

    def definition(self) -> str:
        return self.pattern


class CustomConstraint(Constraint):
    """Delegates to a named checker from a ``ConstraintRegistry`` (the global one by default)."""

    key = "custom_constraint"
    heat_name = "CustomConstraint"
    valid_types = frozenset(
        {DataType.STRING, DataType.INTEGER, DataType.NUMBER, DataType.BOOLEAN, DataType.LIST}
    )

    def __init__(
        self, name: Any, description: Any = None, registry: ConstraintRegistry | None = None
    ) -> None:
        super().__init__(description)
        self.name = name
        self._registry = registry

    @property
    def registry(self) -> ConstraintRegistry:
        return self._registry or custom_constraints.global_registry()

    def validate(
        self, value: Any, value_type: ValueType | None = None, context: Any = None
    ) -> None:
        checker = self.registry.get(self.name)
        if checker is None and custom_constraints.is_service_constraint(self.name):
            # Said plainly whatever the template's description: the value may well be fine.
            raise StackValidationFailed(
                f'"{value}" does not validate {self.name} (constraint not available in Hearth yet)'
            )
        super().validate(value, value_type, context)

    def _failure(self, value: Any, value_type: ValueType | None, context: Any) -> str | None:
        checker = self.registry.get(self.name)
        if checker is None:
            return f'"{value}" does not validate {self.name} (constraint not found)'
        reason = checker(value, context)
        if reason is None:
            return None
        if reason:
            return f"Error validating value '{value}': {reason}"
        return f"Error validating value '{value}'"

    def _summary(self) -> str:
        return f"Value must be of type {self.name}"

    def definition(self) -> Any:
        return self.name


def constraint_invalid_for(constraint: Constraint, type_name: Any) -> InvalidSchemaError:
    return InvalidSchemaError(f"{constraint.heat_name} constraint invalid for {type_name}")
