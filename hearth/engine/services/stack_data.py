"""A stack as data: abandon and export payloads, snapshots, and restore from a snapshot."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common.context import RequestContext
from hearth.common.errors import (
    ActionInProgress,
    NotSupported,
    RequestLimitExceeded,
    SnapshotNotFound,
)
from hearth.engine import states
from hearth.engine.core import EngineCore
from hearth.engine.reading.stack_views import hidden_parameter_names
from hearth.engine.running import locking
from hearth.engine.running.actions import ActionManager
from hearth.engine.running.run_spec import RunSpec
from hearth.engine.running.stack_state import begin_stack_action
from hearth.engine.services.payload_secrets import seal_payload
from hearth.engine.services.payloads import snapshot_dict, stack_payload
from hearth.engine.services.stack_lookup import live_stack
from hearth.engine.services.stacks import StackService
from hearth.store import queries
from hearth.store import snapshots as snapshot_store
from hearth.store import stacks as stack_store
from hearth.store.db import Session
from hearth.store.models import Snapshot
from hearth.store.models import Stack as StackRow
from hearth.template.template import Template


class StackData:
    def __init__(self, core: EngineCore, actions: ActionManager, stacks: StackService) -> None:
        self.core = core
        self.actions = actions
        self.stacks = stacks

    def export_stack(
        self, ctx: RequestContext, stack_identity: Mapping[str, Any]
    ) -> dict[str, Any]:
        with self.core.db.session() as session:
            row = live_stack(session, ctx, stack_identity)
            return seal_payload(stack_payload(self.core, session, row), self.core.encryptor)

    def abandon_stack(
        self, ctx: RequestContext, stack_identity: Mapping[str, Any]
    ) -> dict[str, Any]:
        if not self.core.limits.enable_stack_abandon:
            raise NotSupported("Stack Abandon")
        with self.core.db.session() as session:
            row = live_stack(session, ctx, stack_identity)
            locking.acquire(self.core, session, row.id, row.name, row.action or states.DELETE)
            data = seal_payload(stack_payload(self.core, session, row), self.core.encryptor)
            begin_stack_action(session, row.id, row.name, states.DELETE)
        self.actions.launch(row.id, RunSpec(states.DELETE, abandon=True))
        return data

    # --- snapshots -----------------------------------------------------------------------

    def stack_snapshot(
        self, ctx: RequestContext, stack_identity: Mapping[str, Any], name: str | None
    ) -> dict[str, Any]:
        with self.core.db.session() as session:
            row = live_stack(session, ctx, stack_identity)
            if row.status == states.IN_PROGRESS:
                raise ActionInProgress(row.name, row.action or "")
            count = snapshot_store.count_of_stack(session, row.id)
            limit = self.core.limits.max_snapshots_per_stack
            if 0 <= limit <= count:
                raise RequestLimitExceeded(
                    f"You have reached the maximum snapshots per stack, {limit}. "
                    "Please delete some snapshots."
                )
            locking.acquire(self.core, session, row.id, row.name, row.action or "")
            snapshot = snapshot_store.create(
                session, stack_id=row.id, name=name, tenant=row.tenant or "",
                action=states.CREATE, status=states.IN_PROGRESS, status_reason="",
                data=None,
            )
            begin_stack_action(session, row.id, row.name, states.SNAPSHOT)
            result = snapshot_dict(snapshot)
        self.actions.launch(row.id, RunSpec(states.SNAPSHOT, snapshot_id=snapshot.id))
        return result

    def _snapshot(
        self, session: Session, ctx: RequestContext, stack_identity: Mapping[str, Any],
        snapshot_id: str,
    ) -> tuple[StackRow, Snapshot]:
        row = live_stack(session, ctx, stack_identity)
        snap = queries.get_snapshot(session, snapshot_id)
        if snap is None or snap.stack_id != row.id:
            raise SnapshotNotFound(snapshot_id, row.name)
        return row, snap

    def delete_snapshot(
        self, ctx: RequestContext, stack_identity: Mapping[str, Any], snapshot_id: str
    ) -> None:
        with self.core.db.session() as session:
            row, snap = self._snapshot(session, ctx, stack_identity, snapshot_id)
            if snap.status == states.IN_PROGRESS:
                raise ActionInProgress(row.name, states.SNAPSHOT)
            snapshot_store.delete(session, snap)

    def stack_restore(
        self, ctx: RequestContext, stack_identity: Mapping[str, Any], snapshot_id: str
    ) -> None:
        with self.core.db.session() as session:
            row, snap = self._snapshot(session, ctx, stack_identity, snapshot_id)
            if snap.status != states.COMPLETE:
                raise NotSupported(
                    f"Restoring from a snapshot in state {snap.action}_{snap.status}"
                )
            data = snap.data or {}
            locking.acquire(self.core, session, row.id, row.name, row.action or "")
            template, files = data.get("template") or {}, data.get("files") or {}
            template_id = stack_store.store_template(
                session, template, files, data.get("environment") or {},
                hidden_parameter_names(Template(template), files), self.core.encryptor,
            )
            stack_store.set_fields(
                session, row.id, raw_template_id=template_id,
                prev_raw_template_id=row.raw_template_id,
            )
            begin_stack_action(session, row.id, row.name, states.RESTORE)
        self.actions.launch(row.id, RunSpec(states.RESTORE, snapshot_id=snapshot_id))
