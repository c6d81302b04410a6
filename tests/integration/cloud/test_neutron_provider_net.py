"""OS::Neutron::ProviderNet against the devcloud's real Neutron (as admin).

The devcloud's ML2 has the flat and vxlan type drivers (flat only on physnet ``public``,
which its external network already uses), so the networks here are vxlan with an explicit
VNI.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from openstack.connection import Connection

from hearth.common.context import RequestContext
from hearth.common.errors import StackValidationFailed
from hearth.engine.engine import Engine
from tests.integration.cloud.conftest import (
    action,
    create,
    delete,
    outputs,
    physical_id,
    state,
    unique,
    update,
)

# ProviderNet is admin-only in Heat's policy: the requests come from an admin.
ADMIN = RequestContext(project_id="admin", user_id="admin", username="admin", roles=("admin",))


def networks(conn: Connection) -> dict[str, str]:
    """The networks of the connection's project, id -> name."""
    return {n.id: n.name for n in conn.network.networks(project_id=conn.current_project_id)}


def left(conn: Connection, before: dict[str, str], *markers: str) -> dict[str, str]:
    """Networks made since ``before`` whose names carry one of ``markers`` (this test's
    stack name or the names it gave): other tests use the same project meanwhile."""
    return {i: n for i, n in networks(conn).items()
            if i not in before and any(m in n for m in markers)}


@pytest.fixture
def cleanup() -> Iterator[list[tuple[Engine, dict[str, str], RequestContext]]]:
    """Stacks to delete after the test when it failed before deleting them itself (the
    devcloud is shared: a failed test must not leave its objects behind)."""
    made: list[tuple[Engine, dict[str, str], RequestContext]] = []
    yield made
    for engine, stack, ctx in made:
        if state(engine, stack)[:2] != ("DELETE", "COMPLETE"):
            delete(engine, stack, ctx=ctx)


def template(**props: object) -> dict[str, object]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"net": {"type": "OS::Neutron::ProviderNet", "properties": props}},
        "outputs": {
            "status": {"value": {"get_attr": ["net", "status"]}},
            "subnets": {"value": {"get_attr": ["net", "subnets"]}},
            "type": {"value": {"get_attr": ["net", "show", "provider:network_type"]}},
            "vni": {"value": {"get_attr": ["net", "show", "provider:segmentation_id"]}},
        },
    }


def vni() -> int:
    # vni_ranges is 1:10000; tenant networks take low free ones, so stay high and random.
    return random.randint(5000, 10000)


def test_provider_net_lifecycle(admin_cloud_engine: Engine, admin_conn: Connection,
                                cleanup: list[Any]) -> None:
    engine = admin_cloud_engine
    before = networks(admin_conn)
    renamed = unique("renamed")
    first = vni()
    stack = create(engine, "pnet", template(network_type="vxlan", segmentation_id=str(first),
                                            tags=["a"]), ctx=ADMIN)
    cleanup.append((engine, stack, ADMIN))
    net_id = physical_id(engine, stack, "net")
    net = admin_conn.network.get_network(net_id)
    assert (net.provider_network_type, net.provider_segmentation_id) == ("vxlan", first)
    # Heat's defaults: shared, not external, up.
    assert (net.is_shared, net.is_router_external, net.is_admin_state_up) == (True, False, True)
    assert net.tags == ["a"]
    assert net.name.startswith("pnet-") and "-net-" in net.name
    out = outputs(engine, stack, ctx=ADMIN)
    assert out == {"status": net.status, "subnets": [], "type": "vxlan", "vni": first}

    # In place: name, admin state, router:external, shared and tags.
    state = update(engine, stack, template(
        network_type="vxlan", segmentation_id=str(first), name=renamed,
        admin_state_up=False, router_external=True, shared=False, tags=["b"],
    ), ctx=ADMIN)
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(engine, stack, "net") == net_id
    net = admin_conn.network.get_network(net_id)
    assert (net.name, net.is_admin_state_up, net.is_router_external, net.is_shared,
            net.tags, net.provider_segmentation_id) == (renamed, False, True, False,
                                                        ["b"], first)

    assert action(engine, stack, "check", ctx=ADMIN)[:2] == ("CHECK", "COMPLETE")

    # Replacement: tenant_id cannot change in place (here: set to the same project). The
    # new network exists before the old one goes, so it needs a VNI of its own.
    second = first + 1 if first < 10000 else first - 1
    state = update(engine, stack, template(
        network_type="vxlan", segmentation_id=str(second), name=renamed,
        tenant_id=admin_conn.current_project_id,
    ), ctx=ADMIN)
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(engine, stack, "net")
    assert new_id != net_id
    assert admin_conn.network.find_network(net_id) is None
    net = admin_conn.network.get_network(new_id)
    assert (net.provider_segmentation_id, net.project_id) == (second,
                                                              admin_conn.current_project_id)

    # The VNI is update_allowed (Heat sends it in place) but this Neutron only moves VLANs:
    # the update fails with Neutron's reason and the network keeps its VNI.
    state = update(engine, stack, template(
        network_type="vxlan", segmentation_id=str(first), name=renamed,
        tenant_id=admin_conn.current_project_id,
    ), ctx=ADMIN)
    assert state[:2] == ("UPDATE", "FAILED"), state
    assert "Only VLAN type networks can be updated" in state[2]
    assert physical_id(engine, stack, "net") == new_id
    assert admin_conn.network.get_network(new_id).provider_segmentation_id == second

    assert delete(engine, stack, ctx=ADMIN)[:2] == ("DELETE", "COMPLETE")
    assert admin_conn.network.find_network(new_id) is None
    assert left(admin_conn, before, stack["stack_name"], renamed) == {}


@pytest.mark.parametrize(("props", "message"), [
    ({"network_type": "flat", "physical_network": "public", "segmentation_id": "5"},
     "segmentation_id not allowed for network types: local, flat"),
    ({"network_type": "vxlan", "physical_network": "public"},
     "physical_network not allowed for network types: vxlan, gre, geneve, flat"),
])
def test_invalid_combinations_are_refused_before_anything_is_made(
    admin_cloud_engine: Engine, admin_conn: Connection, props: dict[str, object],
    message: str,
) -> None:
    before = networks(admin_conn)
    name = unique("bad-pnet")
    with pytest.raises(StackValidationFailed, match=message):
        admin_cloud_engine.create_stack(ADMIN, name, template(**props), {})
    assert left(admin_conn, before, name) == {}


def test_demo_may_not_use_the_type(cloud_engine: Engine) -> None:
    from hearth.common.errors import Forbidden
    from tests.integration.cloud.conftest import CTX

    with pytest.raises(Forbidden):
        cloud_engine.create_stack(CTX, "pnet-demo", template(network_type="vxlan"), {})
