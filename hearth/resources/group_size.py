"""How many members a group (ResourceGroup, the autoscaling groups, InstanceGroup) may have:
checked before anything is built for them, so that a count of 10**9 is a 400, not an API
thread held for minutes and gigabytes allocated.

The bound is fixed, far above any stack resource limit an operator would set (the default
is 1000): a group past ``max_resources_per_stack`` still fails as in Heat, when its nested
stack is created; this bound only keeps the building itself finite.
"""

from __future__ import annotations

from typing import Any

from hearth.common.errors import RequestLimitExceeded

MAXIMUM = 100_000


def check(count: Any) -> None:
    """Refuse a group size past the bound (a size not known yet, or not a number, passes)."""
    if isinstance(count, int | float) and not isinstance(count, bool) and count > MAXIMUM:
        raise RequestLimitExceeded(
            f"a group of {count} members is more than Hearth builds ({MAXIMUM})")
