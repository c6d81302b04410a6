"""Group sizes past the stack's resource limit are refused before anything is built."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hearth.common.errors import RequestLimitExceeded
from hearth.resources import group_size
from hearth.resources.builtin import group_template


@pytest.fixture(autouse=True)
def default_limit() -> Iterator[None]:
    yield
    group_size.configure(1000)


def test_the_limit_follows_max_resources_per_stack() -> None:
    group_size.configure(10)
    group_size.check(10)
    group_size.check(None)  # not known yet
    with pytest.raises(RequestLimitExceeded, match="Maximum resources per stack exceeded"):
        group_size.check(11)
    with pytest.raises(RequestLimitExceeded):
        group_template.member_names(2**70)


def test_an_unlimited_stack_still_bounds_groups() -> None:
    group_size.configure(-1)
    group_size.check(group_size.UNBOUNDED_MAXIMUM)
    with pytest.raises(RequestLimitExceeded, match="more than Hearth builds"):
        group_size.check(10**9)
