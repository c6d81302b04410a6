"""Template parameters: declarations, values, pseudo parameters, validate output, updates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from hearth.common.errors import (
    ImmutableParameterModified,
    InvalidSchemaError,
    StackValidationFailed,
    UnknownUserParameter,
    UserParameterMissing,
)
from hearth.template.parameters import (
    Parameters,
    StackIdentity,
    check_immutable_parameters,
    immutable_parameters_modified,
)
from hearth.template.versions import VERSION_INDEX, VERSION_KEYS, TemplateVersion, find_version


def version(name: str) -> TemplateVersion:
    found = find_version(name)
    assert found is not None
    return found


HOT = version("heat_template_version.2018-08-31")
HOT_2016 = version("heat_template_version.2016-10-14")
HOT_2017 = version("heat_template_version.2017-02-24")
CFN = version("AWSTemplateFormatVersion.2010-09-09")

STACK = StackIdentity(tenant="ten ant", stack_name="my stack", stack_id="abc-123")


def hot(
    section: Any,
    user: dict[str, Any] | None = None,
    defaults: dict[str, Any] | None = None,
    v: TemplateVersion = HOT,
    stack: StackIdentity | None = None,
) -> Parameters:
    return Parameters(v, section, user, defaults, stack=stack)


def cfn(
    section: Any,
    user: dict[str, Any] | None = None,
    defaults: dict[str, Any] | None = None,
    stack: StackIdentity | None = None,
) -> Parameters:
    return Parameters(CFN, section, user, defaults, stack=stack)


def error_of(exc_type: type[Exception], func: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(exc_type) as info:
        func(*args, **kwargs)
    assert type(info.value) is exc_type
    return str(info.value)


def declaration_error(section: Any, v: TemplateVersion = HOT) -> str:
    return error_of(InvalidSchemaError, Parameters, v, section)


def validation_error(
    params: Parameters,
    exc_type: type[Exception] = StackValidationFailed,
    validate_value: bool = True,
) -> str:
    return error_of(exc_type, params.validate, validate_value)


# --- declarations ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"a": None}, "Invalid parameter (a), expected a mapping"),
        ({"a": "string"}, "Invalid parameter (a), expected a mapping"),
        ({"a": {"description": "x"}}, "Missing parameter type for parameter: a"),
        ({"a": {"type": "foo"}}, "Invalid type (foo)"),
        ({"a": {"type": "String"}}, "Invalid type (String)"),
        ({"a": {"type": "string", "foo": 1}}, "Invalid key 'foo' for parameter (a)"),
        ({"a": {"type": "string", "tags": "x"}}, "Tags property should be a list for parameter: a"),
        (
            {"a": {"type": "string", "constraints": {"length": {"min": 1}}}},
            "Invalid parameter constraints for parameter a, expected a list",
        ),
        (
            {"a": {"type": "string", "constraints": ["x"]}},
            "Invalid parameter constraints, expected a mapping",
        ),
        ({"a": {"type": "string", "constraints": [{}]}}, "No constraint expressed"),
        (
            {"a": {"type": "string", "constraints": [{"description": "d"}]}},
            "No constraint expressed",
        ),
        (
            {"a": {"type": "string", "constraints": [{"size": 1}]}},
            "Invalid key 'size' for parameter constraints",
        ),
        (
            {"a": {"type": "string", "constraints": [{"length": 5}]}},
            "Invalid length constraint, expected a mapping",
        ),
        (
            {"a": {"type": "string", "constraints": [{"length": {"mn": 1}}]}},
            "Invalid key 'mn' for length constraint",
        ),
        (
            {"a": {"type": "number", "constraints": [{"range": {"min": "abc"}}]}},
            "could not convert string to float: 'abc'",
        ),
        (
            {"a": {"type": "number", "constraints": [{"modulo": {"step": 2, "x": 1}}]}},
            "Invalid key 'x' for modulo constraint",
        ),
        (
            {"a": {"type": "string", "constraints": [{"allowed_values": "abc"}]}},
            "AllowedValues must be a list",
        ),
        (
            {"a": {"type": "string", "constraints": [{"allowed_pattern": 5}]}},
            "AllowedPattern must be a string",
        ),
        # Constraints are read before the type is checked.
        (
            {"a": {"type": "foo", "constraints": [{"length": 5}]}},
            "Invalid length constraint, expected a mapping",
        ),
    ],
)
def test_hot_declaration_errors(section: Any, message: str) -> None:
    assert declaration_error(section) == message


def test_parameters_section_must_be_a_mapping() -> None:
    assert declaration_error(["a"]) == "Invalid parameters, expected a mapping"
    assert hot(None).declared_names == []


def test_modulo_only_from_2017_02_24() -> None:
    section = {"a": {"type": "number", "constraints": [{"modulo": {"step": 2, "offset": 1}}]}}
    assert declaration_error(section, HOT_2016) == "No constraint expressed"
    assert hot(section, {"a": "3"}, v=HOT_2017)["a"] == 3


def test_tags_only_from_2018_03_02() -> None:
    section = {"a": {"type": "string", "default": "x", "tags": ["t1"]}}
    assert declaration_error(section, HOT_2017) == "Invalid key 'tags' for parameter (a)"
    params = hot(section, v=version("heat_template_version.2018-03-02"))
    assert params.validate_output()["a"]["Tags"] == ["t1"]


def test_constraint_not_valid_for_the_type() -> None:
    p = hot({"a": {"type": "string", "constraints": [{"range": {"min": 1}}]}})
    msg = validation_error(p, InvalidSchemaError, validate_value=False)
    assert msg == "Parameter 'a' is invalid: Range constraint invalid for string"
    p = hot({"a": {"type": "json", "constraints": [{"allowed_values": [1]}]}})
    msg = validation_error(p, InvalidSchemaError, validate_value=False)
    assert msg == "Parameter 'a' is invalid: AllowedValues constraint invalid for json"
    p = cfn({"A": {"Type": "Number", "MinLength": 1}})
    msg = validation_error(p, InvalidSchemaError, validate_value=False)
    assert msg == "Parameter 'A' is invalid: Length constraint invalid for Number"


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"A": {"Type": "string"}}, "Invalid type (string)"),
        ({"A": {"Type": "String", "Tags": ["x"]}}, "Invalid key 'Tags' for parameter (A)"),
        ({"A": {"Type": "String", "Schema": {}}}, "Invalid key 'Schema' for parameter (A)"),
        ({"A": {}}, "Missing parameter type for parameter: A"),
        ({"A": {"Type": "String", "AllowedValues": "abc"}}, "AllowedValues must be a list"),
        (
            {"A": {"Type": "Number", "MinValue": None}},
            "A range constraint must have a min value and/or a max value specified.",
        ),
    ],
)
def test_cfn_declaration_errors(section: Any, message: str) -> None:
    assert declaration_error(section, CFN) == message


# --- values and types ------------------------------------------------------------------


def test_values_are_converted_to_their_types() -> None:
    params = hot(
        {
            "n": {"type": "number"},
            "f": {"type": "number"},
            "s": {"type": "string"},
            "b": {"type": "boolean"},
            "j": {"type": "json"},
            "l": {"type": "comma_delimited_list"},
        },
        {"n": "7", "f": "1e3", "s": 5, "b": "no", "j": "[1, 2]", "l": "x, y"},
    )
    params.validate()
    assert params["n"] == 7
    assert params["f"] == 1000.0
    assert params["s"] == "5"
    assert params["b"] is False
    assert params["j"] == [1, 2]
    # Items are not trimmed.
    assert params["l"] == ["x", " y"]


def test_defaults_are_converted_too() -> None:
    params = hot(
        {
            "n": {"type": "number", "default": "5.5"},
            "b": {"type": "boolean", "default": "yes"},
            "j": {"type": "json", "default": {"a": 1}},
            "j2": {"type": "json", "default": '{"a": 1}'},
            "l": {"type": "comma_delimited_list", "default": ["a", 1]},
            "e": {"type": "comma_delimited_list", "default": ""},
        }
    )
    params.validate()
    assert params["n"] == 5.5
    assert params["b"] is True
    assert params["j"] == {"a": 1}
    assert params["j2"] == {"a": 1}
    assert params["l"] == ["a", "1"]
    assert params["e"] == []


def test_value_method_and_mapping_agree() -> None:
    params = hot({"a": {"type": "number", "default": 2}})
    assert params.value("a") == params["a"] == 2
    assert "a" in params
    assert "zz" not in params
    with pytest.raises(KeyError):
        params.value("zz")


@pytest.mark.parametrize(
    ("ptype", "value", "message"),
    [
        ("number", "abc", "could not convert string to float: 'abc'"),
        ("number", "", "could not convert string to float: ''"),
        (
            "number",
            [1],
            "int() argument must be a string, a bytes-like object or a real number, not 'list'",
        ),
        (
            "boolean",
            "maybe",
            "Unrecognized value 'maybe', acceptable values are: '0', '1', 'f', 'false', 'n', "
            "'no', 'off', 'on', 't', 'true', 'y', 'yes'",
        ),
        (
            "json",
            "{bad",
            "Value must be valid JSON: Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1)",
        ),
        (
            "comma_delimited_list",
            {"x": 1},
            "Value must be a comma-delimited list string: 'dict' object has no attribute 'split'",
        ),
    ],
)
def test_values_of_the_wrong_type(ptype: str, value: Any, message: str) -> None:
    params = hot({"a": {"type": ptype}}, {"a": value})
    assert validation_error(params) == f"Parameter 'a' is invalid: {message}"
    # Reading the value reports the same problem.
    assert error_of(StackValidationFailed, params.value, "a") == (
        f"Parameter 'a' is invalid: {message}"
    )


@pytest.mark.parametrize(
    ("declaration", "value", "message"),
    [
        (
            {"type": "string", "constraints": [{"length": {"min": 2, "max": 3}}]},
            "abcd",
            "length (4) is out of range (min: 2, max: 3)",
        ),
        (
            {"type": "number", "constraints": [{"range": {"min": 2, "max": 3}}]},
            "3.5",
            "3.5 is out of range (min: 2, max: 3)",
        ),
        (
            {"type": "number", "constraints": [{"modulo": {"step": 2, "offset": 1}}]},
            "4",
            "4 is not a multiple of 2 with an offset of 1",
        ),
        (
            {"type": "string", "constraints": [{"allowed_pattern": "[a-z]+"}]},
            "abc1",
            '"abc1" does not match pattern "[a-z]+"',
        ),
        (
            {"type": "number", "constraints": [{"allowed_values": [1, 2]}]},
            "3",
            '"3" is not an allowed value [1, 2]',
        ),
        (
            {"type": "boolean", "constraints": [{"allowed_values": ["true"]}]},
            "no",
            '"no" is not an allowed value ["true"]',
        ),
        (
            {"type": "comma_delimited_list", "constraints": [{"allowed_values": ["a", "b"]}]},
            "a,c",
            '["a", "c"] is not an allowed value ["a", "b"]',
        ),
        (
            {"type": "json", "constraints": [{"length": {"max": 1}}]},
            '{"a": 1, "b": 2}',
            "length (2) is out of range (min: None, max: 1)",
        ),
        (
            {
                "type": "string",
                "constraints": [
                    {"length": {"min": 2}, "description": "D1"},
                    {"allowed_pattern": "x.*", "description": "D2"},
                ],
            },
            "ab",
            "D2",
        ),
        (
            {"type": "string", "constraints": [{"custom_constraint": "ip_addr"}]},
            "x",
            "Error validating value 'x': Invalid IP address",
        ),
        (
            {"type": "string", "constraints": [{"custom_constraint": "nope"}]},
            "x",
            '"x" does not validate nope (constraint not found)',
        ),
        (
            {"type": "string", "constraints": [{"custom_constraint": "barbican.secret"}]},
            "m1",
            '"m1" does not validate barbican.secret (constraint not available in Hearth yet)',
        ),
    ],
)
def test_constraint_failures_name_the_parameter(declaration: Any, value: Any, message: str) -> None:
    params = hot({"a": declaration}, {"a": value})
    assert validation_error(params) == f"Parameter 'a' is invalid: {message}"


def test_values_that_pass_constraints() -> None:
    params = hot(
        {
            "s": {"type": "string", "constraints": [{"allowed_values": [1, 2]}]},
            "b": {"type": "boolean", "constraints": [{"allowed_values": ["true"]}]},
            "n": {"type": "number", "constraints": [{"range": {"min": "1", "max": "5.5"}}]},
            "ip": {"type": "string", "constraints": [{"custom_constraint": "ip_addr"}]},
        },
        {"s": "1", "b": "yes", "n": "3", "ip": "10.0.0.1"},
    )
    params.validate()
    assert params["b"] is True


def test_validate_reports_the_first_parameter_in_template_order() -> None:
    params = hot({"a": {"type": "number"}, "b": {"type": "number"}}, {"a": "x", "b": "y"})
    assert validation_error(params).startswith("Parameter 'a' is invalid")


# --- defaults, required, missing, unknown ----------------------------------------------


def test_required_iff_no_default() -> None:
    params = hot({"a": {"type": "string"}, "b": {"type": "string", "default": "x"}})
    assert params.parameter("a").schema.required
    assert not params.parameter("b").schema.required


def test_missing_value() -> None:
    params = hot({"a": {"type": "string"}})
    assert validation_error(params, UserParameterMissing) == "The Parameter (a) was not provided."
    # Without values (POST /validate) a missing value is fine...
    params.validate(validate_value=False)
    # ...until someone reads it.
    assert error_of(UserParameterMissing, params.value, "a") == (
        "The Parameter (a) was not provided."
    )


def test_null_default_counts_as_no_default() -> None:
    params = hot({"a": {"type": "string", "default": None}})
    assert validation_error(params, UserParameterMissing) == "The Parameter (a) was not provided."


def test_unknown_user_parameter() -> None:
    params = hot({"a": {"type": "string", "default": "x"}}, {"b": "1"})
    assert validation_error(params, UnknownUserParameter, validate_value=False) == (
        "The Parameter (b) was not defined in template."
    )


def test_pseudo_parameters_cannot_be_set_by_the_user() -> None:
    params = hot({"a": {"type": "string", "default": "x"}}, {"OS::stack_name": "n"}, stack=STACK)
    assert validation_error(params, UnknownUserParameter) == (
        "The Parameter (OS::stack_name) was not defined in template."
    )
    params = cfn(
        {"A": {"Type": "String", "Default": "x"}}, {"AWS::Region": "us-east-1"}, stack=STACK
    )
    assert validation_error(params, UnknownUserParameter) == (
        "The Parameter (AWS::Region) was not defined in template."
    )


@pytest.mark.parametrize(
    ("declaration", "message"),
    [
        (
            {"type": "string", "default": "x", "constraints": [{"length": {"min": 5}}]},
            "Invalid default x (length (1) is out of range (min: 5, max: None))",
        ),
        (
            {
                "type": "string",
                "default": "x",
                "constraints": [{"allowed_values": ["y"], "description": "only y"}],
            },
            "Invalid default x (only y)",
        ),
        (
            {
                "type": "comma_delimited_list",
                "default": "x,y",
                "constraints": [{"allowed_values": ["y"]}],
            },
            'Invalid default x,y (["x", "y"] is not an allowed value ["y"])',
        ),
        (
            {
                "type": "comma_delimited_list",
                "default": ["x", 1],
                "constraints": [{"allowed_values": ["y"]}],
            },
            'Invalid default [\'x\', 1] (["x", "1"] is not an allowed value ["y"])',
        ),
        (
            {"type": "comma_delimited_list", "default": 5},
            "Default must be a comma-delimited list string: 'int' object has no attribute 'split'",
        ),
        (
            {"type": "number", "default": "abc", "constraints": [{"range": {"min": 1}}]},
            "Invalid default abc (could not convert string to float: 'abc')",
        ),
        (
            {"type": "boolean", "default": "maybe", "constraints": [{"allowed_values": ["true"]}]},
            'Invalid default maybe (Value "maybe" is invalid for data type "boolean".)',
        ),
        (
            {"type": "json", "default": {"a": 1}, "constraints": [{"length": {"max": 0}}]},
            "Invalid default {'a': 1} (length (1) is out of range (min: None, max: 0))",
        ),
    ],
)
def test_defaults_are_checked_even_without_values(declaration: Any, message: str) -> None:
    params = hot({"a": declaration})
    assert validation_error(params, InvalidSchemaError, validate_value=False) == (
        f"Parameter 'a' is invalid: {message}"
    )


def test_a_bad_default_fails_even_when_a_good_value_is_given() -> None:
    params = hot(
        {"a": {"type": "string", "default": "x", "constraints": [{"length": {"min": 5}}]}},
        {"a": "abcdef"},
    )
    assert "Invalid default x" in validation_error(params, InvalidSchemaError)


def test_custom_constraints_are_not_applied_to_defaults() -> None:
    section = {
        "a": {
            "type": "string",
            "default": "x",
            "constraints": [{"custom_constraint": "barbican.secret"}],
        }
    }
    hot(section).validate(validate_value=False)
    # With values checked, the default is the value, and it is checked.
    assert "barbican.secret" in validation_error(hot(section))


def test_empty_list_default_passes_the_schema_check_but_not_the_value_check() -> None:
    # Heat checks the declared default split on commas ('' -> ['']), but the value is [].
    params = hot(
        {
            "a": {
                "type": "comma_delimited_list",
                "default": "",
                "constraints": [{"length": {"min": 1}}],
            }
        }
    )
    params.validate(validate_value=False)
    assert params["a"] == []
    assert validation_error(params) == (
        "Parameter 'a' is invalid: length (0) is out of range (min: 1, max: None)"
    )


def test_parameter_defaults_override_template_defaults() -> None:
    params = hot(
        {
            "s": {"type": "string", "default": "a"},
            "n": {"type": "number", "default": 5},
            "r": {"type": "string"},
        },
        {"s": "b"},
        {"s": "c", "n": 6, "r": "given", "not_declared": 1},
    )
    params.validate()
    assert params["s"] == "b"
    assert params["n"] == 6
    assert params["r"] == "given"
    out = params.validate_output()
    assert out["s"]["Default"] == "c"
    assert out["s"]["Value"] == "b"
    assert out["n"]["Default"] == 6
    assert out["r"]["Default"] == "given"


def test_parameter_default_is_checked_as_the_value() -> None:
    params = hot(
        {"n": {"type": "number", "default": 5, "constraints": [{"range": {"max": 10}}]}},
        defaults={"n": 11},
    )
    params.validate(validate_value=False)
    assert validation_error(params) == (
        "Parameter 'n' is invalid: 11 is out of range (min: None, max: 10)"
    )


def test_user_none_means_not_given() -> None:
    params = hot({"n": {"type": "number", "default": 5}}, {"n": None})
    params.validate()
    assert params["n"] == 5


# --- pseudo parameters -----------------------------------------------------------------


def test_hot_pseudo_parameters() -> None:
    params = hot({"a": {"type": "string", "default": "x"}}, stack=STACK)
    params.validate()
    assert params["OS::stack_id"] == "abc-123"
    assert params["OS::project_id"] == "ten ant"
    assert params["OS::stack_name"] == "my stack"
    assert list(params) == ["OS::stack_id", "OS::project_id", "OS::stack_name", "a"]
    assert params.declared_names == ["a"]


def test_hot_pseudo_parameters_without_a_stack() -> None:
    params = hot({"a": {"type": "string", "default": "x"}})
    assert params["OS::stack_id"] == ""
    assert params["OS::project_id"] == ""
    assert "OS::stack_name" not in params


def test_hot_stack_id_before_the_stack_is_stored() -> None:
    params = hot({}, stack=StackIdentity("t", "s", None))
    assert params["OS::stack_id"] == "None"
    assert params.set_stack_id(StackIdentity("t", "s", "id-1"))
    assert params["OS::stack_id"] == "id-1"
    assert not params.set_stack_id(None)


def test_cfn_pseudo_parameters() -> None:
    params = cfn({"A": {"Type": "String", "Default": "x"}}, stack=STACK)
    params.validate()
    assert params["AWS::StackId"] == "arn:openstack:heat::ten%20ant:stacks/my%20stack/abc-123"
    assert params["AWS::StackName"] == "my stack"
    assert params["AWS::Region"] == "ap-southeast-1"
    params.set_stack_id(StackIdentity("t", "n", "other"))
    assert params["AWS::StackId"] == "arn:openstack:heat::t:stacks/n/other"


def test_cfn_pseudo_parameters_without_a_stack() -> None:
    params = cfn({"A": {"Type": "String", "Default": "x"}})
    assert params["AWS::StackId"] == "None"
    assert "AWS::StackName" not in params
    assert "AWS::Region" not in params


def test_region_default_can_come_from_the_environment_and_is_checked() -> None:
    section = {"A": {"Type": "String", "Default": "x"}}
    params = cfn(section, defaults={"AWS::Region": "us-east-1"}, stack=STACK)
    params.validate()
    assert params["AWS::Region"] == "us-east-1"
    params = cfn(section, defaults={"AWS::Region": "mars"}, stack=STACK)
    assert validation_error(params) == (
        'Parameter \'AWS::Region\' is invalid: "mars" is not an allowed value ["us-east-1", '
        '"us-west-1", "us-west-2", "sa-east-1", "eu-west-1", "ap-southeast-1", '
        '"ap-northeast-1"]'
    )


def test_pseudo_parameters_are_left_out_of_validate_output() -> None:
    params = hot({"a": {"type": "string", "default": "x"}}, stack=STACK)
    assert list(params.validate_output()) == ["a"]


# --- display ---------------------------------------------------------------------------


def test_display_values_mask_hidden_parameters() -> None:
    params = hot(
        {
            "secret": {"type": "string", "hidden": True},
            "l": {"type": "comma_delimited_list"},
            "j": {"type": "json"},
            "b": {"type": "boolean"},
            "n": {"type": "number"},
        },
        {"secret": "pw", "l": ["a", 1], "j": {"a": [1]}, "b": "yes", "n": "1e3"},
    )
    assert params.display_values() == {
        "OS::stack_id": "",
        "OS::project_id": "",
        "secret": "******",
        "l": "a,1",
        "j": '{"a": [1]}',
        "b": "True",
        "n": "1000.0",
    }
    assert params.hidden_names() == ["secret"]
    assert params["secret"] == "pw"


def test_cfn_noecho_is_a_string_flag() -> None:
    params = cfn(
        {
            "A": {"Type": "String", "NoEcho": "TRUE", "Default": "x"},
            "B": {"Type": "String", "NoEcho": True, "Default": "x"},
            "C": {"Type": "String", "NoEcho": "yes", "Default": "x"},
        }
    )
    shown = params.display_values()
    assert (shown["A"], shown["B"], shown["C"]) == ("******", "******", "x")


# --- POST /validate output -------------------------------------------------------------


def test_validate_output_hot() -> None:
    params = hot(
        {
            "s": {
                "type": "string",
                "default": "a",
                "hidden": True,
                "label": "S",
                "description": "DD",
                "immutable": True,
                "tags": ["t1"],
                "constraints": [
                    {"length": {"min": 1, "max": 4}, "description": "short"},
                    {"allowed_values": ["a", "5"]},
                    {"allowed_pattern": "[a-z0-9]*", "description": "lower"},
                    {"custom_constraint": "dns_name"},
                ],
            },
            "n": {
                "type": "number",
                "default": 3,
                "constraints": [
                    {"modulo": {"step": 2, "offset": 1}},
                    {"range": {"min": 1, "max": 9}, "description": "r"},
                ],
            },
            "bare": {"type": "json"},
        },
        {"bare": '{"a": 1}'},
    )
    params.validate(validate_value=False)
    assert params.validate_output() == {
        "s": {
            "Type": "String",
            "Description": "DD",
            "NoEcho": "true",
            "Label": "S",
            "Default": "a",
            "Tags": ["t1"],
            "MinLength": 1,
            "MaxLength": 4,
            "AllowedValues": ["a", "5"],
            "AllowedPattern": "[a-z0-9]*",
            "CustomConstraint": "dns_name",
            "ConstraintDescription": "short lower",
        },
        "n": {
            "Type": "Number",
            "Description": "",
            "NoEcho": "false",
            "Label": "n",
            "Default": 3,
            "Step": 2,
            "Offset": 1,
            "MinValue": 1,
            "MaxValue": 9,
            "ConstraintDescription": "r",
        },
        "bare": {
            "Type": "Json",
            "Description": "",
            "NoEcho": "false",
            "Label": "bare",
            "Value": '{"a": 1}',
        },
    }


def test_validate_output_cfn_repeats_the_constraint_description() -> None:
    params = cfn(
        {
            "A": {
                "Type": "String",
                "MinLength": "1",
                "MaxLength": "4",
                "AllowedPattern": "[a-z]*",
                "AllowedValues": ["ab", "cd"],
                "Default": "ab",
                "ConstraintDescription": "cd",
                "NoEcho": "True",
                "Label": "L",
                "Description": "D",
            },
            "N": {"Type": "Number", "MinValue": "1", "MaxValue": 10, "Default": "5"},
        },
        {"A": "cd"},
    )
    params.validate()
    out = params.validate_output()
    assert out["A"] == {
        "Type": "String",
        "Description": "D",
        "NoEcho": "true",
        "Label": "L",
        "Default": "ab",
        "Value": "cd",
        "MinLength": 1,
        "MaxLength": 4,
        "AllowedValues": ["ab", "cd"],
        "AllowedPattern": "[a-z]*",
        "ConstraintDescription": "cd cd cd",
    }
    # Default keeps its written form; bounds are numbers.
    assert out["N"]["Default"] == "5"
    assert (out["N"]["MinValue"], out["N"]["MaxValue"]) == (1, 10)
    assert params["N"] == 5


def test_validate_output_leaves_out_empty_values_and_tags() -> None:
    params = hot(
        {
            "n": {"type": "number"},
            "s": {"type": "string", "tags": [], "label": "", "description": None},
        },
        {"n": 0, "s": ""},
    )
    out = params.validate_output()
    assert "Value" not in out["n"] and "Value" not in out["s"]
    assert "Tags" not in out["s"]
    assert out["s"]["Label"] == "s"
    assert out["s"]["Description"] == ""


def test_validate_output_keeps_raw_schema_values() -> None:
    params = hot({"a": {"type": "string", "hidden": "false", "description": 5}}, {"a": "x"})
    out = params.validate_output()["a"]
    # Heat tests the hidden flag for truth, so the string 'false' hides.
    assert out["NoEcho"] == "true"
    assert out["Description"] == 5


# --- immutable parameters --------------------------------------------------------------


IMMUTABLE = {
    "n": {"type": "number", "immutable": True, "default": 1},
    "s": {"type": "string", "immutable": True, "default": "a"},
    "l": {"type": "comma_delimited_list", "immutable": True, "default": "a,b"},
    "m": {"type": "string", "default": "a"},
}


def test_unchanged_immutable_values_are_fine() -> None:
    old = hot(IMMUTABLE, {"n": "5", "s": "x", "l": "a,b"})
    new = hot(IMMUTABLE, {"n": "5", "s": "x", "l": ["a", "b"], "m": "changed"})
    assert immutable_parameters_modified(old, new) == []
    check_immutable_parameters(old, new)


def test_changed_or_dropped_immutable_values_are_refused() -> None:
    old = hot(IMMUTABLE, {"n": "5", "s": "x"})
    new = hot(IMMUTABLE, {"s": "y"})
    assert immutable_parameters_modified(old, new) == ["n", "s"]
    assert error_of(ImmutableParameterModified, check_immutable_parameters, old, new) == (
        "The following parameters are immutable and may not be updated: n, s"
    )


def test_immutability_follows_the_new_template() -> None:
    plain = {"s": {"type": "string", "default": "a"}}
    locked = {"s": {"type": "string", "default": "a", "immutable": True}}
    assert immutable_parameters_modified(hot(plain, {"s": "x"}), hot(locked, {"s": "y"})) == ["s"]
    assert immutable_parameters_modified(hot(locked, {"s": "x"}), hot(plain, {"s": "y"})) == []


def test_immutable_parameter_new_in_the_update_is_fine() -> None:
    old = hot({"m": {"type": "string", "default": "a"}})
    new = hot({"s": {"type": "string", "default": "a", "immutable": True}}, {"s": "z"})
    assert immutable_parameters_modified(old, new) == []


# --- Heat 27's recorded POST /validate answers -----------------------------------------


CORPUS = Path("/work/shared/corpus")
RECORDED = CORPUS / "heat27-validate-ignore-99001.json"


class _TemplateLoader(yaml.SafeLoader):
    """YAML as Heat reads templates: dates stay strings."""


_TemplateLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _load_template(key: str) -> dict[str, Any]:
    text = (CORPUS / "heat-templates" / key).read_text()
    data: dict[str, Any] = yaml.load(text, Loader=_TemplateLoader)
    return data


def _corpus_keys() -> list[str]:
    if not RECORDED.exists():
        return []
    return sorted(json.loads(RECORDED.read_text()))


@pytest.mark.skipif(not RECORDED.exists(), reason="Heat 27 corpus not available")
@pytest.mark.parametrize("key", _corpus_keys())
def test_validate_output_matches_heat_27(key: str) -> None:
    recorded = json.loads(RECORDED.read_text())[key]["body"]
    template = _load_template(key)
    version_key = next(k for k in VERSION_KEYS if k in template)
    tv = VERSION_INDEX[(version_key, str(template[version_key]))]
    section = template.get("parameters" if tv.kind == "hot" else "Parameters")
    params = Parameters(tv, section)
    params.validate(validate_value=False)
    assert params.validate_output() == recorded["Parameters"]


@pytest.mark.skipif(not RECORDED.exists(), reason="Heat 27 corpus not available")
def test_corpus_covers_the_interesting_shapes() -> None:
    keys = _corpus_keys()
    assert len(keys) >= 100
    seen: set[str] = set()
    recorded = json.loads(RECORDED.read_text())
    for key in keys:
        for doc in recorded[key]["body"]["Parameters"].values():
            seen.update(doc)
    assert {
        "Default",
        "MinLength",
        "AllowedPattern",
        "AllowedValues",
        "MinValue",
        "CustomConstraint",
        "ConstraintDescription",
    } <= seen
