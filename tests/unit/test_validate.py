"""Heat's POST /validate document and its error paths."""

from __future__ import annotations

from typing import Any

import pytest

from hearth.common.errors import (
    CircularDependencyException,
    HearthError,
    Invalid,
    InvalidTemplateVersion,
    RequestLimitExceeded,
    ResourceTypeUnavailable,
    StackValidationFailed,
    UnknownUserParameter,
)
from hearth.resources.registry import PluginRegistry
from hearth.template.validate import validate_template

PLUGINS = PluginRegistry.load()


def validate(template: Any, **kwargs: Any) -> dict[str, Any]:
    kwargs.setdefault("global_env", PLUGINS.global_environment())
    kwargs.setdefault("type_checker", PLUGINS.type_checker)
    return validate_template(template, **kwargs)


BASIC = """
heat_template_version: 2018-03-02
description: two resources
parameter_groups:
  - label: main
    parameters: [size]
parameters:
  size:
    type: number
    default: 3
    label: Size
    tags: [a]
    constraints:
      - range: {min: 1, max: 5}
  secret:
    type: string
    hidden: true
resources:
  a:
    type: OS::Heat::None
  b:
    type: OS::Heat::None
    depends_on: a
outputs:
  o:
    value: {get_attr: [b, show]}
"""


def test_document_shape() -> None:
    doc = validate(BASIC, ignorable_errors=["99001"])
    assert doc == {
        "Description": "two resources",
        "Parameters": {
            "size": {
                "Type": "Number",
                "Default": 3,
                "Description": "",
                "Label": "Size",
                "NoEcho": "false",
                "MinValue": 1,
                "MaxValue": 5,
                "Tags": ["a"],
            },
            "secret": {"Type": "String", "Description": "", "Label": "secret", "NoEcho": "true"},
        },
        "ParameterGroups": [{"label": "main", "parameters": ["size"]}],
        "Environment": {
            "event_sinks": [],
            "parameter_defaults": {},
            "parameters": {},
            "resource_registry": {"resources": {}},
        },
    }


def test_types_without_plugin_are_unavailable_unless_ignored() -> None:
    validate(BASIC)  # OS::Heat::None has a plugin
    server = BASIC.replace("OS::Heat::None\n    depends_on", "OS::Nova::Server\n    depends_on")
    assert server != BASIC
    validate(server, ignorable_errors=["99001"])
    with pytest.raises(ResourceTypeUnavailable) as err:
        validate(server)
    assert str(err.value).startswith(
        "HEAT-E99001 Service nova is not available for resource type OS::Nova::Server"
    )
    assert err.value.error_code == "99001"


def test_unknown_ignorable_code() -> None:
    with pytest.raises(Invalid, match=r"Invalid codes in ignore_errors : \['12345'\]"):
        validate(BASIC, ignorable_errors=["12345"])


def test_unknown_type_is_not_found() -> None:
    tmpl = "heat_template_version: 2021-04-16\nresources:\n  r: {type: My::Nothing}\n"
    with pytest.raises(StackValidationFailed) as err:
        validate(tmpl, ignorable_errors=["99001"])
    assert "The Resource Type (My::Nothing) could not be found." in str(err.value)


def test_environment_parameters_show_as_values_and_environment() -> None:
    doc = validate(
        BASIC, environment={"parameters": {"size": 4}}, ignorable_errors=["99001"]
    )
    assert doc["Parameters"]["size"]["Value"] == 4
    assert doc["Environment"]["parameters"] == {"size": 4}


def test_undeclared_parameter_value() -> None:
    with pytest.raises(UnknownUserParameter, match=r"The Parameter \(nope\) was not defined"):
        validate(BASIC, parameters={"nope": 1}, ignorable_errors=["99001"])


def test_property_reading_an_undeclared_parameter() -> None:
    tmpl = """
heat_template_version: 2021-04-16
resources:
  two:
    type: OS::Heat::Value
    properties:
      value: {get_param: missing}
"""
    with pytest.raises(StackValidationFailed) as err:
        validate(tmpl, ignorable_errors=["99001"])
    assert str(err.value) == (
        "Property error: resources.two.properties.value: The Parameter (missing) was not provided."
    )


def test_cycle_is_reported() -> None:
    tmpl = """
heat_template_version: 2021-04-16
resources:
  a: {type: OS::Heat::None, depends_on: b}
  b: {type: OS::Heat::None, depends_on: a}
"""
    with pytest.raises(CircularDependencyException, match="a -> b -> a"):
        validate(tmpl, ignorable_errors=["99001"])


def test_too_many_resources() -> None:
    resources = "\n".join(f"  r{i}: {{type: OS::Heat::None}}" for i in range(5))
    tmpl = f"heat_template_version: 2021-04-16\nresources:\n{resources}\n"
    with pytest.raises(RequestLimitExceeded, match="Maximum resources per stack exceeded"):
        validate(tmpl, ignorable_errors=["99001"], max_resources_per_stack=4)


def test_duplicate_parameter_and_resource_names() -> None:
    tmpl = """
heat_template_version: 2021-04-16
parameters: {x: {type: string, default: a}}
resources: {x: {type: OS::Heat::None}}
"""
    with pytest.raises(StackValidationFailed, match=r"Duplicate names \{'x'\}"):
        validate(tmpl, ignorable_errors=["99001"])


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("[1, 2]", "The template is not a JSON object or YAML mapping."),
        ("heat_template_version: 1999-01-01\n", "The template version is invalid"),
        ("heat_template_version: 2021-04-16\nfoo: {}\n", "The template section is invalid: foo"),
        (
            "heat_template_version: 2021-04-16\nresources:\n  r: {type: OS::Heat::None, "
            "properties: {p: {get_attr: 5}}}\n",
            'resources.r.properties.p.get_attr: Argument to "get_attr" must be a list',
        ),
        (
            "heat_template_version: 2015-10-15\noutputs:\n  o: {value: {Fn::Base64: x}}\n",
            "The function Fn::Base64 is not supported in this version of HOT.",
        ),
        ("a: &a [*a, *a]\n", "Error parsing template"),
    ],
)
def test_bad_input_is_one_clear_line(text: str, error: str) -> None:
    with pytest.raises(HearthError) as err:
        validate(text, ignorable_errors=["99001"])
    assert error in str(err.value)
    assert "\n" not in str(err.value) or "line" in str(err.value)


def test_provider_template_from_files_is_recorded_in_environment() -> None:
    tmpl = "heat_template_version: 2021-04-16\nresources:\n  r: {type: My::Thing}\n"
    env = {"resource_registry": {"My::Thing": "thing.yaml"}}
    files = {"thing.yaml": "heat_template_version: 2021-04-16\n"}
    doc = validate(tmpl, environment=env, files=files, ignorable_errors=["99001"])
    assert doc["Environment"]["resource_registry"]["My::Thing"] == "thing.yaml"


def test_invalid_version_type() -> None:
    with pytest.raises(InvalidTemplateVersion):
        validate({"heat_template_version": "wallaby-ish"})


def test_show_nested_reports_provider_templates_parameters() -> None:
    leaf = (
        "heat_template_version: 2014-10-16\ndescription: leaf\nparameters:\n"
        "  aparam: {type: number, default: 10}\nresources:\n"
        "  r: {type: OS::Heat::None}\n"
    )
    middle = leaf.replace("OS::Heat::None", "leaf.yaml").replace("leaf\n", "middle\n", 1)
    top = (
        "heat_template_version: 2014-10-16\nparameters:\n  p: {type: number, default: 5}\n"
        "resources:\n  nres:\n    type: middle.yaml\n    properties: {aparam: {get_param: p}}\n"
    )
    result = validate(
        top, files={"middle.yaml": middle, "leaf.yaml": leaf}, show_nested=True
    )
    nres = result["NestedParameters"]["nres"]
    assert nres["Type"] == "middle.yaml"
    assert nres["Description"] == "middle"
    assert nres["Parameters"]["aparam"]["Value"] == 5
    inner = nres["NestedParameters"]["r"]
    assert (inner["Type"], inner["Description"]) == ("leaf.yaml", "leaf")
    assert "Value" not in inner["Parameters"]["aparam"]
    # Without nested templates there is nothing to report, as in Heat.
    plain = validate(leaf, show_nested=True)
    assert "NestedParameters" not in plain
