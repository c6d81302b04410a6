"""Functions that would build a string or list past their budget say so instead of
allocating it (a 30 KB template once made a 100 MB output)."""

from __future__ import annotations

import time

from hearth.template.functions import budget
from tests.unit.fakes import run_stages

BIG = "x" * 100_000


def test_str_replace_bomb_is_refused_before_it_is_built() -> None:
    started = time.monotonic()
    for name in ("str_replace", "str_replace_strict"):
        stage, message = run_stages(
            {name: {"template": "$v" * 1000, "params": {"$v": BIG}}})
        assert stage == "resolve"
        assert message == (f'"{name}" would make a string of 100000000 characters, more than '
                           f"the {budget.MAX_STRING_CHARS} a template may make")
    assert time.monotonic() - started < 2


def test_joins_are_bounded() -> None:
    assert run_stages({"list_join": ["", [BIG] * 200]})[1].startswith(
        '"list_join" would make a string of 20000000 characters')
    assert run_stages({"Fn::Join": ["", [BIG] * 200]}, "2013-05-23")[1].startswith(
        '"Fn::Join" would make a string of 20000000 characters')
    # Under the budget, nothing changes.
    assert run_stages({"list_join": [",", ["a", "b"]]}) == ("ok", "a,b")


def test_repeat_combinations_are_bounded() -> None:
    snippet = {"repeat": {"template": "%a%-%b%", "for_each": {
        "%a%": [str(i) for i in range(1000)], "%b%": [str(i) for i in range(1000)]}}}
    assert run_stages(snippet) == ("resolve", (
        f'"repeat" would make a list of 1000000 items, more than the {budget.MAX_ITEMS} a '
        "template may make"))


def test_yaql_pow_is_bounded() -> None:
    started = time.monotonic()
    assert run_stages({"yaql": {"expression": "pow(10, 10000000)", "data": {}}}) == (
        "resolve", "pow(10, 10000000) would be a number of about 40000000 bits, more than "
        "the 100000 a template may make")
    assert time.monotonic() - started < 2
    assert run_stages({"yaql": {"expression": "pow(2, 10) + pow(3, 4, 5)", "data": {}}}) == (
        "ok", 1025)
