"""Group sizes past the bound are refused before anything is built."""

from __future__ import annotations

import pytest

from hearth.common.errors import RequestLimitExceeded
from hearth.resources import group_size
from hearth.resources.builtin import group_template


def test_sizes_past_the_bound_are_refused_before_anything_is_built() -> None:
    group_size.check(group_size.MAXIMUM)
    group_size.check(None)  # not known yet
    with pytest.raises(RequestLimitExceeded, match="more than Hearth builds"):
        group_size.check(10**9)
    with pytest.raises(RequestLimitExceeded):
        group_template.member_names(2**70)
