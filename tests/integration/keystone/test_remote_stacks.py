"""OS::Heat::Stack in another region of the catalog (Heat's remote stacks), for real:
``hearth serve`` with Keystone auth and trusts, and a region of the test's own whose
orchestration endpoint is that very server. The parent's resource creates, updates,
suspends, resumes, checks and deletes the remote stack through that endpoint, with the
parent's trust; a region without the endpoint, or a template the endpoint finds invalid, is
refused with Heat's messages.

The server answers with one API thread: the parent's create waits (in that thread) for the
remote ``/validate``, which the same server must answer; it can only because a call that waits
on an API gives the server a thread more meanwhile (``hearth.common.blocking``).

The region and its endpoint are removed at the end, and so are the stacks (with their
trusts): Keystone is left as it was found.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from heatclient import exc as heat_exc

from hearth.cli.serve import RunningServer, serving
from hearth.common.config import load_config
from tests.integration.api.keystone_fixtures import (
    AUTHTOKEN_CONF,
    DEMO,
    KEYSTONE_URL,
    SERVICE,
    Keystone,
    demo_heat,
    keystone,  # noqa: F401 - the fixture
    own_region,
)

REMOTE = """\
heat_template_version: 2018-08-31
parameters:
  length: {type: number, default: 8}
resources:
  %(name)s:
    type: OS::Heat::RandomString
    properties: {length: {get_param: length}}
outputs:
  remote_key:
    value: {get_attr: [%(name)s, value]}
"""
TIMEOUT = 60.0
# The demo user's trusts are counted here and by the cloud tests (tests/integration/cloud,
# test_trusts.py): one xdist worker runs them all, so no test sees another's trusts.
pytestmark = pytest.mark.xdist_group("devcloud")


@pytest.fixture(scope="module")
def region(keystone: Keystone) -> Iterator[str]:  # noqa: F811
    with own_region(keystone, "hearth-remote") as name:
        yield name


@pytest.fixture(scope="module")
def served(keystone: Keystone, region: str,  # noqa: F811
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """The server, and its endpoint in the test's region (made once it listens)."""
    tmp = tmp_path_factory.mktemp("hearth-remote-stacks")
    conf_file = tmp / "hearth.conf"
    conf_file.write_text(
        "[DEFAULT]\nauth_encryption_key = remote-stack-tests-key-of-enough-length\n"
        "action_retry_limit = 0\n\n"
        f"[trustee]\nauth_url = {KEYSTONE_URL}\nusername = {SERVICE[0]}\n"
        f"password = {SERVICE[1]}\n\n" + AUTHTOKEN_CONF
    )
    conf = load_config([conf_file], [("data_dir", None, str(Path(tmp) / "data")),
                                     ("bind_port", "api", 0), ("threads", "api", 1),
                                     ("bind", "cfn_api", "127.0.0.1:0")])
    with serving(conf) as running:
        service = keystone.get("/services", "services", type="orchestration")[0]
        keystone._call("POST", "/endpoints", json={"endpoint": {
            "service_id": service["id"], "interface": "public", "region_id": region,
            "url": f"{running.url}/v1/%(tenant_id)s"}})
        yield running


@pytest.fixture()
def heat(served: RunningServer) -> Any:
    """The demo user's heatclient (its token sees the test's region in its catalog)."""
    return demo_heat(served.url)


@pytest.fixture()
def trusts(keystone: Keystone) -> Callable[[], set[str]]:  # noqa: F811
    """The ids of the demo user's trusts, now."""
    demo = keystone.get("/users", "users", name=DEMO[0], domain_id="default")[0]

    def listing() -> set[str]:
        return {t["id"] for t in keystone.get("/OS-TRUST/trusts", "trusts",
                                              trustor_user_id=demo["id"])}

    return listing


def parent(region: str, remote: str, **props: Any) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"far": {"type": "OS::Heat::Stack", "properties": {
            "context": {"region_name": region}, "template": remote, **props}}},
        "outputs": {
            "outputs": {"value": {"get_attr": ["far", "outputs"]}},
            "name": {"value": {"get_attr": ["far", "stack_name"]}},
            "ref": {"value": {"get_resource": "far"}},
        },
    }


def settled(heat: Any, stack_id: str, action: str) -> Any:
    deadline = time.monotonic() + TIMEOUT
    while True:
        stack = heat.stacks.get(stack_id)
        if stack.stack_status != f"{action}_IN_PROGRESS":
            return stack
        assert time.monotonic() < deadline, f"{stack_id} still {stack.stack_status}"
        time.sleep(0.1)


def outputs(stack: Any) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in stack.outputs}


def resource_types(heat: Any, stack_id: str) -> dict[str, str]:
    return {r.resource_name: r.resource_type for r in heat.resources.list(stack_id)}


def test_remote_stack_lifecycle(heat: Any, region: str,
                                trusts: Callable[[], set[str]]) -> None:
    before = trusts()
    name = f"remote-{uuid.uuid4().hex[:6]}"
    created = heat.stacks.create(stack_name=name, disable_rollback=True, template=parent(
        region, REMOTE % {"name": "random1"}, parameters={"length": 12}))
    stack_id = created["stack"]["id"]
    try:
        stack = settled(heat, stack_id, "CREATE")
        assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
        # The stack got a trust, through which its resource reaches the region.
        assert len(trusts() - before) == 1
        remote_id = heat.resources.get(stack_id, "far").physical_resource_id
        remote = heat.stacks.get(remote_id)
        assert (remote.id, remote.stack_status) == (remote_id, "CREATE_COMPLETE")
        assert resource_types(heat, remote_id) == {"random1": "OS::Heat::RandomString"}
        assert resource_types(heat, stack_id) == {"far": "OS::Heat::Stack"}
        key = outputs(remote)["remote_key"]
        assert len(key) == 12
        assert outputs(stack) == {"outputs": {"remote_key": key},
                                  "name": remote.stack_name, "ref": remote_id}
        assert remote.stack_name.startswith(f"{name}-far-")
        assert remote.parameters["length"] == "12"

        # An update reaches the same remote stack, whatever changed.
        heat.stacks.update(stack_id, template=parent(
            region, REMOTE % {"name": "random2"}, parameters={"length": 20}))
        stack = settled(heat, stack_id, "UPDATE")
        assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
        assert heat.resources.get(stack_id, "far").physical_resource_id == remote_id
        remote = heat.stacks.get(remote_id)
        assert remote.stack_status == "UPDATE_COMPLETE"
        assert resource_types(heat, remote_id) == {"random2": "OS::Heat::RandomString"}
        assert len(outputs(stack)["outputs"]["remote_key"]) == 20

        for action in ("suspend", "resume", "check"):
            getattr(heat.actions, action)(stack_id)
            upper = action.upper()
            stack = settled(heat, stack_id, upper)
            assert stack.stack_status == f"{upper}_COMPLETE", stack.stack_status_reason
            assert heat.stacks.get(remote_id).stack_status == f"{upper}_COMPLETE"
    finally:
        heat.stacks.delete(stack_id)
        stack = settled(heat, stack_id, "DELETE")
    assert stack.stack_status == "DELETE_COMPLETE", stack.stack_status_reason
    assert heat.stacks.get(remote_id).stack_status == "DELETE_COMPLETE"
    assert trusts() == before


def test_a_region_without_the_endpoint_is_refused(heat: Any) -> None:
    far = f"DARKHOLE-{uuid.uuid4().hex[:6]}"
    with pytest.raises(heat_exc.HTTPBadRequest) as raised:
        heat.stacks.create(stack_name="remote-dark", template=parent(
            far, REMOTE % {"name": "r"}))
    assert str(raised.value) == (
        f'ERROR: Cannot establish connection to Heat endpoint at region "{far}" due to '
        f'"public endpoint for orchestration service in {far} region not found"')


def test_the_remote_endpoint_validates_the_template(heat: Any, region: str) -> None:
    wrong = (REMOTE % {"name": "r"}).replace("resources:", "resource:")
    with pytest.raises(heat_exc.HTTPBadRequest) as raised:
        heat.stacks.create(stack_name="remote-invalid", template=parent(region, wrong))
    assert str(raised.value) == (
        f'ERROR: Failed validating stack template using Heat endpoint at region "{region}" '
        'due to "ERROR: The template section is invalid: resource"')


def test_a_failed_remote_stack_fails_the_resource(heat: Any, region: str,
                                                   trusts: Callable[[], set[str]]) -> None:
    before = trusts()
    failing = ("heat_template_version: 2018-08-31\nresources:\n  bad:\n"
               "    type: OS::Heat::TestResource\n    properties: {fail: true}\n")
    created = heat.stacks.create(stack_name=f"remote-fail-{uuid.uuid4().hex[:6]}",
                                 disable_rollback=True, template=parent(region, failing))
    stack_id = created["stack"]["id"]
    try:
        stack = settled(heat, stack_id, "CREATE")
        assert stack.stack_status == "CREATE_FAILED"
        assert stack.stack_status_reason.startswith(
            'Resource CREATE failed: ResourceInError: resources.far: Went to status '
            'CREATE_FAILED due to "Resource CREATE failed: ValueError: resources.bad: '
        ), stack.stack_status_reason
        remote_id = heat.resources.get(stack_id, "far").physical_resource_id
        assert heat.stacks.get(remote_id).stack_status == "CREATE_FAILED"
    finally:
        heat.stacks.delete(stack_id)
        stack = settled(heat, stack_id, "DELETE")
    assert stack.stack_status == "DELETE_COMPLETE", stack.stack_status_reason
    assert heat.stacks.get(remote_id).stack_status == "DELETE_COMPLETE"
    assert trusts() == before
