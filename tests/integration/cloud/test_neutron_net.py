"""OS::Neutron::Net against the devcloud's real Neutron."""

from __future__ import annotations

from openstack.connection import Connection

from hearth.engine.engine import Engine
from tests.integration.cloud.conftest import (
    action,
    assert_nothing_left,
    create,
    delete,
    inventory,
    outputs,
    physical_id,
    update,
)

KINDS = ("networks",)


def template(**props: object) -> dict[str, object]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"net": {"type": "OS::Neutron::Net", "properties": props}},
        "outputs": {
            "status": {"value": {"get_attr": ["net", "status"]}},
            "name": {"value": {"get_attr": ["net", "name"]}},
            "mtu": {"value": {"get_attr": ["net", "mtu"]}},
        },
    }


def test_net_lifecycle(cloud_engine: Engine, demo_conn: Connection) -> None:
    before = inventory(demo_conn, KINDS)
    stack = create(cloud_engine, "net", template(tags=["t1"], admin_state_up=False))
    assert cloud_engine.show_stack is not None
    net_id = physical_id(cloud_engine, stack, "net")
    net = demo_conn.network.get_network(net_id)
    # The cloud's object is what the stack says it is.
    assert net.tags == ["t1"]
    assert net.is_admin_state_up is False
    assert net.name.startswith("net-") and "-net-" in net.name
    out = outputs(cloud_engine, stack)
    assert out["name"] == net.name and out["status"] == net.status and out["mtu"] == net.mtu

    # In place: name, tags and admin state change on the same network.
    state = update(cloud_engine, stack, template(name="renamed", tags=["t2"]))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "net") == net_id
    net = demo_conn.network.get_network(net_id)
    assert (net.name, net.tags, net.is_admin_state_up) == ("renamed", ["t2"], True)
    # Attributes are read again after the update.
    assert outputs(cloud_engine, stack)["name"] == "renamed"

    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Replacement: tenant_id cannot change in place (here: set to the same project).
    state = update(cloud_engine, stack, template(name="renamed",
                                                 tenant_id=demo_conn.current_project_id))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(cloud_engine, stack, "net")
    assert new_id != net_id
    assert demo_conn.network.find_network(net_id) is None

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_check_fails_when_the_network_was_deleted_behind_the_stack(
    cloud_engine: Engine, demo_conn: Connection
) -> None:
    before = inventory(demo_conn, KINDS)
    stack = create(cloud_engine, "net-gone", template())
    demo_conn.network.delete_network(physical_id(cloud_engine, stack, "net"))
    action_state = action(cloud_engine, stack, "check")
    assert action_state[:2] == ("CHECK", "FAILED")
    assert "NotFound" in action_state[2]
    # Delete of an object already gone succeeds.
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_value_specs_may_not_override_properties(cloud_engine: Engine) -> None:
    import pytest

    from hearth.common.errors import StackValidationFailed
    from tests.integration.cloud.conftest import CTX

    with pytest.raises(StackValidationFailed, match="shared not allowed in value_specs"):
        cloud_engine.create_stack(CTX, "bad-specs", template(value_specs={"shared": True}), {})
