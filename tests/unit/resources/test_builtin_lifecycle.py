"""What each built-in type leaves behind after create, against Heat 27's recorded stacks."""

from __future__ import annotations

from typing import Any

import pytest

from hearth.resources.builtin import resource_mapping
from tests.unit.resources.conftest import ManualClock
from tests.unit.resources.fakes import heat27, make

CREATED: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
for case in heat27()["lifecycle"]:
    for name, body in case["resources"].items():
        outcome = case["create"]["resources"][name]
        if outcome["state"] == "CREATE_COMPLETE":
            CREATED.append((name, body, outcome))


@pytest.mark.parametrize(("name", "body", "outcome"), CREATED, ids=lambda v: str(v)[:30])
def test_ids_references_and_show_after_create(
    name: str, body: dict[str, Any], outcome: dict[str, Any], clock: ManualClock
) -> None:
    cls = resource_mapping()[body["type"]]
    res, _ = make(cls, body.get("properties"), name=name, type_name=body["type"])
    cookie = res.handle_create() if cls.has_handler("create") else None
    if cls.has_check("create"):
        clock.advance(0.01)
        assert res.check_create_complete(cookie)
    assert (res.resource_id is not None) == outcome["has_id"]
    assert (res.get_reference_id() == res.resource_id) == outcome["refid_is_id"]
    assert res.get_attribute("show") == outcome["show"]


def test_types_without_a_check_handler_are_the_ones_heat_reports() -> None:
    reasons = next(c for c in heat27()["lifecycle"] if c.get("check"))["check_result"]
    for name, reason in reasons["resources"].items():
        type_name = reason.removeprefix("CHECK not supported for ")
        assert not resource_mapping()[type_name].has_handler("check"), name
    assert resource_mapping()["OS::Heat::TestResource"].has_handler("check")
