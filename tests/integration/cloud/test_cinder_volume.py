"""OS::Cinder::Volume against the devcloud's real Cinder (fake volume driver)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from openstack.connection import Connection

from hearth.common.errors import StackValidationFailed
from hearth.engine.engine import Engine
from tests.integration.cloud.cinder_helpers import (
    VOLUME_KINDS,
    Cleanup,
    assert_cinder_clean,
    cinder_inventory,
    purge_failed_backups,
    stack_cleanup,
    template,
    wait_gone,
)
from tests.integration.cloud.conftest import (
    CTX,
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

ATTRS = ("status", "size", "display_name", "display_description", "metadata",
         "metadata_values", "bootable", "encrypted", "volume_type", "availability_zone",
         "created_at", "attachments_list", "attachments", "snapshot_id", "source_volid",
         "multiattach", "show")


def volume_template(**props: Any) -> dict[str, Any]:
    return template(
        {"vol": {"type": "OS::Cinder::Volume", "properties": props}},
        {name: {"get_attr": ["vol", name]} for name in ATTRS},
    )


@pytest.fixture
def volume_type(admin_conn: Connection) -> Iterator[Any]:
    """A public volume type on the devcloud's only backend (a retype target)."""
    vtype = admin_conn.block_storage.create_type(name=unique("hearth-vt"), is_public=True)
    yield vtype
    admin_conn.block_storage.delete_type(vtype)


@pytest.fixture
def unschedulable_type(admin_conn: Connection) -> Iterator[Any]:
    """A public volume type no backend matches: volumes of it go to ``error``."""
    vtype = admin_conn.block_storage.create_type(
        name=unique("hearth-nowhere"), is_public=True,
        extra_specs={"volume_backend_name": "nowhere"},
    )
    yield vtype
    admin_conn.block_storage.delete_type(vtype)


def test_volume_lifecycle(cloud_engine: Engine, demo_conn: Connection, volume_type: Any,
                          cleanup: Cleanup) -> None:
    before = cinder_inventory(demo_conn, VOLUME_KINDS)
    tmpl = volume_template(size=1, metadata={"a": "b"}, read_only=True)
    stack = cleanup(cloud_engine, create(cloud_engine, "vol", tmpl))
    assert stack and resources(cloud_engine, stack)["vol"].status == "COMPLETE"
    vol_id = physical_id(cloud_engine, stack, "vol")
    vol = demo_conn.block_storage.get_volume(vol_id)
    # The cloud's volume is what the stack asked for; the name defaults to the
    # physical resource name, the description stays empty.
    assert (vol.status, vol.size) == ("available", 1)
    # Cinder shows its read-only flag among the metadata.
    assert vol.metadata == {"a": "b", "readonly": "True"}
    assert vol.name.startswith("vol-") and "-vol-" in vol.name
    assert vol.description is None
    assert _read_only(demo_conn, vol_id) is True
    out = outputs(cloud_engine, stack)
    # Attributes read as Heat serves them: str() of Cinder's values, metadata as JSON.
    assert out["status"] == "available" and out["size"] == "1"
    assert out["display_name"] == vol.name and out["display_description"] is None
    assert json.loads(out["metadata"]) == out["metadata_values"] == vol.metadata
    assert (out["bootable"], out["encrypted"], out["multiattach"]) == ("false", "False", "False")
    assert (out["snapshot_id"], out["source_volid"]) == ("None", "None")
    assert out["volume_type"] == vol.volume_type and out["availability_zone"] == "nova"
    assert out["created_at"] == vol.created_at
    assert out["attachments_list"] == [] and out["attachments"] == "[]"
    assert out["show"]["id"] == vol_id and out["show"]["size"] == 1

    # In place: rename, describe, new metadata, extend to 2 GB, retype, writable again.
    state = update(cloud_engine, stack, volume_template(
        size=2, name="renamed", description="grown", metadata={"c": "d"}, read_only=False,
        volume_type=volume_type.name,
    ))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "vol") == vol_id
    vol = demo_conn.block_storage.get_volume(vol_id)
    assert (vol.name, vol.description, vol.size, vol.status) == (
        "renamed", "grown", 2, "available")
    assert vol.metadata == {"c": "d", "readonly": "False"}
    assert vol.volume_type == volume_type.name
    assert _read_only(demo_conn, vol_id) is False
    out = outputs(cloud_engine, stack)
    assert (out["size"], out["display_name"], out["volume_type"]) == (
        "2", "renamed", volume_type.name)

    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Shrinking is refused, as in Heat; the volume keeps its size.
    state = update(cloud_engine, stack, volume_template(size=1, name="renamed",
                                                        volume_type=volume_type.name))
    assert state[:2] == ("UPDATE", "FAILED")
    assert "NotSupported: resources.vol: Shrinking volume is not supported." in state[2]
    assert demo_conn.block_storage.get_volume(vol_id).size == 2

    # Replacement: the availability zone cannot change in place.
    state = update(cloud_engine, stack, volume_template(size=2, availability_zone="nova",
                                                        volume_type=volume_type.name))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(cloud_engine, stack, "vol")
    assert new_id != vol_id
    assert demo_conn.block_storage.find_volume(vol_id) is None
    assert demo_conn.block_storage.get_volume(new_id).size == 2

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert demo_conn.block_storage.find_volume(new_id) is None
    assert_cinder_clean(demo_conn, before)


def _read_only(conn: Connection, volume_id: str) -> bool:
    # Cinder shows its read-only flag (admin metadata) in the volume's metadata.
    flag = (conn.block_storage.get_volume(volume_id).metadata or {}).get("readonly")
    return str(flag).lower() == "true"


def test_volumes_from_volume_and_snapshot(cloud_engine: Engine, demo_conn: Connection,
                                          cleanup: Cleanup) -> None:
    before = cinder_inventory(demo_conn, VOLUME_KINDS)
    source = demo_conn.block_storage.create_volume(size=1, name=unique("hearth-src"))
    demo_conn.block_storage.wait_for_status(source, "available", wait=60)
    snap = demo_conn.block_storage.create_snapshot(volume_id=source.id,
                                                   name=unique("hearth-snap"))
    demo_conn.block_storage.wait_for_status(snap, "available", wait=60)
    try:
        tmpl = template(
            {
                "first": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
                # No size: the source's.
                "clone": {"type": "OS::Cinder::Volume",
                          "properties": {"source_volid": {"get_resource": "first"}}},
                "from_snap": {"type": "OS::Cinder::Volume",
                              "properties": {"snapshot_id": snap.name}},
            },
            {
                "clone_source": {"get_attr": ["clone", "source_volid"]},
                "snap_source": {"get_attr": ["from_snap", "snapshot_id"]},
            },
        )
        stack = cleanup(cloud_engine, create(cloud_engine, "vol-src", tmpl))
        state = wait_state(cloud_engine, stack)
        assert state[:2] == ("CREATE", "COMPLETE"), state
        first = physical_id(cloud_engine, stack, "first")
        out = outputs(cloud_engine, stack)
        assert out["clone_source"] == first
        # The snapshot was named: Cinder was given the name Heat passes on, and the
        # volume records the snapshot's id.
        assert out["snap_source"] == snap.id
        clone = demo_conn.block_storage.get_volume(physical_id(cloud_engine, stack, "clone"))
        assert clone.source_volume_id == first and clone.size == 1
        assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    finally:
        demo_conn.block_storage.delete_snapshot(snap)
        demo_conn.block_storage.wait_for_delete(snap, wait=60)
        demo_conn.block_storage.delete_volume(source)
        demo_conn.block_storage.wait_for_delete(source, wait=60)
    assert_cinder_clean(demo_conn, before)


def test_volume_from_image(cloud_engine: Engine, demo_conn: Connection,
                           cleanup: Cleanup) -> None:
    """The image is found by name and given to Cinder. The devcloud's fake volume driver
    cannot copy image data (it has no sudo), so the volume goes to error, which fails the
    create as Heat words it."""
    before = cinder_inventory(demo_conn, VOLUME_KINDS)
    stack = cleanup(cloud_engine, create(cloud_engine, "vol-img",
                                         volume_template(size=1, image="cirros")))
    state = wait_state(cloud_engine, stack)
    assert state[:2] == ("CREATE", "FAILED")
    assert 'ResourceInError: resources.vol: Went to status error due to "Unknown"' in state[2]
    assert demo_conn.block_storage.get_volume(
        physical_id(cloud_engine, stack, "vol")).status == "error"
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_cinder_clean(demo_conn, before)


def test_volume_in_error_fails_the_create(cloud_engine: Engine, demo_conn: Connection,
                                          unschedulable_type: Any, cleanup: Cleanup) -> None:
    before = cinder_inventory(demo_conn, VOLUME_KINDS)
    tmpl = volume_template(size=1, volume_type=unschedulable_type.name)
    stack = cleanup(cloud_engine, create(cloud_engine, "vol-err", tmpl))
    state = wait_state(cloud_engine, stack)
    assert state[:2] == ("CREATE", "FAILED")
    assert 'ResourceInError: resources.vol: Went to status error due to "Unknown"' in state[2]
    vol = demo_conn.block_storage.get_volume(physical_id(cloud_engine, stack, "vol"))
    assert vol.status == "error"
    # A stack check reports the volume's state as Heat words it.
    state = action(cloud_engine, stack, "check")
    assert state[:2] == ("CHECK", "FAILED")
    assert "Error: resources.vol: 'status': expected '['available', 'in-use']', got " \
        "'error'" in state[2]
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_cinder_clean(demo_conn, before)


def test_invalid_definitions_are_refused(cloud_engine: Engine) -> None:
    with pytest.raises(StackValidationFailed, match='If neither "backup_id" nor "size"'):
        cloud_engine.create_stack(CTX, unique("bad"), volume_template(), {})
    two_sources = template({
        "src": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
        "vol": {"type": "OS::Cinder::Volume", "properties": {
            "size": 1, "image": "cirros", "source_volid": {"get_resource": "src"}}},
    })
    with pytest.raises(StackValidationFailed, match=re.escape(
        'If "size" is provided, only one of "image", "imageRef", "source_volid", '
        "\"snapshot_id\" can be specified, but currently specified options: "
        "['source_volid', 'image'].")):
        cloud_engine.create_stack(CTX, unique("bad"), two_sources, {})
    with pytest.raises(StackValidationFailed, match="Cannot define the following properties "
                       "at the same time: image, imageRef."):
        cloud_engine.create_stack(
            CTX, unique("bad"), volume_template(size=1, image="cirros", imageRef="cirros"), {}
        )
    with pytest.raises(StackValidationFailed, match="could not be found"):
        cloud_engine.create_stack(
            CTX, unique("bad"), volume_template(size=1, volume_type="no-such-type"), {}
        )


def test_stack_snapshot_backs_the_volume_up(cloud_engine: Engine, demo_conn: Connection,
                                            cleanup: Cleanup) -> None:
    """Heat snapshots a volume as a Cinder backup. The devcloud has no cinder-backup
    service, so the backup goes to error and the snapshot fails with Cinder's reason."""
    before = cinder_inventory(demo_conn, VOLUME_KINDS)
    stack = cleanup(cloud_engine, create(cloud_engine, "vol-snap", volume_template(size=1)))
    try:
        snapshot = cloud_engine.stack_snapshot(CTX, stack, "s1")
        state = wait_state(cloud_engine, stack, timeout=120)
        assert state[:2] == ("SNAPSHOT", "FAILED"), state
        assert "Error: resources.vol: Service not found for creating backup." in state[2]
        shown = cloud_engine.show_snapshot(CTX, stack, snapshot["id"])
        assert shown["status"] == "FAILED"
        backups = [b for b in demo_conn.block_storage.backups(details=True)
                   if b.id not in before["backups"]]
        assert [b.volume_id for b in backups] == [physical_id(cloud_engine, stack, "vol")]
    finally:
        purge_failed_backups(demo_conn, before["backups"])
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_cinder_clean(demo_conn, before)


def test_deletion_policy_snapshot_backs_up_before_deleting(
    cloud_engine: Engine, demo_conn: Connection, cleanup: Cleanup
) -> None:
    before = cinder_inventory(demo_conn, VOLUME_KINDS)
    tmpl = volume_template(size=1)
    tmpl["resources"]["vol"]["deletion_policy"] = "Snapshot"
    stack = cleanup(cloud_engine, create(cloud_engine, "vol-policy", tmpl))
    vol_id = physical_id(cloud_engine, stack, "vol")
    try:
        state = delete(cloud_engine, stack)
        # No backup service: the backup fails, so the volume is kept (not deleted unsaved).
        assert state[:2] == ("DELETE", "FAILED"), state
        assert ("ResourceUnknownStatus: resources.vol: Volume backup failed - Unknown "
                'status error due to "Unknown"') in state[2]
        assert demo_conn.block_storage.get_volume(vol_id).status == "available"
    finally:
        purge_failed_backups(demo_conn, before["backups"])
    # Once the volume is gone there is nothing to back up: the delete completes.
    demo_conn.block_storage.delete_volume(vol_id)
    wait_gone(demo_conn, vol_id)
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_cinder_clean(demo_conn, before)
