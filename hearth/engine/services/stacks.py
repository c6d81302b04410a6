"""The engine's interface: one method per Heat engine RPC call that changes stacks.

Every method checks its request, writes what must be written before the caller gets an answer
(the stack row, its IN_PROGRESS state, the lock) and returns at once; the action itself runs in
the engine's event loop. Read-only calls live in ``reader.py``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hearth.common.context import RequestContext
from hearth.common.errors import (
    Forbidden,
    HearthError,
    Invalid,
    NotSupported,
    RequestLimitExceeded,
    ResourceTypeUnavailable,
    StackExists,
    StackValidationFailed,
    UserParameterMissing,
)
from hearth.common.identifier import Identity
from hearth.common.ids import new_uuid
from hearth.engine import states
from hearth.engine.core import EngineCore
from hearth.engine.requests import ActionArgs, StackRequest, check_stack_name
from hearth.engine.running import loaded_stack, locking, supersede, traversal
from hearth.engine.running.actions import ActionManager
from hearth.engine.running.messages import DELETE_PREFIX
from hearth.engine.running.parent import stored_facade
from hearth.engine.running.records import ResourceRecord
from hearth.engine.running.run_spec import RunSpec
from hearth.engine.running.stack_state import (
    begin_stack_action,
    stack_event,
    started_reason,
)
from hearth.engine.services.payload_secrets import adopt_parameters, open_resources
from hearth.engine.services.stack_deletes import StackDeletes
from hearth.engine.services.stack_lookup import live_stack
from hearth.engine.stack_builder import BoundStack
from hearth.engine.stack_source import StackSource, source_from_request
from hearth.store import batch
from hearth.store import locks as lock_store
from hearth.store import resources as resource_store
from hearth.store import stacks as stack_store
from hearth.store.db import Session
from hearth.store.models import Stack as StackRow
from hearth.template.context import StaticFacade
from hearth.template.env_merge import merge_environments, patch_environment
from hearth.template.parameters import StackIdentity, check_immutable_parameters
from hearth.template.template import Template
from hearth.template.validate import parameter_types

LOG = logging.getLogger(__name__)


def _wrap_validation(exc: HearthError) -> HearthError:
    """Heat reports the faults found while validating a new stack as StackValidationFailed,
    except those its stack validation raises as their own types (a parameter with no value)."""
    if isinstance(exc, StackValidationFailed | RequestLimitExceeded | StackExists | Forbidden
                  | ResourceTypeUnavailable | UserParameterMissing):
        return exc
    return StackValidationFailed(str(exc))


class StackService(StackDeletes):
    """Create, update, delete and the other stack actions."""

    def __init__(self, core: EngineCore, actions: ActionManager) -> None:
        self.core = core
        self.actions = actions
        self.template_limits = core.template_limits

    def _identity(self, row: StackRow) -> dict[str, str]:
        return Identity(row.tenant or "", row.name, row.id).as_dict()

    def _bind(
        self, source: StackSource, tenant: str, name: str, stack_id: str,
        nodes: dict[str, Any] | None = None, depth: int = 0,
        facade: StaticFacade | None = None,
    ) -> BoundStack:
        return BoundStack(
            source,
            StackIdentity(tenant, name, stack_id),
            plugins=self.core.plugins,
            global_env=self.core.global_env,
            nodes=nodes,
            limits=self.core.template_limits,
            depth=depth,
            max_depth=self.core.limits.max_nested_stack_depth,
            facade=facade,
        )

    def _check_resource_count(self, bound: BoundStack) -> None:
        limit = self.core.limits.max_resources_per_stack
        section = bound.template.resources_section
        # A section that is no mapping is refused by validation, which says why.
        if limit != -1 and isinstance(section, Mapping) and len(section) > limit:
            raise RequestLimitExceeded("Maximum resources per stack exceeded.")

    def authorize_types(self, ctx: RequestContext, bound: BoundStack) -> None:
        """Heat's ``resource_types:*`` rules: e.g. only admins may use OS::Nova::Flavor."""
        policy = self.core.policy
        if policy is None:
            return
        # Each type once: the answer depends on the caller and the type only.
        checked: set[str] = set()
        section = bound.template.resources_section
        if not isinstance(section, Mapping):
            return  # validation says what is wrong with it
        for defn in section.values():
            if isinstance(defn, Mapping):
                type_name = defn.get("type", defn.get("Type"))
                if isinstance(type_name, str) and type_name not in checked:
                    policy.authorize_resource_type(ctx, type_name)
                    checked.add(type_name)

    def _hidden_params(self, bound: BoundStack) -> list[str]:
        return [name for name in bound.params.declared_names
                if bound.params.parameter(name).hidden]

    # --- create --------------------------------------------------------------------------

    def create_stack(
        self,
        ctx: RequestContext,
        stack_name: str,
        template: Mapping[str, Any] | str | None,
        params: Mapping[str, Any] | None = None,
        files: Mapping[str, Any] | None = None,
        args: Mapping[str, Any] | None = None,
        environment: Mapping[str, Any] | str | None = None,
        environment_files: Sequence[str] | None = None,
    ) -> dict[str, str]:
        check_stack_name(stack_name)
        opts = ActionArgs.parse(args)
        action = states.CREATE
        adopt_data: dict[str, Any] = {}
        if opts.adopt_stack_data is not None:
            if not self.core.limits.enable_stack_adopt:
                raise NotSupported("Stack Adopt")
            # Values the abandon sealed with this deployment's key are opened here.
            adopt_data = open_resources(_adopt_payload(opts.adopt_stack_data),
                                        self.core.encryptor)
            params = adopt_parameters(adopt_data, params, environment, self.core.encryptor)
            template = adopt_data.get("template")
            action = states.ADOPT
        with self.core.db.session() as session:
            if stack_store.name_taken(session, ctx.project_id, stack_name):
                raise StackExists(stack_name)
            limit = self.core.limits.max_stacks_per_tenant
            if not ctx.is_admin and limit >= 0:
                count = stack_store.count_top_level(session, ctx.project_id)
                if count >= limit:
                    raise RequestLimitExceeded(
                        f"You have reached the maximum stacks per tenant, {limit}. "
                        "Please delete some stacks."
                    )
        stack_id = new_uuid()
        request = StackRequest(template, params, files, environment, environment_files)
        self.core.preflight(request, outputs=True)
        bound = self.new_bound(ctx, stack_name, stack_id, request)
        disable_rollback = True if opts.disable_rollback is None else opts.disable_rollback
        creds_id = self.core.clouds.new_trust(ctx, bound.cloud_validation)
        try:
            self.store_and_launch(
                bound,
                NewStack(
                    tenant=ctx.project_id, username=ctx.username, tags=opts.tags or [],
                    timeout=opts.timeout_mins, disable_rollback=disable_rollback,
                    action=action, user_creds_id=creds_id,
                ),
                adopt_data,
            )
        except BaseException:
            if creds_id is not None:
                self.core.clouds.drop_trust(creds_id)
            raise
        return Identity(ctx.project_id, stack_name, stack_id).as_dict()

    def store_and_launch(
        self, bound: BoundStack, new: NewStack, adopt_data: dict[str, Any] | None = None,
        *, stored: Callable[[], None] | None = None,
    ) -> None:
        """Store a validated new stack (template, row, INIT resources), lock it, start it;
        ``stored`` is called once the store is committed."""
        source = bound.source
        stack_id, stack_name = bound.identity.stack_id, bound.identity.stack_name
        assert stack_id is not None
        spec = RunSpec(new.action, adopt_data=adopt_data or {},
                       rollback=not new.disable_rollback)
        # The run's traversal and graph go in with the stack: its run claims nothing.
        traversal_id = new_uuid()
        deps = traversal.stored_form(spec.to_json(), traversal.forward(bound.graph))

        def store(session: Session) -> tuple[int, dict[str, Any], Sequence[Any]]:
            if new.fences or new.writes:
                batch.apply(session.connection(), [*new.fences, *new.writes])
            if new.owner_id is None and stack_store.name_taken(session, new.tenant, stack_name):
                raise StackExists(stack_name)
            files_id = new.files_id
            if files_id is None:
                files_id = stack_store.store_files(session, source.files)
            template_id = stack_store.store_template(
                session, source.template, source.files, source.environment,
                self._hidden_params(bound), self.core.encryptor, files_id=files_id,
            )
            fields: dict[str, Any] = {
                "id": stack_id,
                "name": stack_name,
                "raw_template_id": template_id,
                "username": new.username,
                "tenant": new.tenant,
                "owner_id": new.owner_id,
                "root_stack_id": new.root_stack_id,
                "parent_resource_name": new.parent_resource_name,
                "user_creds_id": new.user_creds_id,
                "timeout": new.timeout,
                "disable_rollback": new.disable_rollback,
                "nested_depth": new.nested_depth,
                "current_traversal": traversal_id,
                "current_deps": deps,
            }
            # Stored in its action from the start, with the event a begun action has.
            started = started_reason(new.action)
            stack_store.create_stack(
                session, tags=new.tags, action=new.action, status=states.IN_PROGRESS,
                status_reason=started, **fields,
            )
            stack_event(session, stack_id, stack_name, new.action, states.IN_PROGRESS, started)
            root = new.root_stack_id or stack_id
            resource_store.insert_many(
                session,
                (
                    {
                        "uuid": new_uuid(),
                        "name": name,
                        "stack_id": stack_id,
                        "root_stack_id": root,
                        "action": states.INIT,
                        "status": states.COMPLETE,
                        "status_reason": "",
                        "resource_type": defn.type,
                        "requires": [],
                        "atomic_key": 0,
                    }
                    for name, defn in bound.resources.items()
                ),
            )
            locking.acquire(self.core, session, stack_id, stack_name, new.action)
            rows = resource_store.rows_of_stack(session, stack_id)
            return files_id, fields, rows

        # With the other stores of this moment (a tree's children come in bursts).
        files_id, fields, rows = self.core.grouped.run(store)
        if stored is not None:
            stored()
        # The run starts from what was written rather than reading it back (made once the
        # transaction has ended: SQLite has one writer at a time).
        loaded = loaded_stack.fresh(
            self.core.db, self.core.encryptor, fields=fields, template=source.template,
            files=source.files, files_id=files_id, environment=source.environment, rows=rows,
            facade=bound.facade, graph=bound.graph, bound=bound,
        )
        self.actions.launch(stack_id, spec, traversal_id=traversal_id, loaded=loaded)

    # --- update --------------------------------------------------------------------------

    def _new_source(self, req: StackRequest) -> StackSource:
        return source_from_request(
            req.template, params=req.params, files=req.files, environment=req.environment,
            environment_files=req.environment_files, global_env=self.core.global_env,
            limits=self.template_limits,
        )

    def new_bound(self, ctx: RequestContext, name: str, stack_id: str,
                  req: StackRequest) -> BoundStack:
        """A new stack's definition, validated as Heat validates before a create."""
        try:
            bound = self._bind(self._new_source(req), ctx.project_id, name, stack_id)
            self.authorize_types(ctx, bound)
            bound.cloud_validation = self.core.clouds.validation(ctx)
            bound.validate()
            self._check_resource_count(bound)
        except HearthError as exc:
            raise _wrap_validation(exc) from None
        return bound

    def _updated_source(
        self, session: Session, row: StackRow, req: StackRequest, opts: ActionArgs
    ) -> tuple[StackSource, StackSource]:
        """(current source, new source), with PATCH (``existing``) semantics when asked."""
        template, params, files = req.template, req.params, req.files
        environment, environment_files = req.environment, req.environment_files
        cur_tmpl, cur_files, cur_env = stack_store.load_template(
            session, row.raw_template_id, self.core.encryptor
        )
        current = StackSource(cur_tmpl, cur_files, cur_env)
        if not opts.existing:
            return current, self._new_source(req)
        new_files = {**cur_files, **{k: v for k, v in (files or {}).items() if isinstance(v, str)}}
        if template is None:
            # The stack's template, also after a failed update (Heat's convergence engine,
            # its default: the legacy one went back to the previous template instead).
            template = cur_tmpl
        request = source_from_request(
            template, params=params, files=new_files, environment=environment,
            environment_files=None, global_env=self.core.global_env,
            limits=self.template_limits,
        )
        env_doc = {k: v for k, v in request.environment.items() if k != "encrypted_param_names"}
        tmpl = Template(request.template, new_files)
        merge_environments(environment_files, new_files, env_doc,
                           parameter_types(tmpl, new_files))
        env = patch_environment(
            cur_env, env_doc, list(tmpl.parameters_section or {}), opts.clear_parameters,
            global_env=self.core.global_env,
        )
        return current, StackSource(request.template, new_files, env.env_as_dict())

    def stored_bound(self, session: Session, row: StackRow) -> BoundStack:
        """A stored stack's current definition, bound to its resources' state."""
        tmpl, files, env = stack_store.load_template(
            session, row.raw_template_id, self.core.encryptor
        )
        records = [ResourceRecord.from_row(r) for r in resource_store.of_stack(session, row.id)]
        nodes = {r.name: r.node_data() for r in records if r.replaced_by is None and r.exists}
        return self._bind(StackSource(tmpl, files, env), row.tenant or "", row.name, row.id,
                          nodes, row.nested_depth, stored_facade(session, row))

    def prepare_update(
        self, session: Session, row: StackRow, req: StackRequest, opts: ActionArgs,
        ctx: RequestContext | None = None,
    ) -> tuple[BoundStack, BoundStack]:
        """(current, new) definitions of an update, the new one validated."""
        if row.action == states.SUSPEND:
            raise NotSupported("Updating a stack when it is suspended")
        if row.action == states.DELETE:
            raise NotSupported("Updating a stack when it is deleting")
        current_src, new_src = self._updated_source(session, row, req, opts)
        records = [ResourceRecord.from_row(r) for r in resource_store.of_stack(session, row.id)]
        nodes = {
            r.name: r.node_data() for r in records
            if r.replaced_by is None and r.exists
        }
        tenant = row.tenant or ""
        facade = stored_facade(session, row)
        current = self._bind(current_src, tenant, row.name, row.id, nodes, row.nested_depth,
                             facade)
        new = self._bind(new_src, tenant, row.name, row.id, dict(nodes), row.nested_depth,
                         facade)
        self._check_resource_count(new)
        check_immutable_parameters(current.params, new.params)
        if row.owner_id is not None:
            # A child stack updated by its parent's action: no caller's token to check with.
            new.cloud_validation = self.core.clouds.stack_validation(row.id)
        elif ctx is not None:
            new.cloud_validation = self.core.clouds.validation(ctx)
        try:
            new.validate()
        except StackValidationFailed:
            raise
        except HearthError as exc:
            raise StackValidationFailed(str(exc)) from None
        return current, new

    def update_stack(
        self,
        ctx: RequestContext,
        stack_identity: Mapping[str, Any],
        template: Mapping[str, Any] | str | None,
        params: Mapping[str, Any] | None = None,
        files: Mapping[str, Any] | None = None,
        args: Mapping[str, Any] | None = None,
        environment: Mapping[str, Any] | str | None = None,
        environment_files: Sequence[str] | None = None,
        *,
        fences: Sequence[batch.Write] = (),
    ) -> dict[str, str]:
        """Store and begin (or supersede with) an update; ``fences``: what its transaction
        holds (a child's: its parent step's lock and claim)."""
        opts = ActionArgs.parse(args)
        req = StackRequest(template, params, files, environment, environment_files)
        self.core.preflight(req, outputs=True)
        with self.core.db.session() as session:
            if fences:
                batch.apply(session.connection(), fences)
            row = live_stack(session, ctx, stack_identity)
            _, new = self.prepare_update(session, row, req, opts, ctx)
            self.authorize_types(ctx, new)
            if (row.owner_id is None and new.cloud_validation is not None
                    and new.cloud_validation.used):
                # An update that first brings a resource of another service makes the trust.
                self.core.clouds.ensure_trust(ctx, row.root_stack_id or row.id)
            # A live engine's action in progress is superseded by this update (Heat's
            # convergence engine); otherwise the update takes the lock as usual.
            holder = supersede.lock_holder(self.core, self.actions, session, row)
            if holder is None:
                locking.acquire(self.core, session, row.id, row.name,
                                row.action or states.UPDATE)
            new_template_id = stack_store.store_template(
                session, new.source.template, new.source.files, new.source.environment,
                self._hidden_params(new), self.core.encryptor,
            )
            old_prev = row.prev_raw_template_id
            fields: dict[str, Any] = {
                "raw_template_id": new_template_id,
                "prev_raw_template_id": row.raw_template_id,
            }
            if opts.timeout_mins is not None or not opts.existing:
                fields["timeout"] = opts.timeout_mins if opts.timeout_mins else row.timeout
            if opts.disable_rollback is not None:
                fields["disable_rollback"] = opts.disable_rollback
            stack_store.set_fields(session, row.id, **fields)
            # A full update replaces the tags (none given: none kept); PATCH keeps them.
            if opts.tags is not None or not opts.existing:
                stack_store.set_tags(session, row, opts.tags or [])
            # A run still in progress may use it yet: it drops it when it ends (supersede).
            if old_prev is not None and old_prev != row.raw_template_id and holder is None:
                stack_store.delete_template(session, old_prev)
            rollback = not (
                opts.disable_rollback if opts.disable_rollback is not None
                else row.disable_rollback
            )
            begin_stack_action(session, row.id, row.name, states.UPDATE)
            identity = self._identity(row)
            spec = RunSpec(states.UPDATE, rollback=rollback)
            traversal_id = None
            if holder is not None:
                traversal_id = supersede.claim(session, row.id, spec)
                if supersede.lock_freed(self.core, session, row.id, holder):
                    holder = None
        if holder is None:
            self.actions.launch(row.id, spec, traversal_id=traversal_id)
        else:
            assert traversal_id is not None
            supersede.notify(self.core, self.actions, row.id, holder, traversal_id)
        return identity

    # --- simple actions ------------------------------------------------------------------

    def simple_action(
        self, ctx: RequestContext, stack_identity: Mapping[str, Any], action: str,
        *, fences: Sequence[batch.Write] = (),
    ) -> None:
        with self.core.db.session() as session:
            if fences:
                batch.apply(session.connection(), fences)
            row = live_stack(session, ctx, stack_identity)
            if action == states.RESUME and (row.action, row.status) not in (
                (states.SUSPEND, states.COMPLETE),
                (states.RESUME, states.FAILED),
                (states.RESUME, states.COMPLETE),
            ):
                raise NotSupported(f"Resuming a stack in state {row.action}_{row.status}")
            locking.acquire(self.core, session, row.id, row.name, row.action or action)
            begin_stack_action(session, row.id, row.name, action)
        self.actions.launch(row.id, RunSpec(action))

    def stack_suspend(self, ctx: RequestContext, stack_identity: Mapping[str, Any]) -> None:
        self.simple_action(ctx, stack_identity, states.SUSPEND)

    def stack_resume(self, ctx: RequestContext, stack_identity: Mapping[str, Any]) -> None:
        self.simple_action(ctx, stack_identity, states.RESUME)

    def stack_check(self, ctx: RequestContext, stack_identity: Mapping[str, Any]) -> None:
        self.simple_action(ctx, stack_identity, states.CHECK)

    def stack_cancel_update(
        self,
        ctx: RequestContext,
        stack_identity: Mapping[str, Any],
        cancel_with_rollback: bool = True,
    ) -> None:
        with self.core.db.session() as session:
            row = live_stack(session, ctx, stack_identity)
            state = (row.action, row.status)
            allowed = [(states.UPDATE, states.IN_PROGRESS)]
            if not cancel_with_rollback:
                allowed.append((states.CREATE, states.IN_PROGRESS))
            if state not in allowed:
                raise NotSupported(f"Cancelling update when stack is {row.action}_{row.status}")
            holder = locking.holder_alive(self.core, session, row.id)
            message = "cancel_with_rollback" if cancel_with_rollback else "cancel"
            if holder is not None and holder != self.core.engine_id:
                # (a delete accepted meanwhile stops the update anyway, and keeps its note)
                lock_store.post_message(session, row.id, message, unless_prefix=DELETE_PREFIX)
                return
        run = self.actions.get(row.id)
        if run is not None:
            run.request_cancel(rollback=cancel_with_rollback, by_user=True)


@dataclass(frozen=True)
class NewStack:
    """The stack row of a new stack, besides what its definition says."""

    tenant: str
    username: str | None
    action: str
    disable_rollback: bool
    timeout: int | None = None
    tags: list[str] = field(default_factory=list)
    owner_id: str | None = None
    root_stack_id: str | None = None
    nested_depth: int = 0
    parent_resource_name: str | None = None
    # The stored trust (user_creds row) of a root stack that uses other services.
    user_creds_id: int | None = None
    # A stored row of the stack's very files (its parent's), shared rather than copied.
    files_id: int | None = None
    # What its store holds (a child's: its parent step's lock and claim), so that an engine
    # that lost its parent's step stores no second child beside the one its successor made.
    fences: Sequence[batch.Write] = ()
    # Writes committed with its store (a child's: its owner's step's IN_PROGRESS state and
    # physical id, see ``ResourceTask._carry``).
    writes: Sequence[batch.Write] = ()


def _adopt_payload(data: Any) -> dict[str, Any]:
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError as exc:
            raise Invalid(f"Invalid adopt data: {exc}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("template"), Mapping):
        raise Invalid("Invalid adopt data: it must be a JSON object with a template")
    return dict(data)
