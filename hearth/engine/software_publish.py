"""Publishing a server's deployments into its resource's metadata (``deployments``), where its
in-instance agent reads them (resource metadata API, or Hearth's metadata URL)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from hearth.engine import states
from hearth.store import resources as resource_store
from hearth.store.db import Session
from hearth.store.models import Resource as ResourceRow
from hearth.store.models import Stack as StackRow


def server_resource_ids(session: Session, tenant: str, server_id: str) -> list[int]:
    """The live resources of the project whose physical id is the server's (a server, a
    deployed server), as Heat finds the one to publish to."""
    stmt = (
        select(ResourceRow.id)
        .join(StackRow, StackRow.id == ResourceRow.stack_id)
        .where(ResourceRow.physical_resource_id == server_id)
        .where(StackRow.tenant == tenant)
        .where(StackRow.deleted_at.is_(None))
        .where(ResourceRow.action.is_distinct_from(states.DELETE))
        .order_by(ResourceRow.id)
    )
    return list(session.scalars(stmt))


def publish(session: Session, tenant: str, server_id: str,
            deployments: list[dict[str, Any]]) -> None:
    """Write ``deployments`` into the metadata of the server's resources (row locked, so a
    concurrent signal or publish is not lost)."""
    for resource_id in server_resource_ids(session, tenant, server_id):
        current = session.scalars(
            select(ResourceRow.rsrc_metadata).where(ResourceRow.id == resource_id)
            .with_for_update()
        ).one()
        metadata = dict(current) if isinstance(current, dict) else {}
        metadata["deployments"] = deployments
        resource_store.bump(session, resource_id, rsrc_metadata=metadata)
