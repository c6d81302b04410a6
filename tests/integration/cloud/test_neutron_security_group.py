"""OS::Neutron::SecurityGroup and OS::Neutron::SecurityGroupRule against the devcloud's
Neutron."""

from __future__ import annotations

from typing import Any

import pytest
from openstack.connection import Connection

from hearth.common.errors import StackValidationFailed
from hearth.engine.engine import Engine
from tests.integration.cloud import neutron_checks
from tests.integration.cloud.conftest import CTX, action, delete, physical_id, update
from tests.integration.cloud.neutron_checks import (
    PREFIX,
    assert_nothing_left,
    create_stack,
    hot,
    inventory,
)

delete_leftover_stacks = neutron_checks.delete_leftover_stacks

SSH = {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22,
       "remote_ip_prefix": "10.0.0.0/8"}
PING = {"protocol": "icmp", "remote_mode": "remote_group_id"}
WEB_OUT = {"direction": "egress", "protocol": "tcp", "port_range_min": 443,
           "port_range_max": 443}


def template(**group: Any) -> dict[str, Any]:
    return hot({"sg": {"type": "OS::Neutron::SecurityGroup", "properties": group}},
               {"show": {"get_attr": ["sg", "show"]}})


def rules(conn: Connection, group_id: str) -> dict[tuple[Any, ...], str]:
    """The group's rules: (direction, ethertype, protocol, min, max, prefix, remote) -> id."""
    group = conn.network.get_security_group(group_id)
    return {
        (r["direction"], r["ethertype"], r["protocol"], r["port_range_min"],
         r["port_range_max"], r["remote_ip_prefix"],
         "self" if r["remote_group_id"] == group_id else r["remote_group_id"]): r["id"]
        for r in group.security_group_rules
    }


DEFAULT_EGRESS = {("egress", "IPv4", None, None, None, None, None),
                  ("egress", "IPv6", None, None, None, None, None)}
SSH_KEY = ("ingress", "IPv4", "tcp", 22, 22, "10.0.0.0/8", None)
PING_KEY = ("ingress", "IPv4", "icmp", None, None, None, "self")
WEB_OUT_KEY = ("egress", "IPv4", "tcp", 443, 443, None, None)


def test_security_group_lifecycle(cloud_engine: Engine, demo_conn: Connection) -> None:
    before = inventory(demo_conn)
    # Ingress rules only: Neutron's default egress rules stay.
    stack = create_stack(cloud_engine, "sg", template(
        description="made by a stack", rules=[SSH, PING]))
    group_id = physical_id(cloud_engine, stack, "sg")
    group = demo_conn.network.get_security_group(group_id)
    assert group.description == "made by a stack"
    assert group.name.startswith(f"{PREFIX}-sg")
    assert set(rules(demo_conn, group_id)) == DEFAULT_EGRESS | {SSH_KEY, PING_KEY}
    # ``show`` is the group with the rules the template added, not as it was first made.
    shown = neutron_checks.out(cloud_engine, stack)["show"]
    assert {r["id"] for r in shown["security_group_rules"]} == set(
        rules(demo_conn, group_id).values())

    # In place: an egress rule of the template's replaces the defaults; rules that stay are
    # kept as they are.
    kept = rules(demo_conn, group_id)[SSH_KEY]
    state = update(cloud_engine, stack, template(
        name=f"{PREFIX}-renamed", description="changed", rules=[SSH, WEB_OUT]))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "sg") == group_id
    group = demo_conn.network.get_security_group(group_id)
    assert (group.name, group.description) == (f"{PREFIX}-renamed", "changed")
    now = rules(demo_conn, group_id)
    assert set(now) == {SSH_KEY, WEB_OUT_KEY}
    assert now[SSH_KEY] == kept
    shown = neutron_checks.out(cloud_engine, stack)["show"]
    assert {r["id"] for r in shown["security_group_rules"]} == set(now.values())

    # No egress rule in the template any more: the default egress rules come back.
    state = update(cloud_engine, stack, template(name=f"{PREFIX}-renamed", rules=[]))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert set(rules(demo_conn, group_id)) == DEFAULT_EGRESS

    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_template_egress_rules_replace_the_defaults_on_create(
    cloud_engine: Engine, demo_conn: Connection
) -> None:
    before = inventory(demo_conn)
    stack = create_stack(cloud_engine, "sg-egress", template(rules=[WEB_OUT], stateful=False))
    group_id = physical_id(cloud_engine, stack, "sg")
    assert set(rules(demo_conn, group_id)) == {WEB_OUT_KEY}
    assert demo_conn.network.get_security_group(group_id).stateful is False

    # No port uses the group: stateful may change in place.
    state = update(cloud_engine, stack, template(rules=[WEB_OUT], stateful=True))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "sg") == group_id
    assert demo_conn.network.get_security_group(group_id).stateful is True
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def rule_template(**rule: Any) -> dict[str, Any]:
    return hot({
        "sg": {"type": "OS::Neutron::SecurityGroup", "properties": {"rules": []}},
        "other": {"type": "OS::Neutron::SecurityGroup", "properties": {"rules": []}},
        "rule": {"type": "OS::Neutron::SecurityGroupRule",
                 "properties": {"security_group": {"get_attr": ["sg", "show", "name"]},
                                **rule}},
    }, {"rule_show": {"get_attr": ["rule", "show"]}})


def test_security_group_rule_lifecycle(cloud_engine: Engine, demo_conn: Connection) -> None:
    before = inventory(demo_conn)
    # The group by name; protocol defaults to tcp.
    stack = create_stack(cloud_engine, "sgr", rule_template(
        port_range_min=80, port_range_max=81, description="web",
        remote_group={"get_attr": ["other", "show", "name"]}))
    rule_id = physical_id(cloud_engine, stack, "rule")
    group_id = physical_id(cloud_engine, stack, "sg")
    rule = demo_conn.network.get_security_group_rule(rule_id)
    assert rule.security_group_id == group_id
    assert (rule.direction, rule.ether_type, rule.protocol) == ("ingress", "IPv4", "tcp")
    assert (rule.port_range_min, rule.port_range_max, rule.description) == (80, 81, "web")
    assert rule.remote_group_id == physical_id(cloud_engine, stack, "other")
    assert neutron_checks.out(cloud_engine, stack)["rule_show"]["id"] == rule_id
    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Any change replaces the rule.
    state = update(cloud_engine, stack, rule_template(
        protocol="udp", direction="egress", port_range_min=53, port_range_max=53,
        remote_ip_prefix="10.1.0.0/16"))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(cloud_engine, stack, "rule")
    assert new_id != rule_id
    assert demo_conn.network.find_security_group_rule(rule_id) is None
    rule = demo_conn.network.get_security_group_rule(new_id)
    assert (rule.direction, rule.protocol, rule.remote_ip_prefix) == (
        "egress", "udp", "10.1.0.0/16")

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert demo_conn.network.find_security_group_rule(new_id) is None
    assert_nothing_left(demo_conn, before)


@pytest.mark.parametrize(("tmpl", "message"), [
    (template(name="default"), 'Security groups cannot be assigned the name "default".'),
    (rule_template(remote_group={"get_resource": "other"}, remote_ip_prefix="10.0.0.0/8"),
     "Cannot define the following properties at the same time: remote_group, "
     "remote_ip_prefix."),
    (rule_template(port_range_min=90, port_range_max=80),
     "The minimum port number must be less than or equal to the maximum port number."),
])
def test_security_group_validation(
    cloud_engine: Engine, tmpl: dict[str, Any], message: str
) -> None:
    with pytest.raises(StackValidationFailed) as raised:
        cloud_engine.create_stack(CTX, f"{PREFIX}-bad", tmpl, {})
    assert message in str(raised.value)
