"""OS::Nova::Server when Nova fails it: ERROR with Nova's fault, the create retried as Heat's
action_retry_limit says, and a delete that leaves nothing behind."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from openstack.connection import Connection

from hearth.common.errors import StackValidationFailed
from hearth.engine.engine import Engine
from tests.integration.cloud.conftest import (
    CTX,
    action,
    assert_nothing_left,
    create,
    delete,
    inventory,
    physical_id,
)
from tests.integration.cloud.conftest import state as state_of
from tests.integration.engine.conftest import resources


def template(flavor: str) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"server": {"type": "OS::Nova::Server", "properties": {
            "image": "cirros", "flavor": flavor, "networks": [{"network": "private"}],
            "user_data_format": "RAW"}}},
    }


RETRIES = 2


def test_server_in_error_is_retried_then_fails_with_novas_fault(
    cloud_engine_factory: Callable[..., Engine], demo_conn: Connection,
    admin_conn: Connection,
) -> None:
    cloud_engine = cloud_engine_factory("devcloud-demo", action_retry_limit=RETRIES)
    since = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    before = inventory(demo_conn, ("servers", "ports"))
    # A bigger disk than the host has (disks have no quota): every server goes to ERROR.
    flavor = admin_conn.compute.create_flavor(
        name=f"hearth-huge-{os.getpid()}-{os.urandom(3).hex()}", ram=512,
        vcpus=1, disk=700000, is_public=True)
    stack = None
    try:
        stack = create(cloud_engine, "srv-err", template(flavor.name))
        rows = resources(cloud_engine, stack)
        assert rows["server"].status == "FAILED"
        assert rows["server"].status_reason.startswith(
            'ResourceInError: resources.server: Went to status ERROR due to "Message: No valid '
            "host was found."), rows["server"].status_reason
        assert rows["server"].status_reason.endswith(', Code: 500"')
        # Each failed boot was deleted before the next one: Nova saw 1 + retries boots, and
        # only the last one is left (in ERROR) for the stack delete.
        server_id = physical_id(cloud_engine, stack, "server")
        name = demo_conn.compute.get_server(server_id).name
        booted = {s.id: s.status for s in demo_conn.compute.servers(
            changes_since=since, name=f"^{name}$")}
        assert len(booted) == 1 + RETRIES, booted
        assert booted.pop(server_id) == "ERROR"
        assert set(booted.values()) == {"DELETED"}
    finally:
        if stack is not None:
            assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
        admin_conn.compute.delete_flavor(flavor)
    assert_nothing_left(demo_conn, before)


def test_check_and_delete_when_the_server_is_gone(
    cloud_engine: Engine, demo_conn: Connection
) -> None:
    before = inventory(demo_conn, ("servers", "ports"))
    stack = create(cloud_engine, "srv-gone", template("m1.tiny"))
    try:
        server_id = physical_id(cloud_engine, stack, "server")
        demo_conn.compute.delete_server(server_id)
        demo_conn.compute.wait_for_delete(demo_conn.compute.get_server(server_id), wait=60)
        checked = action(cloud_engine, stack, "check")
        assert checked[:2] == ("CHECK", "FAILED")
        assert "NotFound" in checked[2]
    finally:
        # Deleting a server that is already gone succeeds.
        assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


@pytest.mark.parametrize(("props", "message"), [
    ({"networks": [{"tag": "x"}]},
     'One of the properties "network", "port", "allocate_network" or "subnet" should be set '
     'for the specified network of server "server".'),
    ({"networks": [{"port": {"get_resource": "port"}, "fixed_ip": "10.0.0.9"}]},
     "Cannot define the following properties at the same time: networks/fixed_ip, "
     "networks/port."),
    ({"networks": [{"network": "private", "floating_ip": "f"}]},
     'Property "floating_ip" is not supported if only "network" is specified, because the '
     "corresponding port can not be retrieved."),
    ({"networks": [{"allocate_network": "auto"}, {"network": "private"}]},
     'Property "allocate_network" can not be specified if multiple network interfaces set '
     "for server."),
    ({"personality": {"/etc/x": "y"}},
     "Cannot use the personality parameter as nova no longer supports it. Use user_data "
     "instead."),
    ({"image": None, "block_device_mapping_v2": [{"swap_size": 1}]},
     "Neither image nor bootable volume is specified for instance server"),
])
def test_bad_properties_are_refused_before_anything_is_made(
    cloud_engine: Engine, props: dict[str, object], message: str
) -> None:
    tmpl = template("m1.tiny")
    tmpl["resources"]["server"]["properties"].update(props)
    tmpl["resources"]["port"] = {"type": "OS::Neutron::Port",
                                 "properties": {"network": "private"}}
    if props.get("image", "") is None:
        del tmpl["resources"]["server"]["properties"]["image"]
    try:
        cloud_engine.create_stack(CTX, "bad-server", tmpl, {})
    except StackValidationFailed as refused:
        assert message in str(refused)
        return
    # A value from another resource is checked when the server is about to be made.
    stack = cloud_engine.list_stacks(CTX)[0]
    identity = {k: stack["stack_identity"][k] for k in ("tenant", "stack_name", "stack_id",
                                                        "path")}
    try:
        assert state_of(cloud_engine, identity)[:2] == ("CREATE", "FAILED")
        rows = resources(cloud_engine, identity)
        assert rows["server"].physical_resource_id is None
        assert message in rows["server"].status_reason
    finally:
        assert delete(cloud_engine, identity)[:2] == ("DELETE", "COMPLETE")
