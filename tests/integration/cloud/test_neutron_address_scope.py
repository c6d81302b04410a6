"""OS::Neutron::AddressScope against the devcloud's real Neutron (as demo)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openstack.connection import Connection

from hearth.common.context import RequestContext
from hearth.engine.engine import Engine
from tests.integration.cloud.conftest import (
    CTX,
    action,
    create,
    delete,
    outputs,
    physical_id,
    state,
    unique,
    update,
)


def scopes(conn: Connection) -> dict[str, str]:
    """The address scopes of the connection's project, id -> name."""
    project = conn.current_project_id
    return {s.id: s.name for s in conn.network.address_scopes(project_id=project)}


def left(conn: Connection, before: dict[str, str], *markers: str) -> dict[str, str]:
    """Scopes made since ``before`` whose names carry one of ``markers`` (this test's stack
    name or the names it gave): other tests use the same project meanwhile."""
    return {i: n for i, n in scopes(conn).items()
            if i not in before and any(m in n for m in markers)}


@pytest.fixture
def cleanup() -> Iterator[list[tuple[Engine, dict[str, str], RequestContext]]]:
    """Stacks to delete after the test when it failed before deleting them itself (the
    devcloud is shared: a failed test must not leave its objects behind)."""
    made: list[tuple[Engine, dict[str, str], RequestContext]] = []
    yield made
    for engine, stack, ctx in made:
        if state(engine, stack)[:2] != ("DELETE", "COMPLETE"):
            delete(engine, stack, ctx=ctx)


def template(**props: object) -> dict[str, object]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"scope": {"type": "OS::Neutron::AddressScope", "properties": props}},
        "outputs": {
            "show": {"value": {"get_attr": ["scope", "show"]}},
            "ref": {"value": {"get_resource": "scope"}},
        },
    }


def test_address_scope_lifecycle(cloud_engine: Engine, demo_conn: Connection,
                                 cleanup: list[Any]) -> None:
    before = scopes(demo_conn)
    renamed = unique("renamed")
    stack = create(cloud_engine, "scope", template())
    cleanup.append((cloud_engine, stack, CTX))
    scope_id = physical_id(cloud_engine, stack, "scope")
    scope = demo_conn.network.get_address_scope(scope_id)
    # Heat's defaults: IPv4, not shared; the name is the physical resource name.
    assert (scope.ip_version, scope.is_shared) == (4, False)
    assert scope.name.startswith("scope-") and "-scope-" in scope.name
    assert scope.project_id == demo_conn.current_project_id
    out = outputs(cloud_engine, stack)
    assert out["ref"] == scope_id
    assert (out["show"]["id"], out["show"]["name"], out["show"]["ip_version"]) == (
        scope_id, scope.name, 4)

    # In place: the name.
    state = update(cloud_engine, stack, template(name=renamed))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "scope") == scope_id
    assert demo_conn.network.get_address_scope(scope_id).name == renamed

    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Replacement: the address family cannot change.
    state = update(cloud_engine, stack, template(name=renamed, ip_version=6))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(cloud_engine, stack, "scope")
    assert new_id != scope_id
    assert demo_conn.network.find_address_scope(scope_id) is None
    new = demo_conn.network.get_address_scope(new_id)
    assert (new.name, new.ip_version) == (renamed, 6)

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert demo_conn.network.find_address_scope(new_id) is None
    assert left(demo_conn, before, stack["stack_name"], renamed) == {}


def test_check_fails_when_the_scope_was_deleted_behind_the_stack(
    cloud_engine: Engine, demo_conn: Connection, cleanup: list[Any]
) -> None:
    before = scopes(demo_conn)
    stack = create(cloud_engine, "scope-gone", template())
    cleanup.append((cloud_engine, stack, CTX))
    demo_conn.network.delete_address_scope(physical_id(cloud_engine, stack, "scope"))
    checked = action(cloud_engine, stack, "check")
    assert checked[:2] == ("CHECK", "FAILED")
    assert "NotFound" in checked[2]
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert left(demo_conn, before, stack["stack_name"]) == {}
