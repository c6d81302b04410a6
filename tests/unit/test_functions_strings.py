"""Tests for the string functions: list_join, str_replace (and its strict flavours), str_split,
digest and make_url.

Every expected value and message in the tables below was obtained from real Heat 27 (its
``heat.engine.hot.functions`` evaluating the same snippet in the same template version); the
stage says when Heat reports the problem: while parsing the template, while validating it, or
only once the function is resolved.
"""

# ruff: noqa: E501  (the tables hold Heat's messages verbatim)

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.fakes import ids_of_cases, run_stages

BASIC_CASES: list[tuple[Any, str, str, Any]] = [
    # list_join: values, argument shapes and errors
    ({"list_join": [",", ["a", "b"]]}, "2015-04-30", "ok", "a,b"),
    (
        {"list_join": [",", ["a", 1]]},
        "2015-04-30",
        "resolve",
        "Items to join must be strings not 1",
    ),
    ({"list_join": [",", ["a", None]]}, "2015-04-30", "ok", "a,"),
    ({"list_join": [",", None]}, "2015-04-30", "ok", ""),
    (
        {"list_join": [",", ["a"], ["b"]]},
        "2015-04-30",
        "parse",
        'test.list_join: Incorrect arguments to "list_join" should be: "list_join" : [ " ", [ "str1", "str2"]]',
    ),
    ({"list_join": [",", "ab"]}, "2015-04-30", "resolve", '"list_join" must operate on a list'),
    ({"list_join": [",", {"a": 1}]}, "2015-04-30", "resolve", '"list_join" must operate on a list'),
    (
        {"list_join": ","},
        "2015-04-30",
        "parse",
        'test.list_join: Incorrect arguments to "list_join" should be: "list_join" : [ " ", [ "str1", "str2"]]',
    ),
    (
        {"list_join": [","]},
        "2013-05-23",
        "parse",
        'test.list_join: Incorrect arguments to "list_join" should be: "list_join" : [ " ", [ "str1", "str2"]]',
    ),
    ({"list_join": [1, ["a"]]}, "2015-04-30", "resolve", '"list_join" delimiter must be a string'),
    (
        {"list_join": [",", [["a"]]]},
        "2014-10-16",
        "resolve",
        "Items to join must be strings not ['a']",
    ),
    (
        {"list_join": [",", ["a", 1], [{"b": 1, "a": 2}], None, [], [None, [1, 2], 3.5, True]]},
        "2021-04-16",
        "resolve",
        "Items to join must be string, map or list not 1",
    ),
    (
        {
            "list_join": [
                ",",
                ["a", [1, 2]],
                [{"b": 1, "a": ["x", {"d": 1, "c": 2}]}],
                None,
                [],
                [None, "c"],
            ]
        },
        "2021-04-16",
        "ok",
        'a,[1, 2],{"a": ["x", {"c": 2, "d": 1}], "b": 1},,c',
    ),
    (
        {"list_join": [",", ["a", 1]]},
        "2021-04-16",
        "resolve",
        "Items to join must be string, map or list not 1",
    ),
    (
        {"list_join": [",", ["a", True]]},
        "2021-04-16",
        "resolve",
        "Items to join must be string, map or list not True",
    ),
    (
        {"list_join": [",", ["a", 1.5]]},
        "2021-04-16",
        "resolve",
        "Items to join must be string, map or list not 1.5",
    ),
    ({"list_join": [",", "ab"]}, "2021-04-16", "resolve", '"list_join" must operate on a list'),
    ({"list_join": [",", ""]}, "2021-04-16", "ok", ""),
    ({"list_join": [",", 0]}, "2021-04-16", "ok", ""),
    ({"list_join": [",", 5]}, "2021-04-16", "resolve", '"list_join" must operate on a list'),
    (
        {"list_join": [",", ["a"], "x"]},
        "2021-04-16",
        "resolve",
        '"list_join" must operate on a list',
    ),
    (
        {"list_join": [","]},
        "2021-04-16",
        "parse",
        'test.list_join: Incorrect arguments to "list_join" should be: "list_join" : [ " ", [ "str1", "str2"] ...]',
    ),
    (
        {"list_join": ","},
        "2021-04-16",
        "parse",
        'test.list_join: Incorrect arguments to "list_join" should be: "list_join" : [ " ", [ "str1", "str2"] ...]',
    ),
    (
        {"list_join": {"a": "b"}},
        "2021-04-16",
        "parse",
        'test.list_join: Incorrect arguments to "list_join" should be: "list_join" : [ " ", [ "str1", "str2"] ...]',
    ),
    ({"list_join": [1, ["a"]]}, "2021-04-16", "resolve", '"list_join" delimiter must be a string'),
    (
        {"list_join": [None, ["a"]]},
        "2021-04-16",
        "resolve",
        '"list_join" delimiter must be a string',
    ),
    (
        {"list_join": [",", {"a": "b"}]},
        "2021-04-16",
        "resolve",
        '"list_join" must operate on a list',
    ),
    ({"list_join": ["", ["a", "b"], ["c"]]}, "2015-10-15", "ok", "abc"),
    (
        {"list_join": [",", [{1: "a", "b": "c"}]]},
        "2021-04-16",
        "resolve",
        "Items to join must be string, map or list. {1: 'a', 'b': 'c'} failed json serialization",
    ),
    ({"list_join": [", ", [{"é": "ü"}]]}, "2021-04-16", "ok", '{"\\u00e9": "\\u00fc"}'),
    # str_replace: values, argument shapes and errors
    (
        {"str_replace": {"template": "foo bar", "params": {"foo": 1, "bar": 2.5}}},
        "2013-05-23",
        "ok",
        "1 2.5",
    ),
    (
        {"str_replace": {"template": "foo bar", "params": {"foo": True, "bar": None}}},
        "2015-04-30",
        "ok",
        "True ",
    ),
    (
        {"str_replace": {"template": "foo bar", "params": {"foo": [1]}}},
        "2015-04-30",
        "resolve",
        '"str_replace" params must be strings or numbers, param foo is not valid',
    ),
    (
        {"str_replace": {"template": "foo bar", "params": {"foo": {"a": 1}}}},
        "2015-04-30",
        "resolve",
        '"str_replace" params must be strings or numbers, param foo is not valid',
    ),
    (
        {
            "str_replace": {
                "template": "foo bar",
                "params": {"foo": [1, {"b": 2, "a": 1}], "bar": {}},
            }
        },
        "2021-04-16",
        "ok",
        '[1, {"a": 1, "b": 2}] {}',
    ),
    (
        {
            "str_replace": {
                "template": "foo bar",
                "params": {"foo": [1, {"b": 2, "a": 1}], "bar": {}},
            }
        },
        "2015-10-15",
        "ok",
        '[1, {"a": 1, "b": 2}] {}',
    ),
    (
        {"str_replace": {"template": "abcabc", "params": {"a": "ab", "ab": "X", "abc": "Y"}}},
        "2021-04-16",
        "ok",
        "YY",
    ),
    (
        {"str_replace": {"template": "aaa", "params": {"a": "b", "b": "c"}}},
        "2021-04-16",
        "ok",
        "bbb",
    ),
    (
        {"str_replace": {"template": "xyz", "params": {"y": "x", "x": "y"}}},
        "2021-04-16",
        "ok",
        "yxz",
    ),
    (
        {"str_replace": {"template": "$a $ab $b", "params": {"$a": "1", "$ab": "2", "$b": "$a"}}},
        "2021-04-16",
        "ok",
        "1 2 $a",
    ),
    (
        {"str_replace": {"template": 5, "params": {"a": "b"}}},
        "2021-04-16",
        "resolve",
        '"str_replace" template must be a string',
    ),
    (
        {"str_replace": {"template": ["a"], "params": {"a": "b"}}},
        "2021-04-16",
        "resolve",
        '"str_replace" template must be a string',
    ),
    (
        {"str_replace": {"template": None, "params": {"a": "b"}}},
        "2021-04-16",
        "resolve",
        '"str_replace" template must be a string',
    ),
    (
        {"str_replace": {"template": "ab", "params": ["a"]}},
        "2021-04-16",
        "parse",
        'test.str_replace: "str_replace" parameters must be a mapping',
    ),
    (
        {"str_replace": {"template": "ab", "params": "a"}},
        "2021-04-16",
        "parse",
        'test.str_replace: "str_replace" parameters must be a mapping',
    ),
    (
        {"str_replace": {"template": "ab", "params": None}},
        "2021-04-16",
        "parse",
        'test.str_replace: "str_replace" parameters must be a mapping',
    ),
    (
        {"str_replace": {"template": "ab"}},
        "2021-04-16",
        "parse",
        "test.str_replace: '\"str_replace\" syntax should be str_replace:\\n              template: This is var1 template var2\\n              params:\\n                var1: a\\n                var2: string'",
    ),
    (
        {"str_replace": {"params": {}}},
        "2021-04-16",
        "parse",
        "test.str_replace: '\"str_replace\" syntax should be str_replace:\\n              template: This is var1 template var2\\n              params:\\n                var1: a\\n                var2: string'",
    ),
    (
        {"str_replace": ["a", "b"]},
        "2021-04-16",
        "parse",
        'test.str_replace: Arguments to "str_replace" must be a map',
    ),
    (
        {"str_replace": "x"},
        "2021-04-16",
        "parse",
        'test.str_replace: Arguments to "str_replace" must be a map',
    ),
    (
        {"str_replace": {"template": "ab", "params": {"a": "b"}, "extra": 1}},
        "2021-04-16",
        "ok",
        "bb",
    ),
    (
        {"str_replace": {"template": "ab", "params": {1: "b"}}},
        "2021-04-16",
        "resolve",
        "object of type 'int' has no len()",
    ),
    (
        {"str_replace": {"template": "ab", "params": {1: "b", "a": "c"}}},
        "2021-04-16",
        "resolve",
        "'<' not supported between instances of 'str' and 'int'",
    ),
    (
        {"str_replace": {"template": "ab", "params": {"": "b"}}},
        "2021-04-16",
        "resolve",
        "empty separator",
    ),
    ({"str_replace": {"template": "ab", "params": {}}}, "2021-04-16", "ok", "ab"),
    ({"str_replace": {"template": "a1", "params": {"a": 1, "1": 2}}}, "2021-04-16", "ok", "12"),
    # str_replace_strict: values, argument shapes and errors
    (
        {"str_replace_strict": {"template": "ab", "params": {"a": "x", "c": "y", "dd": "z"}}},
        "2021-04-16",
        "resolve",
        "The following params were not found in the template: dd,c",
    ),
    (
        {"str_replace_strict": {"template": "ab", "params": {"a": "x", "b": "y"}}},
        "2021-04-16",
        "ok",
        "xy",
    ),
    (
        {"str_replace_strict": {"template": "ab", "params": {"ab": "x", "b": "y"}}},
        "2021-04-16",
        "resolve",
        "The following params were not found in the template: b",
    ),
    ({"str_replace_strict": {"template": "ab", "params": {"a": None}}}, "2021-04-16", "ok", "b"),
    (
        {"str_replace_strict": {"template": "ab", "params": {"a": "b"}}},
        "2016-10-14",
        "ok",
        {"str_replace_strict": {"template": "ab", "params": {"a": "b"}}},
    ),
    ({"str_replace_strict": {"template": "ab", "params": {"a": "b"}}}, "2017-02-24", "ok", "bb"),
    (
        {"str_replace_strict": {"template": "ab", "params": ["a"]}},
        "2021-04-16",
        "parse",
        'test.str_replace_strict: "str_replace_strict" parameters must be a mapping',
    ),
    # str_replace_vstrict: values, argument shapes and errors
    (
        {"str_replace_vstrict": {"template": "ab", "params": {"a": None}}},
        "2021-04-16",
        "resolve",
        "str_replace_vstrict has an undefined or empty value for param a, must be a defined non-empty value",
    ),
    (
        {"str_replace_vstrict": {"template": "ab", "params": {"a": ""}}},
        "2021-04-16",
        "resolve",
        "str_replace_vstrict has an undefined or empty value for param a, must be a defined non-empty value",
    ),
    (
        {"str_replace_vstrict": {"template": "ab", "params": {"a": []}}},
        "2021-04-16",
        "resolve",
        "str_replace_vstrict has an undefined or empty value for param a, must be a defined non-empty value",
    ),
    (
        {"str_replace_vstrict": {"template": "ab", "params": {"a": {}}}},
        "2021-04-16",
        "resolve",
        "str_replace_vstrict has an undefined or empty value for param a, must be a defined non-empty value",
    ),
    (
        {"str_replace_vstrict": {"template": "ab", "params": {"a": 0, "b": False}}},
        "2021-04-16",
        "ok",
        "0False",
    ),
    ({"str_replace_vstrict": {"template": "ab", "params": {"a": [1]}}}, "2021-04-16", "ok", "[1]b"),
    (
        {"str_replace_vstrict": {"template": "ab", "params": {"a": "x"}}},
        "2017-02-24",
        "ok",
        {"str_replace_vstrict": {"template": "ab", "params": {"a": "x"}}},
    ),
    # str_split: values, argument shapes and errors
    ({"str_split": [",", "a,b,c"]}, "2021-04-16", "ok", ["a", "b", "c"]),
    ({"str_split": [",", "a,b,c", 1]}, "2021-04-16", "ok", "b"),
    ({"str_split": [",", "a,b,c", "2"]}, "2021-04-16", "ok", "c"),
    ({"str_split": [",", "a,b,c", -1]}, "2021-04-16", "ok", "c"),
    (
        {"str_split": [",", "a,b,c", 3]},
        "2021-04-16",
        "resolve",
        'Incorrect index to "str_split" should be between 0 and 2',
    ),
    (
        {"str_split": [",", "a,b,c", "x"]},
        "2021-04-16",
        "resolve",
        'Incorrect index to "str_split" should be: "str_split" : [ ",", "apples,pears", <index>]',
    ),
    (
        {"str_split": [",", "a,b,c", None]},
        "2021-04-16",
        "resolve",
        "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'",
    ),
    ({"str_split": [",", "a,b,c", 1.9]}, "2021-04-16", "ok", "b"),
    ({"str_split": [",", "a,b,c", 1, 7]}, "2021-04-16", "ok", "b"),
    ({"str_split": [",", None]}, "2021-04-16", "ok", None),
    ({"str_split": [",", None, 5]}, "2021-04-16", "ok", None),
    ({"str_split": [",", 5]}, "2021-04-16", "resolve", "'int' object has no attribute 'split'"),
    (
        {"str_split": [",", ["a"]]},
        "2021-04-16",
        "resolve",
        "'list' object has no attribute 'split'",
    ),
    ({"str_split": [None, "a b  c"]}, "2021-04-16", "ok", ["a", "b", "c"]),
    ({"str_split": ["", "abc"]}, "2021-04-16", "resolve", "empty separator"),
    ({"str_split": [1, "abc"]}, "2021-04-16", "resolve", "must be str or None, not int"),
    (
        {"str_split": [","]},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "str_split" should be: "str_split" : [ ",", "apples,pears", <index>]',
    ),
    (
        {"str_split": []},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "str_split" should be: "str_split" : [ ",", "apples,pears", <index>]',
    ),
    (
        {"str_split": ","},
        "2021-04-16",
        "parse",
        'test.str_split: Incorrect arguments to "str_split" should be: "str_split" : [ ",", "apples,pears", <index>]',
    ),
    (
        {"str_split": {"a": "b"}},
        "2021-04-16",
        "parse",
        'test.str_split: Incorrect arguments to "str_split" should be: "str_split" : [ ",", "apples,pears", <index>]',
    ),
    (
        {"str_split": 5},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "str_split" should be: "str_split" : [ ",", "apples,pears", <index>]',
    ),
    (
        {"str_split": None},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "str_split" should be: "str_split" : [ ",", "apples,pears", <index>]',
    ),
    ({"str_split": [",", "a,b"]}, "2015-04-30", "ok", {"str_split": [",", "a,b"]}),
    ({"str_split": [",", ""]}, "2021-04-16", "ok", [""]),
    # digest: values, argument shapes and errors
    (
        {"digest": ["sha256", "abc"]},
        "2021-04-16",
        "ok",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    ),
    ({"digest": ["md5", ""]}, "2021-04-16", "ok", "d41d8cd98f00b204e9800998ecf8427e"),
    ({"digest": ["SHA1", "é"]}, "2021-04-16", "ok", "1599e9fa41ec68c80230491902786bee889f5bcb"),
    (
        {"digest": ["sha512", "x"]},
        "2021-04-16",
        "ok",
        "a4abd4448c49562d828115d13a1fccea927f52b4d5459297f8b43e42da89238bc13626e43dcb38ddb082488927ec904fb42057443983e88585179d50551afe62",
    ),
    (
        {"digest": ["sha256", "€"]},
        "2021-04-16",
        "resolve",
        "'latin-1' codec can't encode character '\\u20ac' in position 0: ordinal not in range(256)",
    ),
    (
        {"digest": ["sha256"]},
        "2021-04-16",
        "resolve",
        'Function "digest" usage: ["<algorithm>", "<value>"]',
    ),
    (
        {"digest": ["sha256", "a", "b"]},
        "2021-04-16",
        "resolve",
        'Function "digest" usage: ["<algorithm>", "<value>"]',
    ),
    (
        {"digest": ["sha256", 1]},
        "2021-04-16",
        "resolve",
        'Argument to function "digest" must be a list of strings',
    ),
    (
        {"digest": "sha256"},
        "2021-04-16",
        "resolve",
        'Argument to function "digest" must be a list of strings',
    ),
    (
        {"digest": ["shake_128", "abc"]},
        "2021-04-16",
        "resolve",
        "hexdigest() missing required argument 'length' (pos 1)",
    ),
    ({"digest": ["md5", "abc"]}, "2015-04-30", "ok", "900150983cd24fb0d6963f7d28e17f72"),
    ({"digest": ["md5", "abc"]}, "2014-10-16", "ok", {"digest": ["md5", "abc"]}),
    # make_url: values, argument shapes and errors
    (
        {
            "make_url": {
                "scheme": "https",
                "host": "example.com",
                "port": 8443,
                "path": "/v1/items",
                "query": {"q": "a b/c", "z": 1},
                "fragment": "frag ment",
            }
        },
        "2021-04-16",
        "ok",
        "https://example.com:8443/v1/items?q=a+b/c&z=1#frag%20ment",
    ),
    (
        {
            "make_url": {
                "scheme": "http",
                "username": "us er",
                "password": "p@ss:w",
                "host": "::1",
                "port": "80",
            }
        },
        "2021-04-16",
        "ok",
        "http://us%20er:p%40ss%3Aw@[::1]:80",
    ),
    (
        {"make_url": {"scheme": "http", "username": "us", "host": "[fe80::1]"}},
        "2021-04-16",
        "ok",
        "http://us@[fe80::1]",
    ),
    (
        {"make_url": {"scheme": "http", "password": "pw", "host": "h"}},
        "2021-04-16",
        "ok",
        "http://:pw@h",
    ),
    ({"make_url": {"host": "h", "path": "a b"}}, "2021-04-16", "ok", "//h/a%20b"),
    (
        {"make_url": {"scheme": "ht:tp", "host": "h"}},
        "2021-04-16",
        "resolve",
        "URL \"scheme\" should not contain ':'",
    ),
    (
        {"make_url": {"scheme": 5, "host": "h"}},
        "2021-04-16",
        "validate",
        'test.make_url: The "scheme" argument to "make_url" must be a string',
    ),
    (
        {"make_url": {"host": "h", "port": 0}},
        "2021-04-16",
        "validate",
        "test.make_url: Invalid URL port 0, must be in range 1-65535",
    ),
    (
        {"make_url": {"host": "h", "port": 65536}},
        "2021-04-16",
        "validate",
        "test.make_url: Invalid URL port 65536, must be in range 1-65535",
    ),
    (
        {"make_url": {"host": "h", "port": "http"}},
        "2021-04-16",
        "validate",
        "test.make_url: Invalid URL port \"http\" for make_url called with {'host': 'h', 'port': 'http'}",
    ),
    (
        {"make_url": {"host": "h", "port": None}},
        "2021-04-16",
        "validate",
        "test.make_url: int() argument must be a string, a bytes-like object or a real number, not 'NoneType'",
    ),
    ({"make_url": {"host": "h", "port": 65535}}, "2021-04-16", "ok", "//h:65535"),
    (
        {"make_url": {"host": "h", "query": ["a"]}},
        "2021-04-16",
        "validate",
        'test.make_url: The "query" argument to "make_url" must be a map',
    ),
    (
        {"make_url": {"host": "h", "query": {"a": "b"}, "fragment": 5}},
        "2021-04-16",
        "resolve",
        "quote_from_bytes() expected bytes",
    ),
    (
        {"make_url": {"host": "h", "fragment": 5}},
        "2021-04-16",
        "validate",
        'test.make_url: The "fragment" argument to "make_url" must be a string',
    ),
    (
        {"make_url": {"host": "h", "bogus": 1}},
        "2021-04-16",
        "validate",
        'test.make_url: Invalid arguments to "make_url": bogus',
    ),
    (
        {"make_url": ["a"]},
        "2021-04-16",
        "validate",
        'test.make_url: The arguments to "make_url" must be a map',
    ),
    (
        {"make_url": "x"},
        "2021-04-16",
        "validate",
        'test.make_url: The arguments to "make_url" must be a map',
    ),
    ({"make_url": {}}, "2021-04-16", "ok", ""),
    ({"make_url": {"path": "/a/b"}}, "2021-04-16", "ok", "/a/b"),
    ({"make_url": {"scheme": "file", "path": "/etc/x"}}, "2021-04-16", "ok", "file:///etc/x"),
    ({"make_url": {"host": "h"}}, "2017-02-24", "ok", {"make_url": {"host": "h"}}),
]


@pytest.mark.parametrize(
    ("snippet", "version", "stage", "expected"), BASIC_CASES, ids=list(ids_of_cases(BASIC_CASES))
)
def test_basic_matches_heat(snippet: Any, version: str, stage: str, expected: Any) -> None:
    assert run_stages(snippet, version) == (stage, expected)


NESTED_CASES: list[tuple[Any, str, str, Any]] = [
    # list_join: arguments that are themselves functions
    (
        {"list_join": [",", [{"yaql": {"expression": "$.data", "data": [1]}}]]},
        "2021-04-16",
        "ok",
        "[1]",
    ),
    (
        {"list_join": {"yaql": {"expression": "$.data", "data": [",", ["a"]]}}},
        "2021-04-16",
        "parse",
        'test.list_join: Incorrect arguments to "list_join" should be: "list_join" : [ " ", [ "str1", "str2"] ...]',
    ),
    # str_replace: arguments that are themselves functions
    (
        {
            "str_replace": {
                "template": "ab",
                "params": {"yaql": {"expression": "$.data", "data": {"a": "x"}}},
            }
        },
        "2021-04-16",
        "ok",
        "xb",
    ),
    (
        {
            "str_replace": {
                "template": {"yaql": {"expression": "$.data", "data": "abc"}},
                "params": {"a": {"yaql": {"expression": "$.data", "data": [1, {"c": 1, "b": 2}]}}},
            }
        },
        "2021-04-16",
        "ok",
        '[1, {"b": 2, "c": 1}]bc',
    ),
    (
        {
            "str_replace": {
                "template": "ab",
                "params": {"yaql": {"expression": "$.data", "data": ["a"]}},
            }
        },
        "2021-04-16",
        "resolve",
        '"str_replace" params must be a map',
    ),
    # str_replace_strict: arguments that are themselves functions
    (
        {"str_replace_strict": {"template": "ab", "params": {"yaql": {"expression": "null"}}}},
        "2021-04-16",
        "resolve",
        "'NoneType' object is not iterable",
    ),
    (
        {
            "str_replace_strict": {
                "template": "ab",
                "params": {"yaql": {"expression": "$.data", "data": ["a"]}},
            }
        },
        "2021-04-16",
        "resolve",
        '"str_replace_strict" params must be a map',
    ),
    (
        {
            "str_replace_strict": {
                "template": "ab",
                "params": {"yaql": {"expression": "$.data", "data": "ab"}},
            }
        },
        "2021-04-16",
        "resolve",
        '"str_replace_strict" params must be a map',
    ),
    # str_split: arguments that are themselves functions
    (
        {"str_split": {"yaql": {"expression": "$.data", "data": [",", "a,b", 1]}}},
        "2021-04-16",
        "ok",
        "b",
    ),
    (
        {"str_split": {"yaql": {"expression": "$.data", "data": {0: ","}}}},
        "2021-04-16",
        "resolve",
        "0",
    ),
    (
        {"str_split": {"yaql": {"expression": "$.data", "data": "a,b"}}},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "str_split" should be: "str_split" : [ ",", "apples,pears", <index>]',
    ),
    # digest: arguments that are themselves functions
    (
        {"digest": {"yaql": {"expression": "$.data", "data": ["md5", "x"]}}},
        "2021-04-16",
        "ok",
        "9dd4e461268c8034f5c8564e155c67a6",
    ),
    # make_url: arguments that are themselves functions
    (
        {"make_url": {"yaql": {"expression": "$.data", "data": {"host": "h"}}}},
        "2021-04-16",
        "validate",
        'test.make_url: The arguments to "make_url" must be a map',
    ),
    (
        {"make_url": {"host": {"yaql": {"expression": "$.data", "data": 5}}}},
        "2021-04-16",
        "resolve",
        'The "host" argument to "make_url" must be a string',
    ),
    (
        {"make_url": {"host": "h", "port": {"yaql": {"expression": "$.data", "data": "x"}}}},
        "2021-04-16",
        "resolve",
        "Invalid URL port \"x\" for make_url called with {'host': 'h', 'port': 'x'}",
    ),
    (
        {"make_url": {"host": "h", "port": {"yaql": {"expression": "$.data", "data": 99999}}}},
        "2021-04-16",
        "resolve",
        "Invalid URL port 99999, must be in range 1-65535",
    ),
    (
        {"make_url": {"host": "h", "query": {"yaql": {"expression": "$.data", "data": [1]}}}},
        "2021-04-16",
        "resolve",
        'The "query" argument to "make_url" must be a map',
    ),
    (
        {
            "make_url": {
                "host": "h",
                "query": {"yaql": {"expression": "$.data", "data": {"a": [1, 2], "b": None}}},
            }
        },
        "2021-04-16",
        "ok",
        "//h?a=%5B1%2C+2%5D&b=None",
    ),
]


@pytest.mark.parametrize(
    ("snippet", "version", "stage", "expected"), NESTED_CASES, ids=list(ids_of_cases(NESTED_CASES))
)
def test_nested_matches_heat(snippet: Any, version: str, stage: str, expected: Any) -> None:
    assert run_stages(snippet, version) == (stage, expected)


ELIDED_CASES: list[tuple[Any, str, str, Any]] = [
    # list_join: arguments that elide themselves (two-argument ``if`` with a false condition)
    ({"list_join": [",", {"elided": [["a"]]}, ["b"]]}, "2021-04-16", "ok", "b"),
    (
        {"list_join": [{"elided": [","]}, ["a", "b"]]},
        "2021-04-16",
        "resolve",
        '"list_join" delimiter must be a string',
    ),
    ({"list_join": [",", ["a", {"elided": ["x"]}, "b"]]}, "2021-04-16", "ok", "a,b"),
    # str_replace: arguments that elide themselves (two-argument ``if`` with a false condition)
    (
        {"str_replace": {"template": {"elided": ["x"]}, "params": {}}},
        "2021-04-16",
        "resolve",
        '"str_replace" template must be a string',
    ),
    (
        {"str_replace": {"template": "ab", "params": {"a": {"elided": ["x"]}}}},
        "2021-04-16",
        "ok",
        "ab",
    ),
    (
        {"str_replace": {"template": "ab", "params": {"elided": [{"a": "x"}]}}},
        "2021-04-16",
        "resolve",
        '"str_replace" params must be a map',
    ),
    # make_url: arguments that elide themselves (two-argument ``if`` with a false condition)
    ({"make_url": {"host": "h", "port": {"elided": [80]}}}, "2021-04-16", "ok", "//h"),
    # str_split: arguments that elide themselves (two-argument ``if`` with a false condition)
    (
        {"str_split": [",", {"elided": ["a,b"]}]},
        "2021-04-16",
        "resolve",
        'Incorrect arguments to "str_split" should be: "str_split" : [ ",", "apples,pears", <index>]',
    ),
    ({"str_split": [",", "a,b", {"elided": [1]}]}, "2021-04-16", "ok", ["a", "b"]),
    # digest: arguments that elide themselves (two-argument ``if`` with a false condition)
    (
        {"digest": ["md5", {"elided": ["a"]}]},
        "2021-04-16",
        "resolve",
        'Function "digest" usage: ["<algorithm>", "<value>"]',
    ),
]


@pytest.mark.parametrize(
    ("snippet", "version", "stage", "expected"), ELIDED_CASES, ids=list(ids_of_cases(ELIDED_CASES))
)
def test_elided_matches_heat(snippet: Any, version: str, stage: str, expected: Any) -> None:
    assert run_stages(snippet, version) == (stage, expected)


# --- behaviours worth spelling out on their own ----------------------------------------------


def test_list_join_single_list_versions_reject_non_strings_that_later_versions_serialise() -> None:
    snippet = {"list_join": [",", [{"b": 1, "a": 2}]]}
    assert run_stages(snippet, "2015-04-30") == (
        "resolve",
        "Items to join must be strings not {'b': 1, 'a': 2}",
    )
    assert run_stages(snippet, "2015-10-15") == ("ok", '{"a": 2, "b": 1}')


def test_list_join_several_lists_only_from_2015_10_15() -> None:
    snippet = {"list_join": ["-", ["a", "b"], ["c"]]}
    assert run_stages(snippet, "2015-10-15") == ("ok", "a-b-c")
    stage, message = run_stages(snippet, "2015-04-30")
    assert stage == "parse"
    assert message.startswith("test.list_join: Incorrect arguments")


def test_str_replace_lists_and_maps_become_json_from_2015_10_15() -> None:
    snippet = {"str_replace": {"template": "v=V", "params": {"V": {"k": [1, None]}}}}
    assert run_stages(snippet, "2015-10-15") == ("ok", 'v={"k": [1, null]}')
    assert run_stages(snippet, "2015-04-30") == (
        "resolve",
        '"str_replace" params must be strings or numbers, param V is not valid',
    )


def test_str_replace_never_rescans_inserted_text() -> None:
    # "a" is replaced by "b" and "b" by "a"; neither replacement is replaced again.
    assert run_stages({"str_replace": {"template": "ab", "params": {"a": "b", "b": "a"}}}) == ("ok", "ba")


def test_str_replace_longest_placeholder_wins_then_string_order() -> None:
    params = {"$x": "1", "$xy": "2", "$y": "3"}
    assert run_stages({"str_replace": {"template": "$xy$x$y", "params": params}}) == ("ok", "213")


def test_str_replace_handles_thousands_of_placeholders() -> None:
    params = {f"<{i}>": str(i * 2) for i in range(3000)}
    template = "".join(f"<{i}>" for i in range(3000))
    expected = "".join(str(i * 2) for i in range(3000))
    assert run_stages({"str_replace": {"template": template, "params": params}}) == ("ok", expected)


def test_str_replace_params_from_a_function_are_checked_when_resolved() -> None:
    params = {"yaql": {"expression": "$.data", "data": [1]}}
    stage, message = run_stages({"str_replace": {"template": "x", "params": params}})
    assert (stage, message) == ("resolve", '"str_replace" params must be a map')


def test_digest_unknown_algorithm_lists_the_available_ones() -> None:
    stage, message = run_stages({"digest": ["nosuchhash", "x"]})
    assert stage == "resolve"
    assert message.startswith("Algorithm must be one of {")
    assert "'sha256'" in message


def test_digest_algorithm_name_is_case_insensitive() -> None:
    assert run_stages({"digest": ["SHA256", "abc"]}) == run_stages({"digest": ["sha256", "abc"]})


def test_make_url_checks_functions_inside_its_arguments_first() -> None:
    # Heat validates the nested yaql (bad expression) before complaining about the bad key.
    stage, message = run_stages({"make_url": {"host": {"yaql": {"expression": "$.("}}, "bogus": 1}})
    assert stage == "validate"
    assert message.endswith("Bad expression Parse error: unexpected end of statement.")


def test_make_url_ipv6_host_and_escaping() -> None:
    snippet = {
        "make_url": {
            "scheme": "https",
            "username": "me@x",
            "host": "fe80::1",
            "port": 8443,
            "path": "/a b/c",
            "query": {"k": "v/w x"},
            "fragment": "f g",
        }
    }
    assert run_stages(snippet) == ("ok", "https://me%40x@[fe80::1]:8443/a%20b/c?k=v/w+x#f%20g")
