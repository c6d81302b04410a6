"""OS::Heat::TestResource: stores its value, waits by polling, fails and replaces on demand."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from hearth.common.errors import StackValidationFailed
from hearth.resources.builtin import testing_resource
from hearth.resources.exceptions import failure_reason
from tests.unit.resources.conftest import ManualClock
from tests.unit.resources.fakes import FakeResourceContext, heat27, make

LIFECYCLE = heat27()["lifecycle"]
# Not imported by name: pytest would take a class called Test* for a test case.
Knobs = testing_resource.TestResource


def create(props: dict[str, Any], ctx: FakeResourceContext | None = None) -> Any:
    res, ctx = make(Knobs, props, type_name="OS::Heat::TestResource", context=ctx)
    return res, ctx, res.handle_create()


def test_create_stores_the_value_and_names_the_resource(clock: ManualClock) -> None:
    res, ctx, cookie = create({"value": "hello"})
    assert ctx.stored == {"value": "hello"} and not ctx.redacted
    assert res.resource_id == ctx.physical_resource_name()
    assert res.get_reference_id() == res.resource_id
    assert res.get_attribute("output") == "hello"
    assert res.get_attribute("show") is None
    # The cookie is plain JSON: any engine worker can carry the wait on.
    assert json.loads(json.dumps(cookie)) == cookie
    clock.advance(0.001)
    assert res.check_create_complete(cookie)


def test_waits_are_polled_never_slept(clock: ManualClock) -> None:
    started = time.monotonic()
    res, _, cookie = create({"wait_secs": 30, "action_wait_secs": {"create": 2}})
    assert not res.check_create_complete(cookie)
    clock.advance(2)
    assert not res.check_create_complete(cookie)  # strictly more than the wait, as in Heat
    clock.advance(0.5)
    assert res.check_create_complete(cookie)
    assert time.monotonic() - started < 1


def test_negative_wait_never_ends(clock: ManualClock) -> None:
    res, _, cookie = create({"wait_secs": -1})
    clock.advance(10**6)
    assert not res.check_create_complete(cookie)


def test_failing_create_reads_as_in_heat(clock: ManualClock) -> None:
    res, ctx, cookie = create({"fail": True, "wait_secs": 1})
    assert res.resource_id is None and ctx.stored == {}
    assert not res.check_create_complete(cookie)
    clock.advance(1.5)
    with pytest.raises(ValueError) as err:
        res.check_create_complete(cookie)
    expected = LIFECYCLE[0]["create"]["resources"]["r"]["reason"]
    assert failure_reason(err.value, "r") == expected


def test_a_cookie_needs_only_itself(clock: ManualClock) -> None:
    _, ctx, cookie = create({"fail": True})
    clock.advance(1)
    # Another worker polls with an instance of its own.
    other = Knobs("r", "OS::Heat::TestResource", {"fail": True}, ctx)
    with pytest.raises(ValueError, match="Test Resource failed r"):
        other.check_create_complete(json.loads(json.dumps(cookie)))


def test_update_in_place_stores_the_new_value(clock: ManualClock) -> None:
    res, ctx, _ = create({"value": "a"})
    new = Knobs.build_properties({"value": "b", "wait_secs": 3})
    cookie = res.handle_update(new, {"value": "b", "wait_secs": 3}, {"Properties": {}})
    assert ctx.stored["value"] == "b" and res.get_attribute("output") == "b"
    clock.advance(2)
    assert not res.check_update_complete(cookie)
    clock.advance(2)
    assert res.check_update_complete(cookie)


def test_update_without_a_new_value_does_not_wait(clock: ManualClock) -> None:
    res, _, _ = create({"value": "a"})
    new = Knobs.build_properties({"value": "a", "wait_secs": 50})
    cookie = res.handle_update(new, {"wait_secs": 50}, {"Properties": {}})
    clock.advance(0.01)
    assert res.check_update_complete(cookie)


def test_failing_update_keeps_the_old_value(clock: ManualClock) -> None:
    res, ctx, _ = create({"value": "a"})
    new = Knobs.build_properties({"value": "b", "fail": True})
    cookie = res.handle_update(new, {"value": "b", "fail": True}, {"Properties": {}})
    assert ctx.stored["value"] == "a"
    clock.advance(0.01)
    with pytest.raises(ValueError) as err:
        res.check_update_complete(cookie)
    assert failure_reason(err.value, "r") == LIFECYCLE[1]["update_result"]["resources"]["r"]


def test_delete_waits_its_own_time_and_never_fails(clock: ManualClock) -> None:
    res, _, _ = create({"fail": True, "wait_secs": 9, "action_wait_secs": {"delete": 1}})
    cookie = res.handle_delete()
    clock.advance(1.5)
    assert res.check_delete_complete(cookie)


def test_check_needs_a_created_resource() -> None:
    res, _, _ = create({"fail": True})
    with pytest.raises(Exception, match="Resource not created") as err:
        res.handle_check()
    assert failure_reason(err.value, "r") == "Exception: resources.r: Resource not created"
    created, _, _ = create({})
    created.handle_check()


def test_attribute_reads_can_be_slowed_down() -> None:
    res, _, _ = create({"value": "v", "attr_wait_secs": 0.05})
    started = time.monotonic()
    assert res.get_attribute("output") == "v"
    assert time.monotonic() - started >= 0.05


def test_value_change_replaces_when_asked_to() -> None:
    plan = Knobs.plan_update(
        "r", {"value": "a", "update_replace": True}, {"value": "b", "update_replace": True}
    )
    assert plan.replace
    assert not Knobs.plan_update("r", {"value": "a"}, {"value": "b"}).replace


def test_values_known_only_at_create_are_checked_then() -> None:
    # ``wait_secs`` came from another resource's output: "x".
    res, _ = make(Knobs, {"wait_secs": "x"}, type_name="OS::Heat::TestResource")
    with pytest.raises(StackValidationFailed) as err:
        res.validate_properties()
    recorded = next(c for c in LIFECYCLE if "o" in c["resources"])
    assert failure_reason(err.value, "r") == recorded["create"]["resources"]["r"]["reason"]
