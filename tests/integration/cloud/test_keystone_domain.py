"""OS::Keystone::Domain against the devcloud's real Keystone (as admin)."""

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
    value = prefix("domain")
    yield value
    cleanup(admin_conn, value, ("domains",))


def template(**props: object) -> dict[str, object]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"domain": {"type": "OS::Keystone::Domain", "properties": props}},
        "outputs": {"show": {"value": {"get_attr": ["domain", "show"]}},
                    "ref": {"value": {"get_resource": "domain"}}},
    }


def test_domain_lifecycle(admin_cloud_engine: Engine, admin_conn: Connection,
                          mark: str) -> None:
    engine = admin_cloud_engine
    stack = create(engine, "ks-domain", template(name=mark, description="first"))
    domain_id = physical_id(engine, stack, "domain")
    domain = admin_conn.identity.get_domain(domain_id)
    assert (domain.name, domain.description, domain.is_enabled) == (mark, "first", True)
    out = outputs(engine, stack)
    assert out["ref"] == domain_id
    assert out["show"]["id"] == domain_id and out["show"]["name"] == mark

    # In place: every property (a disabled domain stays the same domain).
    state = update(engine, stack, template(name=f"{mark}-2", description="second",
                                           enabled=False))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(engine, stack, "domain") == domain_id
    domain = admin_conn.identity.get_domain(domain_id)
    assert (domain.name, domain.description, domain.is_enabled) == (f"{mark}-2", "second",
                                                                     False)
    # Enabled again, then deleted: Keystone deletes only disabled domains, so the delete
    # must disable it first.
    state = update(engine, stack, template(name=f"{mark}-2", description="second"))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert admin_conn.identity.get_domain(domain_id).is_enabled is True

    assert action(engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    assert delete(engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert admin_conn.identity.find_domain(domain_id) is None
    assert_none_named(admin_conn, mark, ("domains",))


def test_check_fails_when_the_domain_was_deleted_behind_the_stack(
    admin_cloud_engine: Engine, admin_conn: Connection, mark: str
) -> None:
    engine = admin_cloud_engine
    stack = create(engine, "ks-domain-gone", template(name=mark, enabled=False))
    admin_conn.identity.delete_domain(physical_id(engine, stack, "domain"))
    state = action(engine, stack, "check")
    assert state[:2] == ("CHECK", "FAILED")
    assert "NotFound" in state[2]
    # Delete of a domain already gone succeeds.
    assert delete(engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_none_named(admin_conn, mark, ("domains",))
