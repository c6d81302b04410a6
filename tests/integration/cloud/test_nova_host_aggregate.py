"""OS::Nova::HostAggregate against the devcloud's real Nova (as admin).

The devcloud has one compute host that every test shares: it joins aggregates only without
an availability zone (a zone would move the host for everyone).
"""

from __future__ import annotations

from typing import Any

import pytest
from openstack.connection import Connection

from hearth.common.context import RequestContext
from hearth.common.errors import StackValidationFailed
from hearth.engine.engine import Engine
from tests.integration.cloud.conftest import (
    LISTERS,
    action,
    assert_nothing_left,
    create,
    delete,
    inventory,
    physical_id,
    state,
    unique,
    update,
)

LISTERS.setdefault("aggregates", lambda c: [str(a.id) for a in c.compute.aggregates()])
KINDS = ("aggregates",)
ADMIN = RequestContext(project_id="admin", user_id="admin", username="admin", roles=("admin",))


def template(**props: Any) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"agg": {"type": "OS::Nova::HostAggregate", "properties": props}},
    }


def compute_host(conn: Connection) -> str:
    return str(next(iter(conn.compute.services(binary="nova-compute"))).host)


def test_aggregate_with_a_host_updated_in_place(admin_cloud_engine: Engine,
                                                admin_conn: Connection) -> None:
    engine = admin_cloud_engine
    before = inventory(admin_conn, KINDS)
    host = compute_host(admin_conn)
    name = unique("agg")
    stack = create(engine, "agg", template(name=name, hosts=[host],
                                           metadata={"hearth_a": "1", "hearth_b": 2}),
                   ctx=ADMIN)
    assert state(engine, stack)[:2] == ("CREATE", "COMPLETE"), state(engine, stack)
    agg_id = physical_id(engine, stack, "agg")
    agg = admin_conn.compute.get_aggregate(agg_id)
    assert (agg.name, agg.hosts, agg.metadata) == (
        name, [host], {"hearth_a": "1", "hearth_b": "2"})

    result = update(engine, stack, template(name=f"{name}-2", hosts=[],
                                            metadata={"hearth_b": "3"}), ctx=ADMIN)
    assert result[:2] == ("UPDATE", "COMPLETE"), result
    assert physical_id(engine, stack, "agg") == agg_id
    agg = admin_conn.compute.get_aggregate(agg_id)
    assert (agg.name, agg.hosts, agg.metadata) == (f"{name}-2", [], {"hearth_b": "3"})

    # The host back in, then a delete (which has to take it out first).
    result = update(engine, stack, template(name=f"{name}-2", hosts=[host]), ctx=ADMIN)
    assert result[:2] == ("UPDATE", "COMPLETE"), result
    assert admin_conn.compute.get_aggregate(agg_id).hosts == [host]
    assert action(engine, stack, "check", ADMIN)[:2] == ("CHECK", "COMPLETE")

    assert delete(engine, stack, ADMIN)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(admin_conn, before)


def test_availability_zone_of_an_aggregate_without_hosts(admin_cloud_engine: Engine,
                                                         admin_conn: Connection) -> None:
    before = inventory(admin_conn, KINDS)
    zone = unique("zone")
    stack = create(admin_cloud_engine, "agg-az",
                   template(name=unique("agg"), availability_zone=zone), ctx=ADMIN)
    agg_id = physical_id(admin_cloud_engine, stack, "agg")
    assert admin_conn.compute.get_aggregate(agg_id).availability_zone == zone
    result = update(admin_cloud_engine, stack,
                    template(name=unique("agg"), availability_zone=f"{zone}-2"), ctx=ADMIN)
    assert result[:2] == ("UPDATE", "COMPLETE"), result
    assert physical_id(admin_cloud_engine, stack, "agg") == agg_id
    assert admin_conn.compute.get_aggregate(agg_id).availability_zone == f"{zone}-2"
    assert delete(admin_cloud_engine, stack, ADMIN)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(admin_conn, before)


def test_unknown_host_is_refused_at_create(admin_cloud_engine: Engine) -> None:
    missing = unique("no-host")
    with pytest.raises(StackValidationFailed,
                       match=rf"The Host \({missing}\) could not be found"):
        admin_cloud_engine.create_stack(ADMIN, unique("agg-x"),
                                        template(name="x", hosts=[missing]), {})
