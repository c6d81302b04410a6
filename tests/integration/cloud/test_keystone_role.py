"""OS::Keystone::Role against the devcloud's real Keystone (as admin)."""

from __future__ import annotations

from collections.abc import Iterator

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
    physical_id,
    prefix,
    update,
)


@pytest.fixture
def mark(admin_conn: Connection) -> Iterator[str]:
    value = prefix("role")
    yield value
    cleanup(admin_conn, value, ("roles",))


def template(**props: object) -> dict[str, object]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"role": {"type": "OS::Keystone::Role", "properties": props}},
        "outputs": {"show": {"value": {"get_attr": ["role", "show"]}}},
    }


def test_role_lifecycle(admin_cloud_engine: Engine, admin_conn: Connection,
                        mark: str) -> None:
    engine = admin_cloud_engine
    stack = create(engine, "ks-role", template(name=f"{mark}-a"))
    role_id = physical_id(engine, stack, "role")
    role = admin_conn.identity.get_role(role_id)
    assert (role.name, role.domain_id) == (f"{mark}-a", None)
    shown = outputs(engine, stack)["show"]
    assert (shown["id"], shown["name"]) == (role_id, f"{mark}-a")

    # In place: the name.
    state = update(engine, stack, template(name=f"{mark}-b"))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(engine, stack, "role") == role_id
    assert admin_conn.identity.get_role(role_id).name == f"{mark}-b"

    assert action(engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Replacement: a role of a domain is another role.
    state = update(engine, stack, template(name=f"{mark}-b", domain="Default"))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(engine, stack, "role")
    assert new_id != role_id
    assert admin_conn.identity.find_role(role_id) is None
    role = admin_conn.identity.get_role(new_id)
    assert (role.name, role.domain_id) == (f"{mark}-b", "default")

    assert delete(engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert admin_conn.identity.find_role(new_id) is None
    assert_none_named(admin_conn, mark, ("roles",))
