"""Tests for the collection functions: repeat, map_merge, map_replace, filter, list_concat,
list_concat_unique and contains.

Every expected value and message in the tables below was obtained from real Heat 27 (its
``heat.engine.hot.functions`` evaluating the same snippet in the same template version); the
stage says when Heat reports the problem: while parsing the template, while validating it, or
only once the function is resolved.
"""

# ruff: noqa: E501  (the tables hold Heat's messages verbatim)

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.fakes import FakeScope, ids_of_cases, run_stages

BASIC_CASES: list[tuple[Any, str, str, Any]] = [
    # repeat: values, argument shapes and errors
    (
        {"repeat": {"template": "x-%a%", "for_each": {"%a%": [1, 2]}}},
        "2021-04-16",
        "resolve",
        "replace() argument 2 must be str, not int",
    ),
    (
        {"repeat": {"template": "x-%a%", "for_each": {"%a%": ["a", "b"]}}},
        "2021-04-16",
        "ok",
        ["x-a", "x-b"],
    ),
    (
        {
            "repeat": {
                "template": {"k_%a%": "v-%a%-%b%", "lst": ["%b%", 5, None]},
                "for_each": {"%a%": ["a", "b"], "%b%": ["c", "d"]},
            }
        },
        "2021-04-16",
        "ok",
        [
            {"k_a": "v-a-c", "lst": ["c", 5, None]},
            {"k_a": "v-a-d", "lst": ["d", 5, None]},
            {"k_b": "v-b-c", "lst": ["c", 5, None]},
            {"k_b": "v-b-d", "lst": ["d", 5, None]},
        ],
    ),
    (
        {
            "repeat": {
                "template": "%a%%b%",
                "for_each": {"%a%": ["a", "b"], "%b%": ["c", "d"]},
                "permutations": False,
            }
        },
        "2021-04-16",
        "ok",
        ["ac", "bd"],
    ),
    (
        {
            "repeat": {
                "template": "%a%%b%",
                "for_each": {"%a%": ["a", "b"], "%b%": ["c"]},
                "permutations": False,
            }
        },
        "2021-04-16",
        "resolve",
        "For repeat, the length of for_each values should be equal if no nested loop.",
    ),
    (
        {
            "repeat": {
                "template": "%a%%b%",
                "for_each": {"%a%": ["a", "b"], "%b%": None},
                "permutations": False,
            }
        },
        "2021-04-16",
        "ok",
        [],
    ),
    (
        {
            "repeat": {
                "template": "%a%",
                "for_each": {"%a%": {"k1": "v1", "k2": "v2"}},
                "permutations": False,
            }
        },
        "2021-04-16",
        "resolve",
        'The values of the "for_each" argument to "repeat" must be lists',
    ),
    (
        {"repeat": {"template": "%a%", "for_each": {"%a%": {"k1": "v1", "k2": "v2"}}}},
        "2021-04-16",
        "ok",
        ["k1", "k2"],
    ),
    (
        {"repeat": {"template": "%a%", "for_each": {"%a%": {"k1": "v1", "k2": "v2"}}}},
        "2016-10-14",
        "ok",
        ["k1", "k2"],
    ),
    (
        {"repeat": {"template": "%a%", "for_each": {"%a%": {"k1": "v1", "k2": "v2"}}}},
        "2016-04-08",
        "resolve",
        'The values of the "for_each" argument to "repeat" must be lists',
    ),
    (
        {"repeat": {"template": "%a%", "for_each": {"%a%": {"k1": "v1", "k2": "v2"}}}},
        "2015-04-30",
        "resolve",
        'The values of the "for_each" argument to "repeat" must be lists',
    ),
    ({"repeat": {"template": "%a%", "for_each": {"%a%": ["a"]}}}, "2015-04-30", "ok", ["a"]),
    (
        {"repeat": {"template": "%a%", "for_each": {"%a%": ["a"]}}},
        "2014-10-16",
        "ok",
        {"repeat": {"template": "%a%", "for_each": {"%a%": ["a"]}}},
    ),
    (
        {
            "repeat": {
                "template": "%a%%b%",
                "for_each": {"%a%": ["a", "b"], "%b%": ["c", "d"]},
                "permutations": False,
            }
        },
        "2017-02-24",
        "ok",
        ["ac", "ad", "bc", "bd"],
    ),
    (
        {"repeat": {"template": "%a%", "for_each": {"%a%": "abc"}}},
        "2021-04-16",
        "resolve",
        'The values of the "for_each" argument to "repeat" must be lists or maps',
    ),
    (
        {"repeat": {"template": "%a%", "for_each": {"%a%": 5}}},
        "2021-04-16",
        "resolve",
        'The values of the "for_each" argument to "repeat" must be lists or maps',
    ),
    (
        {"repeat": {"template": "%a%", "for_each": {"%a%": 5}}},
        "2015-04-30",
        "resolve",
        'The values of the "for_each" argument to "repeat" must be lists',
    ),
    ({"repeat": {"template": "%a%", "for_each": {"%a%": None}}}, "2021-04-16", "ok", []),
    ({"repeat": {"template": "%a%", "for_each": {"%a%": []}}}, "2021-04-16", "ok", []),
    (
        {"repeat": {"template": "%a%", "for_each": {}}},
        "2021-04-16",
        "resolve",
        "not enough values to unpack (expected 2, got 0)",
    ),
    (
        {"repeat": {"template": "%a%", "for_each": ["a"]}},
        "2021-04-16",
        "validate",
        'test.repeat: The "for_each" argument to "repeat" must contain a map',
    ),
    (
        {"repeat": {"template": "%a%", "for_each": "x"}},
        "2021-04-16",
        "validate",
        'test.repeat: The "for_each" argument to "repeat" must contain a map',
    ),
    (
        {"repeat": {"template": "%a%", "for_each": {"%a%": ["a"]}, "permutations": "no"}},
        "2021-04-16",
        "parse",
        'test.repeat: "permutations" should be boolean type for repeat function.',
    ),
    (
        {"repeat": {"template": "%a%", "for_each": {"%a%": ["a"]}, "permutations": "no"}},
        "2017-02-24",
        "ok",
        ["a"],
    ),
    (
        {"repeat": {"template": "%a%", "for_each": {"%a%": ["a"]}, "extra": 1}},
        "2021-04-16",
        "ok",
        ["a"],
    ),
    (
        {"repeat": {"template": "%a%"}},
        "2021-04-16",
        "parse",
        "test.repeat: '\"repeat\" syntax should be repeat:\\n              template: This is %var%\\n              for_each:\\n                %var%: [\\'a\\', \\'b\\', \\'c\\']'",
    ),
    (
        {"repeat": {"for_each": {"%a%": ["a"]}}},
        "2021-04-16",
        "parse",
        "test.repeat: '\"repeat\" syntax should be repeat:\\n              template: This is %var%\\n              for_each:\\n                %var%: [\\'a\\', \\'b\\', \\'c\\']'",
    ),
    ({"repeat": ["a"]}, "2021-04-16", "parse", 'test.repeat: Arguments to "repeat" must be a map'),
    ({"repeat": {"template": 5, "for_each": {"%a%": ["a", "b"]}}}, "2021-04-16", "ok", [5, 5]),
    (
        {"repeat": {"template": [5, None, True], "for_each": {"%a%": ["a", "b"]}}},
        "2021-04-16",
        "ok",
        [[5, None, True], [5, None, True]],
    ),
    (
        {"repeat": {"template": "x", "for_each": {"%a%": ["a", "b"]}}},
        "2021-04-16",
        "ok",
        ["x", "x"],
    ),
    (
        {"repeat": {"template": {"%a%": 1, "x": "%a%"}, "for_each": {"%a%": ["a"]}}},
        "2021-04-16",
        "ok",
        [{"a": 1, "x": "a"}],
    ),
    (
        {"repeat": {"template": {"%a%": 1, "b": 2}, "for_each": {"%a%": ["b"]}}},
        "2021-04-16",
        "ok",
        [{"b": 2}],
    ),
    (
        {"repeat": {"template": "%a%", "for_each": {5: ["a"]}}},
        "2021-04-16",
        "resolve",
        "replace() argument 1 must be str, not int",
    ),
    (
        {"repeat": {"template": "%a%", "for_each": {"%a%": [[1]]}}},
        "2021-04-16",
        "resolve",
        "replace() argument 2 must be str, not list",
    ),
    (
        {"repeat": {"template": "%a%", "for_each": {"%a%": ["a", "b"]}}},
        "2015-04-30",
        "ok",
        ["a", "b"],
    ),
    (
        {
            "repeat": {
                "template": "%a%",
                "for_each": {"%a%": {"yaql": {"expression": "$.data", "data": ["a", "b"]}}},
            }
        },
        "2021-04-16",
        "ok",
        ["a", "b"],
    ),
    (
        {
            "repeat": {
                "template": "%a%",
                "for_each": {"yaql": {"expression": "$.data", "data": {"%a%": ["x", "y"]}}},
            }
        },
        "2021-04-16",
        "ok",
        ["x", "y"],
    ),
    (
        {
            "repeat": {
                "template": "%a%",
                "for_each": {"yaql": {"expression": "$.data", "data": ["x"]}},
            }
        },
        "2021-04-16",
        "resolve",
        "'list' object has no attribute 'items'",
    ),
    (
        {"repeat": {"template": "%a%", "for_each": {"yaql": {"expression": "null"}}}},
        "2021-04-16",
        "resolve",
        "'NoneType' object has no attribute 'items'",
    ),
    (
        {
            "repeat": {
                "template": {"yaql": {"expression": "$.data", "data": "t-%a%"}},
                "for_each": {"%a%": ["x"]},
            }
        },
        "2021-04-16",
        "ok",
        ["t-x"],
    ),
    # map_merge: values, argument shapes and errors
    (
        {"map_merge": [{"a": 1, "b": 2}, {"b": 3}, None, {"c": {"d": 1}}]},
        "2021-04-16",
        "ok",
        {"a": 1, "b": 3, "c": {"d": 1}},
    ),
    ({"map_merge": [{"a": 1}]}, "2016-04-08", "ok", {"a": 1}),
    ({"map_merge": [{"a": 1}]}, "2015-10-15", "ok", {"map_merge": [{"a": 1}]}),
    (
        {"map_merge": [{"a": 1}, [1]]},
        "2021-04-16",
        "resolve",
        "Incorrect arguments: Items to merge must be maps. [1] is type <class 'list'> instead of a dict",
    ),
    (
        {"map_merge": [{"a": 1}, "x"]},
        "2021-04-16",
        "resolve",
        "Incorrect arguments: Items to merge must be maps. 'x' is type <class 'str'> instead of a dict",
    ),
    (
        {"map_merge": "ab"},
        "2021-04-16",
        "resolve",
        "Incorrect arguments: Items to merge must be maps. 'a' is type <class 'str'> instead of a dict",
    ),
    (
        {"map_merge": {"a": 1}},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "map_merge" should be: "map_merge" : [ { "key1": "val1" }, { "key2": "val2" } ]',
    ),
    (
        {"map_merge": None},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "map_merge" should be: "map_merge" : [ { "key1": "val1" }, { "key2": "val2" } ]',
    ),
    (
        {"map_merge": 5},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "map_merge" should be: "map_merge" : [ { "key1": "val1" }, { "key2": "val2" } ]',
    ),
    ({"map_merge": []}, "2021-04-16", "ok", {}),
    (
        {"map_merge": [{"a": 1}, 5]},
        "2021-04-16",
        "resolve",
        "Incorrect arguments: Items to merge must be maps. 5 is type <class 'int'> instead of a dict",
    ),
    # map_replace: values, argument shapes and errors
    (
        {"map_replace": [{"k1": "v1", "k2": "v2"}, {"keys": {"k1": "K1"}, "values": {"v2": "V2"}}]},
        "2021-04-16",
        "ok",
        {"K1": "v1", "k2": "V2"},
    ),
    (
        {"map_replace": [{"k1": "v1", "k2": "v2"}, {"keys": {"k1": "k2"}}]},
        "2021-04-16",
        "resolve",
        "key replacement k2 collides with a key in the input map",
    ),
    (
        {"map_replace": [{"k1": "v1", "k2": "v2"}, {"keys": {"k1": "k3", "k2": "k3"}}]},
        "2021-04-16",
        "resolve",
        "key replacement k3 collides with a key in the output map",
    ),
    (
        {"map_replace": [{"k1": "v1", "k2": "v2"}, {"keys": {"k1": "k1"}}]},
        "2021-04-16",
        "ok",
        {"k1": "v1", "k2": "v2"},
    ),
    (
        {"map_replace": [{"k1": "v1", "k2": "v2"}, {"keys": {"k1": None}}]},
        "2021-04-16",
        "ok",
        {"k1": "v1", "k2": "v2"},
    ),
    (
        {"map_replace": [{"k1": "v1", "k2": [1]}, {"values": {"v1": "x"}}]},
        "2021-04-16",
        "ok",
        {"k1": "x", "k2": [1]},
    ),
    (
        {"map_replace": [{"k1": 1, "k2": True}, {"values": {1: "one"}}]},
        "2021-04-16",
        "ok",
        {"k1": "one", "k2": "one"},
    ),
    (
        {"map_replace": [{"k1": "v1"}, {"keys": {"k1": "K1"}, "other": {}}]},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "map_replace" should be: "map_replace" : [ { "key1": "val1" }, {"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]',
    ),
    ({"map_replace": [{"k1": "v1"}, {}]}, "2021-04-16", "ok", {"k1": "v1"}),
    ({"map_replace": [{"k1": "v1"}, None]}, "2021-04-16", "ok", {"k1": "v1"}),
    ({"map_replace": [None, {"keys": {"a": "b"}}]}, "2021-04-16", "ok", {}),
    (
        {"map_replace": [{"k1": "v1"}]},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "map_replace" should be: "map_replace" : [ { "key1": "val1" }, {"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]',
    ),
    (
        {"map_replace": [{"k1": "v1"}, {}, {}]},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "map_replace" should be: "map_replace" : [ { "key1": "val1" }, {"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]',
    ),
    (
        {"map_replace": [[1], {}]},
        "2021-04-16",
        "resolve",
        'Incorrect arguments: to "map_replace", arguments must be a list of maps. Example:  "map_replace" : [ { "key1": "val1" }, {"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]',
    ),
    (
        {"map_replace": [{"k1": "v1"}, [1]]},
        "2021-04-16",
        "resolve",
        'Incorrect arguments: to "map_replace", arguments must be a list of maps. Example:  "map_replace" : [ { "key1": "val1" }, {"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]',
    ),
    (
        {"map_replace": [{"k1": "v1"}, {"keys": [1]}]},
        "2021-04-16",
        "resolve",
        'Incorrect arguments: to "map_replace", arguments must be a list of maps. Example:  "map_replace" : [ { "key1": "val1" }, {"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]',
    ),
    (
        {"map_replace": [{"k1": "v1"}, {"keys": None, "values": None}]},
        "2021-04-16",
        "ok",
        {"k1": "v1"},
    ),
    ({"map_replace": {"k1": "v1"}}, "2021-04-16", "resolve", "0"),
    (
        {"map_replace": "x"},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "map_replace" should be: "map_replace" : [ { "key1": "val1" }, {"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]',
    ),
    (
        {"map_replace": None},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "map_replace" should be: "map_replace" : [ { "key1": "val1" }, {"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]',
    ),
    (
        {"map_replace": []},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "map_replace" should be: "map_replace" : [ { "key1": "val1" }, {"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]',
    ),
    (
        {"map_replace": [[1]]},
        "2021-04-16",
        "resolve",
        'Incorrect arguments: to "map_replace", arguments must be a list of maps. Example:  "map_replace" : [ { "key1": "val1" }, {"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]',
    ),
    (
        {"map_replace": [{"k1": "v1"}, {"keys": {"k1": ["x"]}}]},
        "2021-04-16",
        "resolve",
        "unhashable type: 'list'",
    ),
    ({"map_replace": [{"k1": "v1"}]}, "2016-04-08", "ok", {"map_replace": [{"k1": "v1"}]}),
    # filter: values, argument shapes and errors
    ({"filter": [["a"], ["a", "b", "a", "c"]]}, "2021-04-16", "ok", ["b", "c"]),
    ({"filter": [["a", [1]], ["a", "b", [1], {"x": 1}]]}, "2021-04-16", "ok", ["b", {"x": 1}]),
    ({"filter": [None, ["a", "b"]]}, "2021-04-16", "ok", ["a", "b"]),
    ({"filter": [[], ["a", "b"]]}, "2021-04-16", "ok", ["a", "b"]),
    ({"filter": [["a"], None]}, "2021-04-16", "ok", None),
    ({"filter": [["a"], []]}, "2021-04-16", "ok", []),
    ({"filter": [["a"], ""]}, "2021-04-16", "ok", ""),
    ({"filter": [["a"], "abc"]}, "2021-04-16", "resolve", '"filter" only works with lists'),
    ({"filter": [["a"], {"x": 1}]}, "2021-04-16", "resolve", '"filter" only works with lists'),
    ({"filter": ["a", ["a", "b"]]}, "2021-04-16", "resolve", '"filter" filters a list of values'),
    (
        {"filter": [{"a": 1}, ["a", "b"]]},
        "2021-04-16",
        "resolve",
        '"filter" filters a list of values',
    ),
    ({"filter": [[1], [1, True, 1.0, 2]]}, "2021-04-16", "ok", [2]),
    (
        {"filter": [["a"]]},
        "2021-04-16",
        "parse",
        'test.filter: "filter" expected 2 arguments of the form [values, sequence] but got 1 arguments instead',
    ),
    (
        {"filter": [["a"], ["b"], ["c"]]},
        "2021-04-16",
        "parse",
        'test.filter: "filter" expected 2 arguments of the form [values, sequence] but got 3 arguments instead',
    ),
    ({"filter": "ab"}, "2021-04-16", "parse", 'test.filter: Argument to "filter" must be a list'),
    (
        {"filter": {"a": "b"}},
        "2021-04-16",
        "parse",
        'test.filter: Argument to "filter" must be a list',
    ),
    (
        {"filter": {"yaql": {"expression": "[[1], [1,2]]"}}},
        "2021-04-16",
        "parse",
        'test.filter: Argument to "filter" must be a list',
    ),
    ({"filter": [["a"], ["a", "b"]]}, "2016-10-14", "ok", {"filter": [["a"], ["a", "b"]]}),
    ({"filter": [["a"], ["a", "b"]]}, "2017-02-24", "ok", ["b"]),
    # list_concat: values, argument shapes and errors
    (
        {"list_concat": [["a", "b"], ["c"], None, [], [["d"]]]},
        "2021-04-16",
        "ok",
        ["a", "b", "c", ["d"]],
    ),
    (
        {"list_concat": [["a"], "b"]},
        "2021-04-16",
        "resolve",
        'Incorrect arguments: Items to concat must be lists. [["a"], "b"] contains an item that is not a list: "b"',
    ),
    (
        {"list_concat": [["a"], {"b": 1}]},
        "2021-04-16",
        "resolve",
        'Incorrect arguments: Items to concat must be lists. [["a"], {"b": 1}] contains an item that is not a list: {"b": 1}',
    ),
    (
        {"list_concat": [["a"], 5]},
        "2021-04-16",
        "resolve",
        'Incorrect arguments: Items to concat must be lists. [["a"], 5] contains an item that is not a list: 5',
    ),
    (
        {"list_concat": "ab"},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "list_concat" should be: "list_concat" : [ [ <value 1>, <value 2> ], [ <value 3>, <value 4> ] ]',
    ),
    (
        {"list_concat": {"a": "b"}},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "list_concat" should be: "list_concat" : [ [ <value 1>, <value 2> ], [ <value 3>, <value 4> ] ]',
    ),
    (
        {"list_concat": None},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "list_concat" should be: "list_concat" : [ [ <value 1>, <value 2> ], [ <value 3>, <value 4> ] ]',
    ),
    ({"list_concat": []}, "2021-04-16", "ok", []),
    ({"list_concat": [["a"]]}, "2017-02-24", "ok", {"list_concat": [["a"]]}),
    (
        {"list_concat": [[{"b": 1, "a": 2}], 5]},
        "2021-04-16",
        "resolve",
        'Incorrect arguments: Items to concat must be lists. [[{"b": 1, "a": 2}], 5] contains an item that is not a list: 5',
    ),
    # list_concat_unique: values, argument shapes and errors
    (
        {
            "list_concat_unique": [
                ["a", "b", "a"],
                ["b", "c", 1, True, 1.0, [1], [1], {"x": 1}, {"x": 1}],
            ]
        },
        "2021-04-16",
        "ok",
        ["a", "b", "c", 1, [1], {"x": 1}],
    ),
    (
        {"list_concat_unique": [["a"], 5]},
        "2021-04-16",
        "resolve",
        'Incorrect arguments: Items to concat must be lists. [["a"], 5] contains an item that is not a list: 5',
    ),
    (
        {"list_concat_unique": "ab"},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "list_concat_unique" should be: "list_concat_unique" : [ [ <value 1>, <value 2> ], [ <value 3>, <value 4> ] ]',
    ),
    # contains: values, argument shapes and errors
    ({"contains": ["a", ["a", "b"]]}, "2021-04-16", "ok", True),
    ({"contains": ["c", ["a", "b"]]}, "2021-04-16", "ok", False),
    ({"contains": ["b", "abc"]}, "2021-04-16", "ok", True),
    (
        {"contains": [1, "abc"]},
        "2021-04-16",
        "resolve",
        "'in <string>' requires string as left operand, not int",
    ),
    ({"contains": [1, [1.0]]}, "2021-04-16", "ok", True),
    ({"contains": [[1], [[1], 2]]}, "2021-04-16", "ok", True),
    (
        {"contains": ["a", {"a": 1}]},
        "2021-04-16",
        "resolve",
        'Second argument to "contains" should be a sequence.',
    ),
    (
        {"contains": ["a", None]},
        "2021-04-16",
        "resolve",
        'Second argument to "contains" should be a sequence.',
    ),
    (
        {"contains": ["a", 5]},
        "2021-04-16",
        "resolve",
        'Second argument to "contains" should be a sequence.',
    ),
    (
        {"contains": ["a"]},
        "2021-04-16",
        "parse",
        'test.contains: Arguments to "contains" must be of the form: [value1, [value1, value2]]',
    ),
    (
        {"contains": ["a", "b", "c"]},
        "2021-04-16",
        "parse",
        'test.contains: Arguments to "contains" must be of the form: [value1, [value1, value2]]',
    ),
    (
        {"contains": []},
        "2021-04-16",
        "parse",
        'test.contains: Incorrect arguments to "contains" should be: "contains" : [ "value1", [ "value1", "value2"]]',
    ),
    (
        {"contains": "a"},
        "2021-04-16",
        "parse",
        'test.contains: Incorrect arguments to "contains" should be: "contains" : [ "value1", [ "value1", "value2"]]',
    ),
    (
        {"contains": {"a": "b"}},
        "2021-04-16",
        "parse",
        'test.contains: Incorrect arguments to "contains" should be: "contains" : [ "value1", [ "value1", "value2"]]',
    ),
    (
        {"contains": None},
        "2021-04-16",
        "parse",
        'test.contains: Incorrect arguments to "contains" should be: "contains" : [ "value1", [ "value1", "value2"]]',
    ),
    ({"contains": [None, [None]]}, "2021-04-16", "ok", True),
    ({"contains": ["a", ["a"]]}, "2017-02-24", "ok", {"contains": ["a", ["a"]]}),
]


@pytest.mark.parametrize(
    ("snippet", "version", "stage", "expected"), BASIC_CASES, ids=list(ids_of_cases(BASIC_CASES))
)
def test_basic_matches_heat(snippet: Any, version: str, stage: str, expected: Any) -> None:
    assert run_stages(snippet, version) == (stage, expected)


NESTED_CASES: list[tuple[Any, str, str, Any]] = [
    # map_merge: arguments that are themselves functions
    (
        {"map_merge": {"yaql": {"expression": "$.data", "data": [{"a": 1}, {"b": 2}]}}},
        "2021-04-16",
        "ok",
        {"a": 1, "b": 2},
    ),
    # map_replace: arguments that are themselves functions
    (
        {
            "map_replace": {
                "yaql": {"expression": "$.data", "data": [{"a": 1}, {"keys": {"a": "b"}}]}
            }
        },
        "2021-04-16",
        "ok",
        {"b": 1},
    ),
    (
        {"map_replace": {"yaql": {"expression": "$.data", "data": {0: {"a": 1}}}}},
        "2021-04-16",
        "resolve",
        "0",
    ),
    # list_concat: arguments that are themselves functions
    (
        {"list_concat": {"yaql": {"expression": "$.data", "data": [[1], [2]]}}},
        "2021-04-16",
        "ok",
        [1, 2],
    ),
    (
        {"list_concat": [{"yaql": {"expression": "$.data", "data": [1]}}, [2]]},
        "2021-04-16",
        "ok",
        [1, 2],
    ),
    # contains: arguments that are themselves functions
    (
        {
            "contains": [
                {"yaql": {"expression": "$.data", "data": [1]}},
                {"yaql": {"expression": "$.data", "data": [[1], 2]}},
            ]
        },
        "2021-04-16",
        "ok",
        True,
    ),
    (
        {"contains": {"yaql": {"expression": "$.data", "data": [1, [1]]}}},
        "2021-04-16",
        "parse",
        'test.contains: Incorrect arguments to "contains" should be: "contains" : [ "value1", [ "value1", "value2"]]',
    ),
    # filter: arguments that are themselves functions
    (
        {
            "filter": [
                {"yaql": {"expression": "$.data", "data": [1]}},
                {"yaql": {"expression": "$.data", "data": [1, 2]}},
            ]
        },
        "2021-04-16",
        "ok",
        [2],
    ),
    ({"filter": [[1], {"str_split": [",", "1,2"]}]}, "2021-04-16", "ok", ["1", "2"]),
    # repeat: arguments that are themselves functions
    (
        {
            "repeat": {
                "for_each": {"%x%": {"yaql": {"expression": "$.data", "data": {"a": 1, "b": 2}}}},
                "template": "%x%",
            }
        },
        "2021-04-16",
        "ok",
        ["a", "b"],
    ),
    (
        {
            "repeat": {
                "for_each": {"%x%": ["a", "b"]},
                "template": {"%x%": {"yaql": {"expression": "$.data", "data": "%x%"}}},
            }
        },
        "2021-04-16",
        "ok",
        [{"a": "a"}, {"b": "b"}],
    ),
]


@pytest.mark.parametrize(
    ("snippet", "version", "stage", "expected"), NESTED_CASES, ids=list(ids_of_cases(NESTED_CASES))
)
def test_nested_matches_heat(snippet: Any, version: str, stage: str, expected: Any) -> None:
    assert run_stages(snippet, version) == (stage, expected)


ELIDED_CASES: list[tuple[Any, str, str, Any]] = [
    # repeat: arguments that elide themselves (two-argument ``if`` with a false condition)
    (
        {"repeat": {"template": "%a%", "for_each": {"%a%": {"elided": [["x"]]}}}},
        "2021-04-16",
        "resolve",
        "not enough values to unpack (expected 2, got 0)",
    ),
    (
        {"repeat": {"template": {"elided": ["x"]}, "for_each": {"%a%": ["x"]}}},
        "2021-04-16",
        "ok",
        [None],
    ),
    # contains: arguments that elide themselves (two-argument ``if`` with a false condition)
    ({"contains": [{"elided": ["a"]}, [None]]}, "2021-04-16", "ok", True),
    # map_merge: arguments that elide themselves (two-argument ``if`` with a false condition)
    ({"map_merge": [{"a": 1}, {"elided": [{"b": 1}]}]}, "2021-04-16", "ok", {"a": 1}),
    (
        {"map_merge": {"elided": [[{"b": 1}]]}},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "map_merge" should be: "map_merge" : [ { "key1": "val1" }, { "key2": "val2" } ]',
    ),
    # filter: arguments that elide themselves (two-argument ``if`` with a false condition)
    ({"filter": [{"elided": [["a"]]}, ["a"]]}, "2021-04-16", "ok", ["a"]),
    # list_concat: arguments that elide themselves (two-argument ``if`` with a false condition)
    ({"list_concat": [["a"], {"elided": [["b"]]}]}, "2021-04-16", "ok", ["a"]),
    # map_replace: arguments that elide themselves (two-argument ``if`` with a false condition)
    ({"map_replace": [{"a": 1}, {"keys": {"elided": [{"a": "b"}]}}]}, "2021-04-16", "ok", {"a": 1}),
]


@pytest.mark.parametrize(
    ("snippet", "version", "stage", "expected"), ELIDED_CASES, ids=list(ids_of_cases(ELIDED_CASES))
)
def test_elided_matches_heat(snippet: Any, version: str, stage: str, expected: Any) -> None:
    assert run_stages(snippet, version) == (stage, expected)


# --- behaviours worth spelling out on their own ----------------------------------------------


def test_repeat_across_versions() -> None:
    lists = {"repeat": {"template": "%a%-%b%", "for_each": {"%a%": ["x", "y"], "%b%": ["1", "2"]}}}
    product = ["x-1", "x-2", "y-1", "y-2"]
    for version in ("2015-04-30", "2016-10-14", "2017-09-01", "2021-04-16"):
        assert run_stages(lists, version) == ("ok", product)

    zipped = {"repeat": {**lists["repeat"], "permutations": False}}
    assert run_stages(zipped, "2017-09-01") == ("ok", ["x-1", "y-2"])
    # Before 2017-09-01 ``permutations`` is just an unknown key, silently ignored.
    assert run_stages(zipped, "2017-02-24") == ("ok", product)

    maps = {"repeat": {"template": "%k%", "for_each": {"%k%": {"one": 1, "two": 2}}}}
    assert run_stages(maps, "2016-10-14") == ("ok", ["one", "two"])
    assert run_stages(maps, "2016-04-08") == (
        "resolve",
        'The values of the "for_each" argument to "repeat" must be lists',
    )


def test_repeat_copies_are_independent() -> None:
    stage, value = run_stages({"repeat": {"template": {"k": ["%v%"]}, "for_each": {"%v%": ["a", "b"]}}})
    assert stage == "ok"
    assert value == [{"k": ["a"]}, {"k": ["b"]}]
    value[0]["k"].append("changed")
    assert value[1] == {"k": ["b"]}


def test_repeat_checks_functions_inside_its_arguments_first() -> None:
    snippet = {"repeat": {"template": "x", "for_each": [{"yaql": {"expression": "$.("}}]}}
    stage, message = run_stages(snippet)
    assert stage == "validate"
    assert message.endswith("Bad expression Parse error: unexpected end of statement.")


def test_list_concat_unique_uses_equality_and_keeps_order() -> None:
    snippet = {"list_concat_unique": [[3, 1, {"a": [1]}], [1.0, True, 3, {"a": [1]}, [2], [2]]]}
    assert run_stages(snippet) == ("ok", [3, 1, {"a": [1]}, [2]])


def test_list_concat_unique_is_fast_on_long_lists() -> None:
    items = list(range(20000))
    assert run_stages({"list_concat_unique": [items, items]}) == ("ok", items)


def test_contains_is_a_condition_function_from_2017_09_01() -> None:
    scope = FakeScope(version_name="heat_template_version.2017-09-01")
    assert scope.condition({"contains": ["a", ["a", "b"]]}, "conditions.c") is True
    assert scope.condition({"contains": ["z", ["a", "b"]]}, "conditions.c") is False
