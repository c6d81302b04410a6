"""What an update does to one resource: which stored row it starts from, then nothing,
update in place, replace, or create.

The same decision serves the update itself and preview-update, so a preview is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from hearth.common.errors import HearthError
from hearth.engine import states
from hearth.resources.template_resource import TemplateResource

if TYPE_CHECKING:
    from hearth.engine.running.records import ResourceRecord
    from hearth.resources.base import Resource

PlanKind = Literal["unchanged", "update", "replace", "create"]


@dataclass(frozen=True)
class ResourcePlan:
    kind: PlanKind
    prop_diff: dict[str, Any] = field(default_factory=dict)
    # Which parts of the definition changed: Properties, Metadata, UpdatePolicy.
    tmpl_diff: dict[str, Any] = field(default_factory=dict)


def current_rows(
    records: Iterable[ResourceRecord],
    *,
    update_like: bool,
    keep_deleted: bool,
    template_id: int | None,
    prev_template_id: int | None,
    traversal_id: str,
) -> dict[str, ResourceRecord]:
    """For each resource name, the row that stands for it in an action.

    A name has several rows after a replacement that did not finish (the old row, replaced,
    and its replacement, perhaps failed). An update, rollback or restore starts, as Heat's
    convergence engine does, from the most suitable row: one that did not fail, is not being
    deleted and was not replaced, on the template being brought back (a rollback) or on the
    one the stack was on, the newest among equals. So an update back to a definition the old
    row still has keeps that row, and the failed replacement is only cleaned up. A run that
    continues keeps the rows it already acted on. Other actions take the newest row not
    replaced (``keep_deleted``: deleted ones too).
    """
    current: dict[str, ResourceRecord] = {}
    best: dict[str, tuple[Any, ...]] = {}
    for record in records:
        if record.state == (states.DELETE, states.COMPLETE) and not keep_deleted:
            continue
        if update_like:
            key = _suitability(record, template_id, prev_template_id, traversal_id)
        elif record.replaced_by is not None:
            continue
        else:
            key = (record.id,)
        if record.name not in best or key > best[record.name]:
            best[record.name] = key
            current[record.name] = record
    return current


def _suitability(
    record: ResourceRecord,
    template_id: int | None,
    prev_template_id: int | None,
    traversal_id: str,
) -> tuple[Any, ...]:
    score = 0
    if record.status == states.FAILED:
        score -= 30
    if record.action == states.DELETE:
        score -= 50
    if record.replaced_by is not None:
        score -= 1
    on = record.current_template_id
    if on is not None and on == prev_template_id:
        score += 5  # what the stack was on
    if on is not None and on == template_id:
        score += 10  # what a rollback brings back
    this_run = record.traversal_id == traversal_id and record.action != states.DELETE
    changed = record.updated_at or record.created_at
    return this_run, score, changed.timestamp() if changed else 0.0, record.id


def plan_resource(
    class_of: Callable[[str], type[Resource]],
    name: str,
    state: tuple[str, str],
    old_definition: Mapping[str, Any] | None,
    old_properties: Mapping[str, Any] | None,
    new_definition: Mapping[str, Any],
    *,
    has_child: bool = False,
    replace_failed: Callable[[], bool] | None = None,
) -> ResourcePlan:
    """Heat's update decision for one resource present in both old and new templates.

    ``class_of`` gives the class of a type; ``has_child`` says the resource has a physical
    resource (for nested stacks: its child exists). ``replace_failed`` answers, for a
    resource an action (not a check) left FAILED, whether it must be replaced (its plugin's
    ``needs_replace_failed``, which may ask the cloud); without it such a resource is
    replaced. Raises NotSupported (immutable properties) as the plugin's planner does.
    """
    action, status = state
    if (action, status) in ((states.INIT, states.COMPLETE), (states.DELETE, states.COMPLETE)):
        return ResourcePlan("create")
    old = old_definition or {}
    type_name = str(new_definition["type"])
    cls = class_of(type_name)
    if (old.get("type") != type_name and not _both_templates(class_of, old.get("type"), cls)
            and not _substituted(class_of, old.get("type"), cls)):
        return ResourcePlan("replace")
    # A nested stack is updated in place (its resources decide), also after a failure,
    # unless it failed a check or never got its child.
    in_place = getattr(cls, "always_update", False)
    if status == states.FAILED and not (
        in_place and has_child and getattr(cls, "update_failed_in_place", False)
        and action != states.CHECK
    ):
        check_failed = action == states.CHECK and getattr(
            cls, "always_replace_on_check_failed", True)
        if check_failed or replace_failed is None or replace_failed():
            return ResourcePlan("replace")
    old_props = dict(old_properties or {})
    new_props = dict(new_definition.get("properties") or {})
    tmpl_diff: dict[str, Any] = {}
    if old_props != new_props:
        tmpl_diff["Properties"] = new_props
    if old.get("metadata") != new_definition.get("metadata"):
        tmpl_diff["Metadata"] = new_definition.get("metadata")
    if old.get("update_policy") != new_definition.get("update_policy"):
        tmpl_diff["UpdatePolicy"] = new_definition.get("update_policy")
    if not tmpl_diff:
        if in_place:
            return ResourcePlan("update")
        # Heat asks before comparing anything (OS::Heat::UpdateWaitConditionHandle).
        if getattr(cls, "replace_on_every_update", False):
            return ResourcePlan("replace")
        return ResourcePlan("unchanged")
    plan = cls.plan_update(name, old_props, new_props, type_name=type_name, tmpl_diff=tmpl_diff)
    if plan.replace:
        return ResourcePlan("replace", dict(plan.prop_diff), tmpl_diff)
    if plan.needs_update or in_place:
        return ResourcePlan("update", dict(plan.prop_diff), tmpl_diff)
    return ResourcePlan("unchanged")


def _both_templates(
    class_of: Callable[[str], type[Resource]], old_type: Any, new_class: type[Resource]
) -> bool:
    """Heat compares a resource's class, not its type name: every provider template is served
    by the same class, so moving between them (or between two names of one) is an update."""
    if not issubclass(new_class, TemplateResource) or not isinstance(old_type, str):
        return False
    try:
        return issubclass(class_of(old_type), TemplateResource)
    except HearthError:
        return False  # the old name means nothing any more: nothing to compare with


def _substituted(
    class_of: Callable[[str], type[Resource]], old_type: Any, new_class: type[Resource]
) -> bool:
    """An old type whose support status names the new one as its substitute (a deprecated
    name such as OS::Heat::SoftwareDeployments) changes type in place."""
    if not isinstance(old_type, str):
        return False
    try:
        return class_of(old_type).check_is_substituted(new_class)
    except HearthError:
        return False
