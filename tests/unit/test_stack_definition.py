"""Binding a template to parameters: versions, sections, conditions, references, the graph."""

from __future__ import annotations

from typing import Any

import pytest

from hearth.common.errors import (
    CircularDependencyException,
    InvalidTemplateReference,
    InvalidTemplateSection,
    InvalidTemplateVersion,
    StackValidationFailed,
    UserParameterMissing,
)
from hearth.template.functions import base
from hearth.template.stack_definition import StackDefinition, validate_definitions
from hearth.template.template import Template
from tests.unit.fakes import FakeResources


class Values:
    def __init__(self, **values: Any) -> None:
        self.values = values

    def __contains__(self, name: object) -> bool:
        return name in self.values

    def value(self, name: str) -> Any:
        if name not in self.values:
            raise UserParameterMissing(name)
        return self.values[name]


def bind(data: dict[str, Any], **params: Any) -> StackDefinition:
    tmpl = Template(data)
    tmpl.validate_structure()
    return StackDefinition(tmpl, Values(**params))


def hot(version: str = "2021-04-16", **sections: Any) -> dict[str, Any]:
    return {"heat_template_version": version, **sections}


class TestVersions:
    def test_aliases_and_dates_select_the_same_version(self) -> None:
        assert Template(hot("wallaby")).version is Template(hot("2021-04-16")).version
        assert Template(hot("newton")).version.value == "2016-10-14"

    def test_unknown_version_lists_the_accepted_values(self) -> None:
        with pytest.raises(InvalidTemplateVersion) as err:
            Template(hot("2099-01-01"))
        msg = str(err.value)
        assert msg.startswith(
            'The template version is invalid: "heat_template_version: 2099-01-01". '
            '"heat_template_version" should be one of: 2013-05-23, 2014-10-16'
        )
        assert "wallaby" in msg

    def test_no_version(self) -> None:
        with pytest.raises(InvalidTemplateVersion, match="Template version was not provided"):
            Template({"resources": {}})

    def test_two_version_keys_are_ambiguous(self) -> None:
        with pytest.raises(InvalidTemplateVersion, match="Ambiguous versions"):
            Template({"heat_template_version": "2013-05-23", "AWSTemplateFormatVersion": "x"})

    def test_heat_cfn_has_one_accepted_value(self) -> None:
        with pytest.raises(InvalidTemplateVersion, match='should be: 2012-12-12$'):
            Template({"HeatTemplateFormatVersion": "2000-01-01"})


class TestSections:
    def test_unknown_section(self) -> None:
        with pytest.raises(InvalidTemplateSection, match="The template section is invalid: foo"):
            Template(hot(foo={})).validate_structure()

    def test_conditions_section_needs_newton(self) -> None:
        with pytest.raises(InvalidTemplateSection, match="conditions"):
            Template(hot("2016-04-08", conditions={})).validate_structure()
        Template(hot("2016-10-14", conditions={})).validate_structure()

    def test_resource_without_type(self) -> None:
        with pytest.raises(StackValidationFailed, match="Each resource must contain a type key."):
            Template(hot(resources={"r": {"properties": {}}})).validate_structure()

    def test_unknown_resource_keyword(self) -> None:
        with pytest.raises(StackValidationFailed) as err:
            Template(hot(resources={"r": {"type": "T", "colour": 1}})).validate_structure()
        assert str(err.value) == '"colour" is not a valid keyword inside a resource definition'

    def test_external_id_needs_newton(self) -> None:
        data = hot("2016-04-08", resources={"r": {"type": "T", "external_id": "x"}})
        with pytest.raises(StackValidationFailed, match='"external_id" is not a valid keyword'):
            Template(data).validate_structure()

    def test_output_without_value_fails_where_outputs_are_read(self) -> None:
        # As Heat 27: not a structural fault, but the outputs' own, with their path.
        data = hot(outputs={"o": {"description": "d"}})
        Template(data).validate_structure()
        with pytest.raises(StackValidationFailed) as err:
            bind(data).outputs  # noqa: B018
        assert str(err.value) == (
            "Output validation error: outputs.o: Each output definition must contain a value key."
        )

    def test_unknown_output_keys_are_ignored(self) -> None:
        defn = bind(hot(outputs={"o": {"value": 1, "colour": "red"}}))
        assert list(defn.outputs) == ["o"]

    def test_null_sections_are_empty(self) -> None:
        defn = bind(hot(resources=None, outputs=None, parameters=None))
        assert defn.resource_definitions == {}
        assert defn.outputs == {}
        assert Template(hot()).description == "No description"

    def test_cfn_conditions_only_in_aws_format(self) -> None:
        Template({"AWSTemplateFormatVersion": "2010-09-09", "Conditions": {}}).validate_structure()
        with pytest.raises(InvalidTemplateSection):
            Template(
                {"HeatTemplateFormatVersion": "2012-12-12", "Conditions": {}}
            ).validate_structure()


class TestConditions:
    TEMPLATE = hot(
        parameters={"env": {"type": "string"}},
        conditions={
            "prod": {"equals": [{"get_param": "env"}, "prod"]},
            "not_prod": {"not": "prod"},
            "either": {"or": ["prod", "not_prod"]},
        },
        resources={
            "always": {"type": "T"},
            "only_prod": {"type": "T", "condition": "prod"},
            "inline": {"type": "T", "condition": {"not": "prod"}},
        },
        outputs={
            "out": {"value": "v", "condition": "prod"},
            "choice": {"value": {"if": ["prod", "big", "small"]}},
        },
    )

    def test_conditions_enable_resources_and_outputs(self) -> None:
        defn = bind(self.TEMPLATE, env="dev")
        assert sorted(defn.resource_definitions) == ["always", "inline"]
        assert defn.outputs["out"].enabled is False
        assert base.resolve(defn.outputs["choice"].value, defn) == "small"
        assert defn.conditions.evaluated() == {"prod": False, "not_prod": True, "either": True}
        prod = bind(self.TEMPLATE, env="prod")
        assert sorted(prod.resource_definitions) == ["always", "only_prod"]
        assert base.resolve(prod.outputs["choice"].value, prod) == "big"

    def test_circular_conditions(self) -> None:
        defn = bind(hot(conditions={"a": {"not": "b"}, "b": {"not": "a"}}))
        with pytest.raises(StackValidationFailed, match='Circular definition for condition "a"'):
            defn.conditions.is_enabled("a")

    def test_unknown_condition_name_on_resource(self) -> None:
        defn = bind(hot(resources={"r": {"type": "T", "condition": "nope"}}))
        with pytest.raises(StackValidationFailed) as err:
            _ = defn.resource_definitions
        assert str(err.value) == 'resources.r.condition: Invalid condition "nope"'

    def test_normal_function_invalid_inside_condition(self) -> None:
        defn = bind(hot(conditions={"c": {"equals": [{"get_resource": "r"}, "x"]}}))
        with pytest.raises(StackValidationFailed) as err:
            _ = defn.conditions
        assert 'The function "get_resource" is invalid in this context' in str(err.value)
        assert "conditions.c.equals[0].get_resource" in str(err.value)

    def test_condition_definition_must_be_boolean_or_function(self) -> None:
        defn = bind(hot(conditions={"c": "text"}))
        with pytest.raises(StackValidationFailed) as err:
            defn.conditions.validate()
        assert str(err.value) == (
            'Condition validation error: The definition of condition "c" is invalid: text'
        )

    def test_if_only_parses_the_chosen_branch(self) -> None:
        # The false branch uses a function removed in this version; it is never looked at.
        data = hot(
            resources={
                "r": {
                    "type": "T",
                    "properties": {"p": {"if": [True, "yes", {"Fn::Join": ["", []]}]}},
                }
            }
        )
        defn = bind(data)
        validate_definitions(defn)
        assert base.resolve(defn.resource_definitions["r"].properties, defn) == {"p": "yes"}

    def test_two_argument_if_removes_the_property_in_wallaby_only(self) -> None:
        props = {"p": {"if": [False, "yes"]}, "q": 1}
        defn = bind(hot(resources={"r": {"type": "T", "properties": props}}))
        assert base.resolve(defn.resource_definitions["r"].properties, defn) == {"q": 1}
        with pytest.raises(StackValidationFailed, match="must be of the form"):
            _ = bind(
                hot("2018-08-31", resources={"r": {"type": "T", "properties": props}})
            ).resource_definitions


class TestReferences:
    def test_get_param_paths(self) -> None:
        defn = bind(hot(), p={"a": [10, 20]}, s="xyz")
        get = lambda args: base.resolve(defn.parse({"get_param": args}, "x"), defn)  # noqa: E731
        assert get(["p", "a", "1"]) == 20
        assert get(["p", "a", 5]) == ""
        assert get(["p", "missing"]) == ""
        assert get(["s", 0]) == "x"
        with pytest.raises(UserParameterMissing, match=r"The Parameter \(nope\) was not provided"):
            get("nope")

    def test_unknown_get_resource_is_reported_with_its_path(self) -> None:
        # Heat's words: the place as its dependency walk names it, the function left off.
        data = hot(resources={"a": {"type": "T", "properties": {"x": [{"get_resource": "b"}]}}})
        with pytest.raises(InvalidTemplateReference) as err:
            validate_definitions(bind(data))
        assert str(err.value) == 'The specified reference "b" (in a.Properties.x[0]) is incorrect.'

    def test_unknown_get_resource_in_an_output_is_that_outputs_error(self) -> None:
        defn = bind(hot(outputs={"o": {"value": {"get_resource": "b"}}}))
        validate_definitions(defn)
        with pytest.raises(InvalidTemplateReference, match=r'"b" \(in unknown\)'):
            base.resolve(defn.outputs["o"].value, defn)

    def test_get_attr_through_a_resource_view(self) -> None:
        data = hot(
            resources={
                "a": {"type": "T"},
                "b": {"type": "T", "properties": {"x": {"get_attr": ["a", "out", "k", 1]}}},
            }
        )
        tmpl = Template(data)
        view = FakeResources(attrs={"a": {"out": {"k": [5, 6]}, "show": {}}})
        defn = StackDefinition(tmpl, Values(), resources=view)
        assert base.resolve(defn.resource_definitions["b"].properties, defn) == {"x": 6}
        whole = defn.parse({"get_attr": ["a"]}, "x")
        assert base.resolve(whole, defn) == {"out": {"k": [5, 6]}}

    def test_removed_function_fails_validation(self) -> None:
        data = hot("2015-10-15", outputs={"o": {"value": {"Fn::Select": [0, ["a"]]}}})
        with pytest.raises(StackValidationFailed) as err:
            validate_definitions(bind(data))
        assert "The function Fn::Select is not supported in this version of HOT." in str(
            err.value
        )

    def test_cfn_ref_picks_resource_or_parameter(self) -> None:
        data = {
            "AWSTemplateFormatVersion": "2010-09-09",
            "Parameters": {"P": {"Type": "String"}},
            "Resources": {"R": {"Type": "T"}, "S": {"Type": "T", "Properties": {
                "a": {"Ref": "R"}, "b": {"Ref": "P"}, "c": {"Fn::FindInMap": ["m", "k", "v"]}}}},
            "Mappings": {"m": {"k": {"v": 42}}},
        }
        defn = bind(data, P="pv")
        s = defn.resource_definitions["S"]
        assert base.resolve(s.properties, defn) == {"a": "R", "b": "pv", "c": 42}
        assert defn.dependency_graph() == {"R": set(), "S": {"R"}}


class TestDependencies:
    def test_graph_from_depends_on_and_references(self) -> None:
        data = hot(
            resources={
                "a": {"type": "T"},
                "b": {"type": "T", "depends_on": "a"},
                "c": {"type": "T", "metadata": {"m": {"get_attr": ["b", "x"]}},
                      "properties": {"p": {"get_resource": "a"}}},
            }
        )
        assert bind(data).dependency_graph() == {"a": set(), "b": {"a"}, "c": {"a", "b"}}

    def test_depends_on_unknown_resource(self) -> None:
        data = hot(resources={"a": {"type": "T", "depends_on": ["zzz"]}})
        with pytest.raises(InvalidTemplateReference, match='"zzz" \\(in a\\)'):
            bind(data).dependency_graph()

    def test_reference_to_disabled_resource_is_not_a_dependency(self) -> None:
        data = hot(
            resources={
                "off": {"type": "T", "condition": False},
                "on": {"type": "T", "depends_on": "off"},
            }
        )
        assert bind(data).dependency_graph() == {"on": set()}

    def test_cycle_is_named(self) -> None:
        data = hot(
            resources={
                "a": {"type": "T", "depends_on": "c"},
                "b": {"type": "T", "depends_on": "a"},
                "c": {"type": "T", "properties": {"x": {"get_resource": "b"}}},
                "d": {"type": "T"},
            }
        )
        with pytest.raises(CircularDependencyException) as err:
            bind(data).dependency_graph()
        assert str(err.value) == "Circular Dependency Found: a -> c -> b -> a"

    def test_long_chain_has_no_recursion_limit(self) -> None:
        n = 5000
        resources = {f"r{i}": {"type": "T", "depends_on": f"r{i - 1}"} for i in range(1, n)}
        resources["r0"] = {"type": "T"}
        graph = bind(hot(resources=resources)).dependency_graph()
        assert graph[f"r{n - 1}"] == {f"r{n - 2}"}
