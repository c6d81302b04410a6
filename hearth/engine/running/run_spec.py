"""What a stack action is: its RunSpec (stored with the stack for continuation) and what each
stack action does to each resource."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hearth.engine import states
from hearth.engine.running.scheduler import GraphResult, StopReason
from hearth.engine.running.stack_state import begin_stack_action, cancelled_reason
from hearth.engine.running.step_outcomes import ResourceActionFailed
from hearth.engine.running.traversal import Node, ResourceNode
from hearth.store import stacks as stack_store
from hearth.store.db import Session

# What each stack action does to each resource, and in which direction.
RESOURCE_ACTION = {
    states.CREATE: states.CREATE,
    states.ADOPT: states.ADOPT,
    states.UPDATE: states.UPDATE,
    states.ROLLBACK: states.UPDATE,
    states.RESTORE: states.UPDATE,
    states.DELETE: states.DELETE,
    states.SUSPEND: states.SUSPEND,
    states.RESUME: states.RESUME,
    states.CHECK: states.CHECK,
    states.SNAPSHOT: states.SNAPSHOT,
}
UPDATE_LIKE = (states.UPDATE, states.ROLLBACK, states.RESTORE)
ROLLBACK_AFTER = (states.CREATE, states.UPDATE, states.ADOPT, states.RESTORE)


@dataclass(frozen=True)
class EndedState:
    """What a run's end wrote of its stack: (action, status, reason), None once deleted;
    its outputs as stored (as a read gives them back), None when it wrote none."""

    state: tuple[str, str, str] | None
    outputs: list[Any] | None = None


@dataclass
class RunSpec:
    """What a run needs beyond the stored stack: stored in ``current_deps`` for continuation."""

    action: str
    # A delete traversal run as a rollback of a failed create.
    delete_as: str | None = None
    abandon: bool = False
    adopt_data: dict[str, Any] = field(default_factory=dict)
    snapshot_id: str | None = None
    # Whether a failure rolls back (create/update with disable_rollback false).
    rollback: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "delete_as": self.delete_as,
            "abandon": self.abandon,
            "adopt_data": self.adopt_data,
            "snapshot_id": self.snapshot_id,
            "rollback": self.rollback,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunSpec:
        return cls(
            action=data["action"],
            delete_as=data.get("delete_as"),
            abandon=bool(data.get("abandon")),
            adopt_data=dict(data.get("adopt_data") or {}),
            snapshot_id=data.get("snapshot_id"),
            rollback=bool(data.get("rollback")),
        )


def outcome(
    action: str,
    resource_action: str,
    result: GraphResult[Node],
    stop_message: str,
    partial_check: bool,
) -> tuple[bool, str]:
    """Whether a stack action succeeded, and Heat's status reason for how it ended."""
    if result.success:
        reason = f"Stack {action} completed successfully"
        if partial_check:
            reason += ". 'CHECK' not fully supported (see resources)"
        return True, reason
    if result.failed and action == states.CHECK:
        return False, _check_failures(result, resource_action, partial_check)
    if result.failed:
        first = next(iter(result.failed.values()))
        if isinstance(first, ResourceActionFailed):
            return False, f"Resource {first.action} failed: {first.reason}"
        return False, f"Resource {resource_action} failed: {first}"
    if result.stop is StopReason.TIMEOUT:
        return False, "Timed out"
    if result.stop is StopReason.CANCELLED:
        return False, stop_message or cancelled_reason(action)
    return False, f"Stack {action} did not complete"


def _check_failures(result: GraphResult[Node], resource_action: str,
                    partial_check: bool) -> str:
    """Heat 27's reason for a check that went on past its failures: each failed resource by
    name with its own reason, in the order they failed."""
    parts = []
    for node, exc in result.failed.items():
        name = exc.name if isinstance(exc, ResourceActionFailed) else _node_name(node)
        action = exc.action if isinstance(exc, ResourceActionFailed) else resource_action
        why = exc.reason if isinstance(exc, ResourceActionFailed) else str(exc)
        parts.append(f"{name}: Resource {action} failed: {why}")
    reason = "Resource CHECK failed: " + "; ".join(parts)
    if partial_check:
        reason += ". 'CHECK' not fully supported (see resources)"
    return reason


def _node_name(node: Node) -> str:
    return node.name if isinstance(node, ResourceNode) else str(node.row_id)


def begin_rollback(
    session: Session,
    action: str,
    stack_id: str,
    stack_name: str,
    template_id: int | None,
    prev_template_id: int | None,
) -> RunSpec:
    """Start the rollback of a failed create (a delete) or update (back to the old template)."""
    if action in (states.CREATE, states.ADOPT):
        spec = RunSpec(states.DELETE, delete_as=states.ROLLBACK)
    else:
        spec = RunSpec(states.ROLLBACK)
        if prev_template_id is not None:
            stack_store.set_fields(
                session, stack_id, raw_template_id=prev_template_id,
                prev_raw_template_id=template_id,
            )
    begin_stack_action(session, stack_id, stack_name, states.ROLLBACK)
    return spec
