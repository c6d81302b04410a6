"""OS::Heat::Stack with a ``context`` region, against an orchestration API held in memory:
what is sent to the region's endpoint, and Heat's messages and status reasons.

(The real thing, with ``hearth serve`` as its own remote region, is
tests/integration/keystone/test_remote_stacks.py.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from hearth.clients.cloud import Cloud
from hearth.clients.errors import ResourceInError
from hearth.clients.settings import ClientSettings
from hearth.common.errors import StackValidationFailed
from hearth.resources.builtin.heat_stack import RemoteStack
from hearth.resources.properties import Properties
from hearth.template.environment import Environment
from tests.unit.resources.fakes import FakeResourceContext

URL = "http://heat.far.test/v1/p1"
REMOTE = "heat_template_version: 2018-08-31\nresources: {}\n"


@dataclass
class Answer:
    status_code: int
    body: Any = None
    reason: str = "Reason"

    @property
    def content(self) -> bytes:
        return b"" if self.body is None else json.dumps(self.body).encode()

    def json(self) -> Any:
        return self.body


@dataclass
class FakeHeat:
    """The session of a cloud whose catalog has the orchestration API in region ``Far``."""

    answers: list[Answer] = field(default_factory=list)
    calls: list[tuple[str, str, Any]] = field(default_factory=list)

    def get_endpoint(self, service_type: str, interface: str, region_name: str) -> str | None:
        assert (service_type, interface) == ("orchestration", "public")
        return URL if region_name == "Far" else None

    def request(self, url: str, method: str, **kwargs: Any) -> Answer:
        self.calls.append((method, url.removeprefix(URL), kwargs.get("json")))
        return self.answers.pop(0) if self.answers else Answer(200, {})


def cloud_of(session: FakeHeat, keystone: bool = True) -> Cloud:
    return Cloud(ClientSettings(keystone_auth=keystone), lambda: session,  # type: ignore[arg-type,return-value]
                 description="fake")


@dataclass
class Validation:
    """What the engine hands constraints and plugins while a definition is checked."""

    cloud: Cloud
    used: bool = False


def props(region: str | None = "Far", **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"template": REMOTE, **more}
    if region is not None:
        out["context"] = {"region_name": region}
    return out


def check(data: dict[str, Any], validation: Validation | None) -> None:
    RemoteStack.validate_definition("far", data, type_name="OS::Heat::Stack",
                                    context=validation, environment=Environment(),
                                    files={"f.yaml": "x"})


def test_a_region_without_an_endpoint_is_refused_with_heats_message() -> None:
    validation = Validation(cloud_of(FakeHeat()))
    with pytest.raises(StackValidationFailed) as raised:
        check(props("DARKHOLE"), validation)
    assert str(raised.value) == (
        'Cannot establish connection to Heat endpoint at region "DARKHOLE" due to '
        '"public endpoint for orchestration service in DARKHOLE region not found"')


def test_the_endpoint_validates_the_template_with_files_and_environment() -> None:
    heat = FakeHeat([Answer(400, {"error": {"message": "The template section is invalid: x"}})])
    validation = Validation(cloud_of(heat))
    with pytest.raises(StackValidationFailed) as raised:
        check(props(parameters={"a": "1"}), validation)
    assert str(raised.value) == (
        'Failed validating stack template using Heat endpoint at region "Far" due to '
        '"ERROR: The template section is invalid: x"')
    (method, path, body), = heat.calls
    assert (method, path) == ("POST", "/validate")
    assert body["template"] == {"heat_template_version": "2018-08-31", "resources": {}}
    assert body["files"] == {"f.yaml": "x"}
    assert body["environment"]["parameters"] == {"a": "1"}
    # The stack will act through the endpoint later: it needs a trust.
    assert validation.used


def test_without_keystone_a_region_is_refused_and_no_region_is_a_nested_stack() -> None:
    for validation in (None, Validation(cloud_of(FakeHeat(), keystone=False))):
        with pytest.raises(StackValidationFailed, match="Cannot create a stack in region Far: "
                           "remote stacks are not supported by this Hearth"):
            check(props(), validation)
    check(props(None), None)
    assert RemoteStack.child_for("far", Properties(RemoteStack.properties_schema, props()),
                                 Environment(), {}) is None


def test_a_changed_region_replaces_the_resource() -> None:
    def p(region: str | None, insecure: bool = False) -> Properties:
        data = props(region)
        if region is not None:
            data["context"]["insecure"] = insecure
        return Properties(RemoteStack.properties_schema, data)

    changed = frozenset({"context"})
    assert RemoteStack.needs_replace_with_prop_diff(changed, p("Other"), p("Far"))
    assert RemoteStack.needs_replace_with_prop_diff(changed, p(None), p("Far"))
    assert not RemoteStack.needs_replace_with_prop_diff(changed, p("Far", True), p("Far"))


class RemoteContext(FakeResourceContext):
    def __init__(self, cloud: Cloud) -> None:
        super().__init__(resource_name="far")
        self._cloud = cloud
        self.physical_ids: list[str | None] = []

    @property
    def cloud(self) -> Cloud:
        return self._cloud

    def stack_environment(self) -> Environment:
        return Environment({"parameter_defaults": {"d": 1}})

    def stack_files(self) -> dict[str, str]:
        return {"f.yaml": "x"}

    def physical_id_set(self, value: str | None) -> None:
        self.physical_ids.append(value)


def stack(status: str, reason: str = "") -> Answer:
    return Answer(200, {"stack": {"stack_status": status, "stack_status_reason": reason,
                                  "stack_name": "remote", "outputs": [
                                      {"output_key": "k", "output_value": "v"}]}})


def test_create_polls_the_remote_stack_and_carries_its_failure_over() -> None:
    heat = FakeHeat([Answer(201, {"stack": {"id": "rid"}})])
    ctx = RemoteContext(cloud_of(heat))
    res = RemoteStack("far", "OS::Heat::Stack", props(parameters={"a": "1"}, timeout=3), ctx)
    cookie = res.handle_create()
    assert (res.resource_id, ctx.physical_ids) == ("rid", ["rid"])
    method, path, body = heat.calls[0]
    assert (method, path) == ("POST", "/stacks")
    assert body["stack_name"] == ctx.physical_resource_name()
    assert (body["parameters"], body["timeout_mins"], body["disable_rollback"]) == (
        {"a": "1"}, 3, True)
    assert body["environment"]["parameter_defaults"] == {"d": 1}
    assert body["files"] == {"f.yaml": "x"}

    heat.answers += [stack("CREATE_IN_PROGRESS"), stack("CREATE_COMPLETE")]
    assert res.check_create_complete(cookie) is False
    assert res.check_create_complete(cookie) is True
    assert heat.calls[-1][:2] == ("GET", "/stacks/rid")
    calls = len(heat.calls)
    assert res.get_attribute("outputs") == {"k": "v"}
    assert res.get_attribute("stack_name") == "remote"
    assert len(heat.calls) == calls  # as the last poll read it

    heat.answers.append(stack("CREATE_FAILED", "boom"))
    with pytest.raises(ResourceInError, match='^Went to status CREATE_FAILED due to "boom"$'):
        res.check_create_complete(cookie)


def test_update_suspend_and_delete_act_on_the_remote_stack() -> None:
    heat = FakeHeat()
    res = RemoteStack("far", "OS::Heat::Stack", props(), RemoteContext(cloud_of(heat)),
                      resource_id="rid")
    new = Properties(RemoteStack.properties_schema, props(parameters={"b": "2"}))
    assert res.handle_update(new, {"parameters": {"b": "2"}}, None) == "UPDATE"
    assert heat.calls[-1][:2] == ("PUT", "/stacks/rid")
    assert heat.calls[-1][2]["parameters"] == {"b": "2"}
    heat.answers.append(stack("CREATE_COMPLETE"))
    assert res.check_update_complete("UPDATE") is False  # not started over there yet

    assert res.handle_suspend() == "SUSPEND"
    assert heat.calls[-1] == ("POST", "/stacks/rid/actions", {"suspend": None})

    heat.answers += [Answer(204), Answer(404, {"error": {"message": "gone"}})]
    cookie = res.handle_delete()
    assert heat.calls[-1][:2] == ("DELETE", "/stacks/rid")
    assert res.check_delete_complete(cookie) is True  # not found: deleted


def test_without_a_remote_stack_suspend_fails_as_in_heat() -> None:
    res = RemoteStack("far", "OS::Heat::Stack", props(), RemoteContext(cloud_of(FakeHeat())))
    with pytest.raises(Exception, match="Cannot suspend far, resource not found"):
        res.handle_suspend()
