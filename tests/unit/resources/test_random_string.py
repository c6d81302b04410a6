"""OS::Heat::RandomString: a string drawn once at create, kept redacted."""

from __future__ import annotations

import string
from typing import Any

import pytest

from hearth.resources.builtin.random_string import RandomString
from tests.unit.resources.fakes import make


def created(props: dict[str, Any]) -> Any:
    res, ctx = make(RandomString, props, type_name="OS::Heat::RandomString")
    res.handle_create()
    return res, ctx


def test_default_is_32_letters_and_digits_stored_redacted() -> None:
    res, ctx = created({})
    value = ctx.stored["value"]
    assert len(value) == 32 and set(value) <= set(string.ascii_letters + string.digits)
    assert ctx.redacted == {"value"}
    assert res.resource_id == ctx.physical_resource_name()
    assert res.get_reference_id() == value
    assert res.get_attribute("value") == value


def test_reference_before_create_is_the_name() -> None:
    res, _ = make(RandomString, {}, name="secret")
    assert res.get_reference_id() == "secret"


def test_minimums_of_classes_and_sequences_are_honoured() -> None:
    for _ in range(20):
        _, ctx = created(
            {
                "length": 8,
                "character_classes": [{"class": "digits", "min": 3}],
                "character_sequences": [{"sequence": "!@", "min": 4}],
            }
        )
        value = ctx.stored["value"]
        assert len(value) == 8 and set(value) <= set("0123456789!@")
        assert sum(c.isdigit() for c in value) >= 3
        assert sum(c in "!@" for c in value) >= 4


def test_hexdigits_are_upper_case() -> None:
    _, ctx = created({"length": 64, "character_classes": [{"class": "hexdigits"}]})
    assert set(ctx.stored["value"]) <= set("0123456789ABCDEF")


def test_the_hidden_sequence_property_is_one_more_class() -> None:
    props = RandomString.build_properties({"sequence": "octdigits"})
    assert props["character_classes"] == [{"class": "octdigits", "min": 1}]
    assert props["sequence"] is None
    _, ctx = created({"sequence": "octdigits", "length": 10})
    assert set(ctx.stored["value"]) <= set(string.octdigits)


def test_nothing_to_draw_from_fails_as_in_heat() -> None:
    with pytest.raises(IndexError, match="Cannot choose from an empty sequence"):
        created({"character_classes": []})


def test_any_change_draws_a_new_string() -> None:
    assert RandomString.plan_update("s", {}, {"salt": "2"}).replace
    assert RandomString.attribute_cache_mode("value") == "cache_none"
