"""OS::Keystone::Project against the devcloud's real Keystone (as admin)."""

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
    physical_id,
    prefix,
    update,
)


@pytest.fixture
def mark(admin_conn: Connection) -> Iterator[str]:
    value = prefix("project")
    yield value
    cleanup(admin_conn, value, ("projects", "domains"))


def template(mark: str, **props: Any) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "parent": {"type": "OS::Keystone::Project",
                       "properties": {"name": f"{mark}-parent"}},
            "project": {"type": "OS::Keystone::Project", "properties": props},
        },
        "outputs": {
            attr: {"value": {"get_attr": ["project", attr]}}
            for attr in ("name", "parent_id", "domain_id", "enabled", "is_domain")
        },
    }


def test_project_lifecycle(admin_cloud_engine: Engine, admin_conn: Connection,
                           mark: str) -> None:
    engine = admin_cloud_engine
    stack = create(engine, "ks-project", template(
        mark, name=f"{mark}-a", description="first", tags=["t1", "t2"], enabled=False,
    ))
    project_id = physical_id(engine, stack, "project")
    parent_id = physical_id(engine, stack, "parent")
    project = admin_conn.identity.get_project(project_id)
    assert (project.name, project.description, project.is_enabled, project.domain_id) == (
        f"{mark}-a", "first", False, "default")
    assert sorted(project.tags) == ["t1", "t2"]
    assert project.parent_id == "default"  # a top-level project of the default domain
    assert outputs(engine, stack) == {"name": f"{mark}-a", "parent_id": "default",
                                      "domain_id": "default", "enabled": False,
                                      "is_domain": False}

    # In place: name, description, enabled, tags (emptied).
    state = update(engine, stack, template(mark, name=f"{mark}-b", description="second",
                                           domain="Default"))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(engine, stack, "project") == project_id
    project = admin_conn.identity.get_project(project_id)
    assert (project.name, project.description, project.is_enabled, project.tags) == (
        f"{mark}-b", "second", True, [])

    assert action(engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Replacement: parent cannot change in place. By name, as templates may give it.
    state = update(engine, stack, template(mark, name=f"{mark}-c", parent=f"{mark}-parent"))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(engine, stack, "project")
    assert new_id != project_id
    assert admin_conn.identity.find_project(project_id) is None
    assert admin_conn.identity.get_project(new_id).parent_id == parent_id
    assert outputs(engine, stack)["parent_id"] == parent_id

    # Neutron makes a "default" security group for a project the first time it is asked
    # about it; the delete removes it with the project, as Heat does. (Asking again after
    # the delete would make a new one: the group is looked up by its id.)
    groups = list(admin_conn.network.security_groups(project_id=new_id))
    assert [g.name for g in groups] == ["default"]

    assert delete(engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert admin_conn.identity.find_project(new_id) is None
    assert admin_conn.identity.find_project(parent_id) is None
    assert admin_conn.network.find_security_group(groups[0].id) is None
    assert_none_named(admin_conn, mark, ("projects",))


def test_a_changed_domain_fails_the_update(admin_cloud_engine: Engine,
                                           admin_conn: Connection, mark: str) -> None:
    engine = admin_cloud_engine
    domain = {"type": "OS::Keystone::Domain", "properties": {"name": f"{mark}-d"}}
    tmpl = template(mark, name=f"{mark}-a")
    tmpl["resources"]["domain"] = domain
    stack = create(engine, "ks-project-domain", tmpl)
    tmpl = template(mark, name=f"{mark}-a", domain={"get_resource": "domain"})
    tmpl["resources"]["domain"] = domain
    state = update(engine, stack, tmpl)
    # Keystone does not move projects between domains (nor does Heat).
    assert state[:2] == ("UPDATE", "FAILED")
    assert "BadRequest: resources.project: Cannot change Domain ID" in state[2]
    assert delete(engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_none_named(admin_conn, mark, ("projects", "domains"))
