"""How a property change reaches a resource: not at all, in place, or by replacing it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hearth.common.errors import NotSupported

if TYPE_CHECKING:
    from hearth.resources.base import Resource
    from hearth.resources.properties import Properties


@dataclass(frozen=True)
class UpdatePlan:
    """The outcome of comparing a resource's old and new property data.

    ``prop_diff`` holds the changed top-level properties with their new values (defaults
    filled in, coerced); ``replace`` says the change cannot be made in place; ``needs_update``
    is False when there is nothing to do at all (nothing changed, or a type such as
    OS::Heat::None that never updates).
    """

    prop_diff: dict[str, Any] = field(default_factory=dict)
    replace: bool = False
    changed: frozenset[str] = frozenset()
    needs_update: bool = True


NO_UPDATE = UpdatePlan(needs_update=False)


def _changed(before: Properties, after: Properties, key: str) -> bool:
    try:
        old = before[key]
    except ValueError:
        # The old value no longer reads (its schema moved on): treat it as changed.
        return True
    return bool(old != after[key])


def plan_update(
    cls: type[Resource],
    name: str,
    old_data: Mapping[str, Any] | None,
    new_data: Mapping[str, Any] | None,
    *,
    type_name: str,
    tmpl_diff: Mapping[str, Any] | None = None,
) -> UpdatePlan:
    """Heat's decision, in Heat's order; NotSupported when an immutable property changed."""
    before = cls.build_properties(old_data)
    after = cls.build_properties(new_data)
    changed = frozenset(key for key in after if _changed(before, after, key))
    prop_diff = {key: after[key] for key in after if key in changed}

    def plan(replace: bool) -> UpdatePlan:
        return UpdatePlan(prop_diff, replace, changed)

    if cls.needs_replace(after):
        return plan(True)
    if not changed and not tmpl_diff:
        return NO_UPDATE
    if tmpl_diff and cls.needs_replace_with_tmpl_diff(tmpl_diff):
        return plan(True)
    immutable = sorted(k for k in changed if after.schema[k].immutable)
    if immutable:
        raise NotSupported(
            f"Update to properties {', '.join(immutable)} of {name} ({type_name})"
        )
    if changed and cls.needs_replace_with_prop_diff(changed, after, before):
        return plan(True)
    if not all(after.schema[k].update_allowed for k in changed):
        return plan(True)
    if prop_diff and not cls.updates_in_place():
        # The base handle_update would ask for a replacement; say so now so previews are exact.
        return plan(True)
    return plan(False)
