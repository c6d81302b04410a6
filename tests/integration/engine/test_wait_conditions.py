"""Wait conditions and their handles through the engine, signalled through the token path."""

from __future__ import annotations

import json
import threading
import time
from typing import Any
from urllib.parse import urlparse

import pytest
from sqlalchemy import select

from hearth.engine.engine import Engine
from hearth.engine.services.signals import SignalFailed, SignalTokenInvalid
from hearth.store.models import ResourceData
from tests.integration.engine.conftest import CTX, events, resources, stack_row, wait_state
from tests.integration.engine.test_lifecycle import create, template

HANDLE = {"type": "OS::Heat::WaitConditionHandle"}


def wait_on(handle: str = "handle", count: int = 1, timeout: int = 60) -> dict[str, Any]:
    return {"type": "OS::Heat::WaitCondition",
            "properties": {"handle": {"get_resource": handle}, "count": count,
                           "timeout": timeout}}


def native(count: int = 1, timeout: int = 60) -> dict[str, Any]:
    return template(
        {"handle": HANDLE, "wait": wait_on(count=count, timeout=timeout)},
        outputs={
            "data": {"value": {"get_attr": ["wait", "data"]}},
            "curl": {"value": {"get_attr": ["handle", "curl_cli"]}},
        },
    )


def wait_until(check: Any, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.02)
    return value


def attrs(engine: Engine, identity: dict[str, str], name: str) -> dict[str, Any]:
    """The handle's attributes, once it is created."""
    def ready() -> dict[str, Any] | None:
        row = resources(engine, identity).get(name)
        if row is None or (row.action, row.status) != ("CREATE", "COMPLETE"):
            return None
        return dict(row.attr_data)
    found: dict[str, Any] = wait_until(ready)
    return found


def uuid_and_secret(url: str) -> tuple[str, str]:
    _, _v1, _kind, uuid, secret = urlparse(url).path.split("/")
    return uuid, secret


def signal(engine: Engine, url: str, details: Any, kind: str = "signal") -> dict[str, Any]:
    uuid, secret = uuid_and_secret(url)
    return engine.resource_signal_by_token(uuid, secret, details, kind)


def outputs(engine: Engine, identity: dict[str, str]) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in stack_row(engine, identity).outputs}


def state(engine: Engine, identity: dict[str, str], name: str) -> tuple[str, str, str]:
    row = resources(engine, identity)[name]
    return row.action, row.status, row.status_reason


def test_a_signal_through_the_endpoint_completes_the_wait(engine: Engine) -> None:
    identity = create(engine, native())
    handle = attrs(engine, identity, "handle")["attrs"]
    row = resources(engine, identity)["handle"]
    uuid, secret = uuid_and_secret(handle["endpoint"])
    public = engine.core.settings.public_url
    assert handle["endpoint"] == f"{public}/v1/signal/{row.uuid}/{secret}"
    assert uuid == row.uuid and handle["token"] == secret and len(secret) >= 40
    assert handle["curl_cli"] == (
        "curl -i -X POST -H 'Content-Type: application/json' "
        f"-H 'Accept: application/json' {handle['endpoint']}"
    )
    assert json.loads(handle["signal"]) == {"alarm_url": handle["endpoint"]}
    wait_until(lambda: state(engine, identity, "wait")[:2] == ("CREATE", "IN_PROGRESS"))
    time.sleep(0.3)
    assert state(engine, identity, "wait")[:2] == ("CREATE", "IN_PROGRESS")

    answer = signal(engine, handle["endpoint"], {"status": "SUCCESS", "reason": "up",
                                                 "data": "hello"})

    assert answer == {"resource": "handle", "metadata": {
        "1": {"status": "SUCCESS", "reason": "up", "data": "hello"}}}
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    assert outputs(engine, identity) == {"data": '{"1": "hello"}', "curl": handle["curl_cli"]}
    assert ("handle", "SIGNAL", "COMPLETE", "Signal: status:SUCCESS reason:up") in events(
        engine, identity)
    # The secret is kept encrypted, and the API hides it.
    with engine.core.db.session() as session:
        stored = session.scalars(select(ResourceData).where(
            ResourceData.resource_id == row.id, ResourceData.key == "signal_token")).one()
    assert stored.redact and secret not in (stored.value or "")


def test_count_two_needs_two_signals(engine: Engine) -> None:
    identity = create(engine, native(count=2))
    endpoint = attrs(engine, identity, "handle")["attrs"]["endpoint"]
    signal(engine, endpoint, {"data": "a"})
    time.sleep(1.5)  # more than the engine's longest poll interval
    assert state(engine, identity, "wait")[:2] == ("CREATE", "IN_PROGRESS")
    signal(engine, endpoint, {"data": "b", "id": "second"})
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    assert json.loads(outputs(engine, identity)["data"]) == {"1": "a", "second": "b"}
    reasons = [e[3] for e in events(engine, identity) if e[0] == "handle"]
    assert "Signal: status:SUCCESS reason:Signal 1 received" in reasons
    assert "Signal: status:SUCCESS reason:Signal 2 received" in reasons


def test_signals_sent_together_all_count(engine: Engine) -> None:
    identity = create(engine, native(count=6))
    endpoint = attrs(engine, identity, "handle")["attrs"]["endpoint"]
    threads = [threading.Thread(target=signal, args=(engine, endpoint, {"id": f"n{i}"}))
               for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    assert sorted(resources(engine, identity)["handle"].rsrc_metadata) == [
        f"n{i}" for i in range(6)]


def test_a_failure_signal_fails_the_wait_with_heats_reason(engine: Engine) -> None:
    identity = create(engine, native(count=3))
    endpoint = attrs(engine, identity, "handle")["attrs"]["endpoint"]
    signal(engine, endpoint, {"status": "SUCCESS"})
    signal(engine, endpoint, {"status": "FAILURE", "reason": "disk full"})
    action, status, reason = wait_state(engine, identity)
    assert (action, status) == ("CREATE", "FAILED")
    assert state(engine, identity, "wait") == (
        "CREATE", "FAILED", "WaitConditionFailure: resources.wait: disk full")
    assert reason == "Resource CREATE failed: WaitConditionFailure: resources.wait: disk full"


def test_a_wait_that_times_out_fails_with_heats_reason(engine: Engine) -> None:
    identity = create(engine, native(timeout=1))
    assert wait_state(engine, identity)[:2] == ("CREATE", "FAILED")
    assert state(engine, identity, "wait") == (
        "CREATE", "FAILED", "WaitConditionTimeout: resources.wait: 0 of 1 received")


def test_a_timeout_names_the_signals_received(engine: Engine) -> None:
    identity = create(engine, native(count=2, timeout=2))
    endpoint = attrs(engine, identity, "handle")["attrs"]["endpoint"]
    signal(engine, endpoint, {"reason": "web up"})
    assert wait_state(engine, identity)[:2] == ("CREATE", "FAILED")
    assert state(engine, identity, "wait")[2] == (
        "WaitConditionTimeout: resources.wait: 1 of 2 received - web up")


def snapshot(engine: Engine, identity: dict[str, str]) -> Any:
    """Everything a signal could change; taken once the wait has started."""
    wait_until(lambda: state(engine, identity, "wait")[:2] == ("CREATE", "IN_PROGRESS"))
    rows = resources(engine, identity)
    return (
        {n: (r.action, r.status, r.status_reason, r.rsrc_metadata, r.atomic_key)
         for n, r in rows.items()},
        events(engine, identity),
        stack_row(engine, identity).status,
    )


def test_a_bad_token_is_refused_and_changes_nothing(engine: Engine) -> None:
    identity = create(engine, native())
    endpoint = attrs(engine, identity, "handle")["attrs"]["endpoint"]
    uuid, secret = uuid_and_secret(endpoint)
    other = create(engine, native(), name="other")
    other_uuid, other_secret = uuid_and_secret(
        attrs(engine, other, "handle")["attrs"]["endpoint"])
    before = snapshot(engine, identity)
    refused = [
        (uuid, secret[:-1] + ("A" if secret[-1] != "A" else "B"), "signal"),
        (uuid, "", "signal"),
        (uuid, other_secret, "signal"),  # another handle's secret
        (other_uuid, secret, "signal"),
        (uuid, secret, "waitcondition"),  # the right secret on the other URL
        (uuid, secret, "bogus"),
        ("00000000-0000-4000-8000-000000000000", secret, "signal"),
        ("not-a-uuid", secret, "signal"),
        (resources(engine, identity)["wait"].uuid, secret, "signal"),
    ]
    for args in refused:
        with pytest.raises(SignalTokenInvalid) as err:
            engine.resource_signal_by_token(*args[:2], {"status": "SUCCESS"}, args[2])
        assert (err.value.http_status, err.value.heat_type, str(err.value)) == (
            403, "Forbidden", "Signal token is not valid")
    assert snapshot(engine, identity) == before
    signal(engine, endpoint, {})
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")


def test_a_bad_status_is_refused_and_the_handle_is_unharmed(engine: Engine) -> None:
    identity = create(engine, native())
    endpoint = attrs(engine, identity, "handle")["attrs"]["endpoint"]
    before = snapshot(engine, identity)
    for details in ({"status": "DONE"}, {"status": "SUCCESS", "extra": 1}, "text"):
        with pytest.raises(SignalFailed) as err:
            signal(engine, endpoint, details)
        assert str(err.value) == "ValueError: resources.handle: Metadata format invalid"
        assert err.value.http_status == 400
    assert snapshot(engine, identity) == before
    signal(engine, endpoint, None)
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    assert outputs(engine, identity)["data"] == '{"1": null}'


def test_a_handle_that_is_not_one(engine: Engine) -> None:
    tmpl = template({"handle": {"type": "OS::Heat::None"}, "wait": wait_on()})
    identity = create(engine, tmpl)
    assert wait_state(engine, identity)[:2] == ("CREATE", "FAILED")
    assert state(engine, identity, "wait")[2] == (
        "ValueError: resources.wait: handle is not a valid wait condition handle.")
    tmpl = template({"wait": {"type": "OS::Heat::WaitCondition",
                              "properties": {"handle": "nothing", "timeout": 5}}})
    identity = create(engine, tmpl, name="s2")
    assert wait_state(engine, identity)[:2] == ("CREATE", "FAILED")
    assert state(engine, identity, "wait")[2] == (
        "ValueError: resources.wait: nothing is not a valid wait condition handle.")


def cfn(handle_type: str) -> dict[str, Any]:
    return template(
        {"handle": {"type": handle_type},
         "wait": {"type": "AWS::CloudFormation::WaitCondition",
                  "properties": {"Handle": {"get_resource": "handle"}, "Timeout": 60}}},
        outputs={"data": {"value": {"get_attr": ["wait", "Data"]}},
                 "url": {"value": {"get_resource": "handle"}}},
    )


def cfn_body(data: str, unique_id: str = "1") -> dict[str, str]:
    return {"Status": "SUCCESS", "Reason": "ok", "UniqueId": unique_id, "Data": data}


def test_cloudformation_handle_and_wait_condition(engine: Engine) -> None:
    identity = create(engine, cfn("AWS::CloudFormation::WaitConditionHandle"))
    url = attrs(engine, identity, "handle")["ref"]
    row = resources(engine, identity)["handle"]
    assert url.startswith(f"{engine.core.settings.public_url}/v1/waitcondition/{row.uuid}/")
    assert row.physical_resource_id != url  # the secret is not the physical id
    with pytest.raises(SignalFailed, match="Metadata format invalid"):
        signal(engine, url, {"status": "SUCCESS"}, "waitcondition")  # native keys
    answer = signal(engine, url, cfn_body("done"), "waitcondition")
    assert answer["metadata"] == {"1": {"Status": "SUCCESS", "Reason": "ok", "Data": "done"}}
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    assert outputs(engine, identity) == {"data": '{"1": "done"}', "url": url}


def test_cloudformation_wait_condition_refuses_a_native_handle(engine: Engine) -> None:
    identity = create(engine, cfn("OS::Heat::WaitConditionHandle"))
    assert wait_state(engine, identity)[:2] == ("CREATE", "FAILED")
    assert state(engine, identity, "wait")[2] == (
        "ValueError: resources.wait: WaitCondition invalid Handle handle")


def test_update_wait_condition_handle_is_replaced_by_every_update(engine: Engine) -> None:
    tmpl = cfn("OS::Heat::UpdateWaitConditionHandle")
    tmpl["resources"]["native"] = HANDLE
    identity = create(engine, tmpl)
    old_url = attrs(engine, identity, "handle")["ref"]
    signal(engine, old_url, cfn_body("first"), "waitcondition")
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    before = resources(engine, identity)

    engine.update_stack(CTX, identity, tmpl)  # the very same template

    def new_handle() -> str | None:
        row = resources(engine, identity)["handle"]
        done = row.uuid != before["handle"].uuid and (row.action, row.status) == (
            "CREATE", "COMPLETE")
        return str(row.attr_data["ref"]) if done else None
    new_url = wait_until(new_handle)
    assert new_url != old_url
    assert resources(engine, identity)["handle"].rsrc_metadata in (None, {})
    wait_until(lambda: state(engine, identity, "wait")[:2] == ("CREATE", "IN_PROGRESS")
               and resources(engine, identity)["wait"].uuid != before["wait"].uuid)
    signal(engine, new_url, cfn_body("second"), "waitcondition")
    assert wait_state(engine, identity)[:2] == ("UPDATE", "COMPLETE")
    assert outputs(engine, identity)["data"] == '{"1": "second"}'
    # The native handle is left alone; the replaced handle's URL is dead.
    assert resources(engine, identity)["native"].uuid == before["native"].uuid
    with pytest.raises(SignalTokenInvalid):
        signal(engine, old_url, cfn_body("late"), "waitcondition")
