"""What one step of a resource task gives back (``Step``) or raises when the resource's action
failed, and Heat's status reason for a failure."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hearth.common.errors import HearthError
from hearth.resources.exceptions import failure_reason as sdk_failure_reason


class StepAbandoned(HearthError):
    """A step not carried on again: its engine died too often while it was in flight."""


class ResourceActionFailed(Exception):
    """A resource ended its action FAILED; ``reason`` is its status reason."""

    def __init__(self, name: str, action: str, reason: str, *, recorded: bool = False) -> None:
        super().__init__(reason)
        self.name = name
        self.action = action
        self.reason = reason
        # True when the failure is already written (nothing more to record).
        self.recorded = recorded


@dataclass
class Step:
    done: bool = False
    cookie: Any = None
    delay: float | None = None
    hook: str | None = None
    # What comes next once this step's writes are committed (the handler after IN_PROGRESS).
    then: Callable[[], Step] | None = None


def failure_reason(name: str, exc: BaseException) -> str:
    """Heat's status reason for a resource whose handler raised ``exc``."""
    if isinstance(exc, ResourceActionFailed):
        return exc.reason
    return sdk_failure_reason(exc, name)
