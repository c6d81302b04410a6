"""Publishing a server's deployments into its resource's metadata (``deployments``), where its
in-instance agent reads them (resource metadata API, or Hearth's metadata URL)."""

from __future__ import annotations

from typing import Any

from hearth.engine import states
from hearth.store import resources as resource_store
from hearth.store.db import Session


def server_resource_ids(session: Session, tenant: str, server_id: str) -> list[int]:
    """The live resources of the project whose physical id is the server's (a server, a
    deployed server), as Heat finds the one to publish to."""
    return resource_store.live_ids_by_physical_id(
        session, tenant, server_id, except_action=states.DELETE
    )


def publish(session: Session, tenant: str, server_id: str,
            deployments: list[dict[str, Any]]) -> None:
    """Write ``deployments`` into the metadata of the server's resources (row locked, so a
    concurrent signal or publish is not lost)."""
    for resource_id in server_resource_ids(session, tenant, server_id):
        current = resource_store.metadata_for_update(session, resource_id)
        metadata = dict(current) if isinstance(current, dict) else {}
        metadata["deployments"] = deployments
        resource_store.bump(session, resource_id, rsrc_metadata=metadata)
