"""Preview of a create, and preview of an update: what would happen, nothing stored."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hearth.common.context import RequestContext
from hearth.common.errors import HearthError, StackValidationFailed
from hearth.common.identifier import Identity
from hearth.engine.requests import ActionArgs, StackRequest, check_stack_name
from hearth.engine.running.records import ResourceRecord
from hearth.engine.running.update_plan import plan_resource
from hearth.engine.services.stack_lookup import live_stack
from hearth.engine.services.stacks import StackService
from hearth.engine.stack_builder import BoundStack
from hearth.engine.stack_source import StackSource
from hearth.resources.stack_resource import StackResource
from hearth.store import queries
from hearth.store import resources as resource_store
from hearth.store.models import Stack as StackRow

PREVIEW_ID = "None"


def _properties(bound: BoundStack, name: str) -> dict[str, Any]:
    """Every property of the type's schema with its value (defaults filled in)."""
    try:
        cls = bound.resource_class(name)
        props = cls.build_properties(bound.resolve_properties(name))
    except HearthError:
        return dict(bound.resolve_properties(name) or {})
    out: dict[str, Any] = {}
    for key in cls.properties_schema:
        try:
            out[key] = props[key]
        except (KeyError, ValueError, HearthError):
            out[key] = None
    return out


def _resource(
    bound: BoundStack, identity: Identity, name: str, *, with_props: bool,
    record: ResourceRecord | None = None,
) -> dict[str, Any]:
    defn = bound.resources.get(name)
    out: dict[str, Any] = {
        "updated_time": None,
        "creation_time": None,
        "resource_name": name,
        "physical_resource_id": (record.physical_id if record else None) or "",
        "resource_action": record.action if record else "INIT",
        "resource_status": record.status if record else "COMPLETE",
        "resource_status_reason": record.status_reason if record else "",
        "resource_type": defn.type if defn is not None else (
            record.resource_type if record else ""),
        "resource_identity": identity.resource(name).as_dict(),
        "stack_identity": identity.as_dict(),
        "stack_name": identity.stack_name,
        "required_by": sorted(bound.required_by.get(name, [])),
        "description": (defn.description or "") if defn is not None else "",
        "metadata": {},
    }
    if with_props and defn is not None:
        out["attributes"] = _attributes(bound, name)
        out["properties"] = _properties(bound, name)
    return out


def _attributes(bound: BoundStack, name: str) -> dict[str, Any]:
    """Every attribute of the type, unresolved (None): nothing exists yet, as in Heat."""
    try:
        cls = bound.resource_class(name)
    except HearthError:
        return {}
    return {attr: None for attr in cls.attributes_schema if attr != "show"}


def _preview_error(exc: StackValidationFailed) -> StackValidationFailed:
    """Heat's preview words a property error with empty path parts ("Property error: :
    resources.x.properties.y: : message"), which clients match; create keeps the plain form."""
    text = str(exc)
    prefix = "Property error: "
    if not text.startswith(prefix) or ": " not in text[len(prefix):]:
        return exc
    path, _, message = text[len(prefix):].partition(": ")
    return StackValidationFailed(f"{prefix}: {path}: : {message}")


def _preview_resources(
    bound: BoundStack, identity: Identity, parent: str | None = None
) -> list[Any]:
    """Each resource's preview; a nested stack's is the list of its own (Heat's shape)."""
    out: list[Any] = []
    for name in bound.resources:
        cls = bound.resource_class(name)
        if issubclass(cls, StackResource):
            props = cls.build_properties(bound.resolve_properties(name))
            try:
                child = cls.preview_child_for(name, props, bound.env, bound.source.files)
            except ValueError as exc:
                # A resource with an external_id is not validated (as in Heat), but its child
                # is built from its properties: a missing one is the user's property error.
                raise _preview_error(StackValidationFailed(
                    str(exc), ["resources", name, "properties"], "Property error")) from None
            if child is not None:
                child_bound = bound.child_bound(child, name)
                child_identity = Identity(
                    identity.tenant, child_bound.identity.stack_name, PREVIEW_ID
                )
                out.append(_preview_resources(child_bound, child_identity, name))
                continue
        entry = _resource(bound, identity, name, with_props=True)
        if parent is not None:
            entry["parent_resource"] = parent
        out.append(entry)
    return out


class Previews:
    def __init__(self, stacks: StackService) -> None:
        self.stacks = stacks
        self.core = stacks.core

    def preview_stack(
        self,
        ctx: RequestContext,
        stack_name: str,
        template: Mapping[str, Any] | str | None,
        params: Mapping[str, Any] | None = None,
        files: Mapping[str, Any] | None = None,
        args: Mapping[str, Any] | None = None,
        environment: Mapping[str, Any] | str | None = None,
        environment_files: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        check_stack_name(stack_name)
        opts = ActionArgs.parse(args)
        request = StackRequest(template, params, files, environment, environment_files)
        self.core.preflight(request, outputs=False)
        try:
            bound = self.stacks.new_bound(ctx, stack_name, PREVIEW_ID, request)
        except StackValidationFailed as exc:
            raise _preview_error(exc) from None
        identity = Identity(ctx.project_id, stack_name, PREVIEW_ID)
        params_out = {}
        for key in bound.params:
            param = bound.params.parameter(key)
            params_out[key] = "******" if param.hidden else str(param)
        return {
            "stack_name": stack_name,
            "stack_identity": identity.as_dict(),
            "creation_time": None,
            "updated_time": None,
            "deletion_time": None,
            "notification_topics": [],
            "parameters": params_out,
            "description": bound.template.description,
            "template_description": bound.template.description,
            "capabilities": [],
            "disable_rollback": True if opts.disable_rollback is None else opts.disable_rollback,
            "timeout_mins": opts.timeout_mins,
            "stack_owner": ctx.username,
            "parent": None,
            "stack_user_project_id": None,
            "tags": opts.tags,
            "resources": _preview_resources(bound, identity),
        }

    def preview_update_stack(
        self,
        ctx: RequestContext,
        stack_identity: Mapping[str, Any],
        template: Mapping[str, Any] | str | None,
        params: Mapping[str, Any] | None = None,
        files: Mapping[str, Any] | None = None,
        args: Mapping[str, Any] | None = None,
        environment: Mapping[str, Any] | str | None = None,
        environment_files: Sequence[str] | None = None,
    ) -> dict[str, list[dict[str, Any]]]:
        opts = ActionArgs.parse(args)
        show_nested = bool((args or {}).get("show_nested"))
        req = StackRequest(template, params, files, environment, environment_files)
        self.core.preflight(req, outputs=False)
        with self.core.db.session() as session:
            row = live_stack(session, ctx, stack_identity)
            current, new = self.stacks.prepare_update(session, row, req, opts, ctx)
            self.stacks.authorize_types(ctx, new)
            changes: dict[str, list[dict[str, Any]]] = {
                "unchanged": [], "updated": [], "replaced": [], "added": [], "deleted": [],
            }
            self._changes(session, row, current, new, changes, show_nested, None)
        return changes

    def _changes(
        self, session: Any, row: StackRow, current: BoundStack, new: BoundStack,
        changes: dict[str, list[dict[str, Any]]], show_nested: bool, parent: str | None,
    ) -> None:
        """What an update of ``row`` from ``current`` to ``new`` does, into ``changes``;
        with ``show_nested``, the same for the nested stacks it updates or removes."""
        records = {
            r.name: ResourceRecord.from_row(r)
            for r in resource_store.of_stack(session, row.id)
            if r.replaced_by is None
        }
        props = {
            name: resource_store.load_properties(session, rec.prop_data_id, self.core.encryptor)
            for name, rec in records.items()
        }
        identity = Identity(row.tenant or "", row.name, row.id)
        children = {c.id: c for c in queries.live_children(session, [row.id])}

        def add(kind: str, bound: BoundStack, name: str, record: ResourceRecord | None) -> None:
            entry = _resource(bound, identity, name, with_props=False, record=record)
            if parent is not None:
                entry["parent_resource"] = parent
            changes[kind].append(entry)

        for name in new.resources:
            record = records.get(name)
            if record is None or name not in current.resources:
                add("added", new, name, None)
                continue
            old_def = dict(record.definition or {})
            old_def["properties"] = props.get(name)
            plan = plan_resource(
                lambda type_name, name=name: new.class_of(type_name, name),  # type: ignore[misc]
                name, record.state, old_def, props.get(name),
                new.frozen_definition(name), has_child=record.physical_id is not None,
            )
            child = children.get(record.physical_id or "")
            if plan.kind == "unchanged":
                add("unchanged", new, name, record)
            elif plan.kind == "update":
                add("updated", current, name, record)
                if show_nested and child is not None:
                    self._child_changes(session, child, new, name, changes)
            else:
                add("replaced", new, name, record)
                if show_nested and child is not None:
                    self._all_deleted(session, child, changes, name)
        for name, record in records.items():
            if name not in new.resources:
                add("deleted", current, name, record)
                child = children.get(record.physical_id or "")
                if show_nested and child is not None:
                    self._all_deleted(session, child, changes, name)

    def _child_changes(
        self, session: Any, child: StackRow, new_parent: BoundStack, name: str,
        changes: dict[str, list[dict[str, Any]]],
    ) -> None:
        cls = new_parent.resource_class(name)
        if not issubclass(cls, StackResource):
            return
        props = cls.build_properties(new_parent.resolve_properties(name))
        definition = cls.child_for(name, props, new_parent.env, new_parent.source.files)
        if definition is None:
            return
        current = self.stacks.stored_bound(session, child)
        new = current.with_source(new_parent.child_bound(definition, name).source)
        self._changes(session, child, current, new, changes, True, name)

    def _all_deleted(
        self, session: Any, child: StackRow, changes: dict[str, list[dict[str, Any]]],
        parent: str,
    ) -> None:
        current = self.stacks.stored_bound(session, child)
        empty = current.with_source(StackSource({"heat_template_version": "2013-05-23"}))
        self._changes(session, child, current, empty, changes, True, parent)
