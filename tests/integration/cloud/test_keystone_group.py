"""OS::Keystone::Group and its role assignments against the devcloud's real Keystone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openstack.connection import Connection

from hearth.engine.engine import Engine
from tests.integration.cloud.keystone_support import (
    action,
    assert_none_named,
    cleanup,
    create,
    delete,
    physical_id,
    prefix,
    roles_of,
    update,
)

KINDS = ("groups", "projects", "roles")


@pytest.fixture
def mark(admin_conn: Connection) -> Iterator[str]:
    value = prefix("group")
    yield value
    cleanup(admin_conn, value, KINDS)


def template(mark: str, **props: Any) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "project": {"type": "OS::Keystone::Project", "properties": {"name": f"{mark}-p"}},
            "role1": {"type": "OS::Keystone::Role", "properties": {"name": f"{mark}-r1"}},
            "role2": {"type": "OS::Keystone::Role", "properties": {"name": f"{mark}-r2"}},
            "group": {"type": "OS::Keystone::Group", "properties": props},
        },
    }


def test_group_lifecycle(admin_cloud_engine: Engine, admin_conn: Connection,
                         mark: str) -> None:
    engine = admin_cloud_engine
    stack = create(engine, "ks-group", template(
        mark, name=f"{mark}-g", description="first",
        roles=[{"role": {"get_resource": "role1"}, "project": {"get_resource": "project"}},
               {"role": f"{mark}-r2", "domain": "default"}],
    ))
    ids = {name: physical_id(engine, stack, name)
           for name in ("group", "project", "role1", "role2")}
    group = admin_conn.identity.get_group(ids["group"])
    assert (group.name, group.description, group.domain_id) == (f"{mark}-g", "first",
                                                                "default")
    assert roles_of(admin_conn, group=ids["group"]) == {
        (ids["role1"], "project", ids["project"]), (ids["role2"], "domain", "default")}

    # In place: name, description; one role kept (now named, not by id), one revoked, one
    # granted.
    state = update(engine, stack, template(
        mark, name=f"{mark}-g2", description="second",
        roles=[{"role": f"{mark}-r1", "project": f"{mark}-p"},
               {"role": {"get_resource": "role2"}, "project": {"get_resource": "project"}}],
    ))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(engine, stack, "group") == ids["group"]
    group = admin_conn.identity.get_group(ids["group"])
    assert (group.name, group.description) == (f"{mark}-g2", "second")
    assert roles_of(admin_conn, group=ids["group"]) == {
        (ids["role1"], "project", ids["project"]), (ids["role2"], "project", ids["project"])}

    assert action(engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # All roles removed.
    state = update(engine, stack, template(mark, name=f"{mark}-g2", roles=[]))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert roles_of(admin_conn, group=ids["group"]) == set()

    # CHECK notices a role revoked behind the stack's back.
    state = update(engine, stack, template(
        mark, name=f"{mark}-g2", roles=[{"role": f"{mark}-r2", "project": f"{mark}-p"}]))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert roles_of(admin_conn, group=ids["group"]) == {
        (ids["role2"], "project", ids["project"])}
    admin_conn.identity.unassign_project_role_from_group(ids["project"], ids["group"],
                                                         ids["role2"])
    state = action(engine, stack, "check")
    assert state[:2] == ("CHECK", "FAILED")
    assert f"role {ids['role2']} on project {ids['project']}" in state[2]

    assert delete(engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert admin_conn.identity.find_group(ids["group"]) is None
    assert_none_named(admin_conn, mark, KINDS)


def test_a_role_needs_a_project_or_a_domain(admin_cloud_engine: Engine) -> None:
    from hearth.common.errors import StackValidationFailed
    from tests.integration.cloud.keystone_support import ADMIN

    both = template("x", roles=[{"role": "member", "project": "demo", "domain": "default"}])
    with pytest.raises(StackValidationFailed, match="at the same time: project, domain"):
        admin_cloud_engine.create_stack(ADMIN, "ks-bad-roles", both, {})
    neither = template("x", roles=[{"role": "member"}])
    with pytest.raises(StackValidationFailed,
                       match="Either project or domain must be specified for role member"):
        admin_cloud_engine.create_stack(ADMIN, "ks-bad-roles", neither, {})
