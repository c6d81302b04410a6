"""OS::Neutron::Quota against the devcloud's real Neutron (as admin), on projects the test
makes and removes (never an existing project's quotas)."""

from __future__ import annotations

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

# Quota is admin-only in Heat's policy: the requests come from an admin.
ADMIN = RequestContext(project_id="admin", user_id="admin", username="admin", roles=("admin",))
# openstacksdk's names for the limits this test sets.
SDK_NAMES = {"network": "networks", "port": "ports", "subnet": "subnets",
             "router": "routers"}


@pytest.fixture
def projects(admin_conn: Connection) -> Iterator[list[Any]]:
    """Two fresh projects, removed (with any quota left on them) after the test."""
    made = [admin_conn.identity.create_project(name=unique("quota"), domain_id="default")
            for _ in range(2)]
    yield made
    for project in made:
        admin_conn.network.delete_quota(project.id)
        admin_conn.identity.delete_project(project.id)


@pytest.fixture
def cleanup() -> Iterator[list[tuple[Engine, dict[str, str], RequestContext]]]:
    """Stacks to delete after the test when it failed before deleting them itself (the
    devcloud is shared: a failed test must not leave its objects behind)."""
    made: list[tuple[Engine, dict[str, str], RequestContext]] = []
    yield made
    for engine, stack, ctx in made:
        if state(engine, stack)[:2] != ("DELETE", "COMPLETE"):
            delete(engine, stack, ctx=ctx)


def template(project: str, **limits: int) -> dict[str, object]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"quota": {"type": "OS::Neutron::Quota",
                                "properties": {"project": project, **limits}}},
        "outputs": {"show": {"value": {"get_attr": ["quota", "show"]}}},
    }


def limits(conn: Connection, project_id: str) -> dict[str, int]:
    quota = conn.network.get_quota(project_id)
    return {name: getattr(quota, sdk) for name, sdk in SDK_NAMES.items()}


def defaults(conn: Connection, project_id: str) -> dict[str, int]:
    quota = conn.network.get_quota_default(project_id)
    return {name: getattr(quota, sdk) for name, sdk in SDK_NAMES.items()}


def test_quota_lifecycle(admin_cloud_engine: Engine, admin_conn: Connection,
                         projects: list[Any], cleanup: list[Any]) -> None:
    engine = admin_cloud_engine
    first, second = projects
    default = defaults(admin_conn, first.id)
    assert limits(admin_conn, first.id) == default

    # The project by name.
    stack = create(engine, "quota", template(first.name, network=7, port=21), ctx=ADMIN)
    cleanup.append((engine, stack, ADMIN))
    # As in Heat, the physical id is the physical resource name (a quota has no id).
    assert physical_id(engine, stack, "quota").startswith("quota-")
    assert limits(admin_conn, first.id) == {**default, "network": 7, "port": 21}
    shown = outputs(engine, stack, ctx=ADMIN)["show"]
    assert (shown["network"], shown["port"]) == (7, 21)

    quota_id = physical_id(engine, stack, "quota")

    # In place: every limit the template gives is set again; those it stops giving stay.
    state = update(engine, stack, template(first.name, network=9, subnet=3), ctx=ADMIN)
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(engine, stack, "quota") == quota_id
    assert limits(admin_conn, first.id) == {**default, "network": 9, "port": 21, "subnet": 3}

    assert action(engine, stack, "check", ctx=ADMIN)[:2] == ("CHECK", "COMPLETE")

    # The same project by id instead of name: Hearth compares what the template says, so
    # the quota is replaced, and the old one's delete must not reset the project.
    state = update(engine, stack, template(first.id, network=9, subnet=3), ctx=ADMIN)
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(engine, stack, "quota") != quota_id
    assert limits(admin_conn, first.id) == {**default, "network": 9, "port": 21, "subnet": 3}

    # Replacement: another project. The new one gets the limits, the old one its defaults.
    state = update(engine, stack, template(second.id, router=4), ctx=ADMIN)
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert limits(admin_conn, second.id) == {**default, "router": 4}
    assert limits(admin_conn, first.id) == default

    # Delete resets the project to Neutron's defaults: nothing of the stack is left.
    assert delete(engine, stack, ctx=ADMIN)[:2] == ("DELETE", "COMPLETE")
    assert limits(admin_conn, second.id) == default


def test_delete_succeeds_when_the_project_is_gone(
    admin_cloud_engine: Engine, admin_conn: Connection
) -> None:
    project = admin_conn.identity.create_project(name=unique("quota-gone"),
                                                 domain_id="default")
    try:
        stack = create(admin_cloud_engine, "quota-gone", template(project.id, network=5),
                       ctx=ADMIN)
        assert admin_conn.network.get_quota(project.id).networks == 5
    finally:
        admin_conn.network.delete_quota(project.id)
        admin_conn.identity.delete_project(project.id)
    assert delete(admin_cloud_engine, stack, ctx=ADMIN)[:2] == ("DELETE", "COMPLETE")


def test_a_quota_without_limits_is_refused(admin_cloud_engine: Engine,
                                           admin_conn: Connection) -> None:
    message = ("At least one of the following properties must be specified: floatingip, "
               "network, port, rbac_policy, router, security_group, security_group_rule, "
               "subnet, subnetpool.")
    with pytest.raises(StackValidationFailed, match=message):
        admin_cloud_engine.create_stack(ADMIN, unique("quota-empty"),
                                        template(admin_conn.current_project_id), {})


def test_an_unknown_project_is_refused(admin_cloud_engine: Engine) -> None:
    with pytest.raises(StackValidationFailed, match="nosuchproject"):
        admin_cloud_engine.create_stack(ADMIN, unique("quota-bad"),
                                        template("nosuchproject", network=1), {})
