"""What an update does to one resource: nothing, update in place, replace, or create.

The same decision serves the update itself and preview-update, so a preview is exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from hearth.engine import states
from hearth.resources.registry import PluginRegistry

PlanKind = Literal["unchanged", "update", "replace", "create"]


@dataclass(frozen=True)
class ResourcePlan:
    kind: PlanKind
    prop_diff: dict[str, Any] = field(default_factory=dict)
    # Which parts of the definition changed: Properties, Metadata, UpdatePolicy.
    tmpl_diff: dict[str, Any] = field(default_factory=dict)


def plan_resource(
    plugins: PluginRegistry,
    name: str,
    state: tuple[str, str],
    old_definition: Mapping[str, Any] | None,
    old_properties: Mapping[str, Any] | None,
    new_definition: Mapping[str, Any],
) -> ResourcePlan:
    """Heat's update decision for one resource present in both old and new templates.

    Raises NotSupported (immutable properties) as the plugin's planner does.
    """
    action, status = state
    if (action, status) in ((states.INIT, states.COMPLETE), (states.DELETE, states.COMPLETE)):
        return ResourcePlan("create")
    old = old_definition or {}
    if status == states.FAILED:
        return ResourcePlan("replace")
    if old.get("type") != new_definition["type"]:
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
        return ResourcePlan("unchanged")
    type_name = str(new_definition["type"])
    cls = plugins.get_class(type_name)
    plan = cls.plan_update(name, old_props, new_props, type_name=type_name, tmpl_diff=tmpl_diff)
    if not plan.needs_update:
        return ResourcePlan("unchanged")
    if plan.replace:
        return ResourcePlan("replace", dict(plan.prop_diff), tmpl_diff)
    return ResourcePlan("update", dict(plan.prop_diff), tmpl_diff)
