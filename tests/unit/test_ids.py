"""New identifiers are random version 4 UUIDs, as ``uuid.uuid4()`` gives, in the same form."""

from __future__ import annotations

import uuid

from hearth.common.ids import new_uuid


def test_new_ids_are_canonical_random_version_4_uuids() -> None:
    made = [new_uuid() for _ in range(2000)]
    assert len(set(made)) == len(made)
    for value in made:
        parsed = uuid.UUID(value)
        assert str(parsed) == value  # lower case, hyphens where uuid4's string has them
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122
    # Random beyond the fixed version and variant bits: every other hex digit varies.
    for position in (0, 7, 9, 15, 20, 35):
        assert len({value[position] for value in made}) > 8, position
