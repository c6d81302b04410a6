"""GET /resource_types/{type} and its template: the built-in types answer as Heat 27 does."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from hearth.common.errors import HearthError, NotSupported
from hearth.resources.base import Resource
from hearth.resources.builtin import resource_mapping
from hearth.resources.registry import PluginRegistry
from hearth.resources.support import HIDDEN, SupportStatus
from tests.unit.resources.fakes import heat27

TYPES = sorted(heat27()["types"])
REGISTRY = PluginRegistry(resource_mapping())


def as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def test_every_builtin_type_is_recorded() -> None:
    # Hidden types (old names kept for templates) have no schema to compare.
    shown = [name for name, cls in resource_mapping().items()
             if cls.support_status.status != HIDDEN]
    assert TYPES == sorted(shown)


@pytest.mark.parametrize("type_name", TYPES)
@pytest.mark.parametrize("with_description", [False, True])
def test_schema_is_heats(type_name: str, with_description: bool) -> None:
    key = "schema_with_description" if with_description else "schema"
    expected = heat27()["types"][type_name][key]
    assert as_json(REGISTRY.schema(type_name, with_description)) == expected


@pytest.mark.parametrize("type_name", TYPES)
@pytest.mark.parametrize("template_type", ["cfn", "hot"])
def test_generated_template_is_heats(type_name: str, template_type: str) -> None:
    expected = heat27()["types"][type_name][f"template_{template_type}"]
    if "error" in expected:
        # Heat 27 fails with a KeyError (HTTP 500) on a property of type Any; Hearth says
        # plainly that it cannot, with a 400.
        assert expected["error"] == {"exc": "KeyError", "msg": "'Any'"}
        with pytest.raises(NotSupported) as err:
            REGISTRY.generate_template(type_name, template_type)
        assert "property value is of type Any" in str(err.value)
        return
    assert as_json(REGISTRY.generate_template(type_name, template_type)) == expected


def test_schema_lists_no_hidden_property() -> None:
    schema = REGISTRY.schema("OS::Heat::RandomString")
    assert "sequence" not in schema["properties"]
    assert "sequence" in REGISTRY.get_class("OS::Heat::RandomString").properties_schema


class HARestarter(Resource):
    """A HIDDEN type, as OS::Heat::HARestarter is in Heat 27."""

    support_status = SupportStatus(status=HIDDEN, version="10.0.0")


WITH_HIDDEN = PluginRegistry({**resource_mapping(), "OS::Heat::HARestarter": HARestarter})


@pytest.mark.parametrize(
    ("lookup", "call"),
    [
        ("schema_unknown", lambda r: r.schema("My::Unknown")),
        ("schema_hidden", lambda r: r.schema("OS::Heat::HARestarter")),
        ("template_hidden", lambda r: r.generate_template("OS::Heat::HARestarter", "hot")),
        ("list_invalid_status", lambda r: r.list_types(support_status="BOGUS")),
    ],
)
def test_lookup_errors_are_heats(lookup: str, call: Callable[[PluginRegistry], Any]) -> None:
    expected = heat27()["lookups"][lookup]["error"]
    with pytest.raises(HearthError) as err:
        call(WITH_HIDDEN)
    assert (err.value.heat_type, str(err.value)) == (expected["exc"], expected["msg"])
    assert err.value.http_status == (404 if lookup == "schema_unknown" else 400)


def test_hidden_types_are_not_listed() -> None:
    assert "OS::Heat::HARestarter" not in WITH_HIDDEN.list_types()
    # ...but stacks that have one still load it.
    assert WITH_HIDDEN.get_class("OS::Heat::HARestarter") is HARestarter


@pytest.mark.parametrize("query", heat27()["list_queries"], ids=lambda q: json.dumps(q)[:60])
def test_list_types_filters_as_heat(query: dict[str, Any]) -> None:
    got = REGISTRY.list_types(
        support_status=query.get("support_status"),
        type_name=query.get("type_name"),
        version=query.get("heat_version"),
        with_description=query.get("with_description", False),
    )
    assert got == query["answer"]
