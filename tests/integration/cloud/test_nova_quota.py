"""OS::Nova::Quota against the devcloud's real Nova, on projects the test makes (as admin)."""

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
    physical_id,
    state,
    unique,
    update,
)

ADMIN = RequestContext(project_id="admin", user_id="admin", username="admin", roles=("admin",))
LIMITS = ("cores", "instances", "key_pairs", "ram", "server_groups", "server_group_members",
          "metadata_items", "injected_files")


def template(**props: Any) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"quota": {"type": "OS::Nova::Quota", "properties": props}},
    }


def limits(conn: Connection, project_id: str) -> dict[str, int]:
    found = conn.compute.get_quota_set(project_id)
    return {name: getattr(found, name) for name in LIMITS}


@pytest.fixture
def projects(admin_conn: Connection) -> Iterator[list[Any]]:
    """Two throwaway projects (never project demo's quotas), deleted after the test."""
    identity: Any = admin_conn.identity  # Keystone v3 (the sdk types it v2 or v3)
    made = [identity.create_project(name=unique("quota"), domain_id="default")
            for _ in range(2)]
    yield made
    for project in made:
        admin_conn.compute.revert_quota_set(project.id)
        identity.delete_project(project.id)


def test_quota_lifecycle(admin_cloud_engine: Engine, admin_conn: Connection,
                         projects: list[Any]) -> None:
    engine = admin_cloud_engine
    first, second = projects
    defaults = limits(admin_conn, first.id)
    stack = create(engine, "quota", template(project=first.name, cores=7, instances=3,
                                             key_pairs=5, injected_files=2), ctx=ADMIN)
    assert state(engine, stack)[:2] == ("CREATE", "COMPLETE"), state(engine, stack)
    quota_id = physical_id(engine, stack, "quota")
    assert quota_id.startswith("quota-")  # the physical name, as in Heat
    assert limits(admin_conn, first.id) == {
        **defaults, "cores": 7, "instances": 3, "key_pairs": 5, "injected_files": 2}

    # In place; a quota the template no longer gives keeps its value (as in Heat).
    result = update(engine, stack, template(project=first.name, cores=9, ram=1024,
                                            server_groups=-1), ctx=ADMIN)
    assert result[:2] == ("UPDATE", "COMPLETE"), result
    assert physical_id(engine, stack, "quota") == quota_id
    assert limits(admin_conn, first.id) == {
        **defaults, "cores": 9, "instances": 3, "key_pairs": 5, "injected_files": 2,
        "ram": 1024, "server_groups": -1}

    assert action(engine, stack, "check", ADMIN)[:2] == ("CHECK", "COMPLETE")

    # Another project: a new quota there, the first project back on the defaults.
    result = update(engine, stack, template(project=second.name, cores=11), ctx=ADMIN)
    assert result[:2] == ("UPDATE", "COMPLETE"), result
    assert limits(admin_conn, second.id) == {**defaults, "cores": 11}
    assert limits(admin_conn, first.id) == defaults

    assert delete(engine, stack, ADMIN)[:2] == ("DELETE", "COMPLETE")
    assert limits(admin_conn, second.id) == defaults


def test_a_quota_needs_at_least_one_limit(admin_cloud_engine: Engine) -> None:
    with pytest.raises(StackValidationFailed,
                       match="At least one of the following properties must be specified: "
                             "cores, fixed_ips, floating_ips,"):
        admin_cloud_engine.create_stack(ADMIN, unique("quota-x"), template(project="admin"),
                                        {})


def test_unknown_project_is_refused_at_create(admin_cloud_engine: Engine) -> None:
    with pytest.raises(StackValidationFailed, match="could not be found"):
        admin_cloud_engine.create_stack(ADMIN, unique("quota-x"),
                                        template(project=unique("nope"), cores=1), {})


def test_quotas_nova_dropped_fail_with_novas_reason(
    admin_cloud_engine: Engine, admin_conn: Connection, projects: list[Any]
) -> None:
    project = projects[0]
    defaults = limits(admin_conn, project.id)
    stack = create(admin_cloud_engine, "quota-net",
                   template(project=project.id, cores=3, floating_ips=2), ctx=ADMIN)
    result = state(admin_cloud_engine, stack)
    assert result[:2] == ("CREATE", "FAILED") and "floating_ips" in result[2], result
    # Nova took nothing of the request.
    assert limits(admin_conn, project.id) == defaults
    assert delete(admin_cloud_engine, stack, ADMIN)[:2] == ("DELETE", "COMPLETE")
