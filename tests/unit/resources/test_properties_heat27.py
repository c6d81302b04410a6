"""Property checks and coercions of the built-in types, against Heat 27's recorded answers.

Each case is one resource ``r``; Heat's answers cover stack-create validation (values checked,
plugin hooks run), POST /validate (names only), the properties' own ``validate`` and the value
every property reads as.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from hearth.common.errors import HearthError, StackValidationFailed
from hearth.resources.builtin import resource_mapping
from hearth.resources.registry import PluginRegistry
from hearth.template.validate import validate_template
from tests.unit.resources.fakes import heat27, make

REGISTRY = PluginRegistry(resource_mapping())
CASES = heat27()["properties"]


def case_id(case: dict[str, Any]) -> str:
    body = {k: case[k] for k in ("properties", "update_policy", "deletion_policy") if k in case}
    return f"{case['type'].split('::')[-1]}-{json.dumps(body, sort_keys=True)}"[:90]


def answer(exc: BaseException | None) -> dict[str, str] | None:
    if exc is None:
        return None
    kind = exc.heat_type if isinstance(exc, HearthError) else type(exc).__name__
    return {"exc": kind, "msg": str(exc)}


def data_of(case: dict[str, Any]) -> tuple[dict[str, Any], frozenset[str]]:
    """The property data as the engine passes it: None for values not resolvable yet."""
    unresolved = frozenset(case.get("unresolved", ()))
    props = case.get("properties", {})
    return {k: None if k in unresolved else v for k, v in props.items()}, unresolved


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_stack_create_validation(case: dict[str, Any]) -> None:
    cls = REGISTRY.get_class(case["type"])
    data, unresolved = data_of(case)
    got: BaseException | None = None
    try:
        cls.validate_definition(
            "r",
            data,
            unresolved=unresolved,
            update_policy=case.get("update_policy"),
            deletion_policy=case.get("deletion_policy", "Delete"),
            type_name=case["type"],
        )
    except StackValidationFailed as exc:
        got = exc
    assert answer(got) == case["strict"]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_post_validate(case: dict[str, Any]) -> None:
    body = {k: v for k, v in case.items() if k in ("type", "properties", "update_policy",
                                                    "deletion_policy")}
    resources = {"r": body}
    if case.get("unresolved"):
        resources["other"] = {"type": "OS::Heat::TestResource"}
    template = {"heat_template_version": "2021-04-16", "resources": resources}
    got: BaseException | None = None
    try:
        validate_template(
            template,
            global_env=REGISTRY.global_environment(),
            type_checker=REGISTRY.type_checker,
        )
    except HearthError as exc:
        got = exc
    expected = case["template_only"]
    if expected is not None and expected["exc"] == "StackValidationFailed":
        # Recorded from Heat's engine; its validate API hands a StackValidationFailed back
        # as text and answers it as HTTPBadRequest.
        expected = {**expected, "exc": "HTTPBadRequest"}
    assert answer(got) == expected


@pytest.mark.parametrize("case", [c for c in CASES if not c.get("unresolved")], ids=case_id)
def test_validation_before_an_action(case: dict[str, Any]) -> None:
    res, _ = make(REGISTRY.get_class(case["type"]), data_of(case)[0])
    got: BaseException | None = None
    try:
        res.validate_properties()
    except StackValidationFailed as exc:
        got = exc
    assert answer(got) == case["properties_validate"]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_values_read_as_heats(case: dict[str, Any]) -> None:
    data, unresolved = data_of(case)
    props = REGISTRY.get_class(case["type"]).build_properties(data, unresolved=unresolved)
    got: dict[str, Any] = {}
    for key in props:
        if key in unresolved:
            continue  # Heat read the other resource's placeholder value here
        try:
            got[key] = {"value": json.loads(json.dumps(props[key]))}
        except ValueError as exc:
            got[key] = {"error": answer(exc)}
    expected = {k: v for k, v in case["values"].items() if k not in unresolved}
    assert got == expected
