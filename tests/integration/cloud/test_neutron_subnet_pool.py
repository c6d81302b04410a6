"""OS::Neutron::SubnetPool against the devcloud's real Neutron (as demo)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from openstack.connection import Connection

from hearth.common.context import RequestContext
from hearth.common.errors import StackValidationFailed
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


def owned(conn: Connection) -> dict[str, str]:
    """The subnet pools and address scopes of the connection's project, id -> name."""
    project = conn.current_project_id
    found = {p.id: p.name for p in conn.network.subnet_pools(project_id=project)}
    found.update({s.id: s.name for s in conn.network.address_scopes(project_id=project)})
    return found


def left(conn: Connection, before: dict[str, str], *markers: str) -> dict[str, str]:
    """Pools and scopes made since ``before`` whose names carry one of ``markers`` (this
    test's stack name or the names it gave): other tests use the same project meanwhile."""
    return {i: n for i, n in owned(conn).items()
            if i not in before and any(m in n for m in markers)}


# The scope by name (its name, read once it exists: a literal name would fail the
# neutron.address_scope constraint before the scope is made, in Heat as here).
SCOPE_BY_NAME = {"get_attr": ["scope", "show", "name"]}


@pytest.fixture
def cleanup() -> Iterator[list[tuple[Engine, dict[str, str], RequestContext]]]:
    """Stacks to delete after the test when it failed before deleting them itself (the
    devcloud is shared: a failed test must not leave its objects behind)."""
    made: list[tuple[Engine, dict[str, str], RequestContext]] = []
    yield made
    for engine, stack, ctx in made:
        if state(engine, stack)[:2] != ("DELETE", "COMPLETE"):
            delete(engine, stack, ctx=ctx)


def template(scope_name: str, **pool: object) -> dict[str, object]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "scope": {"type": "OS::Neutron::AddressScope", "properties": {"name": scope_name}},
            "pool": {"type": "OS::Neutron::SubnetPool", "properties": pool},
        },
        "outputs": {
            "prefixes": {"value": {"get_attr": ["pool", "show", "prefixes"]}},
            "scope_id": {"value": {"get_attr": ["pool", "show", "address_scope_id"]}},
        },
    }


def prefixes() -> tuple[str, str]:
    """Two adjacent /16s of 10/8 that other tests are unlikely to use at the same time."""
    second = random.randrange(100, 250, 2)
    return f"10.{second}.0.0/16", f"10.{second + 1}.0.0/16"


def test_subnet_pool_lifecycle(cloud_engine: Engine, demo_conn: Connection,
                               cleanup: list[Any]) -> None:
    before = owned(demo_conn)
    scope_name = unique("scope")
    renamed = unique("renamed")
    first, more = prefixes()
    stack = create(cloud_engine, "pool", template(
        scope_name, prefixes=[first], address_scope=SCOPE_BY_NAME, default_prefixlen=26,
        min_prefixlen=24, max_prefixlen=28, default_quota=1024, tags=["a"],
    ))
    cleanup.append((cloud_engine, stack, CTX))
    pool_id = physical_id(cloud_engine, stack, "pool")
    scope_id = physical_id(cloud_engine, stack, "scope")
    pool = demo_conn.network.get_subnet_pool(pool_id)
    assert pool.prefixes == [first]
    assert pool.address_scope_id == scope_id
    assert (pool.default_prefix_length, pool.minimum_prefix_length,
            pool.maximum_prefix_length, pool.default_quota) == (26, 24, 28, 1024)
    assert (pool.tags, pool.is_shared, pool.is_default) == (["a"], False, False)
    assert pool.name.startswith("pool-") and "-pool-" in pool.name
    assert outputs(cloud_engine, stack) == {"prefixes": [first], "scope_id": scope_id}

    # In place: more prefixes, out of the scope, new lengths, name and tags.
    state = update(cloud_engine, stack, template(
        scope_name, name=renamed, prefixes=[first, more], default_prefixlen=25,
        min_prefixlen=24, max_prefixlen=28, default_quota=1024, tags=["b"],
    ))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "pool") == pool_id
    pool = demo_conn.network.get_subnet_pool(pool_id)
    assert (pool.name, pool.address_scope_id, pool.default_prefix_length, pool.tags) == (
        renamed, None, 25, ["b"])
    # Neutron merges adjacent prefixes: the pool covers both /16s.
    assert pool.prefixes == [f"{first.split('.')[0]}.{first.split('.')[1]}.0.0/15"]

    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Prefixes may only grow: Hearth refuses before calling Neutron, the pool is unchanged.
    state = update(cloud_engine, stack, template(
        scope_name, name="shrunk", prefixes=[first], default_prefixlen=25, min_prefixlen=24,
        max_prefixlen=28, default_quota=1024, tags=["c"],
    ))
    assert state[:2] == ("UPDATE", "FAILED"), state
    assert (f"Property prefixes updated value ['{first}'] should be superset of existing "
            f"value {sorted([first, more])}.") in state[2]
    pool = demo_conn.network.get_subnet_pool(pool_id)
    assert (pool.name, pool.tags) == (renamed, ["b"])

    # Replacement: tenant_id cannot change in place (here: set to the same project).
    state = update(cloud_engine, stack, template(
        scope_name, name=renamed, prefixes=[first, more], default_prefixlen=25,
        min_prefixlen=24, max_prefixlen=28, default_quota=1024,
        tenant_id=demo_conn.current_project_id,
    ))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(cloud_engine, stack, "pool")
    assert new_id != pool_id
    assert demo_conn.network.find_subnet_pool(pool_id) is None
    assert demo_conn.network.get_subnet_pool(new_id).name == renamed

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert demo_conn.network.find_subnet_pool(new_id) is None
    assert left(demo_conn, before, stack["stack_name"], scope_name, renamed) == {}


@pytest.mark.parametrize(("lengths", "message"), [
    ({"min_prefixlen": 28, "max_prefixlen": 24},
     "Illegal prefix bounds: max_prefixlen=24, min_prefixlen=28."),
    ({"default_prefixlen": 29, "max_prefixlen": 28},
     "Illegal prefix bounds: max_prefixlen=28, default_prefixlen=29."),
    ({"default_prefixlen": 20, "min_prefixlen": 24},
     "Illegal prefix bounds: min_prefixlen=24, default_prefixlen=20."),
])
def test_illegal_prefix_bounds_are_refused_before_anything_is_made(
    cloud_engine: Engine, demo_conn: Connection, lengths: dict[str, int], message: str
) -> None:
    before = owned(demo_conn)
    name, scope_name = unique("bad-pool"), unique("scope")
    with pytest.raises(StackValidationFailed, match=message):
        cloud_engine.create_stack(CTX, name, template(
            scope_name, prefixes=["10.99.0.0/16"], **lengths), {})
    assert left(demo_conn, before, name, scope_name) == {}
