"""OS::Nova::ServerGroup against the devcloud's real Nova."""

from __future__ import annotations

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
    outputs,
    physical_id,
    state,
    unique,
    update,
)

KINDS = ("server_groups",)


def template(**props: Any) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"group": {"type": "OS::Nova::ServerGroup", "properties": props}},
        "outputs": {
            "show": {"value": {"get_attr": ["group", "show"]}},
            "ref": {"value": {"get_resource": "group"}},
        },
    }


def test_server_group_with_rules_then_replaced(cloud_engine: Engine,
                                               demo_conn: Connection) -> None:
    before = inventory(demo_conn, KINDS)
    name = unique("sg")
    stack = create(cloud_engine, "sg", template(
        name=name, policies=["anti-affinity"], rules={"max_server_per_host": 2}))
    group_id = physical_id(cloud_engine, stack, "group")
    group = demo_conn.compute.get_server_group(group_id)
    # Nova's microversion 2.64 shape, as Heat 27 sends it: one policy and its rules.
    assert (group.name, group.policy, group.rules) == (
        name, "anti-affinity", {"max_server_per_host": 2})
    out = outputs(cloud_engine, stack)
    assert out["ref"] == group_id
    assert out["show"]["id"] == group_id and out["show"]["policy"] == "anti-affinity"

    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Nothing updates in place: another policy is another group.
    result = update(cloud_engine, stack, template(name=name, policies=["soft-affinity"]))
    assert result[:2] == ("UPDATE", "COMPLETE"), result
    new_id = physical_id(cloud_engine, stack, "group")
    assert new_id != group_id
    assert demo_conn.compute.find_server_group(group_id) is None
    replaced = demo_conn.compute.get_server_group(new_id)
    assert (replaced.name, replaced.policy, replaced.rules) == (name, "soft-affinity", {})

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_default_policy_and_name(cloud_engine: Engine, demo_conn: Connection) -> None:
    before = inventory(demo_conn, KINDS)
    stack = create(cloud_engine, "sg-default", template())
    group = demo_conn.compute.get_server_group(physical_id(cloud_engine, stack, "group"))
    assert group.policy == "anti-affinity"
    assert group.name.startswith("sg-default-") and "-group-" in group.name
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_rules_on_an_affinity_group_fail_with_novas_reason(
    cloud_engine: Engine, demo_conn: Connection
) -> None:
    before = inventory(demo_conn, KINDS)
    stack = create(cloud_engine, "sg-bad", template(
        policies=["affinity"], rules={"max_server_per_host": 2}))
    result = state(cloud_engine, stack)
    assert result[:2] == ("CREATE", "FAILED") and "BadRequest" in result[2], result
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_unknown_policy_is_refused_at_create(cloud_engine: Engine) -> None:
    with pytest.raises(StackValidationFailed, match="policies"):
        cloud_engine.create_stack(CTX, unique("sg-x"), template(policies=["sideways"]), {})


def test_check_fails_when_the_group_is_gone(cloud_engine: Engine,
                                            demo_conn: Connection) -> None:
    before = inventory(demo_conn, KINDS)
    stack = create(cloud_engine, "sg-gone", template())
    demo_conn.compute.delete_server_group(physical_id(cloud_engine, stack, "group"))
    checked = action(cloud_engine, stack, "check")
    assert checked[:2] == ("CHECK", "FAILED") and "NotFound" in checked[2], checked
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)
