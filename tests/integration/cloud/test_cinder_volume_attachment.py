"""OS::Cinder::VolumeAttachment against the devcloud (Nova's fake driver attaches for real
as far as the APIs go: the volume goes in-use and Nova lists the attachment)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openstack.connection import Connection
from openstack.exceptions import ResourceFailure

from hearth.engine.engine import Engine
from tests.integration.cloud.cinder_helpers import (
    VOLUME_KINDS,
    Cleanup,
    assert_cinder_clean,
    cinder_inventory,
    stack_cleanup,
    template,
)
from tests.integration.cloud.conftest import (
    action,
    create,
    delete,
    outputs,
    physical_id,
    unique,
    update,
)
from tests.integration.engine.conftest import resources, wait_state

cleanup_fixture = pytest.fixture(name="cleanup")(stack_cleanup)


def _boot(demo_conn: Connection) -> Any:
    """A server of project demo, ACTIVE; booted again once when Nova's scheduler found no
    host for it (seen once in a CI run on the devcloud's one fake host, not reproduced),
    saying why."""
    compute = demo_conn.compute
    flavor = compute.find_flavor("m1.tiny", ignore_missing=False)
    image = demo_conn.image.find_image("cirros", ignore_missing=False)
    network = demo_conn.network.find_network("private", ignore_missing=False)
    for attempt in (1, 2):
        made = compute.create_server(name=unique("hearth-cinder-srv"), flavor_id=flavor.id,
                                     image_id=image.id, networks=[{"uuid": network.id}])
        try:
            return compute.wait_for_server(made, status="ACTIVE", wait=180)
        except ResourceFailure:
            fault = (compute.get_server(made.id).fault or {}).get("message", "")
            compute.delete_server(made)
            compute.wait_for_delete(made, wait=180)
            if attempt == 2 or "No valid host" not in fault:
                raise AssertionError(f"server {made.id} went ERROR: {fault!r}") from None
            print(f"server {made.id} went ERROR ({fault!r}); booting another")
    raise AssertionError("unreachable")


@pytest.fixture
def server(demo_conn: Connection) -> Iterator[Any]:
    """A server of project demo (made here, not by a stack), deleted after the test."""
    made = _boot(demo_conn)
    try:
        yield made
    finally:
        demo_conn.compute.delete_server(made)
        demo_conn.compute.wait_for_delete(made, wait=180)


def attachment_template(volume: str, mountpoint: str | None = None,
                        **vol2: Any) -> dict[str, Any]:
    att: dict[str, Any] = {"instance_uuid": {"get_param": "server"},
                           "volume_id": {"get_resource": volume}}
    if mountpoint:
        att["mountpoint"] = mountpoint
    return template(
        {
            "vol1": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
            "vol2": {"type": "OS::Cinder::Volume", "properties": {"size": 1, **vol2}},
            "att": {"type": "OS::Cinder::VolumeAttachment", "properties": att},
        },
        {
            "vol1_status": {"get_attr": ["vol1", "status"]},
            "vol1_attachments": {"get_attr": ["vol1", "attachments_list"]},
            "vol2_status": {"get_attr": ["vol2", "status"]},
        },
        {"server": {"type": "string"}},
    )


def attached_servers(conn: Connection, volume_id: str) -> list[str]:
    vol = conn.block_storage.get_volume(volume_id)
    return [a["server_id"] for a in vol.attachments or []]


def test_attach_move_and_detach(cloud_engine: Engine, demo_conn: Connection, server: Any,
                                cleanup: Cleanup) -> None:
    before = cinder_inventory(demo_conn, VOLUME_KINDS)
    params = {"server": server.id}
    stack = cleanup(cloud_engine, create(cloud_engine, "att", attachment_template("vol1"),
                                         params))
    assert wait_state(cloud_engine, stack)[:2] == ("CREATE", "COMPLETE")
    vol1 = physical_id(cloud_engine, stack, "vol1")
    vol2 = physical_id(cloud_engine, stack, "vol2")
    # Nova's attachment id (the physical id) is the volume's id.
    assert physical_id(cloud_engine, stack, "att") == vol1
    assert demo_conn.block_storage.get_volume(vol1).status == "in-use"
    assert attached_servers(demo_conn, vol1) == [server.id]
    assert [a.volume_id for a in demo_conn.compute.volume_attachments(server)] == [vol1]
    # The volume's attributes were stored when it was created, before the attachment
    # (Hearth caches even Heat's CACHE_NONE attributes when a resource completes).
    out = outputs(cloud_engine, stack)
    assert (out["vol1_status"], out["vol1_attachments"]) == ("available", [])

    # Heat's attachment has no CHECK of its own: reported as not supported, not failed.
    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")
    row = resources(cloud_engine, stack)["att"]
    assert row.status_reason == "CHECK not supported for OS::Cinder::VolumeAttachment"

    # In place: the attachment moves to the other volume (detach, then attach).
    state = update(cloud_engine, stack, attachment_template("vol2"), params)
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "att") == vol2
    assert demo_conn.block_storage.get_volume(vol1).status == "available"
    assert attached_servers(demo_conn, vol2) == [server.id]
    assert [a.volume_id for a in demo_conn.compute.volume_attachments(server)] == [vol2]

    # The attached volume turns read-only: Heat detaches it, sets the flag, reattaches.
    state = update(cloud_engine, stack, attachment_template("vol2", read_only=True), params)
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    vol = demo_conn.block_storage.get_volume(vol2)
    assert vol.status == "in-use" and vol.metadata.get("readonly") == "True"
    assert attached_servers(demo_conn, vol2) == [server.id]
    assert physical_id(cloud_engine, stack, "vol2") == vol2
    # vol2 was updated after the attachment: its attributes say so.
    assert outputs(cloud_engine, stack)["vol2_status"] == "in-use"

    # An attached volume is extended in place (Cinder API 3.42), without a detach.
    state = update(cloud_engine, stack,
                   attachment_template("vol2", read_only=True, size=2), params)
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    vol = demo_conn.block_storage.get_volume(vol2)
    assert (vol.size, vol.status) == (2, "in-use")
    assert attached_servers(demo_conn, vol2) == [server.id]

    # Delete detaches first (the volume could not be deleted attached), then deletes.
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert list(demo_conn.compute.volume_attachments(server)) == []
    assert_cinder_clean(demo_conn, before)
