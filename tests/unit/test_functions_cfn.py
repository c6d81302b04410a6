"""The CloudFormation data functions (Fn::Join, Fn::Split, Fn::Replace, Fn::Base64, Fn::Select,
Fn::MemberListToMap, Fn::GetAZs).

The table of cases below was run through Heat 27's ``heat.engine.cfn.functions`` and the
results and messages recorded as the expected values.
"""

from __future__ import annotations

from typing import Any

import pytest

from hearth.common.errors import StackValidationFailed
from hearth.template.functions import all_implementations, base
from hearth.template.functions.cfn import IMPLEMENTATIONS
from tests.unit.fakes import FakeContext, FakeScope, evaluate

AWS = "AWSTemplateFormatVersion.2010-09-09"
HEAT = "HeatTemplateFormatVersion.2012-12-12"

# ("ok", value) | ("init", exception type, message) | ("result", exception type, message)
Expected = tuple[Any, ...]

JOIN_SHAPE = 'Incorrect arguments to "Fn::Join" should be: "Fn::Join" : [ " ", [ "str1", "str2"]]'
SPLIT_SHAPE = 'Incorrect arguments to "Fn::Split" should be: "Fn::Split" : [ ",", "str1,str2"]]'
REPLACE_SHAPE = (
    'Incorrect arguments to "Fn::Replace" should be: '
    '{"Fn::Replace": [ {"$var1": "foo", "%var2%": "bar"}, "$var1 is %var2%"]}'
)
SELECT_SHAPE = 'Arguments to "Fn::Select" must be of the form [index, collection]'
MEMBER_SHAPE = (
    'Wrong Arguments try: "\n'
    "            {'Fn::MemberListToMap': ['Name', 'Value',\n"
    "                                     ['.member.0.Name=key',\n"
    "                                      '.member.0.Value=door']]}\n"
    '            "'
)

CASES: list[tuple[str, Any, Expected]] = [
    ("Fn::Join", [",", ["a", "b", "c"]], ("ok", "a,b,c")),
    ("Fn::Join", ["", []], ("ok", "")),
    ("Fn::Join", [",", None], ("ok", "")),
    ("Fn::Join", [",", ["a", None, "b"]], ("ok", "a,,b")),
    ("Fn::Join", [",", "abc"], ("result", TypeError, '"Fn::Join" must operate on a list')),
    ("Fn::Join", [",", {"a": 1}], ("result", TypeError, '"Fn::Join" must operate on a list')),
    ("Fn::Join", [1, ["a"]], ("result", TypeError, '"Fn::Join" delimiter must be a string')),
    ("Fn::Join", [",", ["a", 1]], ("result", TypeError, "Items to join must be strings not 1")),
    (
        "Fn::Join",
        [",", ["a", {"k": [1, 2]}]],
        ("result", TypeError, "Items to join must be strings not {'k': [1, 2]}"),
    ),
    (
        "Fn::Join",
        [",", ["a", True]],
        ("result", TypeError, "Items to join must be strings not True"),
    ),
    (
        "Fn::Join",
        "abc",
        (
            "init",
            TypeError,
            JOIN_SHAPE,
        ),
    ),
    (
        "Fn::Join",
        {"a": 1, "b": 2},
        (
            "init",
            TypeError,
            JOIN_SHAPE,
        ),
    ),
    (
        "Fn::Join",
        [","],
        (
            "init",
            ValueError,
            JOIN_SHAPE,
        ),
    ),
    (
        "Fn::Join",
        [",", ["a"], 3],
        (
            "init",
            ValueError,
            JOIN_SHAPE,
        ),
    ),
    (
        "Fn::Join",
        5,
        (
            "init",
            TypeError,
            JOIN_SHAPE,
        ),
    ),
    ("Fn::Join", [None, ["a"]], ("result", TypeError, '"Fn::Join" delimiter must be a string')),
    ("Fn::Join", [",", 5], ("result", TypeError, '"Fn::Join" must operate on a list')),
    ("Fn::Split", [",", "a,b,,c"], ("ok", ["a", "b", "", "c"])),
    ("Fn::Split", [",", ""], ("ok", [""])),
    ("Fn::Split", ["", "abc"], ("result", ValueError, "empty separator")),
    ("Fn::Split", [1, "abc"], ("result", TypeError, "Delimiter for Fn::Split must be string")),
    (
        "Fn::Split",
        [",", 5],
        ("result", TypeError, "String to split must be string; got <class 'int'>"),
    ),
    (
        "Fn::Split",
        [",", None],
        ("result", TypeError, "String to split must be string; got <class 'NoneType'>"),
    ),
    (
        "Fn::Split",
        [",", ["a"]],
        ("result", TypeError, "String to split must be string; got <class 'list'>"),
    ),
    (
        "Fn::Split",
        "a,b",
        (
            "init",
            TypeError,
            SPLIT_SHAPE,
        ),
    ),
    (
        "Fn::Split",
        {"a": 1, "b": 2},
        (
            "init",
            TypeError,
            SPLIT_SHAPE,
        ),
    ),
    (
        "Fn::Split",
        [","],
        (
            "init",
            ValueError,
            SPLIT_SHAPE,
        ),
    ),
    ("Fn::Split", 5, ("init", TypeError, "cannot unpack non-iterable int object")),
    ("Fn::Split", [", ", "a, b,c"], ("ok", ["a", "b,c"])),
    (
        "Fn::Split",
        "ab",
        (
            "init",
            TypeError,
            SPLIT_SHAPE,
        ),
    ),
    ("Fn::Replace", [{"$a": "x", "$ab": "y"}, "$a $ab $abc"], ("ok", "x y yc")),
    ("Fn::Replace", [{"a": "b", "b": "c"}, "ab"], ("ok", "bc")),
    ("Fn::Replace", [{"x": None, "y": 1, "z": 1.5, "w": True}, "x y z w"], ("ok", " 1 1.5 True")),
    (
        "Fn::Replace",
        [{"x": [1]}, "x"],
        (
            "result",
            TypeError,
            '"Fn::Replace" params must be strings or numbers, param x is not valid',
        ),
    ),
    (
        "Fn::Replace",
        [{"x": {"a": 1}}, "x"],
        (
            "result",
            TypeError,
            '"Fn::Replace" params must be strings or numbers, param x is not valid',
        ),
    ),
    ("Fn::Replace", [{}, "abc"], ("ok", "abc")),
    (
        "Fn::Replace",
        [{"a": "1"}, 5],
        ("result", TypeError, '"Fn::Replace" template must be a string'),
    ),
    (
        "Fn::Replace",
        [[1], "abc"],
        ("init", TypeError, '"Fn::Replace" parameters must be a mapping'),
    ),
    (
        "Fn::Replace",
        ["abc", "abc"],
        ("init", TypeError, '"Fn::Replace" parameters must be a mapping'),
    ),
    (
        "Fn::Replace",
        "abc",
        (
            "init",
            TypeError,
            REPLACE_SHAPE,
        ),
    ),
    (
        "Fn::Replace",
        {"a": 1, "b": 2},
        (
            "init",
            TypeError,
            REPLACE_SHAPE,
        ),
    ),
    (
        "Fn::Replace",
        [{"a": "b"}],
        (
            "init",
            ValueError,
            REPLACE_SHAPE,
        ),
    ),
    ("Fn::Replace", 5, ("init", TypeError, "cannot unpack non-iterable int object")),
    ("Fn::Replace", [{"": "x"}, "abc"], ("result", ValueError, "empty separator")),
    ("Fn::Replace", [{"aa": "1", "ab": "2", "a": "3"}, "aaab a"], ("ok", "12 3")),
    (
        "Fn::Replace",
        [{"%var%": "foo", "%var2%": "bar"}, "%var% %var2% %var%%var2%"],
        ("ok", "foo bar foobar"),
    ),
    ("Fn::Replace", [{"abc": "a", "bc": "ABC"}, "abcbc"], ("ok", "aABC")),
    ("Fn::Replace", [{"ab": "xab", "x": "Y"}, "abx"], ("ok", "xabY")),
    ("Fn::Base64", "hello", ("ok", "hello")),
    ("Fn::Base64", 5, ("result", TypeError, '"Fn::Base64" argument must be a string')),
    ("Fn::Base64", None, ("result", TypeError, '"Fn::Base64" argument must be a string')),
    ("Fn::Base64", ["a"], ("result", TypeError, '"Fn::Base64" argument must be a string')),
    ("Fn::Select", [1, ["a", "b", "c"]], ("ok", "b")),
    ("Fn::Select", ["1", ["a", "b"]], ("ok", "b")),
    ("Fn::Select", [5, ["a"]], ("ok", "")),
    ("Fn::Select", [-1, ["a", "b"]], ("ok", "b")),
    ("Fn::Select", ["x", ["a"]], ("result", TypeError, 'Index to "Fn::Select" must be an integer')),
    ("Fn::Select", [1.9, ["a", "b"]], ("ok", "b")),
    ("Fn::Select", [True, ["a", "b"]], ("ok", "b")),
    ("Fn::Select", [" 1 ", ["a", "b"]], ("ok", "b")),
    (
        "Fn::Select",
        ["1.0", ["a", "b"]],
        ("result", TypeError, 'Index to "Fn::Select" must be an integer'),
    ),
    (
        "Fn::Select",
        [None, ["a"]],
        ("result", TypeError, 'Index to "Fn::Select" must be an integer'),
    ),
    ("Fn::Select", ["a", {"a": 1}], ("ok", 1)),
    ("Fn::Select", ["b", {"a": 1}], ("ok", "")),
    ("Fn::Select", [1, {"a": 1}], ("result", TypeError, 'Index to "Fn::Select" must be a string')),
    ("Fn::Select", [0, ""], ("ok", "")),
    ("Fn::Select", [0, None], ("ok", "")),
    ("Fn::Select", [0, "[1, 2]"], ("ok", 1)),
    ("Fn::Select", ["a", '{"a": 3}'], ("ok", 3)),
    (
        "Fn::Select",
        [0, "nope"],
        ("result", ValueError, '"Fn::Select": Expecting value: line 1 column 1 (char 0)'),
    ),
    ("Fn::Select", [0, "5"], ("result", TypeError, "Arguments to Fn::Select not fully resolved")),
    ("Fn::Select", [0, 5], ("result", TypeError, "Arguments to Fn::Select not fully resolved")),
    (
        "Fn::Select",
        [0, '"abc"'],
        ("result", TypeError, "Arguments to Fn::Select not fully resolved"),
    ),
    ("Fn::Select", [0, "null"], ("ok", "")),
    ("Fn::Select", [0, '""'], ("result", TypeError, "Arguments to Fn::Select not fully resolved")),
    (
        "Fn::Select",
        [1],
        ("init", ValueError, SELECT_SHAPE),
    ),
    (
        "Fn::Select",
        [1, 2, 3],
        ("init", ValueError, SELECT_SHAPE),
    ),
    ("Fn::Select", 5, ("init", TypeError, "cannot unpack non-iterable int object")),
    (
        "Fn::Select",
        "ab",
        ("result", ValueError, '"Fn::Select": Expecting value: line 1 column 1 (char 0)'),
    ),
    (
        "Fn::Select",
        "abc",
        ("init", ValueError, SELECT_SHAPE),
    ),
    (
        "Fn::Select",
        {"a": 1, "b": 2},
        ("result", ValueError, '"Fn::Select": Expecting value: line 1 column 1 (char 0)'),
    ),
    (
        "Fn::Select",
        [float("inf"), ["a"]],
        ("result", OverflowError, "cannot convert float infinity to integer"),
    ),
    ("Fn::Select", [0, True], ("result", TypeError, "Arguments to Fn::Select not fully resolved")),
    ("Fn::Select", [0, [None]], ("ok", None)),
    ("Fn::Select", ["0", []], ("ok", "")),
    (
        "Fn::MemberListToMap",
        [
            "Name",
            "Value",
            [
                ".member.0.Name=key",
                ".member.0.Value=door",
                ".member.1.Name=k2",
                ".member.1.Value=v=2",
            ],
        ],
        ("ok", {"key": "door", "k2": "v=2"}),
    ),
    (
        "Fn::MemberListToMap",
        [
            "Name",
            "Value",
            [".member.1.Name=b", ".member.1.Value=2", ".member.0.Name=a", ".member.0.Value=1"],
        ],
        ("ok", {"a": "1", "b": "2"}),
    ),
    (
        "Fn::MemberListToMap",
        ["Name", "Value", [".member.0.Name=a", ".member.1.Value=1"]],
        ("ok", {}),
    ),
    ("Fn::MemberListToMap", ["Name", "Value", []], ("ok", {})),
    ("Fn::MemberListToMap", ["Name", "Value", ["x.member.0.Name=a"]], ("ok", {})),
    (
        "Fn::MemberListToMap",
        ["Name", "Value", [".member.0.Name=a", ".member.0.Value=1", ".member.00.Name=b"]],
        ("ok", {"b": "1"}),
    ),
    (
        "Fn::MemberListToMap",
        ["Name", "Value", ["noequals"]],
        ("result", ValueError, "dictionary update sequence element #0 has length 1; 2 is required"),
    ),
    (
        "Fn::MemberListToMap",
        ["Name", "Value", [1]],
        ("result", TypeError, "Member list items must be strings"),
    ),
    (
        "Fn::MemberListToMap",
        ["Name", "Value", 5],
        ("result", TypeError, "Member list must be a list"),
    ),
    (
        "Fn::MemberListToMap",
        ["Name", "Value", None],
        ("result", TypeError, "Member list must be a list"),
    ),
    (
        "Fn::MemberListToMap",
        ["Name", "Value", "a=b"],
        ("result", ValueError, "dictionary update sequence element #0 has length 1; 2 is required"),
    ),
    (
        "Fn::MemberListToMap",
        ["Name", "Value", {"a": 1}],
        ("result", ValueError, "dictionary update sequence element #0 has length 1; 2 is required"),
    ),
    (
        "Fn::MemberListToMap",
        ["Name", "Value"],
        (
            "init",
            TypeError,
            MEMBER_SHAPE,
        ),
    ),
    (
        "Fn::MemberListToMap",
        [1, "Value", []],
        ("init", TypeError, "Fn::MemberListToMap Key Name must be a string"),
    ),
    (
        "Fn::MemberListToMap",
        ["Name", 2, []],
        ("init", TypeError, "Fn::MemberListToMap Value Name must be a string"),
    ),
    ("Fn::MemberListToMap", 5, ("init", TypeError, "cannot unpack non-iterable int object")),
    (
        "Fn::MemberListToMap",
        "abc",
        ("result", ValueError, "dictionary update sequence element #0 has length 1; 2 is required"),
    ),
    (
        "Fn::MemberListToMap",
        [
            "Key",
            "Val",
            [".member.0.Key=k", ".member.0.Val=v", ".member.2.Key=k", ".member.2.Val=w"],
        ],
        ("ok", {"k": "w"}),
    ),
    (
        "Fn::MemberListToMap",
        ["Name", "Value", [".member.0.Name=a", ".member.0.Value=1", ".member.0.Name=b"]],
        ("ok", {"b": "1"}),
    ),
    ("Fn::MemberListToMap", ["Name", "Value", [".member.x.Name=a"]], ("ok", {})),
    ("Fn::GetAZs", "", ("ok", ["nova"])),
    ("Fn::GetAZs", "RegionOne", ("ok", ["nova"])),
    ("Fn::GetAZs", None, ("ok", ["nova"])),
]


def _run(name: str, args: Any, ctx: FakeContext | None = None) -> Any:
    """Build and resolve one call directly, so that exception types can be checked."""
    scope = FakeScope(version_name=AWS)
    fn = IMPLEMENTATIONS[name](scope, name, args, f"test.{name}")
    return fn.result(ctx or FakeContext())


@pytest.mark.parametrize(("name", "args", "expected"), CASES)
def test_matches_heat(name: str, args: Any, expected: Expected) -> None:
    stage = expected[0]
    if stage == "ok":
        assert _run(name, args) == expected[1]
        return
    exc_type, message = expected[1], expected[2]
    if stage == "init":
        with pytest.raises(exc_type) as info:
            IMPLEMENTATIONS[name](FakeScope(version_name=AWS), name, args, "p")
    else:
        with pytest.raises(exc_type) as info:
            _run(name, args)
    assert str(info.value) == message


@pytest.mark.parametrize(("name", "args", "expected"), CASES)
@pytest.mark.parametrize("version", [AWS, HEAT])
def test_through_template_parsing(name: str, args: Any, expected: Expected, version: str) -> None:
    stage = expected[0]
    if stage == "ok":
        assert evaluate({name: args}, version=version) == expected[1]
    elif stage == "init":
        # A malformed call fails when the template is parsed, at the call's path.
        with pytest.raises(StackValidationFailed) as info:
            evaluate({name: args}, version=version)
        assert info.value.detail == expected[2]
        assert info.value.path == [f"test.{name}"]
    else:
        with pytest.raises(expected[1]) as result_info:
            evaluate({name: args}, version=version)
        assert str(result_info.value) == expected[2]


def test_registered() -> None:
    table = all_implementations()
    for key, cls in IMPLEMENTATIONS.items():
        assert table[key] is cls
    assert set(IMPLEMENTATIONS) == {
        "Fn::Join",
        "Fn::Split",
        "Fn::Replace",
        "Fn::Base64",
        "Fn::Select",
        "Fn::MemberListToMap",
        "Fn::GetAZs",
    }


# --- Join ---------------------------------------------------------------------------------------


def test_join_item_repr_truncated_to_200() -> None:
    with pytest.raises(TypeError) as info:
        _run("Fn::Join", [",", [["l" * 300]]])
    assert str(info.value) == "Items to join must be strings not " + ("['" + "l" * 300)[:200]
    with pytest.raises(TypeError, match=r"^Items to join must be strings not 5\.5$"):
        _run("Fn::Join", [",", ["x" * 300, 5.5]])
    assert _run("Fn::Join", [",", ["a" * 300]]) == "a" * 300


def test_join_with_nested_functions() -> None:
    snippet = {
        "Fn::Join": [
            {"Fn::Select": [0, [","]]},
            ["a", {"Fn::Select": [1, ["x", "y"]]}, {"Fn::Base64": "z"}],
        ]
    }
    assert evaluate(snippet, version=AWS) == "a,y,z"  # verified with Heat: 'a,y'
    assert evaluate({"Fn::Join": [",", {"Fn::Select": [0, [["a", "b"]]]}]}, version=AWS) == "a,b"


# --- Split --------------------------------------------------------------------------------------


def test_split_delimiter_is_not_resolved() -> None:
    # Heat checks the delimiter as written: a function there is refused at resolve time.
    with pytest.raises(TypeError, match=r"^Delimiter for Fn::Split must be string$"):
        evaluate({"Fn::Split": [{"Fn::Select": [0, [","]]}, "a,b"]}, version=AWS)


def test_split_string_from_function() -> None:
    snippet = {"Fn::Split": [",", {"Fn::Join": [",", ["a", "b"]]}]}
    assert evaluate(snippet, version=AWS) == ["a", "b"]


# --- Replace ------------------------------------------------------------------------------------


def test_replace_params_and_template_from_functions() -> None:
    snippet = {"Fn::Replace": [{"Fn::Select": [0, [{"$x": "1"}]]}, "$x!"]}
    assert evaluate(snippet, version=AWS) == "1!"
    snippet = {"Fn::Replace": [{"$x": {"Fn::Select": [0, ["v"]]}}, {"Fn::Select": [0, ["$x$x"]]}]}
    assert evaluate(snippet, version=AWS) == "vv"
    with pytest.raises(TypeError, match=r'^"Fn::Replace" params must be a map$'):
        evaluate({"Fn::Replace": [{"Fn::Select": [0, ["str"]]}, "$x!"]}, version=AWS)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({1: "a", "b": "c"}, "'<' not supported between instances of 'str' and 'int'"),
        ({1: "a"}, "object of type 'int' has no len()"),
        # Placeholders are checked longest first, each with its value.
        (
            {"a": [1], "bb": {}},
            '"Fn::Replace" params must be strings or numbers, param bb is not valid',
        ),
        ({"a": [1], "b": "x", 1: "y"}, "'<' not supported between instances of 'int' and 'str'"),
    ],
)
def test_replace_bad_params_fail_like_heat(params: dict[Any, Any], message: str) -> None:
    with pytest.raises(TypeError) as info:
        _run("Fn::Replace", [params, "x"])
    assert str(info.value) == message


def test_replace_non_string_placeholder() -> None:
    with pytest.raises(TypeError, match=r'^"Fn::Replace" param placeholders must be strings$'):
        _run("Fn::Replace", [{b"ab": "x"}, "ab"])  # e.g. a YAML !!binary key


def test_replace_inserted_text_is_not_rescanned() -> None:
    assert _run("Fn::Replace", [{"a": "b", "b": "a"}, "ab"]) == "ba"
    assert _run("Fn::Replace", [{"$1": "$2", "$2": "two"}, "$1 $2"]) == "$2 two"
    # Longest first; among equal lengths the lexicographically smaller one first.
    assert _run("Fn::Replace", [{"ab": "1", "bc": "2"}, "abc"]) == "1c"
    assert _run("Fn::Replace", [{"bc": "2", "ab": "1"}, "abc"]) == "1c"
    assert _run("Fn::Replace", [{"b": "2", "abc": "1"}, "abcb"]) == "12"


def test_replace_many_placeholders() -> None:
    # More placeholders than Heat's recursive substitution survives (it hits Python's
    # recursion limit at about 1000); Hearth substitutes iteratively.
    params = {f"<{i}>": str(i) for i in range(1200)}
    template = "".join(f"<{i}>" for i in range(1200))
    assert _run("Fn::Replace", [params, template]) == "".join(str(i) for i in range(1200))


# --- Select -------------------------------------------------------------------------------------


def test_select_nested_and_from_parameters() -> None:
    snippet = {"Fn::Select": [{"Fn::Select": [0, [1]]}, {"Fn::Select": [0, [["a", "b"]]]}]}
    assert evaluate(snippet, version=AWS) == "b"


def test_select_result_is_shared_data_unchanged() -> None:
    assert _run("Fn::Select", [0, [{"a": [1]}]]) == {"a": [1]}
    assert _run("Fn::Select", ["k", '{"k": {"x": null}}']) == {"x": None}


# --- MemberListToMap ----------------------------------------------------------------------------


def test_member_list_to_map_items_from_functions() -> None:
    snippet = {
        "Fn::MemberListToMap": [
            "Name",
            "Value",
            [{"Fn::Select": [0, [".member.0.Name=a"]]}, ".member.0.Value=b"],
        ]
    }
    assert evaluate(snippet, version=AWS) == {"a": "b"}


def test_member_list_to_map_names_must_be_literal() -> None:
    with pytest.raises(StackValidationFailed) as info:
        evaluate({"Fn::MemberListToMap": [{"Fn::Select": [0, ["Name"]]}, "Value", []]}, version=AWS)
    assert info.value.detail == "Fn::MemberListToMap Key Name must be a string"


def test_member_list_to_map_aws_query_shape() -> None:
    members = [
        ".member.10.Key=ten",
        ".member.10.Val=10",
        ".member.2.Key=two",
        ".member.2.Val=2",
        ".member.2.Other=ignored",
        ".member.3.Key=no-value",
        "Tags.member.1.Key=wrong-prefix",
        ".member.1.Key=multi\nline",
        ".member.1.Val=x=y",
    ]
    result = _run("Fn::MemberListToMap", ["Key", "Val", members])
    assert result == {"multi\nline": "x=y", "two": "2", "ten": "10"}
    assert list(result) == ["multi\nline", "two", "ten"]


# --- GetAZs and Base64 --------------------------------------------------------------------------


def test_get_azs_uses_the_context() -> None:
    ctx = FakeContext(zones=["az1", "az2"])
    assert evaluate({"Fn::GetAZs": "RegionOne"}, version=AWS, ctx=ctx) == ["az1", "az2"]
    assert evaluate({"Fn::GetAZs": ""}, version=HEAT) == ["nova"]
    # The region is not used, not even resolved.
    assert evaluate({"Fn::GetAZs": {"Fn::Base64": 5}}, version=AWS, ctx=ctx) == ["az1", "az2"]


def test_get_azs_result_is_a_copy() -> None:
    ctx = FakeContext(zones=["az1"])
    zones = evaluate({"Fn::GetAZs": ""}, version=AWS, ctx=ctx)
    zones.append("x")
    assert ctx.zones == ["az1"]


def test_get_azs_args_are_walked() -> None:
    scope = FakeScope(version_name=AWS)
    parsed = scope.parse({"Fn::GetAZs": {"Fn::Base64": "r"}}, "test")
    assert [fn.name for fn in base.walk(parsed)] == ["Fn::GetAZs", "Fn::Base64"]


# --- availability in HOT ------------------------------------------------------------------------


def test_cfn_functions_in_hot_2013_05_23() -> None:
    version = "2013-05-23"
    assert evaluate({"Fn::Join": ["-", ["a", "b"]]}, version=version) == "a-b"
    assert evaluate({"Fn::Split": ["-", "a-b"]}, version=version) == ["a", "b"]
    assert evaluate({"Fn::Replace": [{"x": "y"}, "xx"]}, version=version) == "yy"
    assert evaluate({"Fn::Base64": "s"}, version=version) == "s"
    assert evaluate({"Fn::Select": [1, ["a", "b"]]}, version=version) == "b"
    assert evaluate({"Fn::GetAZs": ""}, version=version) == ["nova"]
    members = ["Name", "Value", [".member.0.Name=k", ".member.0.Value=v"]]
    assert evaluate({"Fn::MemberListToMap": members}, version=version) == {"k": "v"}


@pytest.mark.parametrize("version", ["2014-10-16", "2015-04-30"])
def test_select_in_later_hot(version: str) -> None:
    assert evaluate({"Fn::Select": ["a", {"a": "x"}]}, version=version) == "x"
