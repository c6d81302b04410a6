"""Wait condition handles and wait conditions as plugins, with Heat 27's messages."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hearth.common.errors import HearthError, StackValidationFailed
from hearth.engine.running.update_plan import plan_resource
from hearth.resources.base import Resource
from hearth.resources.builtin import resource_mapping
from hearth.resources.builtin.wait_condition import (
    HeatWaitCondition,
    WaitCondition,
    WaitConditionFailure,
    WaitConditionTimeout,
)
from hearth.resources.builtin.wait_condition_handle import (
    HeatWaitConditionHandle,
    UpdateWaitConditionHandle,
    WaitConditionHandle,
)
from hearth.resources.definition import ValidationScope
from tests.unit.resources.conftest import ManualClock
from tests.unit.resources.fakes import FakeResourceContext, FakeStackUsers, make


def made(cls: type[Resource], props: dict[str, Any] | None = None,
         **kwargs: Any) -> tuple[Any, FakeResourceContext]:
    """``make`` typed loosely: tests call the type's own handlers."""
    return make(cls, props, **kwargs)


CURL = "curl -i -X POST -H 'Content-Type: application/json' -H 'Accept: application/json' "


def handle(props: dict[str, Any] | None = None, cls: type[Resource] = HeatWaitConditionHandle,
           name: str = "handle") -> tuple[Any, FakeResourceContext]:
    res, ctx = made(cls, props, name=name)
    res.handle_create()
    return res, ctx


def waiter(h: Any, props: dict[str, Any] | None = None,
           cls: type[Resource] = HeatWaitCondition) -> Any:
    """A wait condition on ``h`` (found by its reference and by its name)."""
    ctx = FakeResourceContext(resource_name="wait", peers={
        str(h.get_reference_id()): h, h.name: h})
    key = "Handle" if cls is WaitCondition else "handle"
    timeout = "Timeout" if cls is WaitCondition else "timeout"
    data = {key: h.get_reference_id(), timeout: 10, **(props or {})}
    return made(cls, data, name="wait", context=ctx)[0]


# --- OS::Heat::WaitConditionHandle ---------------------------------------------------------


def test_native_handle_hands_out_a_token_url() -> None:
    h, ctx = handle()
    secret = ctx.stored["signal_token"]
    assert "signal_token" in ctx.redacted and len(secret) >= 40
    assert h.resource_id == ctx.physical_resource_name()
    endpoint = f"http://hearth.test:8004/v1/signal/{ctx.resource_uuid}/{secret}"
    assert h.get_attribute("token") == secret
    assert h.get_attribute("endpoint") == endpoint
    assert h.get_attribute("curl_cli") == CURL + endpoint
    assert json.loads(h.get_attribute("signal")) == {"alarm_url": endpoint}
    assert handle()[1].stored["signal_token"] != secret


def test_attributes_are_none_before_create() -> None:
    h, _ = made(HeatWaitConditionHandle, None)
    assert [h.get_attribute(a) for a in ("token", "endpoint", "curl_cli", "signal")] == [
        None, None, None, None]


def test_signals_are_kept_in_metadata_as_heat_keeps_them() -> None:
    h, ctx = handle()
    assert h.handle_signal(None) == "status:SUCCESS reason:Signal 1 received"
    assert h.handle_signal({"status": "FAILURE", "reason": "no disk", "data": [1]}) == (
        "status:FAILURE reason:no disk")
    assert h.handle_signal({"id": "web", "data": "x"}) == (
        "status:SUCCESS reason:Signal 3 received")
    # The same id overwrites; the default reason counts what is there already.
    assert h.handle_signal({"id": "web", "data": "y"}) == (
        "status:SUCCESS reason:Signal 4 received")
    assert ctx.metadata == {
        "1": {"data": None, "reason": "Signal 1 received", "status": "SUCCESS"},
        "2": {"data": [1], "reason": "no disk", "status": "FAILURE"},
        "web": {"data": "y", "reason": "Signal 4 received", "status": "SUCCESS"},
    }
    assert h.get_status() == ["SUCCESS", "FAILURE", "SUCCESS"]
    assert h.get_status_reason("FAILURE") == ["no disk"]
    assert h.signal({"status": "SUCCESS"}) == "Signal: status:SUCCESS reason:Signal 4 received"


@pytest.mark.parametrize("details", [
    {"status": "DONE"}, {"status": "success"}, {"status": "SUCCESS", "extra": 1}, "text", [1],
])
def test_bad_signals_are_refused_and_change_nothing(details: Any) -> None:
    h, ctx = handle()
    h.handle_signal({"data": "kept"})
    with pytest.raises(ValueError, match="^Metadata format invalid$"):
        h.handle_signal(details)
    assert ctx.metadata == {
        "1": {"data": "kept", "reason": "Signal 1 received", "status": "SUCCESS"}}


def test_delete_kills_the_url() -> None:
    h, ctx = handle()
    h.handle_delete()
    assert "signal_token" not in ctx.stored
    assert h.get_attribute("endpoint") is None


def test_cfn_signal_transport_gives_a_waitcondition_url() -> None:
    h, ctx = handle({"signal_transport": "CFN_SIGNAL"})
    secret = ctx.stored["waitcondition_token"]
    assert "signal_token" not in ctx.stored and "waitcondition_token" in ctx.redacted
    assert [h.get_attribute(a) for a in ("token", "endpoint", "curl_cli")] == [None] * 3
    assert json.loads(h.get_attribute("signal")) == {
        "alarm_url": f"http://hearth.test:8004/v1/waitcondition/{ctx.resource_uuid}/{secret}"}


def test_no_signal_transport_signals_itself_when_asked() -> None:
    h, ctx = handle({"signal_transport": "NO_SIGNAL"})
    assert ctx.stored == {} and h.get_attribute("signal") == "{}"
    assert h.get_status() == ["SUCCESS"]
    assert h.get_status() == ["SUCCESS", "SUCCESS"]


@pytest.mark.parametrize("transport", ["TEMP_URL_SIGNAL", "ZAQAR_SIGNAL"])
def test_transports_needing_other_services_are_refused(transport: str) -> None:
    props = HeatWaitConditionHandle.build_properties({"signal_transport": transport})
    scope = ValidationScope("handle", "OS::Heat::WaitConditionHandle")
    with pytest.raises(StackValidationFailed) as err:
        HeatWaitConditionHandle.validate(props, scope)
    assert str(err.value).startswith(
        f"resources.handle.properties.signal_transport: signal_transport {transport} is not "
        "supported by Hearth")
    res, _ = made(HeatWaitConditionHandle, {"signal_transport": transport}, name="handle")
    with pytest.raises(StackValidationFailed):
        res.handle_create()


def test_heat_signal_hands_out_a_stack_user_and_its_signal_url() -> None:
    users = FakeStackUsers()
    ctx = FakeResourceContext(resource_name="handle", stack_users=users)
    h, _ = made(HeatWaitConditionHandle, {"signal_transport": "HEAT_SIGNAL"}, name="handle",
                context=ctx)
    h.handle_create()
    signal = json.loads(h.get_attribute("signal"))
    (user_id,) = users.users
    assert signal["user_id"] == user_id and signal["project_id"] == users.project_id
    assert users.users[user_id]["password"] == signal["password"]
    assert signal["alarm_url"].endswith("/resources/handle/signal")
    assert f"/v1/{users.project_id}/stacks/" in signal["alarm_url"]
    assert h.get_attribute("token") is None and h.get_attribute("endpoint") is None
    h.handle_delete()
    assert users.users == {}


def test_heat_signal_without_a_stack_user_domain_says_what_to_configure() -> None:
    h, _ = made(HeatWaitConditionHandle, {"signal_transport": "HEAT_SIGNAL"}, name="handle")
    with pytest.raises(HearthError) as err:
        h.handle_create()
    assert "stack user domain" in str(err.value)


# --- the CloudFormation handles -------------------------------------------------------------


def test_cfn_handle_reference_is_its_url() -> None:
    h, ctx = made(WaitConditionHandle, None, name="handle")
    assert h.get_reference_id() == "handle"
    h.handle_create()
    secret = ctx.stored["waitcondition_token"]
    assert h.get_reference_id() == (
        f"http://hearth.test:8004/v1/waitcondition/{ctx.resource_uuid}/{secret}")
    assert h.resource_id == ctx.physical_resource_name()


def test_cfn_handle_takes_cfn_signals_only() -> None:
    h, ctx = handle(cls=WaitConditionHandle)
    assert h.handle_signal(None) is None and ctx.metadata is None
    assert h.signal(None) == "No signal details provided"
    with pytest.raises(ValueError, match="Metadata format invalid"):
        h.handle_signal({"status": "SUCCESS"})
    with pytest.raises(ValueError, match="Metadata format invalid"):
        h.handle_signal({"Status": "SUCCESS", "Reason": "r", "UniqueId": "1"})  # no Data
    body = {"Status": "SUCCESS", "Reason": "ok", "UniqueId": 7, "Data": "d"}
    assert h.handle_signal(body) == "status:SUCCESS reason:ok"
    assert ctx.metadata == {"7": {"Status": "SUCCESS", "Reason": "ok", "Data": "d"}}


def test_update_handle_is_replaced_even_when_nothing_changed() -> None:
    definition = {"type": "OS::Heat::UpdateWaitConditionHandle"}
    classes = resource_mapping()
    plan = plan_resource(classes.__getitem__, "handle", ("CREATE", "COMPLETE"),
                         definition, None, definition)
    assert plan.kind == "replace"
    plain = {"type": "AWS::CloudFormation::WaitConditionHandle"}
    plan = plan_resource(classes.__getitem__, "handle", ("CREATE", "COMPLETE"),
                         plain, None, plain)
    assert plan.kind == "unchanged"
    assert issubclass(UpdateWaitConditionHandle, WaitConditionHandle)


# --- OS::Heat::WaitCondition ------------------------------------------------------------------


def test_wait_completes_with_count_successes(clock: ManualClock) -> None:
    h, _ = handle()
    wait = waiter(h, {"count": 2})
    cookie = wait.handle_create()
    assert wait.check_create_complete(cookie) is False
    h.handle_signal({"data": "a"})
    assert wait.check_create_complete(cookie) is False
    h.handle_signal({"data": "b"})
    assert wait.check_create_complete(cookie) is True
    assert wait.get_attribute("data") == '{"1": "a", "2": "b"}'


def test_any_failure_fails_the_wait(clock: ManualClock) -> None:
    h, _ = handle()
    wait = waiter(h, {"count": 3})
    cookie = wait.handle_create()
    h.handle_signal({"status": "FAILURE", "reason": "one"})
    h.handle_signal({})
    h.handle_signal({"status": "FAILURE", "reason": "two"})
    with pytest.raises(WaitConditionFailure, match="^one;two$"):
        wait.check_create_complete(cookie)


def test_timeout_says_how_many_arrived(clock: ManualClock) -> None:
    h, _ = handle()
    wait = waiter(h, {"count": 3, "timeout": 5})
    cookie = wait.handle_create()
    clock.advance(5)
    assert wait.check_create_complete(cookie) is False  # not older than the timeout yet
    clock.advance(0.5)
    with pytest.raises(WaitConditionTimeout, match=r"^0 of 3 received$"):
        wait.check_create_complete(cookie)
    h.handle_signal({"reason": "web"})
    h.handle_signal({"reason": "db"})
    with pytest.raises(WaitConditionTimeout, match=r"^2 of 3 received - web;db$"):
        wait.check_create_complete(cookie)


def test_a_handle_that_is_not_one_fails_the_create() -> None:
    other, _ = made(HeatWaitCondition, {"handle": "x", "timeout": 1}, name="other")
    ctx = FakeResourceContext(resource_name="wait", peers={"other": other})
    wait = made(HeatWaitCondition, {"handle": "other", "timeout": 5}, name="wait",
                context=ctx)[0]
    with pytest.raises(ValueError, match="^other is not a valid wait condition handle.$"):
        wait.handle_create()
    lost = made(HeatWaitCondition, {"handle": "nowhere", "timeout": 5}, name="wait")[0]
    with pytest.raises(ValueError, match="^nowhere is not a valid wait condition handle.$"):
        lost.handle_create()
    assert lost.get_attribute("data") == ""


def test_data_is_an_empty_map_before_any_signal(clock: ManualClock) -> None:
    h, _ = handle()
    assert waiter(h).get_attribute("data") == "{}"


def test_count_update_waits_again_with_the_signals_in(clock: ManualClock) -> None:
    h, _ = handle()
    wait = waiter(h, {"count": 1})
    assert wait.check_create_complete(wait.handle_create()) is False
    h.handle_signal({})
    new = HeatWaitCondition.build_properties(
        {"handle": h.get_reference_id(), "timeout": 10, "count": 2})
    cookie = wait.handle_update(new, {"count": 2}, {})
    assert cookie["count"] == 2 and wait.check_update_complete(cookie) is False
    h.handle_signal({})
    assert wait.check_update_complete(cookie) is True


def test_delete_empties_the_handle(clock: ManualClock) -> None:
    h, ctx = handle()
    h.handle_signal({})
    waiter(h).handle_delete()
    assert ctx.metadata == {}


# --- AWS::CloudFormation::WaitCondition ------------------------------------------------------


def test_cfn_wait_condition_on_a_cfn_handle(clock: ManualClock) -> None:
    h, _ = handle(cls=WaitConditionHandle)
    wait = waiter(h, {"Count": 1}, cls=WaitCondition)
    cookie = wait.handle_create()
    h.handle_signal({"Status": "SUCCESS", "Reason": "r", "UniqueId": "a", "Data": "x"})
    assert wait.check_create_complete(cookie) is True
    assert wait.get_attribute("Data") == '{"a": "x"}'


def test_cfn_wait_condition_refuses_other_handles() -> None:
    h, _ = handle()
    with pytest.raises(ValueError, match="^WaitCondition invalid Handle handle$"):
        waiter(h, cls=WaitCondition).handle_create()
    url = "http://hearth.test:8004/v1/waitcondition/some-uuid/the-secret"
    lost = made(WaitCondition, {"Handle": url, "Timeout": 5}, name="wait")[0]
    with pytest.raises(ValueError) as err:
        lost.handle_create()
    # The message names the handle, never the secret.
    assert str(err.value) == "WaitCondition invalid Handle some-uuid"
