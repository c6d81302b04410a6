"""Rows a plugin may reach through its context: a sibling found by reference, and atomic
metadata merges (both used by wait conditions and their handles)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hearth.engine import states
from hearth.store import queries
from hearth.store import resources as resource_store
from hearth.store.db import Session
from hearth.store.models import Resource as ResourceRow

# The states in which Heat lets a resource be found by its reference (Stack.resource_by_refid).
LOOKUP_STATES = frozenset({
    (states.INIT, states.COMPLETE),
    (states.CREATE, states.IN_PROGRESS),
    (states.CREATE, states.COMPLETE),
    (states.RESUME, states.IN_PROGRESS),
    (states.RESUME, states.COMPLETE),
    (states.UPDATE, states.IN_PROGRESS),
    (states.UPDATE, states.COMPLETE),
    (states.CHECK, states.COMPLETE),
})


def _state(row: ResourceRow) -> tuple[str, str]:
    return (row.action or states.INIT, row.status or states.COMPLETE)


def reference_of(row: ResourceRow) -> str:
    """What get_resource gave for the row when it was last stored (its cached reference)."""
    cached = row.attr_data.get("ref") if isinstance(row.attr_data, dict) else None
    if cached is not None:
        return str(cached)
    return str(row.physical_resource_id) if row.physical_resource_id else row.name


def find(session: Session, stack_id: str, reference: str) -> ResourceRow | None:
    """The current resource of the stack named ``reference`` or referenced by it.

    A name is looked up directly (a wait condition polls its handle by name); only a
    reference needs the walk over the stack's resources, as in Heat.
    """
    by_name = resource_store.current_by_name(session, stack_id, reference)
    if by_name is not None and _state(by_name) in LOOKUP_STATES:
        return by_name
    for row in queries.current_resources(session, stack_id):
        if _state(row) in LOOKUP_STATES and reference_of(row) == reference:
            return row
    return None


def merge_metadata(session: Session, resource_id: int, merge: Callable[[Any], Any]) -> Any:
    """``merge(current)`` written back under a row lock, so that two signals arriving
    together both land."""
    current = resource_store.metadata_for_update(session, resource_id)
    merged = merge(current)
    resource_store.bump(session, resource_id, rsrc_metadata=merged)
    return merged
