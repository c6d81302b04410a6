"""Heat's actions and statuses, for stacks and resources."""

from __future__ import annotations

INIT = "INIT"
CREATE = "CREATE"
DELETE = "DELETE"
UPDATE = "UPDATE"
ROLLBACK = "ROLLBACK"
SUSPEND = "SUSPEND"
RESUME = "RESUME"
ADOPT = "ADOPT"
SNAPSHOT = "SNAPSHOT"
CHECK = "CHECK"
RESTORE = "RESTORE"
SIGNAL = "SIGNAL"

IN_PROGRESS = "IN_PROGRESS"
FAILED = "FAILED"
COMPLETE = "COMPLETE"

STACK_ACTIONS = (CREATE, DELETE, UPDATE, ROLLBACK, SUSPEND, RESUME, ADOPT, SNAPSHOT, CHECK, RESTORE)
RESOURCE_ACTIONS = (INIT, CREATE, DELETE, UPDATE, ROLLBACK, SUSPEND, RESUME, ADOPT, SNAPSHOT, CHECK)
STATUSES = (IN_PROGRESS, FAILED, COMPLETE)


def state(action: str, status: str) -> str:
    """``CREATE_COMPLETE``: the form the API shows."""
    return f"{action}_{status}"


def split_state(value: str) -> tuple[str, str] | None:
    """``CREATE_FAILED`` -> (CREATE, FAILED); None when it is not an ACTION_STATUS."""
    for status in STATUSES:
        suffix = "_" + status
        if value.endswith(suffix) and value[: -len(suffix)] in (*STACK_ACTIONS, INIT):
            return value[: -len(suffix)], status
    return None
