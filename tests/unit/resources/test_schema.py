"""Schemas refuse contradictions when a plugin is loaded, and serialise as Heat's do."""

from __future__ import annotations

from typing import Any

import pytest

from hearth.common.errors import InvalidSchemaError
from hearth.resources.attributes import AttributeSchema, select_from_attribute
from hearth.resources.schema import PropertySchema
from hearth.resources.support import DEPRECATED, SupportStatus
from hearth.template.constraints import CustomConstraint, Length, Range

S = PropertySchema


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: S("Float"), "Invalid type (Float)"),
        (lambda: S(S.MAP, schema=S(S.STRING)), "Single schema valid only for List, not Map"),
        (
            lambda: S(S.STRING, schema={"a": S(S.STRING)}),
            "Schema valid only for List or Map, not String",
        ),
        (
            lambda: S(S.STRING, update_allowed=True, immutable=True),
            "Options UpdateAllowed and Immutable cannot both be True",
        ),
        (lambda: S(S.STRING, constraints=[Range(1, 2)]), "Range constraint invalid for String"),
        (lambda: S(S.ANY, constraints=[Length(1)]), "Length constraint invalid for Any"),
        (
            lambda: S(S.INTEGER, default=0, constraints=[Range(1, 5)]),
            "Invalid default 0 (0 is out of range (min: 1, max: 5))",
        ),
        (lambda: AttributeSchema(type="Float"), "Invalid type (Float)"),
        (lambda: AttributeSchema(cache_mode="forever"), "Invalid cache mode (forever)"),
    ],
)
def test_contradictory_schemas_are_refused(build: Any, message: str) -> None:
    with pytest.raises(InvalidSchemaError) as err:
        build()
    assert str(err.value) == message


def test_custom_constraints_are_not_run_on_defaults() -> None:
    S(S.STRING, default="x", constraints=[CustomConstraint("no.such.constraint")])


def test_serialisation_nests_list_items_under_star() -> None:
    prop = S(
        S.LIST,
        "servers",
        default=[{"id": "a"}],
        schema=S(S.MAP, schema={"id": S(S.STRING, required=True)}),
        update_allowed=True,
        constraints=[Length(min=1, description="at least one")],
    )
    assert prop.to_dict() == {
        "type": "list",
        "description": "servers",
        "default": [{"id": "a"}],
        "schema": {
            "*": {
                "type": "map",
                "schema": {
                    "id": {
                        "type": "string",
                        "required": True,
                        "update_allowed": False,
                        "immutable": False,
                    }
                },
                "required": False,
                "update_allowed": False,
                "immutable": False,
            }
        },
        "required": False,
        "constraints": [{"description": "at least one", "length": {"min": 1}}],
        "update_allowed": True,
        "immutable": False,
    }


def test_legacy_dictionary_schemas_convert() -> None:
    prop = S.from_legacy(
        {
            "Type": "List",
            "Schema": {"Type": "Integer", "MinValue": "1", "MaxValue": 9},
            "Required": True,
            "UpdateAllowed": True,
            "Description": "numbers",
        }
    )
    assert prop.to_dict() == {
        "type": "list",
        "description": "numbers",
        "schema": {
            "*": {
                "type": "integer",
                "required": False,
                "constraints": [{"range": {"min": 1, "max": 9}}],
                "update_allowed": False,
                "immutable": False,
            }
        },
        "required": True,
        "update_allowed": True,
        "immutable": False,
    }
    with pytest.raises(InvalidSchemaError, match=r"Unknown key\(s\) \['Colour'\]"):
        S.from_legacy({"Type": "String", "Colour": "red"})
    with pytest.raises(InvalidSchemaError, match="No Type specified"):
        S.from_legacy({"Required": True})


def test_support_status_serialises_its_history() -> None:
    status = SupportStatus(
        status="HIDDEN",
        version="5.0.0",
        previous_status=SupportStatus(status=DEPRECATED, message="Use x.", version="2014.2"),
    )
    assert status.hidden
    assert status.to_dict() == {
        "status": "HIDDEN",
        "message": None,
        "version": "5.0.0",
        "previous_status": {
            "status": "DEPRECATED",
            "message": "Use x.",
            "version": "2014.2",
            "previous_status": None,
        },
    }


def test_unknown_support_status_falls_back_to_unknown() -> None:
    status = SupportStatus(status="MAYBE", version="1.0")
    assert status.to_dict() == {
        "status": "UNKNOWN",
        "message": "Specified status is invalid, defaulting to UNKNOWN",
        "version": None,
        "previous_status": None,
    }


def test_substitute_class_allows_in_place_type_change() -> None:
    class New:
        pass

    status = SupportStatus(substitute_class=New)
    assert status.is_substituted(New)
    assert not SupportStatus().is_substituted(New)


def test_attribute_schema_serialises_description_and_lower_type() -> None:
    assert AttributeSchema("d", type=AttributeSchema.MAP).to_dict() == {
        "description": "d",
        "type": "map",
    }
    assert AttributeSchema().to_dict() == {}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ((), {"a": [1, {"b": 2}]}),
        (("a", 1, "b"), 2),
        (("a", 5), None),
        (("missing",), None),
        (("a", "x"), None),
        (("a", 0, "b"), None),
    ],
)
def test_attribute_paths_lead_somewhere_or_to_none(path: tuple[Any, ...], expected: Any) -> None:
    assert select_from_attribute({"a": [1, {"b": 2}]}, path) == expected
