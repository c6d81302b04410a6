"""A stack as data: Heat's abandon/export payload, and what a finished snapshot stores."""

from __future__ import annotations

from typing import Any

from hearth.engine import states
from hearth.engine.core import EngineCore
from hearth.engine.running.records import ResourceRecord
from hearth.store import queries
from hearth.store import resources as resource_store
from hearth.store import stacks as stack_store
from hearth.store.db import Session
from hearth.store.models import Snapshot
from hearth.store.models import Stack as StackRow
from hearth.template.environment import Environment


def stack_payload(core: EngineCore, session: Session, row: StackRow) -> dict[str, Any]:
    """Heat's abandon/export data: the stack, its template and environment, its resources."""
    tmpl, files, env = stack_store.load_template(session, row.raw_template_id, core.encryptor)
    user_env = Environment(env, global_env=core.global_env).user_env_as_dict()
    resources: dict[str, Any] = {}
    children = {c.id: c for c in queries.live_children(session, [row.id])}
    for res in resource_store.of_stack(session, row.id):
        if res.replaced_by is not None:
            continue
        record = ResourceRecord.from_row(res)
        child = children.get(record.physical_id or "")
        if child is not None:
            # A nested stack's resource is described by its child's whole document (Heat's
            # shape), so that an adopt rebuilds the tree.
            resources[record.name] = {
                **stack_payload(core, session, child),
                "resource_id": record.physical_id,
                "type": record.resource_type,
            }
            continue
        resources[record.name] = {
            "name": record.name,
            "resource_id": record.physical_id,
            "type": record.resource_type,
            "action": record.action,
            "status": record.status,
            "metadata": record.metadata or {},
            "resource_data": resource_store.data_all(session, record.id, core.encryptor),
        }
    return {
        "name": row.name,
        "id": row.id,
        "action": row.action,
        "environment": user_env,
        "files": files,
        "status": row.status,
        "template": tmpl,
        "resources": resources,
        "project_id": row.tenant,
        "stack_user_project_id": row.stack_user_project_id,
        "tags": [t.tag for t in row.tags] or None,
    }


def snapshot_dict(snap: Snapshot) -> dict[str, Any]:
    created = snap.created_at.strftime("%Y-%m-%dT%H:%M:%SZ") if snap.created_at else None
    return {
        "id": snap.id,
        "name": snap.name,
        "stack_id": snap.stack_id,
        "data": snap.data,
        "action": snap.action,
        "status": snap.status,
        "status_reason": snap.status_reason,
        "creation_time": created,
    }


def finish_snapshot(
    core: EngineCore, session: Session, stack_id: str, snapshot_id: str, success: bool,
    reason: str,
) -> None:
    """Called as a SNAPSHOT action ends: the snapshot gets its data and final state."""
    snap = queries.get_snapshot(session, snapshot_id)
    row = stack_store.get_stack(session, stack_id)
    if snap is None or row is None:
        return
    if success:
        payload = stack_payload(core, session, row)
        payload["action"], payload["status"] = states.SNAPSHOT, states.COMPLETE
        snap.data = payload
    snap.status = states.COMPLETE if success else states.FAILED
    snap.status_reason = reason
