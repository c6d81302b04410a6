"""Keystone users, groups, projects and roles named ``name{domain}`` (the domain by name or
id), as Heat's keystone lookups and constraints accept them, against the devcloud's Keystone.

The test makes a domain of its own and, in it and in the default domain, objects of the same
names, so that only the domain can tell which one a template means.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openstack.connection import Connection

from hearth.common.errors import StackValidationFailed
from hearth.engine.engine import Engine
from tests.integration.cloud.keystone_support import (
    ADMIN,
    assert_none_named,
    cleanup,
    create,
    delete,
    prefix,
    roles_of,
    update,
)

KINDS = ("users", "groups", "projects", "roles", "domains")


@pytest.fixture
def mark(admin_conn: Connection) -> Iterator[str]:
    value = prefix("dom")
    yield value
    cleanup(admin_conn, value, KINDS)


@pytest.fixture
def objects(admin_conn: Connection, mark: str) -> dict[str, str]:
    """key -> id: ``d`` the test's domain; ``u``, ``g``, ``p``, ``r`` (a domain-specific
    role) in it, and ``u0``, ``g0``, ``p0`` of the same names in the default domain."""
    identity = admin_conn.identity
    domain = identity.create_domain(name=f"{mark}-d").id
    made = {"d": domain}
    for suffix, where in (("", domain), ("0", "default")):
        made[f"u{suffix}"] = identity.create_user(name=f"{mark}-u", domain_id=where).id
        made[f"g{suffix}"] = identity.create_group(name=f"{mark}-g", domain_id=where).id
        made[f"p{suffix}"] = identity.create_project(name=f"{mark}-p", domain_id=where).id
    made["r"] = identity.create_role(name=f"{mark}-r", domain_id=domain).id
    made["r0"] = identity.create_role(name=f"{mark}-r0").id
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
    }


def test_names_qualified_by_their_domain(admin_cloud_engine: Engine, admin_conn: Connection,
                                         mark: str, objects: dict[str, str]) -> None:
    engine, ids = admin_cloud_engine, objects
    dname = f"{mark}-d"
    # By the domain's name and by its id; the role is the domain's own.
    stack = create(engine, "ks-dom", template(
        f"{mark}-u{{{dname}}}", [{"role": f"{mark}-r{{{ids['d']}}}",
                                 "project": f"{mark}-p{{{dname}}}"}],
        f"{mark}-g{{{ids['d']}}}", [{"role": f"{mark}-r0", "project": f"{mark}-p{{default}}"}],
    ))
    assert roles_of(admin_conn, user=ids["u"]) == {(ids["r"], "project", ids["p"])}
    assert roles_of(admin_conn, group=ids["g"]) == {(ids["r0"], "project", ids["p0"])}
    assert roles_of(admin_conn, user=ids["u0"]) == set()
    assert roles_of(admin_conn, group=ids["g0"]) == set()

    # The other domain's objects of the same names; an id with a domain is still an id.
    state = update(engine, stack, template(
        f"{mark}-u{{Default}}", [{"role": f"{ids['r0']}{{{dname}}}",
                                  "project": f"{mark}-p{{default}}"}],
        f"{mark}-g{{default}}", [{"role": f"{mark}-r0", "project": f"{ids['p']}{{default}}"}],
    ))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert roles_of(admin_conn, user=ids["u"]) == set()
    assert roles_of(admin_conn, user=ids["u0"]) == {(ids["r0"], "project", ids["p0"])}
    assert roles_of(admin_conn, group=ids["g0"]) == {(ids["r0"], "project", ids["p"])}

    assert delete(engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert roles_of(admin_conn, user=ids["u0"]) == set()
    assert roles_of(admin_conn, group=ids["g0"]) == set()

    cleanup(admin_conn, mark, KINDS)
    assert_none_named(admin_conn, mark, KINDS)


@pytest.mark.parametrize(("user", "role", "expected"), [
    # An unknown domain: Heat names the whole value.
    ("{m}-u{{{m}-nowhere}}", "{m}-r0", "The KeystoneUser ({m}-u{{{m}-nowhere}})"),
    # A name the domain does not have: Heat names the name alone.
    ("{m}-nobody{{{m}-d}}", "{m}-r0", "The KeystoneUser ({m}-nobody)"),
    # The test domain's own role is not one of the default domain.
    ("{m}-u{{{m}-d}}", "{m}-r{{default}}", "The KeystoneRole ({m}-r)"),
])
def test_unknown_names_in_a_domain(admin_cloud_engine: Engine, mark: str,
                                   objects: dict[str, str], user: str, role: str,
                                   expected: str) -> None:
    tmpl = template(user.format(m=mark), [{"role": role.format(m=mark),
                                           "project": objects["p"]}], objects["g"], [])
    with pytest.raises(StackValidationFailed) as raised:
        admin_cloud_engine.create_stack(ADMIN, "ks-dom-bad", tmpl, {})
    message = str(raised.value)
    assert f"{expected.format(m=mark)} could not be found." in message, message
    assert "Error validating value '" in message, message
