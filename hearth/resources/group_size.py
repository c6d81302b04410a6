"""How many members a group (ResourceGroup, the autoscaling groups, InstanceGroup) may have:
checked before anything is built for them, so that a count of 10**9 is a 400, not an API
thread held for minutes and gigabytes allocated.

A group's members live in its nested stack, which ``max_resources_per_stack`` bounds (Heat's
"Maximum resources per stack exceeded" at the nested create): the engine sets that limit here
at start. Where the operator lifted it (-1), groups still stop at ``UNBOUNDED_MAXIMUM``.
"""

from __future__ import annotations

from typing import Any

from hearth.common.errors import RequestLimitExceeded

UNBOUNDED_MAXIMUM = 100_000
_limit = 1000


def configure(max_resources_per_stack: int) -> None:
    global _limit
    _limit = UNBOUNDED_MAXIMUM if max_resources_per_stack < 0 else max_resources_per_stack


def check(count: Any) -> None:
    """Refuse a group size past the limit (a size not known yet, or not a number, passes)."""
    if isinstance(count, int | float) and not isinstance(count, bool) and count > _limit:
        if _limit == UNBOUNDED_MAXIMUM:
            raise RequestLimitExceeded(
                f"a group of {count} members is more than Hearth builds ({UNBOUNDED_MAXIMUM})")
        raise RequestLimitExceeded("Maximum resources per stack exceeded.")
