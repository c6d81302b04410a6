"""Constraint definitions and checks: what a user sees when a value or a definition is wrong."""

from __future__ import annotations

import time
from typing import Any

import pytest

from hearth.common.errors import InvalidSchemaError, StackValidationFailed
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
    to_bool,
    to_number,
)

STRING = ValueType(DataType.STRING, "string")
NUMBER = ValueType(DataType.NUMBER, "number")
BOOLEAN = ValueType(DataType.BOOLEAN, "boolean")
LIST = ValueType(DataType.LIST, "comma_delimited_list")


def failure(constraint: Constraint, value: Any, value_type: ValueType | None = None) -> str:
    with pytest.raises(StackValidationFailed) as info:
        constraint.validate(value, value_type)
    return str(info.value)


def schema_error(factory: Any, *args: Any) -> str:
    with pytest.raises(InvalidSchemaError) as info:
        factory(*args)
    return str(info.value)


# --- conversions -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("5", 5), (" 7 ", 7), ("5.5", 5.5), ("1e3", 1000.0), (3, 3), (2.5, 2.5), (True, True)],
)
def test_to_number_accepts_numbers_and_numeric_strings(raw: Any, expected: Any) -> None:
    result = to_number(raw)
    assert result == expected
    assert type(result) is type(expected)


def test_to_number_reports_pythons_conversion_error() -> None:
    with pytest.raises(ValueError, match="could not convert string to float: 'abc'"):
        to_number("abc")


@pytest.mark.parametrize("raw", ["true", "YES", " on ", "1", "t", "y", 1, True])
def test_to_bool_true(raw: Any) -> None:
    assert to_bool(raw) is True


@pytest.mark.parametrize("raw", ["false", "No", "off", "0", "f", "n", 0, False])
def test_to_bool_false(raw: Any) -> None:
    assert to_bool(raw) is False


def test_to_bool_refuses_anything_else_and_lists_what_is_accepted() -> None:
    with pytest.raises(ValueError) as info:
        to_bool("maybe")
    assert str(info.value) == (
        "Unrecognized value 'maybe', acceptable values are: '0', '1', 'f', 'false', 'n', "
        "'no', 'off', 'on', 't', 'true', 'y', 'yes'"
    )


def test_value_type_conversion_failure_names_the_type_as_written() -> None:
    with pytest.raises(ValueError, match='Value "a" is invalid for data type "Number".'):
        ValueType(DataType.NUMBER, "Number").convert("a")


def test_integer_value_type_refuses_fractions() -> None:
    with pytest.raises(ValueError, match='Value "2.5" is invalid for data type "Integer".'):
        ValueType(DataType.INTEGER, "Integer").convert("2.5")


# --- range -----------------------------------------------------------------------------


def test_range_accepts_inclusive_bounds() -> None:
    r = Range(1, 5)
    for value in (1, 5, "3", "4.5"):
        r.validate(value, NUMBER)


@pytest.mark.parametrize(
    ("constraint", "value", "message"),
    [
        (Range(2, 3), "3.5", "3.5 is out of range (min: 2, max: 3)"),
        (Range(2), 1, "1 is out of range (min: 2, max: None)"),
        (Range(None, 10), 11, "11 is out of range (min: None, max: 10)"),
    ],
)
def test_range_messages(constraint: Range, value: Any, message: str) -> None:
    assert failure(constraint, value, NUMBER) == message


def test_range_non_numeric_value_reports_conversion_error() -> None:
    assert failure(Range(1), "abc", NUMBER) == "could not convert string to float: 'abc'"


def test_range_definition_errors() -> None:
    assert schema_error(Range, "a", None) == "min/max must be numeric"
    assert schema_error(Range) == (
        "A range constraint must have a min value and/or a max value specified."
    )


# --- length ----------------------------------------------------------------------------


def test_length_counts_strings_lists_and_maps() -> None:
    c = Length(2, 3)
    c.validate("ab")
    c.validate(["a", "b", "c"])
    c.validate({"a": 1, "b": 2})
    assert failure(c, "abcd") == "length (4) is out of range (min: 2, max: 3)"
    assert failure(Length(None, 1), {"a": 1, "b": 2}) == (
        "length (2) is out of range (min: None, max: 1)"
    )


def test_length_of_something_without_length_fails_cleanly() -> None:
    assert failure(Length(1), 5) == "object of type 'int' has no len()"


def test_length_definition_errors() -> None:
    assert schema_error(Length) == (
        "A length constraint must have a min value and/or a max value specified."
    )
    assert schema_error(Length, 1.5) == "min/max length must be integral"
    assert schema_error(Length, "x") == "min/max must be numeric"


# --- modulo ----------------------------------------------------------------------------


def test_modulo_accepts_matching_values() -> None:
    Modulo(2, 1).validate("3", NUMBER)
    Modulo(-3, -1).validate(-4, NUMBER)
    Modulo(2, 0).validate(4, NUMBER)


def test_modulo_message() -> None:
    assert failure(Modulo(2, 1), "4", NUMBER) == "4 is not a multiple of 2 with an offset of 1"


@pytest.mark.parametrize(
    ("step", "offset", "message"),
    [
        (2, None, "A modulo constraint must have a step value and an offset value specified."),
        ("x", 1, "step/offset must be numeric"),
        (2.5, 1, "step/offset must be integer"),
        (0, 0, "step cannot be 0."),
        (2, 2, "offset must be smaller (by absolute value) than step."),
        (3, -1, "step and offset must be both positive or both negative."),
    ],
)
def test_modulo_definition_errors(step: Any, offset: Any, message: str) -> None:
    assert schema_error(Modulo, step, offset) == message


# --- allowed values --------------------------------------------------------------------


def test_allowed_values_compares_after_conversion_to_the_type() -> None:
    AllowedValues([1, 2]).validate("1", STRING)
    AllowedValues([1, 2]).validate("1.0", NUMBER)
    AllowedValues(["true"]).validate("yes", BOOLEAN)


def test_allowed_values_message_is_json() -> None:
    assert failure(AllowedValues([1, 2]), "3", NUMBER) == '"3" is not an allowed value [1, 2]'
    assert failure(AllowedValues(["é", "b"]), "ü", STRING) == (
        '"\\u00fc" is not an allowed value ["\\u00e9", "b"]'
    )


def test_allowed_values_for_a_list_needs_each_item_allowed_as_is() -> None:
    AllowedValues(["a", "b"]).validate(["a", "b", "a"], LIST)
    assert failure(AllowedValues(["a", "b"]), ["a", "c"], LIST) == (
        '["a", "c"] is not an allowed value ["a", "b"]'
    )
    # Items are not converted: "1" is not 1.
    assert failure(AllowedValues([1, 2]), ["1"], LIST) == '["1"] is not an allowed value [1, 2]'


def test_allowed_values_that_cannot_be_converted_are_reported() -> None:
    assert failure(AllowedValues(["a", 1]), "1", NUMBER) == (
        'Value "a" is invalid for data type "number".'
    )


def test_allowed_values_must_be_a_list() -> None:
    assert schema_error(AllowedValues, "abc") == "AllowedValues must be a list"
    assert schema_error(AllowedValues, {"a": 1}) == "AllowedValues must be a list"


# --- allowed pattern -------------------------------------------------------------------


def test_allowed_pattern_must_match_the_whole_value() -> None:
    AllowedPattern("[a-z]+").validate("abc")
    assert failure(AllowedPattern("[a-z]+"), "abc1") == '"abc1" does not match pattern "[a-z]+"'


def test_a_pattern_that_backtracks_without_end_fails_within_its_limit() -> None:
    # The limit is CPU time (the regex module's), so a busy machine does not stretch it.
    started = time.process_time()
    for pattern in (r"(a+)+$", r"(a|aa)+$"):
        message = failure(AllowedPattern(pattern), "a" * 40 + "!")
        assert message is not None and ("took more than 1s" in message
                                        or "does not match" in message), message
    assert time.process_time() - started < 5
    assert failure(AllowedPattern(r"(a|aa)+$"), "a" * 40 + "!") == (
        '"(a|aa)+$" took more than 1s to match the value (a pattern that backtracks '
        "without end)")


def test_allowed_pattern_definition_errors() -> None:
    assert schema_error(AllowedPattern, 5) == "AllowedPattern must be a string"
    assert schema_error(AllowedPattern, "[a").startswith('Invalid AllowedPattern "[a": ')


def test_allowed_pattern_on_a_non_string_fails_cleanly() -> None:
    assert failure(AllowedPattern("[0-9]+"), 5) == (
        "expected string or bytes-like object, got 'int'"
    )


# --- descriptions and shapes -----------------------------------------------------------


def test_description_replaces_the_message() -> None:
    assert failure(Modulo(2, 1, "odd only"), 4, NUMBER) == "odd only"
    assert failure(AllowedPattern("x.*", "must start with x"), "ab") == "must start with x"


def test_which_types_each_constraint_applies_to() -> None:
    assert Range(1).valid_for(DataType.NUMBER)
    assert not Range(1).valid_for(DataType.STRING)
    assert Length(1).valid_for(DataType.MAP)
    assert not Length(1).valid_for(DataType.NUMBER)
    assert not AllowedValues([]).valid_for(DataType.MAP)
    assert AllowedValues([]).valid_for(DataType.LIST)
    assert not AllowedPattern("x").valid_for(DataType.LIST)
    assert CustomConstraint("ip_addr").valid_for(DataType.BOOLEAN)
    assert not CustomConstraint("ip_addr").valid_for(DataType.MAP)


def test_hot_form_of_each_constraint() -> None:
    assert Range(1, None, "d").to_dict() == {"range": {"min": 1}, "description": "d"}
    assert Length(None, 4).to_dict() == {"length": {"max": 4}}
    assert Modulo(2, 1).to_dict() == {"modulo": {"step": 2, "offset": 1}}
    assert AllowedValues(("a", "b")).to_dict() == {"allowed_values": ["a", "b"]}
    assert AllowedPattern("x").to_dict() == {"allowed_pattern": "x"}
    assert CustomConstraint("ip_addr").to_dict() == {"custom_constraint": "ip_addr"}


def test_descriptions_for_humans() -> None:
    assert Range(1, 5).describe() == "The value must be in the range 1 to 5."
    assert Range(1).describe() == "The value must be at least 1."
    assert Length(None, 3, "short").describe() == "short\nThe length must be no greater than 3."
    assert AllowedValues(["a", 1]).describe() == 'Allowed values: "a", 1'
    assert AllowedPattern("x*").describe() == "Value must match pattern: x*"
    assert Modulo(2, 1).describe() == "The value must be a multiple of 2 with an offset of 1."
    assert CustomConstraint("ip_addr").describe() == "Value must be of type ip_addr"


def test_constraints_compare_by_definition() -> None:
    assert Range(1, 2) == Range(1, 2)
    assert Range(1, 2) != Range(1, 3)
    assert Range(1, 2) != Length(1, 2)
    assert len({Range(1, 2), Range(1, 2)}) == 1
