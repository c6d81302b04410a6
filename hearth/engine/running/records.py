"""In-memory copies of resource rows, and the writes that change a resource's state."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hearth.engine import states
from hearth.engine.running.resource_view import NodeData
from hearth.store import batch
from hearth.store.db import Session
from hearth.store.models import Resource as ResourceRow
from hearth.store.resources import PlainResourceRow
from hearth.store.types import utcnow


@dataclass
class ResourceRecord:
    """A resource row as the engine works with it (detached from any session)."""

    id: int
    uuid: str
    name: str
    stack_id: str
    action: str
    status: str
    status_reason: str
    physical_id: str | None
    resource_type: str
    definition: dict[str, Any] | None
    prop_data_id: int | None
    attr_data: dict[str, Any] | None
    metadata: Any
    replaces: int | None
    replaced_by: int | None
    # The template the resource was last brought to (Heat's current_template_id).
    current_template_id: int | None
    traversal_id: str | None
    step_cookie: Any
    created_at: datetime | None
    updated_at: datetime | None
    requires: list[int]
    takeovers: int = 0

    @classmethod
    def from_row(cls, row: ResourceRow | PlainResourceRow) -> ResourceRecord:
        """A copy of an ORM row or of a plain row of the same columns."""
        return cls(
            id=row.id,
            uuid=row.uuid,
            name=row.name,
            stack_id=row.stack_id,
            action=row.action or states.INIT,
            status=row.status or states.COMPLETE,
            status_reason=row.status_reason or "",
            physical_id=row.physical_resource_id,
            resource_type=row.resource_type or "",
            definition=row.definition,
            prop_data_id=row.rsrc_prop_data_id,
            attr_data=row.attr_data,
            metadata=row.rsrc_metadata,
            replaces=row.replaces,
            replaced_by=row.replaced_by,
            current_template_id=row.current_template_id,
            traversal_id=row.traversal_id,
            step_cookie=row.step_cookie,
            created_at=row.created_at,
            updated_at=row.updated_at,
            requires=list(row.requires or []),
            takeovers=row.takeovers or 0,
        )

    @property
    def state(self) -> tuple[str, str]:
        return self.action, self.status

    def node_data(self) -> NodeData:
        return NodeData.from_row(
            self.name, self.action, self.status, self.physical_id, self.attr_data
        )

    @property
    def exists(self) -> bool:
        """Whether there may be something real behind this resource."""
        return not (
            self.state == (states.INIT, states.COMPLETE)
            or self.state == (states.DELETE, states.COMPLETE)
        )


def state_writes(
    record: ResourceRecord,
    action: str,
    status: str,
    reason: str,
    *,
    event: bool = True,
    **fields: Any,
) -> list[batch.Write]:
    """Change a resource's state: the record at once, the row and its event as writes.

    A properties row of the same writes (``rsrc_prop_data_id`` a PropsRow) reaches the record
    when it is written and has its id.
    """
    now = utcnow()
    record.action, record.status, record.status_reason = action, status, reason
    if "physical_resource_id" in fields:
        record.physical_id = fields["physical_resource_id"]
    for key, attr in (
        ("attr_data", "attr_data"),
        ("traversal_id", "traversal_id"),
        ("step_cookie", "step_cookie"),
        ("definition", "definition"),
        ("rsrc_prop_data_id", "prop_data_id"),
        ("rsrc_metadata", "metadata"),
        ("resource_type", "resource_type"),
        ("replaced_by", "replaced_by"),
        ("replaces", "replaces"),
        ("requires", "requires"),
        ("current_template_id", "current_template_id"),
    ):
        if key in fields and not isinstance(fields[key], batch.PropsRow):
            setattr(record, attr, fields[key])
    record.updated_at = now
    props = fields.get("rsrc_prop_data_id", record.prop_data_id)
    writes: list[batch.Write] = [
        batch.ResourceChange(
            record.id,
            {"action": action, "status": status, "status_reason": reason, "updated_at": now,
             **fields},
        )
    ]
    if event:
        writes.append(event_write(record, reason, action, props=props))
    return writes


def event_write(
    record: ResourceRecord,
    reason: str,
    action: str | None = None,
    *,
    props: int | batch.PropsRow | None = None,
) -> batch.NewEvent:
    """An event with the resource's current state (hooks, signals), or another action."""
    return batch.event(
        record.stack_id,
        resource_name=record.name,
        action=action or record.action,
        status=record.status,
        reason=reason,
        physical_resource_id=record.physical_id,
        resource_type=record.resource_type,
        rsrc_prop_data_id=props if props is not None else record.prop_data_id,
    )


def write_state(
    session: Session,
    record: ResourceRecord,
    action: str,
    status: str,
    reason: str,
    *,
    event: bool = True,
    **fields: Any,
) -> None:
    """``state_writes`` written at once in ``session``."""
    writes = state_writes(record, action, status, reason, event=event, **fields)
    batch.apply(session.connection(), writes)


def write_event(
    session: Session, record: ResourceRecord, reason: str, action: str | None = None
) -> None:
    """``event_write`` written at once in ``session``."""
    batch.apply(session.connection(), [event_write(record, reason, action)])
