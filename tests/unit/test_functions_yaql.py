"""Tests for the yaql function: evaluation, Heat's limits, the wall-clock bound, and its use as a
condition function.

Every expected value and message in the tables below was obtained from real Heat 27 (its
``heat.engine.hot.functions`` evaluating the same snippet in the same template version); the
stage says when Heat reports the problem: while parsing the template, while validating it, or
only once the function is resolved.
"""

# ruff: noqa: E501  (the tables hold Heat's messages verbatim)

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from hearth.common.errors import StackValidationFailed
from hearth.template.context import Limits
from tests.unit.fakes import FakeContext, FakeScope, ids_of_cases, run_stages

BASIC_CASES: list[tuple[Any, str, str, Any]] = [
    # yaql: values, argument shapes and errors
    ({"yaql": {"expression": "$.data.a.sum()", "data": {"a": [1, 2, 3]}}}, "2021-04-16", "ok", 6),
    ({"yaql": {"expression": "$.data"}}, "2021-04-16", "ok", {}),
    ({"yaql": {"expression": "$.data", "data": None}}, "2021-04-16", "ok", None),
    (
        {"yaql": {"expression": "$.data.where($ > 1)", "data": [1, 2, 3]}},
        "2021-04-16",
        "ok",
        [2, 3],
    ),
    (
        {"yaql": {"expression": "$.data.items().orderBy($[0])", "data": {"b": 1, "a": 2}}},
        "2021-04-16",
        "ok",
        [["a", 2], ["b", 1]],
    ),
    (
        {"yaql": {"expression": "dict($.data.select([$, $ * 2]))", "data": [1, 2]}},
        "2021-04-16",
        "ok",
        {1: 2, 2: 4},
    ),
    (
        {"yaql": {"expression": "1/0"}},
        "2021-04-16",
        "resolve",
        "integer division or modulo by zero",
    ),
    (
        {"yaql": {"expression": "range(300).select($*2)"}},
        "2021-04-16",
        "resolve",
        "Collection length exceeds 200 elements",
    ),
    ({"yaql": {"expression": "range(300).len()"}}, "2021-04-16", "ok", 300),
    ({"yaql": {"expression": "range(200).select($*2).len()"}}, "2021-04-16", "ok", 200),
    (
        {"yaql": {"expression": "'x' * 20000"}},
        "2021-04-16",
        "resolve",
        "Expression consumed too much memory",
    ),
    (
        {"yaql": {"expression": "'a' + 1"}},
        "2021-04-16",
        "resolve",
        'No function "#operator_+" matches supplied arguments',
    ),
    ({"yaql": {"expression": "$.data.x", "data": {}}}, "2021-04-16", "resolve", "'x'"),
    (
        {"yaql": {"expression": "$.data.x", "data": None}},
        "2021-04-16",
        "resolve",
        'Unknown function "#property#x"',
    ),
    ({"yaql": {"expression": "[1][5]"}}, "2021-04-16", "resolve", "tuple index out of range"),
    (
        {"yaql": {"expression": "$.data.s.items()", "data": {"s": None}}},
        "2021-04-16",
        "resolve",
        'No method "items" for receiver None matches supplied arguments',
    ),
    (
        {"yaql": {"expression": "$.("}},
        "2021-04-16",
        "validate",
        "test.yaql: Bad expression Parse error: unexpected end of statement.",
    ),
    (
        {"yaql": {"expression": "1 +"}},
        "2021-04-16",
        "validate",
        "test.yaql: Bad expression Parse error: unexpected end of statement.",
    ),
    (
        {"yaql": {"expression": "#"}},
        "2021-04-16",
        "validate",
        "test.yaql: Bad expression Lexical error: illegal character '#' at position 0.",
    ),
    (
        {"yaql": {"expression": ""}},
        "2021-04-16",
        "validate",
        "test.yaql: Bad expression Parse error: unexpected end of statement.",
    ),
    ({"yaql": {"expression": "foo(1)"}}, "2021-04-16", "resolve", 'Unknown function "foo"'),
    (
        {"yaql": {"expression": 1}},
        "2021-04-16",
        "validate",
        'test.yaql: The "expression" argument to yaql must contain a string.',
    ),
    (
        {"yaql": {"expression": None}},
        "2021-04-16",
        "validate",
        'test.yaql: The "expression" argument to yaql must contain a string.',
    ),
    (
        {"yaql": {"expression": ["a"]}},
        "2021-04-16",
        "validate",
        'test.yaql: The "expression" argument to yaql must contain a string.',
    ),
    (
        {"yaql": {"data": 1}},
        "2021-04-16",
        "parse",
        "test.yaql: '\"yaql\" syntax should be yaql:\\n              expression: $.data.var1.sum()\\n              data:\\n                var1: [3, 2, 1]'",
    ),
    (
        {"yaql": {"expression": "1", "data": 1, "x": 2}},
        "2021-04-16",
        "parse",
        "test.yaql: '\"yaql\" syntax should be yaql:\\n              expression: $.data.var1.sum()\\n              data:\\n                var1: [3, 2, 1]'",
    ),
    ({"yaql": ["a"]}, "2021-04-16", "parse", 'test.yaql: Arguments to "yaql" must be a map.'),
    ({"yaql": "1 + 1"}, "2021-04-16", "parse", 'test.yaql: Arguments to "yaql" must be a map.'),
    ({"yaql": {"expression": "1 + 1"}}, "2016-10-14", "ok", 2),
    ({"yaql": {"expression": "1 + 1"}}, "2016-04-08", "ok", {"yaql": {"expression": "1 + 1"}}),
    (
        {
            "yaql": {
                "expression": {"str_replace": {"template": "$.data.a", "params": {"a": "b"}}},
                "data": {"b": 5},
            }
        },
        "2021-04-16",
        "resolve",
        "'dbtb'",
    ),
    (
        {"yaql": {"expression": {"str_replace": {"template": "$.(", "params": {}}}}},
        "2021-04-16",
        "resolve",
        "Bad expression Parse error: unexpected end of statement.",
    ),
    (
        {"yaql": {"expression": {"str_split": [",", "a,b"]}}},
        "2021-04-16",
        "resolve",
        'The "expression" argument to yaql must contain a string.',
    ),
    (
        {"yaql": {"expression": "$.data", "data": {"list_concat": [[1], [2]]}}},
        "2021-04-16",
        "ok",
        [1, 2],
    ),
    ({"yaql": {"expression": "$.data.len()", "data": "abc"}}, "2021-04-16", "ok", 3),
    (
        {"yaql": {"expression": "now()"}, "x": 1},
        "2021-04-16",
        "ok",
        {"yaql": {"expression": "now()"}, "x": 1},
    ),
    (
        {"yaql": {"expression": "regex('a+').matches($.data)", "data": "caat"}},
        "2021-04-16",
        "ok",
        True,
    ),
    ({"yaql": {"expression": "$.data.toUpper()", "data": "abc"}}, "2021-04-16", "ok", "ABC"),
    ({"yaql": {"expression": "$.data[1]", "data": [1, 2]}}, "2021-04-16", "ok", 2),
    ({"yaql": {"expression": "let(x => 1) -> $x + 1"}}, "2021-04-16", "ok", 2),
    (
        {"yaql": {"expression": "$.data.a.b", "data": {"a": {"b": [1, {"c": 2}]}}}},
        "2021-04-16",
        "ok",
        [1, {"c": 2}],
    ),
    (
        {"yaql": {"expression": "$.data.groupBy($ mod 2)", "data": [1, 2, 3]}},
        "2021-04-16",
        "ok",
        [[1, [1, 3]], [0, [2]]],
    ),
]


@pytest.mark.parametrize(
    ("snippet", "version", "stage", "expected"), BASIC_CASES, ids=list(ids_of_cases(BASIC_CASES))
)
def test_basic_matches_heat(snippet: Any, version: str, stage: str, expected: Any) -> None:
    assert run_stages(snippet, version) == (stage, expected)


ELIDED_CASES: list[tuple[Any, str, str, Any]] = [
    # yaql: arguments that elide themselves (two-argument ``if`` with a false condition)
    ({"yaql": {"expression": "$.data", "data": {"elided": [1]}}}, "2021-04-16", "ok", None),
]


@pytest.mark.parametrize(
    ("snippet", "version", "stage", "expected"), ELIDED_CASES, ids=list(ids_of_cases(ELIDED_CASES))
)
def test_elided_matches_heat(snippet: Any, version: str, stage: str, expected: Any) -> None:
    assert run_stages(snippet, version) == (stage, expected)


# --- behaviours worth spelling out on their own ----------------------------------------------


def test_yaql_result_may_be_a_set_as_in_heat() -> None:
    assert run_stages({"yaql": {"expression": "set(1, 2, 2)"}}) == ("ok", {1, 2})


def test_yaql_collection_limit_comes_from_the_limits() -> None:
    snippet = {"yaql": {"expression": "range(10).select($ * 2)"}}
    small = FakeContext(limits=Limits(yaql_limit_iterators=5))
    assert run_stages(snippet, ctx=small) == ("resolve", "Collection length exceeds 5 elements")
    assert run_stages(snippet) == ("ok", [0, 2, 4, 6, 8, 10, 12, 14, 16, 18])

    big = {"yaql": {"expression": "range(300).select($ * 2).len()"}}
    assert run_stages(big) == ("resolve", "Collection length exceeds 200 elements")
    roomy = FakeContext(limits=Limits(yaql_limit_iterators=1000))
    assert run_stages(big, ctx=roomy) == ("ok", 300)


def test_yaql_memory_quota_comes_from_the_limits() -> None:
    snippet = {"yaql": {"expression": "'x' * 500"}}
    assert run_stages(snippet) == ("ok", "x" * 500)
    tight = FakeContext(limits=Limits(yaql_memory_quota=100))
    assert run_stages(snippet, ctx=tight) == ("resolve", "Expression consumed too much memory")


def test_runaway_yaql_expression_is_stopped_after_the_timeout() -> None:
    expression = "range(200).select(range(200).select(range(200).sum()).sum()).sum()"
    ctx = FakeContext(limits=Limits(yaql_timeout_seconds=0.2))
    started = time.monotonic()
    stage, message = run_stages({"yaql": {"expression": expression}}, ctx=ctx)
    elapsed = time.monotonic() - started
    assert stage == "resolve"
    assert message == (
        f"The yaql expression {expression!r} did not finish within 0.2 seconds and was stopped"
    )
    assert elapsed < 3


def test_yaql_timeout_does_not_affect_later_evaluations() -> None:
    quick = FakeContext(limits=Limits(yaql_timeout_seconds=0.05))
    slow = {
        "yaql": {"expression": "range(200).select(range(200).select(range(200).sum()).sum()).sum()"}
    }
    assert run_stages(slow, ctx=quick)[0] == "resolve"
    assert run_stages({"yaql": {"expression": "$.data.sum()", "data": [1, 2]}}, ctx=quick) == ("ok", 3)


def test_yaql_same_expression_with_different_data() -> None:
    for n in range(1, 6):
        data = list(range(n))
        assert run_stages({"yaql": {"expression": "$.data.sum()", "data": data}}) == ("ok", sum(data))


def test_yaql_evaluations_in_parallel_threads() -> None:
    def one(n: int) -> Any:
        return run_stages({"yaql": {"expression": f"$.data.select($ * {n}).sum()", "data": [1, 2, 3]}})

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(one, range(40)))
    assert results == [("ok", 6 * n) for n in range(40)]


def test_yaql_is_a_condition_function_from_2017_09_01() -> None:
    scope = FakeScope(version_name="heat_template_version.2017-09-01")
    condition = {"yaql": {"expression": "$.data.len() > 1", "data": [1, 2]}}
    assert scope.condition(condition, "conditions.c") is True
    condition = {"yaql": {"expression": "$.data.len() > 1", "data": [1]}}
    assert scope.condition(condition, "conditions.c") is False


def test_yaql_bad_expression_in_a_condition_is_reported() -> None:
    scope = FakeScope(version_name="heat_template_version.2017-09-01")
    with pytest.raises(StackValidationFailed) as info:
        scope.condition({"yaql": {"expression": "$.("}}, "conditions.c")
    assert str(info.value) == (
        "conditions.c.yaql: Bad expression Parse error: unexpected end of statement."
    )


# --- regular expressions: yaql's results, without its unbounded matching -------------------

REGEX_EXPRESSIONS = [
    'regex("a.c").matches("abc")',
    'regex("A.c").matches("abc")',
    'regex("A.c", ignoreCase => true).matches("abc")',
    'regex("^b", multiLine => true).matches("a\\nb")',
    'regex("a.b", dotAll => true).matches("a\\nb")',
    '"abc".matches("a.c")',
    '"abc" =~ regex("b")',
    '"abc" =~ "z"',
    '"abc" !~ regex("z")',
    '"abc" !~ "b"',
    'regex("a.c").search("xabcx")',
    'regex("q").search("xabcx")',
    'regex("a(.)c").search("xabcx", $2)',
    'regex("a.c").searchAll("abcadc")',
    'regex("a(.)c").searchAll("abcadc", $2.value)',
    'regex("a.").split("abcadc")',
    'regex("a.").split("abcadc", maxSplit => 1)',
    '"abcadc".split(regex("a."))',
    '"a,b".split(",")',
    '"abc".replace("a", "z")',
    'regex("a.").replace("abcadc", "xx")',
    '"abcadc".replace(regex("a."), "xx", count => 1)',
    'regex("a(.)c").replace("abcadc", "<\\\\1>")',
    'regex("a.c").replaceBy("abcadc", switch($.value = "abc" => xx, $.value = "adc" => yy))',
    '"abcadc".replaceBy(regex("a(.)c"), $2.value + "!", count => 1)',
    'isRegex(regex("x"))',
    'isRegex("x")',
    'escapeRegex("a.b")',
]


@pytest.mark.parametrize("expression", REGEX_EXPRESSIONS)
def test_regex_functions_give_yaqls_own_results(expression: str) -> None:
    # yaql's stock library (re) is the reference: Heat evaluates with it unchanged.
    import yaql

    stock = yaql.YaqlFactory().create()(expression).evaluate(context=yaql.create_context())
    if not isinstance(stock, (str, bool, dict, type(None))):
        stock = list(stock)
    assert run_stages({"yaql": {"expression": expression}}) == ("ok", stock)


def test_named_groups_are_bound_by_name() -> None:
    # Deliberately unlike yaql 3.2 (so Heat), whose named-group binding unpacks each group's
    # text as a (name, value) pair: one-character groups fail, longer ones bind garbage.
    expression = 'regex("(?P<word>b+)").search("abbc", $word)'
    assert run_stages({"yaql": {"expression": expression}}) == (
        "ok", {"value": "bb", "start": 1, "end": 3})


# 2**60 ways to split the a's before the final "b" fails to match.
BACKTRACKING = {"yaql": {"expression": 'regex("(a|aa)+$").matches($.data)', "data": "a" * 60 + "b"}}


def test_backtracking_regex_is_stopped_at_the_yaql_limit() -> None:
    ctx = FakeContext(limits=Limits(yaql_timeout_seconds=0.3))
    stage, message = run_stages(BACKTRACKING, ctx=ctx)
    assert stage == "resolve"
    assert message == ("The regular expression '(a|aa)+$' ran out of time matching "
                       "(a pattern that backtracks without end)")


def test_backtracking_regex_does_not_hold_other_threads() -> None:
    ctx = FakeContext(limits=Limits(yaql_timeout_seconds=3))

    def bomb() -> float:
        assert run_stages(BACKTRACKING, "2021-04-16", ctx)[0] == "resolve"
        return time.monotonic()

    with ThreadPoolExecutor(max_workers=1) as pool:
        bomb_ended = pool.submit(bomb)
        time.sleep(0.3)
        assert run_stages({"yaql": {"expression": "$.data.sum()", "data": [1, 2]}}) == ("ok", 3)
        quick_ended = time.monotonic()
        # Had the match kept the GIL, this thread could only have run once the bomb ended.
        assert bomb_ended.result() - quick_ended > 1
