"""Scaling arithmetic shared by the groups and policies: adjustments, cooldown, rolling batches.

Everything here is pure (no context, no I/O) so that it can be tested on its own and reads as
Heat 27's rules: how an adjustment turns into a new size, when a cooldown forbids scaling (the
state is kept in the group's metadata, in Heat's shape), and how a rolling update is cut into
batches.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from hearth.resources.exceptions import NoActionRequired

# The adjustment types, native and CloudFormation spellings.
EXACT_CAPACITY = "exact_capacity"
CHANGE_IN_CAPACITY = "change_in_capacity"
PERCENT_CHANGE_IN_CAPACITY = "percent_change_in_capacity"
ADJUSTMENT_TYPES = (CHANGE_IN_CAPACITY, EXACT_CAPACITY, PERCENT_CHANGE_IN_CAPACITY)
CFN_EXACT_CAPACITY = "ExactCapacity"
CFN_CHANGE_IN_CAPACITY = "ChangeInCapacity"
CFN_PERCENT_CHANGE_IN_CAPACITY = "PercentChangeInCapacity"
CFN_ADJUSTMENT_TYPES = (CFN_CHANGE_IN_CAPACITY, CFN_EXACT_CAPACITY, CFN_PERCENT_CHANGE_IN_CAPACITY)

# The group metadata keys Heat keeps its scaling state under.
SCALING_IN_PROGRESS = "scaling_in_progress"
COOLDOWN_END = "cooldown_end"
LEGACY_COOLDOWN = "cooldown"


def new_capacity(
    current: int,
    adjustment: float,
    adjustment_type: str,
    min_adjustment_step: int | None,
    minimum: int,
    maximum: int,
) -> int:
    """The size an adjustment asks for, kept within ``minimum`` and ``maximum``."""
    if adjustment_type in (CHANGE_IN_CAPACITY, CFN_CHANGE_IN_CAPACITY):
        wanted = current + adjustment
    elif adjustment_type in (EXACT_CAPACITY, CFN_EXACT_CAPACITY):
        wanted = adjustment
    else:
        delta = current * adjustment / 100.0
        # A change of less than one member still moves by one; larger ones round toward zero.
        if math.fabs(delta) < 1.0:
            step = int(math.ceil(delta) if delta > 0.0 else math.floor(delta))
        else:
            step = int(math.floor(delta) if delta > 0.0 else math.ceil(delta))
        if min_adjustment_step and min_adjustment_step > abs(step):
            step = min_adjustment_step if step > 0 else -min_adjustment_step
        wanted = current + step
    return int(max(minimum, min(maximum, wanted)))


# --- cooldown -------------------------------------------------------------------------------


def utcnow_iso() -> str:
    """Now, as Heat writes timestamps in the metadata (naive UTC ``isoformat``)."""
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None).isoformat()


def sanitize_cooldown(cooldown: float | None) -> float:
    return 0 if cooldown is None else max(0, cooldown)


def _first_key(value: Any) -> str | None:
    if isinstance(value, Mapping) and value:
        return str(next(iter(value)))
    return None


def _older_than(stamp: str, seconds: float) -> bool:
    try:
        then = datetime.datetime.fromisoformat(stamp)
    except ValueError:
        return True
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    return then.replace(tzinfo=None) + datetime.timedelta(seconds=seconds) < now


def check_scaling_allowed(
    name: str, metadata: Any, cooldown: float | None, extra_end: str | None = None
) -> dict[str, Any]:
    """The metadata with ``scaling_in_progress`` set, or NoActionRequired with Heat's reason.

    ``extra_end`` is a cooldown end kept elsewhere (the group records one when a stack action
    resizes it); the later of it and the metadata's counts.
    """
    data = dict(metadata) if isinstance(metadata, Mapping) else {}
    if data.get(SCALING_IN_PROGRESS):
        raise NoActionRequired(name, "due to scaling activity")
    seconds = sanitize_cooldown(cooldown)
    end = _first_key(data.get(COOLDOWN_END))
    if extra_end is not None and (end is None or extra_end > end):
        end = extra_end
    if end is not None:
        if utcnow_iso() < end:
            raise NoActionRequired(name, f"due to cooldown, cooldown {seconds}")
    elif seconds != 0:
        # Older Heat kept the last scaling time under "cooldown", or as the only key.
        legacy = data.get(LEGACY_COOLDOWN)
        last = _first_key(legacy) if legacy is not None else _first_key(
            {k: v for k, v in data.items() if k != SCALING_IN_PROGRESS}
        )
        if last is not None and not _older_than(last, seconds):
            raise NoActionRequired(name, f"due to cooldown, cooldown {seconds}")
    data[SCALING_IN_PROGRESS] = True
    return data


def cooldown_end(cooldown: float | None, previous: str | None = None) -> str:
    """When a cooldown that starts now ends (never earlier than ``previous``)."""
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    end = (now + datetime.timedelta(seconds=sanitize_cooldown(cooldown))).isoformat()
    return max(end, previous) if previous else end


def finished_scaling(
    metadata: Any, cooldown: float | None, reason: str, size_changed: bool = True,
    extra_end: str | None = None,
) -> dict[str, Any]:
    """The metadata once a scaling is over: a new cooldown end (when the size changed) and
    ``scaling_in_progress`` false."""
    data = dict(metadata) if isinstance(metadata, Mapping) else {}
    if size_changed:
        previous = _first_key(data.get(COOLDOWN_END))
        if extra_end is not None and (previous is None or extra_end > previous):
            previous = extra_end
        data[COOLDOWN_END] = {cooldown_end(cooldown, previous): reason}
    data[SCALING_IN_PROGRESS] = False
    return data


# --- rolling updates ------------------------------------------------------------------------


def needs_update(target: int, current: int, up_to_date: int) -> bool:
    """Whether a batched update has more batches to run."""
    return not (up_to_date >= current == target)


def next_batch(
    target: int, current: int, up_to_date: int, batch_size: int, min_in_service: int
) -> tuple[int, int]:
    """(group size after the batch, members that get the new definition in it)."""
    effective_min = min(min_in_service, target, current)
    effective_batch = min(batch_size, max(target - up_to_date, 0))
    size = effective_batch + max(min(current, target - effective_batch), effective_min)
    return size, effective_batch


def batches(
    target: int, current: int, batch_size: int, min_in_service: int
) -> Iterator[tuple[int, int]]:
    """Every batch of a rolling update from ``current`` members to ``target`` new ones."""
    up_to_date = 0
    while needs_update(target, current, up_to_date):
        size, count = next_batch(target, current, up_to_date, batch_size, min_in_service)
        yield size, count
        current = size
        up_to_date += count


_ISO_DURATION = re.compile(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$")


def parse_isoduration(duration: str) -> int:
    """Seconds in an ISO 8601 duration of the form ``PT#H#M#S`` (the only one Heat takes)."""
    found = _ISO_DURATION.match(duration)
    if not found:
        raise ValueError("Only ISO 8601 duration format of the form PT#H#M#S is supported.")
    hours, minutes, seconds = (int(g) if g else 0 for g in found.groups())
    return hours * 3600 + minutes * 60 + seconds
