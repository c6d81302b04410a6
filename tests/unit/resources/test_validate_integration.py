"""POST /validate with the plugin registry's type checker (answers recorded from Heat 27)."""

from __future__ import annotations

from typing import Any

import pytest

from hearth.common.errors import HearthError, ResourceTypeUnavailable
from hearth.resources.base import Resource
from hearth.resources.builtin import resource_mapping
from hearth.resources.registry import PluginRegistry
from hearth.resources.schema import PropertySchema
from hearth.template.validate import validate_template


class Batched(Resource):
    update_policy_schema = {"batch": PropertySchema(PropertySchema.INTEGER)}


PLUGINS = PluginRegistry({**resource_mapping(), "Acme::Batched": Batched})


def validate(template: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    return validate_template(
        template,
        global_env=PLUGINS.global_environment(),
        type_checker=PLUGINS.type_checker,
        **kwargs,
    )


def error(template: dict[str, Any]) -> str:
    with pytest.raises(HearthError) as err:
        validate(template)
    return str(err.value)


def cfn(resource: dict[str, Any]) -> dict[str, Any]:
    return {"HeatTemplateFormatVersion": "2012-12-12", "Resources": {"r": resource}}


def hot(resource: dict[str, Any], parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "heat_template_version": "2021-04-16",
        "parameters": parameters or {},
        "resources": {"r": resource},
    }


def test_cloudformation_templates_get_their_own_section_names() -> None:
    test = "OS::Heat::TestResource"
    assert error(cfn({"Type": test, "Properties": {"nope": 1}})) == (
        "Property error: Resources.r.Properties: Unknown Property nope"
    )
    assert error(cfn({"Type": test, "UpdatePolicy": {"x": 1}})) == (
        "Property error: Resources.r.UpdatePolicy: Unknown Property x"
    )
    assert error(cfn({"Type": test, "DeletionPolicy": "Snapshot"})) == (
        'Resources.r.DeletionPolicy: "Snapshot" deletion policy not supported'
    )


def test_property_values_are_not_checked() -> None:
    params = {"p": {"type": "string", "default": "abc"}}
    tmpl = hot({"type": "OS::Heat::TestResource", "properties": {"wait_secs": {"get_param": "p"}}},
               params)
    assert validate(tmpl)["Parameters"]["p"]["Default"] == "abc"


def test_update_policy_values_are_checked_unless_they_need_functions() -> None:
    params = {"p": {"type": "string"}}
    assert error(hot({"type": "OS::Heat::TestResource",
                      "update_policy": {"x": {"get_param": "p"}}}, params)) == (
        "Property error: resources.r.update_policy: Unknown Property x"
    )
    assert error(hot({"type": "Acme::Batched", "update_policy": {"batch": "two"}})) == (
        "Property error: resources.r.update_policy.batch: Value 'two' is not an integer"
    )
    validate(hot({"type": "Acme::Batched", "update_policy": {"batch": {"get_param": "p"}}},
                 params))


def test_deletion_policy_is_checked_whatever_its_case() -> None:
    assert error(hot({"type": "OS::Heat::TestResource", "deletion_policy": "snapshot"})) == (
        'resources.r.deletion_policy: "Snapshot" deletion policy not supported'
    )


def test_types_hearth_lacks_stay_unavailable() -> None:
    tmpl = hot({"type": "OS::Nova::Server", "properties": {"anything": 1}})
    with pytest.raises(ResourceTypeUnavailable):
        validate(tmpl)
    validate(tmpl, ignorable_errors=["99001"])


def test_value_with_a_computed_type_is_not_misread() -> None:
    params = {"t": {"type": "string", "default": "number"}}
    validate(hot({"type": "OS::Heat::Value",
                  "properties": {"type": {"get_param": "t"}, "value": {"get_param": "t"}}},
                 params))
