"""What the Keystone tests share: unique names, Keystone's view through the admin
connection, and proof that a delete left nothing behind.

Keystone at 127.0.0.1:5000 is shared by the whole machine: every object a test makes is named
(or, for regions and endpoints, described / addressed) with a prefix unique to that test, and
"nothing left" means nothing carries that prefix any more. Nothing else is ever touched.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from openstack.connection import Connection

from hearth.common.context import RequestContext
from hearth.engine.engine import Engine
from tests.integration.cloud import conftest as cloud

# The stacks' caller: the Keystone types are admin-only (policy ``resource_types:OS::Keystone::*``).
ADMIN = RequestContext(project_id="admin", user_id="admin", username="admin", roles=("admin",))

# kind -> the objects of that kind in Keystone, as (id, the text that carries the prefix)
_LISTERS: dict[str, Callable[[Connection], list[tuple[str, str]]]] = {
    "projects": lambda c: [(p.id, p.name or "") for p in c.identity.projects()],
    "users": lambda c: [(u.id, u.name or "") for u in c.identity.users()],
    "groups": lambda c: [(g.id, g.name or "") for g in c.identity.groups()],
    "roles": lambda c: [(r.id, r.name or "") for r in c.identity.roles()],
    "domains": lambda c: [(d.id, d.name or "") for d in c.identity.domains()],
    "services": lambda c: [(s.id, s.name or "") for s in c.identity.services()],
    "regions": lambda c: [(r.id, f"{r.id} {r.description or ''}") for r in c.identity.regions()],
    "endpoints": lambda c: [(e.id, e.url or "") for e in c.identity.endpoints()],
}


# --- driving stacks as admin ---------------------------------------------------------

def create(engine: Engine, name: str, template: dict[str, Any]) -> dict[str, str]:
    return cloud.create(engine, name, template, ctx=ADMIN)


def update(engine: Engine, stack: dict[str, str],
           template: dict[str, Any]) -> tuple[str, str, str]:
    return cloud.update(engine, stack, template, ctx=ADMIN)


def delete(engine: Engine, stack: dict[str, str]) -> tuple[str, str, str]:
    return cloud.delete(engine, stack, ctx=ADMIN)


def action(engine: Engine, stack: dict[str, str], what: str) -> tuple[str, str, str]:
    return cloud.action(engine, stack, what, ctx=ADMIN)


def outputs(engine: Engine, stack: dict[str, str]) -> dict[str, Any]:
    return cloud.outputs(engine, stack, ctx=ADMIN)


physical_id = cloud.physical_id


# --- Keystone's view -------------------------------------------------------------------

def prefix(what: str) -> str:
    """A prefix no other test (or run) uses."""
    return f"hk-{what}-{uuid.uuid4().hex[:10]}"


def named(conn: Connection, kind: str, mark: str) -> set[str]:
    """Ids of the objects of ``kind`` that carry ``mark``."""
    return {oid for oid, text in _LISTERS[kind](conn) if mark in text}


def assert_none_named(conn: Connection, mark: str, kinds: tuple[str, ...]) -> None:
    left = {kind: sorted(named(conn, kind, mark)) for kind in kinds}
    left = {kind: ids for kind, ids in left.items() if ids}
    assert left == {}, f"left in Keystone after delete: {left}"


def roles_of(conn: Connection, *, user: str | None = None,
             group: str | None = None) -> set[tuple[str, str, str]]:
    """Direct role assignments of a user or a group: (role id, "project"/"domain", id)."""
    query: dict[str, Any] = {"user.id": user} if user else {"group.id": group}
    response = conn.identity.get("/role_assignments", params=query)
    response.raise_for_status()
    out = set()
    for item in response.json()["role_assignments"]:
        scope = item.get("scope") or {}
        for kind in ("project", "domain"):
            if kind in scope:
                out.add((item["role"]["id"], kind, scope[kind]["id"]))
    return out


# Dependents first: endpoints before their services and regions, projects before domains.
ALL_KINDS = ("endpoints", "services", "users", "groups", "projects", "roles", "regions",
             "domains")


def cleanup(conn: Connection, mark: str, kinds: tuple[str, ...] = ALL_KINDS) -> None:
    """Remove what a failed test may have left (only objects of ``kinds`` carrying
    ``mark``)."""
    for kind in (k for k in ALL_KINDS if k in kinds):
        for oid in named(conn, kind, mark):
            try:
                if kind == "domains":
                    conn.identity.update_domain(oid, is_enabled=False)
                getattr(conn.identity, f"delete_{kind[:-1]}")(oid, ignore_missing=True)
            except Exception:  # best effort: the test has failed already
                continue
