"""What the Neutron core-type tests share: a template builder and a leftover check that only
sees objects these tests made (other tests use the same project at the same time).

Every stack of these tests is named ``PREFIX-...``, so every named object they make (its
physical name starts with the stack name) does too; names set in templates use ``PREFIX``
as well. Floating IPs have no name: those the stacks made are remembered after each create
and update (``create_stack``, ``update_stack``). An unnamed port left behind (a router
interface) keeps its named network alive, so it is caught through it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest
from openstack.connection import Connection

from hearth.engine.engine import Engine
from hearth.store import resources as resource_store
from tests.integration.cloud.conftest import (
    CTX,
    create,
    delete,
    outputs,
    physical_id,
    state,
    update,
)
from tests.integration.engine.conftest import resources

PREFIX = "hnc"


def named(objects: Iterable[Any]) -> set[str]:
    return {o.id for o in objects if (o.name or "").startswith(PREFIX)}


LISTERS: dict[str, Callable[[Connection], set[str]]] = {
    "networks": lambda c: named(c.network.networks(project_id=c.current_project_id)),
    "subnets": lambda c: named(c.network.subnets(project_id=c.current_project_id)),
    "ports": lambda c: named(c.network.ports(project_id=c.current_project_id)),
    "routers": lambda c: named(c.network.routers(project_id=c.current_project_id)),
    "security_groups": lambda c: named(
        c.network.security_groups(project_id=c.current_project_id)),
    "floatingips": lambda c: {f.id for f in c.network.ips(project_id=c.current_project_id)
                              if f.id in _floating_ips},
}
# Physical ids of the floating IPs the stacks of these tests made.
_floating_ips: set[str] = set()


def remember(engine: Engine, stack: dict[str, str]) -> None:
    with engine.core.db.session() as session:
        for row in resource_store.of_stack(session, stack["stack_id"]):
            if row.resource_type == "OS::Neutron::FloatingIP" and row.physical_resource_id:
                _floating_ips.add(row.physical_resource_id)


def inventory(conn: Connection) -> dict[str, set[str]]:
    return {kind: lister(conn) for kind, lister in LISTERS.items()}


def assert_nothing_left(conn: Connection, before: dict[str, set[str]],
                        timeout: float = 20.0) -> None:
    """Nothing these tests made since ``before`` is still in the cloud."""
    deadline = time.monotonic() + timeout
    while True:
        after = inventory(conn)
        left = {kind: sorted(after[kind] - before[kind]) for kind in before}
        left = {kind: ids for kind, ids in left.items() if ids}
        if not left or time.monotonic() > deadline:
            break
        time.sleep(1.0)
    assert left == {}, f"left in the cloud after delete: {left}"


def hot(resources_: dict[str, Any], outputs_: dict[str, Any] | None = None) -> dict[str, Any]:
    """A HOT template with these resources and outputs (name -> value snippet)."""
    return {
        "heat_template_version": "2018-08-31",
        "resources": resources_,
        "outputs": {k: {"value": v} for k, v in (outputs_ or {}).items()},
    }


def ids(engine: Engine, stack: dict[str, str]) -> dict[str, str]:
    """Physical id of every resource of the stack."""
    return {name: physical_id(engine, stack, name) for name in resources(engine, stack)}


def out(engine: Engine, stack: dict[str, str]) -> dict[str, Any]:
    return outputs(engine, stack, CTX)


def reason(engine: Engine, stack: dict[str, str], name: str) -> str:
    return str(resources(engine, stack)[name].status_reason or "")


# Stacks made through ``create_stack`` in the current test, deleted after it if the test
# failed before deleting them (so a failure leaves nothing in the shared cloud).
_made: list[tuple[Engine, dict[str, str]]] = []


def create_stack(engine: Engine, name: str, template: dict[str, Any]) -> dict[str, str]:
    stack = create(engine, f"{PREFIX}-{name}", template)
    _made.append((engine, stack))
    remember(engine, stack)
    return stack


def update_stack(engine: Engine, stack: dict[str, str],
                 template: dict[str, Any]) -> tuple[str, str, str]:
    result = update(engine, stack, template)
    remember(engine, stack)
    return result


@pytest.fixture(autouse=True)
def delete_leftover_stacks(cloud_engine_factory: Any) -> Iterator[None]:
    """Use in a test module with ``delete_leftover_stacks = neutron_checks.delete_...``."""
    yield
    while _made:
        engine, stack = _made.pop()
        try:
            if state(engine, stack)[:2] != ("DELETE", "COMPLETE"):
                delete(engine, stack)
        except Exception:  # the engine's own failure: nothing more to do here
            pass
