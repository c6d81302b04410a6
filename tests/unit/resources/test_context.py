"""Physical resource names: Heat's short ids and shortening, recorded from Heat 27."""

from __future__ import annotations

import uuid

import pytest

from hearth.resources.context import (
    physical_resource_name,
    reduce_physical_resource_name,
    short_id,
)
from tests.unit.resources.fakes import heat27


@pytest.mark.parametrize(("source", "expected"), sorted(heat27()["short_ids"].items()))
def test_short_id_is_heats(source: str, expected: str) -> None:
    assert short_id(source) == expected
    assert short_id(uuid.UUID(source)) == expected


def test_short_id_needs_a_random_uuid() -> None:
    with pytest.raises(ValueError, match=r"Invalid UUID version \(1\)"):
        short_id(uuid.uuid1())


@pytest.mark.parametrize(("limit", "expected"), sorted(heat27()["reduced_names"].items()))
def test_long_names_are_shortened_as_heat_does(limit: str, expected: str) -> None:
    assert reduce_physical_resource_name("stack-" + "abcdefghij" * 30, int(limit)) == expected


def test_physical_name_joins_stack_resource_and_short_id() -> None:
    source = "a1b2c3d4-e5f6-4789-8abc-def012345678"
    expected = f"web-server-{heat27()['short_ids'][source]}"
    assert physical_resource_name("web", "server", source) == expected
    # A backup stack's name ends with "*"; its resources keep the original stack's names.
    assert physical_resource_name("web*", "server", source) == expected
    assert len(physical_resource_name("s" * 300, "server", source)) == 255
    with pytest.raises(ValueError, match="limit cannot be less than 4"):
        reduce_physical_resource_name("abcdef", 3)
