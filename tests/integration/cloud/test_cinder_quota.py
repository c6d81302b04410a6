"""OS::Cinder::Quota against the devcloud, on projects the test makes (never demo's)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openstack.connection import Connection

from hearth.common.errors import StackValidationFailed
from hearth.engine.engine import Engine
from tests.integration.cloud.cinder_helpers import ADMIN, Cleanup, stack_cleanup, template
from tests.integration.cloud.conftest import (
    action,
    create,
    delete,
    physical_id,
    unique,
    update,
)
from tests.integration.engine.conftest import resources, wait_state

cleanup_fixture = pytest.fixture(name="cleanup")(stack_cleanup)

LIMITS = ("volumes", "gigabytes", "snapshots", "backups", "backup_gigabytes")


@pytest.fixture
def projects(admin_conn: Connection) -> Iterator[list[Any]]:
    """Two throwaway projects (their quotas are reset, then they are deleted)."""
    made = [admin_conn.identity.create_project(name=unique("hearth-cq"), domain_id="default")
            for _ in range(2)]
    yield made
    for project in made:
        admin_conn.block_storage.revert_quota_set(project.id)
        admin_conn.identity.delete_project(project)


def quota_template(**props: Any) -> dict[str, Any]:
    return template({"quota": {"type": "OS::Cinder::Quota", "properties": props}},
                    {"show": {"get_attr": ["quota", "show"]}})


def limits(conn: Connection, project_id: str) -> dict[str, int]:
    found = conn.block_storage.get(f"/os-quota-sets/{project_id}").json()["quota_set"]
    return {k: found[k] for k in LIMITS}


def test_quota_lifecycle(admin_cloud_engine: Engine, admin_conn: Connection,
                         projects: list[Any], cleanup: Cleanup) -> None:
    engine = admin_cloud_engine
    first, second = projects
    defaults = limits(admin_conn, first.id)
    wanted = {"volumes": 5, "gigabytes": 50, "snapshots": 3, "backups": 2,
              "backup_gigabytes": 20}
    # The project by name: Hearth finds its id.
    stack = cleanup(engine, create(engine, "cq", quota_template(project=first.name, **wanted),
                                   ctx=ADMIN), ADMIN)
    state = wait_state(engine, stack)
    assert state[:2] == ("CREATE", "COMPLETE"), state
    assert limits(admin_conn, first.id) == wanted
    quota_id = physical_id(engine, stack, "quota")
    assert quota_id.startswith("cq-") and "-quota-" in quota_id

    assert action(engine, stack, "check", ADMIN)[:2] == ("CHECK", "COMPLETE")
    assert resources(engine, stack)["quota"].status_reason == \
        "CHECK not supported for OS::Cinder::Quota"

    # In place: other limits (-1: unlimited) on the same project.
    changed = {**wanted, "volumes": 7, "gigabytes": -1}
    state = update(engine, stack, quota_template(project=first.name, **changed), ctx=ADMIN)
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(engine, stack, "quota") == quota_id
    assert limits(admin_conn, first.id) == changed

    # Replacement: another project. The first one goes back to the defaults.
    state = update(engine, stack, quota_template(project=second.id, volumes=4), ctx=ADMIN)
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert limits(admin_conn, second.id)["volumes"] == 4
    assert limits(admin_conn, first.id) == defaults

    assert delete(engine, stack, ADMIN)[:2] == ("DELETE", "COMPLETE")
    assert limits(admin_conn, second.id) == defaults


def test_a_quota_needs_a_limit(admin_cloud_engine: Engine, projects: list[Any]) -> None:
    with pytest.raises(StackValidationFailed, match="At least one of the following properties "
                       "must be specified: gigabytes, snapshots, volumes, backups, "
                       "backup_gigabytes."):
        admin_cloud_engine.create_stack(ADMIN, unique("bad"),
                                        quota_template(project=projects[0].id), {})
