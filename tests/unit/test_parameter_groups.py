"""parameter_groups: Heat's checks and messages, and what POST /validate echoes."""

from __future__ import annotations

from typing import Any

import pytest

from hearth.common.errors import StackValidationFailed
from hearth.template.parameter_groups import ParameterGroups, validate_parameter_groups
from hearth.template.parameters import Parameters
from hearth.template.versions import TemplateVersion, find_version


def _version(name: str) -> TemplateVersion:
    found = find_version(name)
    assert found is not None
    return found


HOT = _version("heat_template_version.2018-08-31")
CFN = _version("AWSTemplateFormatVersion.2010-09-09")

SECTION = {"a": {"type": "string"}, "b": {"type": "string"}}
NAMES = Parameters(HOT, SECTION).keys()


def error(groups: Any, names: Any = NAMES) -> str:
    with pytest.raises(StackValidationFailed) as info:
        validate_parameter_groups(groups, names)
    return str(info.value)


def test_valid_groups_are_echoed_verbatim() -> None:
    groups = [
        {"label": "L", "description": "first", "parameters": ["a"], "extra": 1},
        {"parameters": ["b"]},
    ]
    pg = ParameterGroups(groups, NAMES)
    pg.validate()
    assert pg.output == groups


@pytest.mark.parametrize("groups", [None, [], "", {}])
def test_absent_or_empty_groups_give_no_output(groups: Any) -> None:
    pg = ParameterGroups(groups, NAMES)
    pg.validate()
    assert pg.output is None


def test_empty_group_parameter_list_is_allowed() -> None:
    validate_parameter_groups([{"label": "L", "parameters": []}], NAMES)


def test_section_must_be_a_list() -> None:
    assert error({"label": "L"}) == (
        "Parameter Groups error: parameter_groups: The parameter_groups should be a list."
    )


def test_each_group_must_list_parameters() -> None:
    assert error([{"label": "L"}]) == (
        "Parameter Groups error: parameter_groups.L: The parameters must be provided for each "
        "parameter group."
    )
    # Without a label the path ends with an empty name, as in Heat.
    assert error([{"description": "x"}]) == (
        "Parameter Groups error: parameter_groups.: The parameters must be provided for each "
        "parameter group."
    )


def test_group_parameters_must_be_a_list() -> None:
    assert error([{"label": "L", "parameters": "a"}]) == (
        "Parameter Groups error: parameter_groups.L: The parameters of parameter group should "
        "be a list."
    )


def test_a_parameter_belongs_to_one_group_only() -> None:
    assert error([{"label": "L", "parameters": ["a", "a"]}]) == (
        "Parameter Groups error: parameter_groups.L: The a parameter must be assigned to one "
        "parameter group only."
    )
    assert error([{"label": "L", "parameters": ["a"]}, {"label": "M", "parameters": ["a"]}]) == (
        "Parameter Groups error: parameter_groups.M: The a parameter must be assigned to one "
        "parameter group only."
    )


def test_grouped_names_must_be_parameters() -> None:
    assert error([{"label": "L", "parameters": ["c"]}]) == (
        "Parameter Groups error: parameter_groups.L: The grouped parameter c does not reference "
        "a valid parameter."
    )
    assert error([{"label": 5, "parameters": ["zz"]}]) == (
        "Parameter Groups error: parameter_groups[5]: The grouped parameter zz does not "
        "reference a valid parameter."
    )


def test_pseudo_parameters_that_exist_without_a_stack_may_be_grouped() -> None:
    validate_parameter_groups([{"parameters": ["OS::stack_id", "OS::project_id"]}], NAMES)
    # OS::stack_name only exists once the stack has a name.
    assert "OS::stack_name does not reference" in error([{"parameters": ["OS::stack_name"]}])
    cfn_names = Parameters(CFN, {"A": {"Type": "String"}}).keys()
    validate_parameter_groups([{"parameters": ["A", "AWS::StackId"]}], cfn_names)


def test_a_group_that_is_not_a_map_is_refused() -> None:
    assert error(["x"]) == (
        "Parameter Groups error: parameter_groups: Each parameter group should be a map."
    )


def test_the_error_carries_its_path() -> None:
    with pytest.raises(StackValidationFailed) as info:
        validate_parameter_groups([{"label": "L", "parameters": ["c"]}], NAMES)
    assert info.value.path == ["parameter_groups", "L"]
    assert info.value.error == "Parameter Groups error"
