"""What the Cinder tests share: templates, inventory kinds Cinder adds, and the clean-up of
backups that the devcloud cannot delete."""

from __future__ import annotations

import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from openstack.connection import Connection

from hearth.common.context import RequestContext
from hearth.engine.engine import Engine
from tests.integration.cloud.conftest import CTX, LISTERS, delete, inventory

CINDER_LISTERS: dict[str, Callable[[Connection], list[str]]] = {
    **LISTERS,
    "backups": lambda c: [b.id for b in c.block_storage.backups()],
    "types": lambda c: [t.id for t in c.block_storage.types()],
    "qos_specs": lambda c: [q.id for q in c.block_storage.qos_specs()],
}

VOLUME_KINDS = ("volumes", "snapshots", "backups")


def cinder_inventory(conn: Connection, kinds: tuple[str, ...]) -> dict[str, set[str]]:
    plain = tuple(k for k in kinds if k in LISTERS)
    found = inventory(conn, plain) if plain else {}
    for kind in kinds:
        if kind not in found:
            found[kind] = set(CINDER_LISTERS[kind](conn))
    return found


def assert_cinder_clean(conn: Connection, before: dict[str, set[str]],
                        timeout: float = 60.0) -> None:
    """Every Cinder object made since ``before`` is gone (waits for async deletes)."""
    deadline = time.monotonic() + timeout
    while True:
        after = cinder_inventory(conn, tuple(before))
        left = {kind: sorted(after[kind] - before[kind]) for kind in before}
        left = {kind: ids for kind, ids in left.items() if ids}
        if not left or time.monotonic() > deadline:
            break
        time.sleep(1.0)
    assert left == {}, f"left in the cloud after delete: {left}"


def template(resources: dict[str, Any], outputs: dict[str, Any] | None = None,
             parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"heat_template_version": "2018-08-31", "resources": resources}
    if outputs:
        out["outputs"] = {k: {"value": v} for k, v in outputs.items()}
    if parameters:
        out["parameters"] = parameters
    return out


def purge_failed_backups(conn: Connection, known: set[str]) -> list[str]:
    """Remove the backups made since ``known`` that Cinder put in error.

    The devcloud runs no cinder-backup service: a backup goes to ``error`` ("Service not
    found for creating backup.") and Cinder then refuses to delete it, even as admin. The
    test therefore soft-deletes its own failed backups in Cinder's database (and gives the
    quota usage back), which is what a successful delete would have done.
    """
    failed = [b for b in conn.block_storage.backups(details=True) if b.id not in known]
    statements = []
    for backup in failed:
        assert backup.status == "error", (backup.id, backup.status)
        backup_id = str(uuid.UUID(backup.id))
        project = conn.current_project_id
        assert project is not None and project.isalnum()
        size = int(backup.size or 0)
        statements += [
            f"UPDATE backups SET deleted=1, status='deleted', deleted_at=NOW() "
            f"WHERE id='{backup_id}' AND status='error' AND deleted=0;",
            f"UPDATE quota_usages SET in_use=GREATEST(in_use-1,0) WHERE "
            f"project_id='{project}' AND resource='backups' AND deleted=0;",
            f"UPDATE quota_usages SET in_use=GREATEST(in_use-{size},0) WHERE "
            f"project_id='{project}' AND resource='backup_gigabytes' AND deleted=0;",
        ]
    if statements:
        subprocess.run(
            ["mysql", "-uroot", "-h127.0.0.1", "devcloud_cinder", "-e", " ".join(statements)],
            check=True, capture_output=True, timeout=30,
        )
    return [b.id for b in failed]


def wait_volume(conn: Connection, volume_id: str, status: str, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        vol = conn.block_storage.get_volume(volume_id)
        if vol.status == status or time.monotonic() > deadline:
            assert vol.status == status, (volume_id, vol.status)
            return vol
        time.sleep(0.5)


def wait_gone(conn: Connection, volume_id: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while conn.block_storage.find_volume(volume_id) is not None:
        assert time.monotonic() < deadline, f"volume {volume_id} still there"
        time.sleep(0.5)


Cleanup = Callable[..., dict[str, str]]

# Admin-only types need an admin caller of Hearth too (Heat's resource type policy).
ADMIN = RequestContext(project_id="admin", user_id="admin", username="admin", roles=("admin",))


def stack_cleanup() -> Iterator[Cleanup]:
    """The ``cleanup`` fixture (``pytest.fixture(name="cleanup")(stack_cleanup)`` in a test
    module): ``cleanup(engine, stack)`` deletes the stack after the test if it still exists,
    so that a failing assertion leaves nothing in the shared cloud."""
    made: list[tuple[Engine, dict[str, str], RequestContext]] = []

    def register(engine: Engine, stack: dict[str, str],
                 ctx: RequestContext = CTX) -> dict[str, str]:
        made.append((engine, stack, ctx))
        return stack

    yield register
    for engine, stack, ctx in reversed(made):
        try:
            delete(engine, stack, ctx)
        except Exception:  # already deleted, or nothing more to do
            pass
