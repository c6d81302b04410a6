"""The version matrix: which names are functions, removed, or condition functions, per version."""

from __future__ import annotations

import pytest

from hearth.template.functions import all_implementations
from hearth.template.functions.references import InvalidInContext, Removed
from hearth.template.versions import ALL_VERSIONS, find_version, list_versions

DATA_FUNCTIONS = {
    "2013-05-23": {"get_param", "get_resource", "get_attr", "get_file", "list_join",
                   "str_replace", "resource_facade", "Fn::Select", "Fn::GetAZs", "Ref",
                   "Fn::Join", "Fn::Split", "Fn::Replace", "Fn::Base64",
                   "Fn::MemberListToMap", "Fn::ResourceFacade"},
    "2014-10-16": {"get_param", "get_resource", "get_attr", "get_file", "list_join",
                   "str_replace", "resource_facade", "Fn::Select"},
    "2015-04-30": {"get_param", "get_resource", "get_attr", "get_file", "list_join",
                   "str_replace", "resource_facade", "Fn::Select", "repeat", "digest"},
    "2015-10-15": {"get_param", "get_resource", "get_attr", "get_file", "list_join",
                   "str_replace", "resource_facade", "repeat", "digest", "str_split"},
}
DATA_FUNCTIONS["2016-04-08"] = DATA_FUNCTIONS["2015-10-15"] | {"map_merge"}
DATA_FUNCTIONS["2016-10-14"] = DATA_FUNCTIONS["2016-04-08"] | {"yaql", "map_replace", "if"}
DATA_FUNCTIONS["2017-02-24"] = DATA_FUNCTIONS["2016-10-14"] | {"filter", "str_replace_strict"}
DATA_FUNCTIONS["2017-09-01"] = DATA_FUNCTIONS["2017-02-24"] | {
    "make_url", "list_concat", "list_concat_unique", "str_replace_vstrict", "contains"}
for v in ("2018-03-02", "2018-08-31", "2021-04-16"):
    DATA_FUNCTIONS[v] = DATA_FUNCTIONS["2017-09-01"]


def test_every_implementation_key_exists() -> None:
    table = all_implementations()
    for version in ALL_VERSIONS:
        for key in [*version.function_keys.values(),
                    *(version.condition_function_keys or {}).values()]:
            assert key in table, f"{version.name}: {key}"


@pytest.mark.parametrize("value", sorted(DATA_FUNCTIONS))
def test_hot_function_sets(value: str) -> None:
    version = find_version(f"heat_template_version.{value}")
    assert version is not None
    usable = {n for n, cls in version.functions.items() if cls is not Removed}
    assert usable == DATA_FUNCTIONS[value]
    removed = {n for n, cls in version.functions.items() if cls is Removed}
    if value != "2013-05-23":
        assert "Ref" in removed and "Fn::Join" in removed
    if value >= "2015-10-15":
        assert "Fn::Select" in removed


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2016-04-08", set()),
        ("2016-10-14", {"get_param", "equals", "not", "and", "or"}),
        ("2017-02-24", {"get_param", "equals", "not", "and", "or"}),
        ("2017-09-01", {"get_param", "equals", "not", "and", "or", "yaql", "contains"}),
        ("2021-04-16", {"get_param", "equals", "not", "and", "or", "yaql", "contains"}),
    ],
)
def test_condition_function_sets(value: str, expected: set[str]) -> None:
    version = find_version(f"heat_template_version.{value}")
    assert version is not None
    real = {n for n, cls in version.condition_functions.items()
            if cls not in (Removed, InvalidInContext)}
    assert real == expected


def test_cfn_condition_functions() -> None:
    aws = find_version("AWSTemplateFormatVersion.2010-09-09")
    heat = find_version("HeatTemplateFormatVersion.2012-12-12")
    assert aws is not None and heat is not None
    assert {"Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or", "Ref", "Fn::FindInMap"} <= set(
        aws.condition_functions)
    assert "Fn::If" in aws.functions and "Fn::If" not in heat.functions
    assert not heat.supports_conditions


def test_version_listing() -> None:
    listed = list_versions()
    assert len(listed) == 13
    aws = {"version": "AWSTemplateFormatVersion.2010-09-09", "type": "cfn", "aliases": []}
    assert aws in listed
    assert {"version": "heat_template_version.2021-04-16", "type": "hot",
            "aliases": ["heat_template_version.wallaby"]} in listed
