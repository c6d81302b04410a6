"""What a stack action is: its RunSpec (stored with the stack for continuation) and what each
stack action does to each resource."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hearth.engine import states

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
