"""Provider-template classes: parameters become properties, outputs attributes; facades."""

from __future__ import annotations

import pytest

from hearth.common.errors import StackValidationFailed, TemplateParseError
from hearth.resources.builtin.random_string import RandomString
from hearth.resources.exceptions import NestedStackFailed, failure_reason
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.template_resource import (
    PROVIDER_TEXT_CACHED_MAX,
    FacadeMismatch,
    _cached_provider_class,
    check_facade,
    child_parameters,
    provider_class,
    template_resource_class,
)

PROVIDER = {
    "heat_template_version": "2016-10-14",
    "parameters": {
        "name": {"type": "string"},
        "size": {"type": "number", "default": 1},
        "zones": {"type": "comma_delimited_list", "default": []},
        "extra": {"type": "json", "default": {}},
        "flag": {"type": "boolean", "default": False, "immutable": True},
    },
    "outputs": {"address": {"value": "x", "description": "Where it is."}},
}


def test_parameters_become_updatable_properties() -> None:
    cls = template_resource_class("My::Thing", "thing.yaml", PROVIDER)
    schema = cls.properties_schema
    assert {k: v.type for k, v in schema.items()} == {
        "name": PropertySchema.STRING, "size": PropertySchema.NUMBER,
        "zones": PropertySchema.LIST, "extra": PropertySchema.MAP,
        "flag": PropertySchema.BOOLEAN,
    }
    # Only a parameter without a default is required; the child applies the defaults.
    assert [k for k, v in schema.items() if v.required] == ["name"]
    assert all(v.update_allowed for v in schema.values())
    # Immutability stays with the child's parameter (checked when the child is updated).
    assert not schema["flag"].immutable
    assert set(cls.attributes_schema) == {"address", "OS::stack_id", "show"}
    assert cls.attributes_schema["address"].description == "Where it is."
    # One class per distinct template.
    assert template_resource_class("My::Thing", "thing.yaml", PROVIDER) is cls


def test_properties_go_to_the_child_as_parameters() -> None:
    cls = template_resource_class("My::Thing", "thing.yaml", PROVIDER)
    props = Properties(cls.properties_schema, {
        "name": "n", "zones": ["a", None, "c"], "extra": {"k": 1},
    })
    assert child_parameters(props) == {"name": "n", "zones": "a,,c", "extra": {"k": 1}}
    listed = Properties(cls.properties_schema, {"zones": [{"k": "v", "j": 2}]})
    assert child_parameters(listed)["zones"] == ".member.0.k=v,.member.0.j=2"


def test_a_provider_must_match_the_facade_it_stands_in_for() -> None:
    good = template_resource_class("OS::Heat::RandomString", "rs.yaml", {
        "heat_template_version": "2016-10-14",
        "parameters": {"length": {"type": "number", "default": 32}},
        "outputs": {"value": {"value": "v"}},
    })
    check_facade(RandomString, good)
    no_output = template_resource_class("OS::Heat::RandomString", "bad.yaml", {
        "heat_template_version": "2016-10-14",
        "parameters": {"length": {"type": "number", "default": 32}},
    })
    with pytest.raises(FacadeMismatch, match="Attribute value for facade "
                       "OS::Heat::RandomString missing in provider"):
        check_facade(RandomString, no_output)
    wrong_type = template_resource_class("OS::Heat::RandomString", "w.yaml", {
        "heat_template_version": "2016-10-14",
        "parameters": {"length": {"type": "string"}},
        "outputs": {"value": {"value": "v"}},
    })
    with pytest.raises(StackValidationFailed, match="Property length type mismatch"):
        check_facade(RandomString, wrong_type)


def test_a_childs_failure_reads_as_heats_nested_reason() -> None:
    exc = NestedStackFailed(
        "Resource CREATE failed: ValueError: resources.oops: Test Resource failed oops",
        "CREATE",
    )
    assert failure_reason(exc, "nest") == (
        "ValueError: resources.nest.resources.oops: Test Resource failed oops"
    )
    plain = NestedStackFailed("Timed out", "CREATE")
    assert failure_reason(plain, "nest") == "resources.nest: Timed out"


def test_a_providers_class_is_cached_by_its_text_unless_the_text_is_large() -> None:
    small = "heat_template_version: 2016-10-14\nparameters:\n  size: {type: number}\n"
    # Large only in a comment: the same interface, parsed each time, and never held.
    large = small + "# " + "x" * PROVIDER_TEXT_CACHED_MAX + "\n"
    first = provider_class("My::Small", "small.yaml", small, frozenset())
    assert provider_class("My::Small", "small.yaml", small, frozenset()) is first
    assert "size" in first.properties_schema
    held = _cached_provider_class.cache_info().currsize
    big = provider_class("My::Large", "large.yaml", large, frozenset())
    assert "size" in big.properties_schema
    assert _cached_provider_class.cache_info().currsize == held
    with pytest.raises(TemplateParseError):  # not cached: raised again each time
        provider_class("My::Bad", "bad.yaml", "- a list", frozenset())
