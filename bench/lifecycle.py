"""Timing one create and one delete, whatever drives them (engine or API)."""

from __future__ import annotations

import time
from collections.abc import Callable

State = tuple[str, str, str]  # action, status, status reason


class BenchTimeout(RuntimeError):
    pass


def wait_settled(
    read: Callable[[], State],
    action: str,
    *,
    poll: float,
    timeout: float,
    clock: Callable[[], float] = time.perf_counter,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[State, float]:
    """Poll ``read`` until the stack's ``action`` is COMPLETE or FAILED: (state, clock then)."""
    deadline = clock() + timeout
    while True:
        state = read()
        now = clock()
        if state[0] == action and state[1] in ("COMPLETE", "FAILED"):
            return state, now
        if now > deadline:
            raise BenchTimeout(f"stack still {state[0]}_{state[1]} after {timeout:.0f}s")
        sleep(poll)


def split_status(stack_status: str) -> tuple[str, str]:
    """Heat's ``CREATE_IN_PROGRESS`` as ``("CREATE", "IN_PROGRESS")``."""
    for status in ("IN_PROGRESS", "COMPLETE", "FAILED"):
        if stack_status.endswith("_" + status):
            return stack_status[: -len(status) - 1], status
    action, _, status = stack_status.rpartition("_")
    return action, status


def state_name(state: State | None) -> str | None:
    return None if state is None else f"{state[0]}_{state[1]}"
