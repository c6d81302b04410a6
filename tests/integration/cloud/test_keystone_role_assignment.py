"""OS::Keystone::UserRoleAssignment and GroupRoleAssignment against the devcloud's Keystone.

The users, groups, projects and roles are made by the test itself (named with its unique
prefix), so that deleting the stack can be seen to revoke the roles from objects that
outlive it.
"""

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
    outputs,
    prefix,
    roles_of,
    update,
)

KINDS = ("users", "groups", "projects", "roles")


@pytest.fixture
def mark(admin_conn: Connection) -> Iterator[str]:
    value = prefix("assign")
    yield value
    cleanup(admin_conn, value, KINDS)


@pytest.fixture
def objects(admin_conn: Connection, mark: str) -> dict[str, str]:
    """name -> id of what the stacks grant roles to and on."""
    identity = admin_conn.identity
    made = {
        "u1": identity.create_user(name=f"{mark}-u1", domain_id="default").id,
        "u2": identity.create_user(name=f"{mark}-u2", domain_id="default").id,
        "g": identity.create_group(name=f"{mark}-g", domain_id="default").id,
        "p": identity.create_project(name=f"{mark}-p", domain_id="default").id,
        "r1": identity.create_role(name=f"{mark}-r1").id,
        "r2": identity.create_role(name=f"{mark}-r2").id,
    }
    return made


def template(user: str, user_roles: list[dict[str, Any]], group: str,
             group_roles: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "ura": {"type": "OS::Keystone::UserRoleAssignment",
                    "properties": {"user": user, "roles": user_roles}},
            "gra": {"type": "OS::Keystone::GroupRoleAssignment",
                    "properties": {"group": group, "roles": group_roles}},
        },
        "outputs": {"ref": {"value": {"get_resource": "ura"}}},
    }


def test_role_assignments(admin_cloud_engine: Engine, admin_conn: Connection, mark: str,
                          objects: dict[str, str]) -> None:
    engine, ids = admin_cloud_engine, objects
    stack = create(engine, "ks-assign", template(
        f"{mark}-u1", [{"role": f"{mark}-r1", "project": f"{mark}-p"}],
        ids["g"], [{"role": ids["r1"], "domain": "default"},
                   {"role": ids["r2"], "project": ids["p"]}],
    ))
    assert roles_of(admin_conn, user=ids["u1"]) == {(ids["r1"], "project", ids["p"])}
    assert roles_of(admin_conn, group=ids["g"]) == {
        (ids["r1"], "domain", "default"), (ids["r2"], "project", ids["p"])}
    # No physical object of its own: a reference gives the resource's name, as in Heat.
    assert outputs(engine, stack)["ref"] == "ura"

    # In place: roles added and removed; the same assignment by id instead of name is kept.
    state = update(engine, stack, template(
        f"{mark}-u1", [{"role": ids["r1"], "project": ids["p"]},
                       {"role": f"{mark}-r2", "domain": "default"}],
        f"{mark}-g", [{"role": ids["r2"], "project": f"{mark}-p"}],
    ))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert roles_of(admin_conn, user=ids["u1"]) == {
        (ids["r1"], "project", ids["p"]), (ids["r2"], "domain", "default")}
    assert roles_of(admin_conn, group=ids["g"]) == {(ids["r2"], "project", ids["p"])}

    # Another user: the roles move from the old one to the new one.
    state = update(engine, stack, template(
        ids["u2"], [{"role": ids["r1"], "project": ids["p"]}],
        f"{mark}-g", [{"role": ids["r2"], "project": f"{mark}-p"}],
    ))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert roles_of(admin_conn, user=ids["u1"]) == set()
    assert roles_of(admin_conn, user=ids["u2"]) == {(ids["r1"], "project", ids["p"])}

    assert action(engine, stack, "check")[:2] == ("CHECK", "COMPLETE")
    admin_conn.identity.unassign_project_role_from_user(ids["p"], ids["u2"], ids["r1"])
    state = action(engine, stack, "check")
    assert state[:2] == ("CHECK", "FAILED")
    assert (f"MissingRoleAssignments: resources.ura: Role assignments not found in Keystone: "
            f"role {ids['r1']} on project {ids['p']}") in state[2]

    # Delete revokes every role (one already revoked is no error); the user, group,
    # project and roles stay.
    assert delete(engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert roles_of(admin_conn, user=ids["u2"]) == set()
    assert roles_of(admin_conn, group=ids["g"]) == set()
    assert admin_conn.identity.get_user(ids["u2"]).name == f"{mark}-u2"

    cleanup(admin_conn, mark, KINDS)
    assert_none_named(admin_conn, mark, KINDS)


def test_an_unknown_role_fails_the_create(admin_cloud_engine: Engine, mark: str,
                                          objects: dict[str, str]) -> None:
    from hearth.common.errors import StackValidationFailed
    from tests.integration.cloud.keystone_support import ADMIN

    tmpl = template(objects["u1"], [{"role": f"{mark}-nope", "project": objects["p"]}],
                    objects["g"], [])
    with pytest.raises(StackValidationFailed,
                       match=f"The KeystoneRole \\({mark}-nope\\) could not be found"):
        admin_cloud_engine.create_stack(ADMIN, "ks-assign-bad", tmpl, {})
