"""OS::Keystone::User, its groups and its roles against the devcloud's real Keystone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from keystoneauth1 import exceptions as ksa
from keystoneauth1 import session
from keystoneauth1.identity import v3
from openstack.connection import Connection

from hearth.engine.engine import Engine
from tests.integration.cloud.keystone_support import (
    action,
    assert_none_named,
    cleanup,
    create,
    delete,
    outputs,
    physical_id,
    prefix,
    roles_of,
    update,
)

KINDS = ("users", "groups", "projects", "roles")
ATTRIBUTES = ("name", "default_project_id", "domain_id", "enabled", "password_expires_at")


@pytest.fixture
def mark(admin_conn: Connection) -> Iterator[str]:
    value = prefix("user")
    yield value
    cleanup(admin_conn, value, KINDS)


def template(mark: str, **props: Any) -> dict[str, Any]:
    resources: dict[str, Any] = {
        name: {"type": "OS::Keystone::Project", "properties": {"name": f"{mark}-{name}"}}
        for name in ("p1", "p2")
    }
    resources.update({
        name: {"type": "OS::Keystone::Group", "properties": {"name": f"{mark}-{name}"}}
        for name in ("g1", "g2")
    })
    resources["role"] = {"type": "OS::Keystone::Role", "properties": {"name": f"{mark}-r"}}
    resources["user"] = {"type": "OS::Keystone::User", "properties": props}
    return {
        "heat_template_version": "2018-08-31",
        "resources": resources,
        "outputs": {a: {"value": {"get_attr": ["user", a]}} for a in ATTRIBUTES},
    }


def can_log_in(conn: Connection, user_id: str, password: str, project_id: str) -> bool:
    """Whether Keystone gives the user a token scoped to the project."""
    auth = v3.Password(auth_url=conn.session.get_endpoint(service_type="identity"),
                       user_id=user_id, password=password, project_id=project_id)
    try:
        session.Session(auth=auth).get_token()
    except ksa.Unauthorized:
        return False
    return True


def groups_of(conn: Connection, user_id: str) -> set[str]:
    return {g.id for g in conn.identity.user_groups(user_id)}


def test_user_lifecycle(admin_cloud_engine: Engine, admin_conn: Connection,
                        mark: str) -> None:
    engine = admin_cloud_engine
    stack = create(engine, "ks-user", template(
        mark, name=f"{mark}-u", description="first", email="a@example.com",
        password="pass-one", default_project={"get_resource": "p1"},
        groups=[{"get_resource": "g1"}],
        roles=[{"role": {"get_resource": "role"}, "project": {"get_resource": "p1"}}],
    ))
    ids = {name: physical_id(engine, stack, name)
           for name in ("user", "p1", "p2", "g1", "g2", "role")}
    user = admin_conn.identity.get_user(ids["user"])
    assert (user.name, user.description, user.email, user.default_project_id,
            user.domain_id, user.is_enabled) == (
        f"{mark}-u", "first", "a@example.com", ids["p1"], "default", True)
    assert groups_of(admin_conn, ids["user"]) == {ids["g1"]}
    assert roles_of(admin_conn, user=ids["user"]) == {(ids["role"], "project", ids["p1"])}
    assert can_log_in(admin_conn, ids["user"], "pass-one", ids["p1"])
    assert outputs(engine, stack) == {
        "name": f"{mark}-u", "default_project_id": ids["p1"], "domain_id": "default",
        "enabled": True, "password_expires_at": None,
    }

    # In place: every field, groups (one left, one joined), roles (one revoked, one granted).
    state = update(engine, stack, template(
        mark, name=f"{mark}-u2", description="second", email="b@example.com",
        password="pass-two", default_project=f"{mark}-p2",
        groups=[f"{mark}-g2"],
        roles=[{"role": f"{mark}-r", "project": {"get_resource": "p2"}},
               {"role": f"{mark}-r", "domain": "default"}],
    ))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(engine, stack, "user") == ids["user"]
    user = admin_conn.identity.get_user(ids["user"])
    assert (user.name, user.description, user.email, user.default_project_id) == (
        f"{mark}-u2", "second", "b@example.com", ids["p2"])
    assert groups_of(admin_conn, ids["user"]) == {ids["g2"]}
    assert roles_of(admin_conn, user=ids["user"]) == {
        (ids["role"], "project", ids["p2"]), (ids["role"], "domain", "default")}
    assert can_log_in(admin_conn, ids["user"], "pass-two", ids["p2"])
    assert not can_log_in(admin_conn, ids["user"], "pass-one", ids["p2"])

    assert action(engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Disabled, back in the first group only (by name), no default project, no roles.
    state = update(engine, stack, template(mark, name=f"{mark}-u2", password="pass-two",
                                           enabled=False, groups=[f"{mark}-g1"]))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    user = admin_conn.identity.get_user(ids["user"])
    assert (user.is_enabled, user.default_project_id, user.description) == (False, None, "")
    assert groups_of(admin_conn, ids["user"]) == {ids["g1"]}
    assert roles_of(admin_conn, user=ids["user"]) == set()
    assert outputs(engine, stack)["enabled"] is False
    assert not can_log_in(admin_conn, ids["user"], "pass-two", ids["p2"])

    # CHECK notices the user taken out of its group behind the stack's back.
    admin_conn.identity.remove_user_from_group(ids["user"], ids["g1"])
    state = action(engine, stack, "check")
    assert state[:2] == ("CHECK", "FAILED")
    assert (f"MissingGroupMemberships: resources.user: The user is not in the groups: "
            f"{ids['g1']}") in state[2]

    assert delete(engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert admin_conn.identity.find_user(ids["user"]) is None
    assert_none_named(admin_conn, mark, KINDS)
