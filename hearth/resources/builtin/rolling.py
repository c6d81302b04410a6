"""Changing a group in batches (Heat's rolling_update and batch_create).

A change is planned as a list of steps ``(capacity, new)``: after the step the group has
``capacity`` members, of which at most ``new`` (created or updated in that step) have the new
definition. Each step is then turned into the full list of member definitions for one update
of the nested stack, from the definitions the members have now.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Definition = dict[str, Any]
Batch = tuple[int, int]


def needs_update(target: int, current: int, up_to_date: int) -> bool:
    """Whether another step is needed: done once every member is new and the size is right."""
    return not (up_to_date >= current == target)


def next_batch(
    target: int, current: int, up_to_date: int, batch_size: int, min_in_service: int
) -> Batch:
    """The next step's (capacity, new members) from the group's state."""
    floor = min(min_in_service, target, current)
    size = min(batch_size, max(target - up_to_date, 0))
    # Members with the old definition stay alongside the new ones, as many as the target
    # leaves room for, and never fewer than min_in_service.
    capacity = size + max(min(current, target - size), floor)
    return capacity, size


def plan_batches(
    target: int, current: int, batch_size: int, min_in_service: int = 0
) -> list[Batch]:
    """Every step of a batched change from ``current`` members to ``target`` new ones."""
    batch_size = max(int(batch_size), 1)
    steps: list[Batch] = []
    up_to_date = 0
    while needs_update(target, current, up_to_date):
        capacity, size = next_batch(target, current, up_to_date, batch_size, min_in_service)
        steps.append((capacity, size))
        # New members beyond what the group keeps do not count as updated ones.
        up_to_date += size - max(capacity - max(current, target), 0)
        current = capacity
    return steps


def batch_members(
    names: Sequence[str],
    existing: Sequence[tuple[str, Definition]],
    target: int,
    capacity: int,
    new: int,
    definition_for: Callable[[str], Definition],
) -> list[tuple[str, Definition]]:
    """The members after one step, with their definitions.

    ``names`` are the first ``capacity`` names the group may use, ``existing`` the current
    healthy members (creation order) with their current definitions. Members whose names the
    group no longer uses go first; then the highest indexes get the new definition first.
    """
    if capacity <= 0:
        return []
    index = {name: i for i, name in enumerate(names)}

    def priority(item: tuple[str, Definition]) -> int:
        position = index.get(item[0])
        if position is None:
            return 0
        return target - position if position < target else capacity

    kept = sorted(existing, key=priority)[-capacity:]
    taken = {name for name, _ in existing}
    fresh = (name for name in names if name not in taken)
    to_replace = new - (capacity - len(kept))
    out: list[tuple[str, Definition]] = []
    for name, current in kept:
        wanted = definition_for(name)
        if current != wanted and to_replace > 0:
            to_replace -= 1
            out.append((name, wanted))
        else:
            out.append((name, current))
    for _ in range(capacity - len(kept)):
        name = next(fresh)
        out.append((name, definition_for(name)))
    return out


def total_pause_check(batches: int, pause: float, timeout_secs: float) -> float:
    """The time left for the updates themselves once the pauses are taken out.

    ValueError (Heat's message) when the pauses alone would use up the stack's timeout.
    """
    paused = pause * max(batches - 1, 0)
    if paused >= timeout_secs:
        raise ValueError("The current update policy will result in stack update timeout.")
    return timeout_secs - paused
