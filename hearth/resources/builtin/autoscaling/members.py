"""A scaling group's child stack as data: member names, member definitions, the template.

Heat names new members with a short random id and builds each new child template from the
old one: existing members keep their definitions (and names), the oldest are dropped first when
the group shrinks, and only ``num_new`` of them take a new definition (rolling updates). The
old definitions are read from the child's current template.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from hearth.resources.context import short_id
from hearth.resources.nested import NestedMember

FAILED = "FAILED"

# The keys of a member definition given in HOT (OS::Heat::AutoScalingGroup ``resource``).
HOT_DEFINITION_KEYS = (
    "type", "properties", "metadata", "depends_on", "deletion_policy", "update_policy",
)

Definition = dict[str, Any]


def new_member_name() -> str:
    """A short random name, as Heat gives each new member (12 lower-case base32 characters)."""
    return short_id(uuid.uuid4())


def hot_definition(snippet: Mapping[str, Any]) -> Definition:
    """The member definition from a group's ``resource`` property (only the keys Heat keeps)."""
    return {k: snippet[k] for k in HOT_DEFINITION_KEYS if snippet.get(k) is not None}


def member_definitions(
    old: Sequence[tuple[str, Definition]],
    new_definition: Definition,
    size: int,
    num_new: int,
    new_name: Callable[[], str] = new_member_name,
) -> Iterator[tuple[str, Definition]]:
    """The (name, definition) pairs of the next child template.

    ``old`` lists the current members, the first to go (failed ones, then the oldest) first.
    Members are added or dropped to make ``size``; ``num_new`` counts the members that take
    ``new_definition``, the new ones included, the rest taken from the front of ``old``.
    """
    kept = list(old[-size:]) if size > 0 else []
    to_replace = num_new - (size - len(kept))
    for index in range(size):
        if index < len(kept):
            name, definition = kept[index]
            if definition != new_definition and to_replace > 0:
                to_replace -= 1
                yield name, new_definition
            else:
                yield name, definition
        else:
            yield new_name(), new_definition


def ordered(members: Sequence[NestedMember], include_failed: bool) -> list[NestedMember]:
    """Members in Heat's order: failed ones first, then by creation (the child's row order)."""
    indexed = [
        (index, m) for index, m in enumerate(members) if include_failed or m.status != FAILED
    ]
    indexed.sort(key=lambda pair: (pair[1].status != FAILED, pair[0]))
    return [m for _, m in indexed]


def child_template(
    pairs: Sequence[tuple[str, Definition]], cfn: bool, refs_output: str
) -> dict[str, Any]:
    """The child template: the members, and an output mapping each name to its reference."""
    resources = {name: definition for name, definition in pairs}
    if cfn:
        refs = {name: {"Ref": name} for name in resources}
        return {
            "HeatTemplateFormatVersion": "2012-12-12",
            "Resources": resources,
            "Outputs": {refs_output: {"Value": refs}},
        }
    return {
        "heat_template_version": "2015-04-30",
        "resources": resources,
        "outputs": {refs_output: {"value": {n: {"get_resource": n} for n in resources}}},
    }
