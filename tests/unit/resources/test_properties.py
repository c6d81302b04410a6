"""``Properties`` as a plugin sees it: a read-only mapping with Heat's coercions and paths."""

from __future__ import annotations

from typing import Any

import pytest

from hearth.common.errors import StackValidationFailed
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.template.constraints import AllowedValues, Length, Range

S = PropertySchema

SCHEMA = {
    "count": S(S.INTEGER, default=1, constraints=[Range(0, 10)]),
    "name": S(S.STRING, required=True),
    "tags": S(S.LIST, schema=S(S.STRING, constraints=[Length(max=3)])),
    "opts": S(S.MAP, schema={"size": S(S.NUMBER), "mode": S(S.STRING, default="fast")}),
    "free": S(S.MAP),
    "flag": S(S.BOOLEAN),
    "anything": S(S.ANY),
}


def error(props: Properties) -> str:
    with pytest.raises(StackValidationFailed) as err:
        props.validate()
    return str(err.value)


def test_reads_defaults_coerced_values_and_none_for_unset() -> None:
    props = Properties(SCHEMA, {"name": 5, "opts": {"size": "2.5"}, "flag": "True"})
    assert dict(props) == {
        "count": 1,
        "name": "5",
        "tags": None,
        "opts": {"size": 2.5, "mode": "fast"},
        "free": None,
        "flag": True,
        "anything": None,
    }
    assert len(props) == len(SCHEMA) and "count" in props and "nope" not in props


def test_explicit_null_reads_as_default_or_empty_value() -> None:
    props = Properties(SCHEMA, dict.fromkeys(SCHEMA))
    assert props["count"] == 1
    assert props["name"] == ""
    assert props["tags"] == []
    assert props["free"] == {}
    assert props["flag"] is False
    assert props["anything"] is None
    props.validate()


def test_unknown_name_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="Invalid Property nope"):
        Properties(SCHEMA, {})["nope"]


def test_paths_are_relative_to_the_properties() -> None:
    assert error(Properties(SCHEMA, {"name": "x", "tags": ["ok", "long"]})) == (
        "Property error: tags[1]: length (4) is out of range (min: None, max: 3)"
    )
    assert error(Properties(SCHEMA, {"name": "x", "opts": {"size": "big"}})) == (
        "Property error: opts.size: could not convert string to float: 'big'"
    )
    assert error(Properties(SCHEMA, {"name": "x", "opts": {"colour": 1}})) == (
        "Property error: opts: Unknown Property colour"
    )


def test_missing_required_property_is_reported_on_the_section() -> None:
    with pytest.raises(StackValidationFailed) as err:
        Properties(SCHEMA, {}).validate()
    assert (err.value.path, err.value.detail) == ([], "Property name not assigned")
    with pytest.raises(ValueError, match="Property name not assigned"):
        Properties(SCHEMA, {})["name"]


def test_unknown_properties_are_found_before_bad_values() -> None:
    assert error(Properties(SCHEMA, {"count": "x", "bogus": 1, "name": "n"})) == (
        "Property error: Unknown Property bogus"
    )


def test_names_only_validation_ignores_values() -> None:
    Properties(SCHEMA, {"count": "many"}).validate(with_value=False)
    with pytest.raises(StackValidationFailed, match="Unknown Property bogus"):
        Properties(SCHEMA, {"bogus": 1}).validate(with_value=False)


@pytest.mark.parametrize(
    ("prop", "value", "message"),
    [
        (S(S.LIST), "a,b", "\"'a,b'\" is not a list"),
        (S(S.MAP), [1], '"[1]" is not a map'),
        (S(S.BOOLEAN), "no", '"no" is not a valid boolean'),
        (S(S.BOOLEAN), 0, '"0" is not a valid boolean'),
        (S(S.INTEGER), "1.5", "Value '1.5' is not an integer"),
        (S(S.STRING), 1.5, "Value must be a string; got 1.5"),
        (S(S.STRING, constraints=[AllowedValues(["a"])]), "b", '"b" is not an allowed value ["a"]'),
    ],
)
def test_type_errors_carry_heats_messages(prop: PropertySchema, value: Any, message: str) -> None:
    assert error(Properties({"p": prop}, {"p": value})) == f"Property error: p: {message}"


def test_facade_schemas_convert_strings() -> None:
    props = Properties(
        {"l": S(S.LIST, allow_conversion=True), "m": S(S.MAP, allow_conversion=True)},
        {"l": "a,b", "m": [1, 2]},
    )
    assert (props["l"], props["m"]) == (["a", "b"], "[1, 2]")


def test_unresolved_values_count_as_given_but_are_not_checked() -> None:
    data = {"name": None, "count": None}
    props = Properties(SCHEMA, data, unresolved=frozenset({"name", "count"}))
    props.validate()
    assert props["count"] == 1
    # A placeholder that does not convert reads as the default.
    odd = Properties(SCHEMA, {"name": "n", "count": "??"}, unresolved=frozenset({"count"}))
    odd.validate()
    assert odd["count"] == 1


def test_not_implemented_property_is_refused_when_given() -> None:
    props = Properties({"old": S(S.STRING, implemented=False)}, {"old": "x"})
    assert error(props) == "Property error: Property old not implemented yet"


def test_resolved_gives_every_value() -> None:
    props = Properties(SCHEMA, {"name": "n", "opts": {}})
    assert props.resolved() == dict(props)
    assert props.resolved()["opts"] == {"size": None, "mode": "fast"}
