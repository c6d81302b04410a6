"""The engine's read-only calls: stacks, templates, outputs, resources, events, snapshots,
services, answered from the database as heat-engine answers them (see ``formatting``).

Every call takes the caller's ``RequestContext`` first. A project sees its own stacks (and those
whose in-instance user project it is); an admin may reach any stack by its identity, but lists
only span projects when asked to (``global_tenant``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hearth.common.config import EngineLimits
from hearth.common.context import RequestContext
from hearth.common.errors import (
    EntityNotFound,
    Invalid,
    InvalidTenant,
    NotFound,
    PhysicalResourceIDAmbiguity,
    ResourceNotFound,
    SnapshotNotFound,
)
from hearth.common.identifier import Identity
from hearth.engine.reading import formatting as fmt
from hearth.engine.reading import stack_user_reads
from hearth.engine.reading.stack_filters import (
    STACK_SORT_KEYS,
    Filters,
    ResourceFilter,
    as_list,
    check_sort_dir,
    matches_nothing,
    translate_stack_filters,
)
from hearth.engine.reading.stack_views import (
    display_parameters,
    hidden_parameter_names,
    mask_environment,
    snapshot_view,
    template_outputs,
)
from hearth.engine.reading.stored_templates import StoredTemplates
from hearth.engine.services.payload_secrets import seal_snapshot
from hearth.store import locks, queries
from hearth.store import stacks as stack_store
from hearth.store.crypto import Encryptor
from hearth.store.db import Database, Session
from hearth.store.models import Event, Resource, Stack
from hearth.store.resources import load_properties
from hearth.store.types import utcnow
from hearth.template.template import Template

IdentityArg = Mapping[str, Any]


@dataclass
class _StackResources:
    """The current resources of one stack and what their views need."""

    stack: Stack
    identity: Identity
    rows: list[Resource]
    children: dict[str, Stack]
    required_by: dict[int, list[str]]

    @classmethod
    def load(cls, session: Session, stack: Stack) -> _StackResources:
        rows = queries.current_resources(session, stack.id)
        required_by: dict[int, list[str]] = {r.id: [] for r in rows}
        for row in rows:
            for needed in row.requires or []:
                if needed in required_by:
                    required_by[needed].append(row.name)
        children = {c.id: c for c in queries.live_children(session, [stack.id])}
        return cls(stack, fmt.stack_identity(stack), rows, children, required_by)

    def nested(self, row: Resource) -> Stack | None:
        if row.physical_resource_id is None:
            return None
        return self.children.get(row.physical_resource_id)

    def find(self, name: str) -> Resource | None:
        found = [r for r in self.rows if r.name == name]
        return found[-1] if found else None

    def view(
        self,
        row: Resource,
        templates: StoredTemplates,
        *,
        detail: bool,
        with_attr: Sequence[str] | bool | None = None,
    ) -> dict[str, Any]:
        child = self.nested(row)
        description = ""
        template_id = row.current_template_id or self.stack.raw_template_id
        if detail:
            description = templates.resource_description(template_id, row.name)
        return fmt.format_resource(
            row,
            self.identity,
            required_by=self.required_by.get(row.id, []),
            detail=detail,
            description=description,
            type_name=templates.resource_type(template_id, row.name),
            with_attr=with_attr,
            nested=fmt.stack_identity(child) if child is not None else None,
            parent_resource=self.stack.parent_resource_name,
        )


# --- the reader ------------------------------------------------------------------------------


class StackReader:
    """heat-engine's read-only RPC methods over Hearth's database."""

    def __init__(
        self,
        db: Database,
        encryptor_getter: Callable[[], Encryptor | None],
        limits: EngineLimits,
        *,
        stack_user_role: str = "heat_stack_user",
    ) -> None:
        self._db = db
        self._encryptor = encryptor_getter
        self._limits = limits
        self._stack_user_role = stack_user_role

    # --- finding stacks ----------------------------------------------------------------

    def _get_stack(
        self,
        session: Session,
        ctx: RequestContext,
        identity: IdentityArg,
        *,
        show_deleted: bool = False,
    ) -> Stack:
        """The stack an identity names, as Heat's ``_get_stack`` checks it."""
        try:
            ident = Identity.from_dict(dict(identity))
        except (KeyError, ValueError):
            raise EntityNotFound("Stack", str(identity.get("stack_name", ""))) from None
        row = queries.scoped_stack(
            session,
            ident.stack_id,
            project=ctx.project_id,
            is_admin=ctx.is_admin,
            show_deleted=show_deleted,
        )
        if row is None:
            raise EntityNotFound("Stack", ident.stack_name)
        if not ctx.is_admin and ctx.project_id not in (ident.tenant, row.stack_user_project_id):
            raise InvalidTenant(ident.tenant, ctx.project_id)
        if ident.path or row.name != ident.stack_name:
            raise EntityNotFound("Stack", ident.stack_name)
        return row

    def identify_stack(self, ctx: RequestContext, stack_name: str) -> dict[str, str]:
        """The identity of a stack given by id (deleted ones too) or by name (live ones)."""
        with self._db.session(readonly=True) as session:
            row = queries.scoped_stack(
                session, stack_name, project=ctx.project_id, is_admin=ctx.is_admin,
                show_deleted=True,
            )
            if row is None:
                row = queries.stack_by_name(session, stack_name, project=ctx.project_id)
            if row is None:
                raise EntityNotFound("Stack", stack_name)
            return fmt.stack_identity(row).as_dict()

    # --- stacks --------------------------------------------------------------------------

    def _show(self, session: Session, row: Stack, resolve_outputs: bool) -> dict[str, Any]:
        template_data, _files, env = stack_store.load_template(session, row.raw_template_id)
        template = Template(template_data)
        outputs = row.outputs
        if resolve_outputs and outputs is None:
            # Outputs are stored when an action ends; before that they have no value yet.
            outputs = template_outputs(template)
        return fmt.format_stack(
            row,
            parameters=display_parameters(template, env, row),
            description=template.description,
            outputs=outputs,
            tags=[t.tag for t in row.tags],
            resolve_outputs=resolve_outputs,
        )

    def show_stack(
        self,
        ctx: RequestContext,
        stack_identity: IdentityArg | None,
        resolve_outputs: bool = True,
    ) -> list[dict[str, Any]]:
        """One stack in full (deleted ones too), or every live top-level stack of the project."""
        with self._db.session(readonly=True) as session:
            if stack_identity is not None:
                rows = [self._get_stack(session, ctx, stack_identity, show_deleted=True)]
            else:
                found = stack_store.list_stacks(
                    session, ctx.project_id, hidden_tags=self._limits.hidden_stack_tags
                )
                rows = found if isinstance(found, list) else []
            return [self._show(session, row, resolve_outputs) for row in rows]

    def _list_args(
        self,
        ctx: RequestContext,
        filters: Filters | None,
        show_hidden: bool,
        global_tenant: bool,
    ) -> tuple[str | None, dict[str, list[Any]], tuple[str, ...]]:
        tenant = None if (global_tenant and ctx.is_admin) else ctx.project_id
        hidden = () if show_hidden else self._limits.hidden_stack_tags
        return tenant, translate_stack_filters(filters), hidden

    def list_stacks(
        self,
        ctx: RequestContext,
        limit: int | None = None,
        marker: str | None = None,
        sort_keys: Sequence[str] | None = None,
        sort_dir: str | None = None,
        filters: Filters | None = None,
        show_deleted: bool = False,
        show_nested: bool = False,
        show_hidden: bool = False,
        tags: Sequence[str] | None = None,
        tags_any: Sequence[str] | None = None,
        not_tags: Sequence[str] | None = None,
        not_tags_any: Sequence[str] | None = None,
        global_tenant: bool = False,
    ) -> list[dict[str, Any]]:
        """Stack summaries, filtered, sorted and paged as Heat does.

        Without a (valid) sort key: newest first. With sort keys the direction defaults to
        ascending. ``global_tenant`` spans all projects, for admins only.
        """
        check_sort_dir(sort_dir)
        tenant, columns, hidden = self._list_args(ctx, filters, show_hidden, global_tenant)
        keys = [k for k in sort_keys or () if k in STACK_SORT_KEYS]
        direction = sort_dir or ("asc" if keys else "desc")
        if matches_nothing(columns):
            return []
        with self._db.session(readonly=True) as session:
            rows = stack_store.list_stacks(
                session,
                tenant,
                filters=columns,
                limit=limit,
                marker=marker,
                sort_keys=keys,
                sort_dir=direction,
                show_deleted=show_deleted,
                show_nested=show_nested,
                hidden_tags=hidden,
                tags=tags,
                tags_any=tags_any,
                not_tags=not_tags,
                not_tags_any=not_tags_any,
            )
            assert isinstance(rows, list)
            return [fmt.format_stack_summary(row) for row in rows]

    def count_stacks(
        self,
        ctx: RequestContext,
        filters: Filters | None = None,
        show_deleted: bool = False,
        show_nested: bool = False,
        show_hidden: bool = False,
        tags: Sequence[str] | None = None,
        tags_any: Sequence[str] | None = None,
        not_tags: Sequence[str] | None = None,
        not_tags_any: Sequence[str] | None = None,
        global_tenant: bool = False,
    ) -> int:
        """How many stacks ``list_stacks`` would give without paging."""
        tenant, columns, hidden = self._list_args(ctx, filters, show_hidden, global_tenant)
        if matches_nothing(columns):
            return 0
        with self._db.session(readonly=True) as session:
            count = stack_store.list_stacks(
                session,
                tenant,
                filters=columns,
                show_deleted=show_deleted,
                show_nested=show_nested,
                hidden_tags=hidden,
                tags=tags,
                tags_any=tags_any,
                not_tags=not_tags,
                not_tags_any=not_tags_any,
                count_only=True,
            )
            assert isinstance(count, int)
            return count

    # --- template, environment, files, outputs -------------------------------------------

    def get_template(self, ctx: RequestContext, stack_identity: IdentityArg) -> dict[str, Any]:
        with self._db.session(readonly=True) as session:
            row = self._get_stack(session, ctx, stack_identity, show_deleted=True)
            return queries.template_data(session, row.raw_template_id) or {}

    def get_environment(
        self, ctx: RequestContext, stack_identity: IdentityArg
    ) -> dict[str, Any]:
        """The stored environment, hidden parameter values shown as ``******``."""
        with self._db.session(readonly=True) as session:
            row = self._get_stack(session, ctx, stack_identity, show_deleted=True)
            data, files, env = stack_store.load_template(session, row.raw_template_id)
            return mask_environment(env, hidden_parameter_names(Template(data), files))

    def get_files(self, ctx: RequestContext, stack_identity: IdentityArg) -> dict[str, str]:
        with self._db.session(readonly=True) as session:
            row = self._get_stack(session, ctx, stack_identity, show_deleted=True)
            _data, files, _env = stack_store.load_template(session, row.raw_template_id)
            return files

    def _outputs(
        self, session: Session, ctx: RequestContext, stack_identity: IdentityArg
    ) -> tuple[list[dict[str, Any]], dict[str, Mapping[str, Any]]]:
        """(the template's outputs, the stored resolved ones by key)."""
        row = self._get_stack(session, ctx, stack_identity)
        data = queries.template_data(session, row.raw_template_id) or {}
        defined = template_outputs(Template(data))
        stored = {
            str(o.get("output_key")): o for o in row.outputs or [] if isinstance(o, Mapping)
        }
        return defined, stored

    def list_outputs(
        self, ctx: RequestContext, stack_identity: IdentityArg
    ) -> list[dict[str, Any]]:
        """Every output's key and description (no values)."""
        with self._db.session(readonly=True) as session:
            defined, _stored = self._outputs(session, ctx, stack_identity)
            return fmt.format_stack_outputs(defined, resolve_value=False)

    def show_output(
        self, ctx: RequestContext, stack_identity: IdentityArg, output_key: str
    ) -> dict[str, Any]:
        """One output with its stored value (and error, if resolving it failed)."""
        with self._db.session(readonly=True) as session:
            defined, stored = self._outputs(session, ctx, stack_identity)
        entry = next((o for o in defined if o["output_key"] == output_key), None)
        if entry is None:
            raise NotFound(f"Specified output key {output_key} not found.")
        resolved = {**stored.get(output_key, {}), **entry}
        return fmt.format_stack_output(resolved, resolve_value=True)

    # --- resources -----------------------------------------------------------------------

    def _collect(
        self,
        session: Session,
        stack: Stack,
        depth: int,
        match: ResourceFilter,
        detail: bool,
        templates: StoredTemplates,
        out: list[dict[str, Any]],
    ) -> None:
        # Heat's order: a stack's resources, then those of each nested stack in turn.
        rs = _StackResources.load(session, stack)
        out.extend(rs.view(r, templates, detail=detail) for r in rs.rows if match.matches(r))
        if depth <= 0:
            return
        for row in rs.rows:
            child = rs.nested(row)
            if child is not None:
                self._collect(session, child, depth - 1, match, detail, templates, out)

    def list_stack_resources(
        self,
        ctx: RequestContext,
        stack_identity: IdentityArg,
        nested_depth: int = 0,
        with_detail: bool = False,
        filters: Filters | None = None,
    ) -> list[dict[str, Any]]:
        """Resources of a stack (deleted ones too) and of its nested stacks down to
        ``nested_depth`` (at most ``max_nested_stack_depth``)."""
        match = ResourceFilter.parse(filters)
        depth = min(nested_depth, self._limits.max_nested_stack_depth)
        with self._db.session(readonly=True) as session:
            stack = self._get_stack(session, ctx, stack_identity, show_deleted=True)
            out: list[dict[str, Any]] = []
            self._collect(session, stack, depth, match, with_detail, StoredTemplates(session), out)
            return out

    def _resource(
        self, session: Session, ctx: RequestContext, stack_identity: IdentityArg, name: str
    ) -> tuple[_StackResources, Resource]:
        stack = self._get_stack(session, ctx, stack_identity)
        rs = _StackResources.load(session, stack)
        # As Heat, a stack user is checked before the resource is looked for (it learns
        # nothing of the names it may not read).
        if stack_user_reads.restricted(ctx, stack, self._stack_user_role):
            stack_user_reads.check(session, ctx, rs.rows, rs.find(name), name, self._encryptor)
        row = rs.find(name)
        if row is None:
            raise ResourceNotFound(name, stack.name)
        return rs, row

    def describe_stack_resource(
        self,
        ctx: RequestContext,
        stack_identity: IdentityArg,
        resource_name: str,
        with_attr: Sequence[str] | bool | None = None,
    ) -> dict[str, Any]:
        """One resource in detail, with its stored attributes (``with_attr``: extra names;
        False: none)."""
        with self._db.session(readonly=True) as session:
            rs, row = self._resource(session, ctx, stack_identity, resource_name)
            return rs.view(row, StoredTemplates(session), detail=True, with_attr=with_attr)

    def describe_stack_resources(
        self,
        ctx: RequestContext,
        stack_identity: IdentityArg,
        resource_name: str | None = None,
    ) -> list[dict[str, Any]]:
        """Every resource of a stack (or the one named) in detail (the CFN API's call)."""
        with self._db.session(readonly=True) as session:
            stack = self._get_stack(session, ctx, stack_identity)
            rs = _StackResources.load(session, stack)
            templates = StoredTemplates(session)
            return [
                rs.view(r, templates, detail=True)
                for r in rs.rows
                if resource_name is None or r.name == resource_name
            ]

    def resource_metadata(
        self, ctx: RequestContext, stack_identity: IdentityArg, resource_name: str
    ) -> Any:
        with self._db.session(readonly=True) as session:
            _rs, row = self._resource(session, ctx, stack_identity, resource_name)
            return fmt.resource_metadata(row)

    def find_physical_resource(
        self, ctx: RequestContext, physical_resource_id: str
    ) -> dict[str, str]:
        """The identity of the resource with that physical id, in a live stack the caller
        sees. Several resources of one stack are fine (only the stack matters to the CFN API
        that asks); resources of several stacks are ambiguous."""
        with self._db.session(readonly=True) as session:
            pairs = [
                (res, stack)
                for res, stack in queries.resources_by_physical_id(
                    session, physical_resource_id, project=ctx.project_id,
                    is_admin=ctx.is_admin,
                )
                if stack.deleted_at is None
            ]
        if not pairs:
            raise EntityNotFound("Resource", physical_resource_id)
        if len({stack.id for _res, stack in pairs}) > 1:
            raise PhysicalResourceIDAmbiguity(physical_resource_id)
        res, stack = pairs[0]
        return fmt.stack_identity(stack).resource(res.name).as_dict()

    # --- events --------------------------------------------------------------------------

    def list_events(
        self,
        ctx: RequestContext,
        stack_identity: IdentityArg | None,
        filters: Filters | None = None,
        limit: int | None = None,
        marker: str | None = None,
        sort_keys: Sequence[str] | None = None,
        sort_dir: str | None = None,
        nested_depth: int | None = None,
    ) -> list[dict[str, Any]]:
        """Events of a stack (deleted ones too), with those of its nested stacks down to
        ``nested_depth`` (each then carries ``root_stack_id``); with no stack, events of every
        live stack of the project. Newest first unless sorted otherwise."""
        check_sort_dir(sort_dir)
        event_filters = {k: [str(v) for v in as_list(vs)] for k, vs in (filters or {}).items()}
        for key in event_filters:
            if key not in queries.EVENT_FILTER_KEYS:
                raise Invalid(f"Unknown event filter: {key}")
        with self._db.session(readonly=True) as session:
            root: Identity | None = None
            if stack_identity is None:
                rows = queries.list_events(
                    session, tenant=ctx.project_id, filters=event_filters, limit=limit,
                    marker=marker, sort_keys=sort_keys or (), sort_dir=sort_dir,
                )
                identities = {
                    sid: fmt.stack_identity(s)
                    for sid, s in queries.stacks_by_id(session, {e.stack_id for e in rows}).items()
                }
            else:
                stack = self._get_stack(session, ctx, stack_identity, show_deleted=True)
                stacks = [stack]
                if nested_depth:
                    root = fmt.stack_identity(stack)
                    depth = min(nested_depth, self._limits.max_nested_stack_depth)
                    stacks += queries.descendants(session, stack.id, depth)
                identities = {s.id: fmt.stack_identity(s) for s in stacks}
                rows = queries.list_events(
                    session, stack_ids=list(identities), filters=event_filters, limit=limit,
                    marker=marker, sort_keys=sort_keys or (), sort_dir=sort_dir,
                )
            # Only a single event's view (filtered by uuid) carries its resource properties.
            with_props = "uuid" in event_filters
            return [
                fmt.format_event(
                    e,
                    identities[e.stack_id],
                    root=root,
                    properties=self._event_properties(session, e) if with_props else None,
                )
                for e in rows
                if e.stack_id in identities
            ]

    def _event_properties(self, session: Session, event: Event) -> dict[str, Any]:
        if event.rsrc_prop_data_id is None:
            return {}
        props = load_properties(session, event.rsrc_prop_data_id, self._encryptor())
        return props or {}

    def show_event(
        self,
        ctx: RequestContext,
        stack_identity: IdentityArg,
        resource_name: str,
        event_id: str,
    ) -> dict[str, Any]:
        """One event of a resource in full (with ``resource_properties``)."""
        found = self.list_events(
            ctx, stack_identity, filters={"resource_name": resource_name, "uuid": event_id}
        )
        if not found:
            raise NotFound(f"No event {event_id} found")
        return found[0]

    # --- snapshots and services ----------------------------------------------------------

    def list_snapshots(
        self, ctx: RequestContext, stack_identity: IdentityArg
    ) -> list[dict[str, Any]]:
        with self._db.session(readonly=True) as session:
            stack = self._get_stack(session, ctx, stack_identity)
            rows = queries.snapshots_of_stack(session, stack.id, ctx.project_id)
            per_resource = queries.resource_snapshots(session, [r.id for r in rows])
            return [
                seal_snapshot(snapshot_view(r, per_resource.get(r.id)), self._encryptor())
                for r in rows
            ]

    def show_snapshot(
        self, ctx: RequestContext, stack_identity: IdentityArg, snapshot_id: str
    ) -> dict[str, Any]:
        with self._db.session(readonly=True) as session:
            stack = self._get_stack(session, ctx, stack_identity)
            row = queries.get_snapshot(session, snapshot_id)
            if row is None or row.tenant != ctx.project_id:
                raise NotFound(f"Snapshot with id {snapshot_id} not found")
            if row.stack_id != stack.id:
                raise SnapshotNotFound(snapshot_id, stack.name)
            per_resource = queries.resource_snapshots(session, [row.id])
            return seal_snapshot(snapshot_view(row, per_resource.get(row.id)), self._encryptor())

    def list_services(self, ctx: RequestContext) -> list[dict[str, Any]]:
        """The engines' service records, ``up`` or ``down`` by their last report."""
        now = utcnow()
        with self._db.session(readonly=True) as session:
            return [fmt.format_service(row, now) for row in locks.services(session)]
