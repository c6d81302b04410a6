"""A cloud resource an action left FAILED, updated again, against the devcloud: kept and
updated in place while its object is sound (Heat's needs_replace_failed asks the service),
replaced once the service reports it broken or gone."""

from __future__ import annotations

from typing import Any

import pytest
from openstack.connection import Connection

from hearth.engine.engine import Engine
from tests.integration.cloud import neutron_checks
from tests.integration.cloud.cinder_helpers import (
    VOLUME_KINDS,
    Cleanup,
    assert_cinder_clean,
    cinder_inventory,
    stack_cleanup,
    template,
    wait_volume,
)
from tests.integration.cloud.conftest import (
    CTX,
    STACK_TIMEOUT,
    create,
    delete,
    physical_id,
    update,
)
from tests.integration.cloud.conftest import assert_nothing_left as assert_cloud_clean
from tests.integration.cloud.conftest import inventory as cloud_inventory
from tests.integration.cloud.neutron_checks import (
    PREFIX,
    assert_nothing_left,
    create_stack,
    hot,
    inventory,
    reason,
)
from tests.integration.engine.conftest import resources, wait_state

cleanup_fixture = pytest.fixture(name="cleanup")(stack_cleanup)
delete_leftover_stacks = neutron_checks.delete_leftover_stacks


def volume(**props: Any) -> dict[str, Any]:
    return template({"vol": {"type": "OS::Cinder::Volume", "properties": props}})


def test_a_sound_volume_is_kept_after_a_failed_update_and_a_broken_one_replaced(
        cloud_engine: Engine, demo_conn: Connection, admin_conn: Connection,
        cleanup: Cleanup) -> None:
    before = cinder_inventory(demo_conn, VOLUME_KINDS)
    stack = cleanup(cloud_engine, create(cloud_engine, "vol-failed", volume(size=1)))
    vol_id = physical_id(cloud_engine, stack, "vol")

    # Far over the project's quota: Cinder refuses the extend, the volume stays available.
    state = update(cloud_engine, stack, volume(size=100000))
    assert state[:2] == ("UPDATE", "FAILED"), state
    assert "VolumeSizeExceedsAvailableQuota" in state[2]
    assert demo_conn.block_storage.get_volume(vol_id).status == "available"

    # The next update changes the same volume in place (Heat keeps an available volume).
    state = update(cloud_engine, stack, volume(size=1, description="kept"))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "vol") == vol_id
    assert demo_conn.block_storage.get_volume(vol_id).description == "kept"
    assert resources(cloud_engine, stack)["vol"].action == "UPDATE"

    # Failed again, then the volume breaks behind the stack's back: now it is replaced.
    state = update(cloud_engine, stack, volume(size=100000, description="kept"))
    assert state[:2] == ("UPDATE", "FAILED"), state
    admin_conn.block_storage.reset_volume_status(vol_id, status="error")
    wait_volume(demo_conn, vol_id, "error")
    state = update(cloud_engine, stack, volume(size=1, description="new"))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(cloud_engine, stack, "vol")
    assert new_id != vol_id
    assert demo_conn.block_storage.get_volume(new_id).description == "new"

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_cinder_clean(demo_conn, before)


def port_stack(ip: str, name: str = f"{PREFIX}-kept-port") -> dict[str, Any]:
    return hot({
        "net": {"type": "OS::Neutron::Net", "properties": {"name": f"{PREFIX}-kept-net"}},
        "subnet": {"type": "OS::Neutron::Subnet",
                   "properties": {"network": {"get_resource": "net"}, "cidr": "10.95.0.0/24",
                                  "name": f"{PREFIX}-kept-subnet"}},
        "port": {"type": "OS::Neutron::Port",
                 "properties": {"network": {"get_resource": "net"}, "name": name,
                                "fixed_ips": [{"subnet": {"get_resource": "subnet"},
                                               "ip_address": ip}]}},
    })


def test_a_port_keeps_its_id_through_a_failed_update_its_rollback_and_the_next_update(
        cloud_engine: Engine, demo_conn: Connection) -> None:
    before = inventory(demo_conn)
    stack = create_stack(cloud_engine, "kept-port", port_stack("10.95.0.10"))
    port_id = physical_id(cloud_engine, stack, "port")
    mac = demo_conn.network.get_port(port_id).mac_address

    # An address outside the subnet fails the update in place; the rollback keeps the port.
    cloud_engine.update_stack(CTX, stack, port_stack("10.9.9.9"), {},
                              args={"disable_rollback": False})
    state = wait_state(cloud_engine, stack, timeout=STACK_TIMEOUT)
    assert state[:2] == ("ROLLBACK", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "port") == port_id

    # Without a rollback the port stays FAILED; the next update changes it in place.
    state = update(cloud_engine, stack, port_stack("10.9.9.9"))
    assert state[:2] == ("UPDATE", "FAILED"), state
    assert "is not a valid IP for the specified subnet" in reason(cloud_engine, stack, "port")
    state = update(cloud_engine, stack, port_stack("10.95.0.20", name=f"{PREFIX}-kept-port2"))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "port") == port_id
    port = demo_conn.network.get_port(port_id)
    assert (port.name, port.mac_address) == (f"{PREFIX}-kept-port2", mac)
    assert [ip["ip_address"] for ip in port.fixed_ips] == ["10.95.0.20"]

    # Deleted behind the stack's back, the failed port is made anew by the next update.
    state = update(cloud_engine, stack, port_stack("10.9.9.9", name=f"{PREFIX}-kept-port2"))
    assert state[:2] == ("UPDATE", "FAILED"), state
    demo_conn.network.delete_port(port_id)
    state = update(cloud_engine, stack, port_stack("10.95.0.30", name=f"{PREFIX}-kept-port2"))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "port") != port_id

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def server(flavor: str, **props: Any) -> dict[str, Any]:
    return hot({"server": {"type": "OS::Nova::Server", "properties": {
        "image": "cirros", "flavor": flavor, "networks": [{"network": "private"}],
        "user_data_format": "RAW", **props}}})


def test_an_active_server_is_kept_after_a_failed_resize(
        cloud_engine: Engine, demo_conn: Connection) -> None:
    before = cloud_inventory(demo_conn, ("servers", "ports"))
    stack = create_stack(cloud_engine, "kept-server", server("m1.tiny"))
    server_id = physical_id(cloud_engine, stack, "server")

    # The devcloud has one compute host and Nova's allow_resize_to_same_host=False: the
    # resize finds no host, the server stays ACTIVE on its flavor, the update fails.
    state = update(cloud_engine, stack, server("m1.small"))
    assert state[:2] == ("UPDATE", "FAILED"), state
    assert "Resizing to" in state[2]
    assert demo_conn.compute.get_server(server_id).status == "ACTIVE"

    # Back to its flavor with new metadata: the same server, changed in place.
    state = update(cloud_engine, stack, server("m1.tiny", metadata={"kept": "yes"}))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "server") == server_id
    assert demo_conn.compute.get_server_metadata(server_id).metadata == {"kept": "yes"}

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_cloud_clean(demo_conn, before)
