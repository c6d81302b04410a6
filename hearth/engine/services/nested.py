"""Child stacks, made and driven on behalf of the resources that own them.

A nested stack is a real stack: its own row (``owner_id`` the parent, ``root_stack_id`` the
top of the tree, ``nested_depth`` one more than the parent's), its own resources, events and
lock, run by the same action machinery as any stack. The owning resource only starts actions
here and polls the child's state (``hearth.resources.nested``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from hearth.common.context import RequestContext
from hearth.common.errors import (
    EntityNotFound,
    HearthError,
    RequestLimitExceeded,
    StackValidationFailed,
)
from hearth.common.ids import new_uuid
from hearth.engine import states
from hearth.engine.core import EngineCore
from hearth.engine.running import locking
from hearth.engine.running.actions import ActionManager
from hearth.engine.running.messages import DELETE_PREFIX
from hearth.engine.running.parent import Parent
from hearth.engine.running.run_spec import RunSpec
from hearth.engine.running.stack_state import begin_stack_action
from hearth.engine.services.stacks import NewStack, StackService
from hearth.engine.stack_builder import BoundStack
from hearth.engine.stack_source import StackSource
from hearth.resources.nested import ChildDefinition, NestedMember, NestedState
from hearth.store import batch, queries
from hearth.store import events as event_store
from hearth.store import locks as lock_store
from hearth.store import resources as resource_store
from hearth.store import stacks as stack_store
from hearth.template.context import StaticFacade
from hearth.template.parameters import StackIdentity

# Given a new child's id: writes its store commits too, and what to call once it has.
Carry = Callable[[str], tuple[Sequence[batch.Write], Callable[[], None]]]


class _Brief(NamedTuple):
    id: str
    name: str
    tenant: str | None
    username: str | None
    action: str | None


class NestedStackService:
    """What the engine does for child stacks (one per engine)."""

    def __init__(self, core: EngineCore, actions: ActionManager, stacks: StackService) -> None:
        self.core = core
        self.actions = actions
        self.stacks = stacks

    def for_resource(
        self, parent: Parent, resource_name: str, child_name: str,
        facade: Callable[[], StaticFacade | None] = lambda: None,
        *, taking_over: bool = False, new_resource: bool = False,
        fences: Callable[[], Sequence[batch.Write]] = tuple,
        carry: Carry | None = None,
    ) -> ChildStacks:
        """The child stacks of one resource; ``taking_over`` when the resource's action is
        carried on from an engine that died in it (its child may be acting already);
        ``new_resource`` when the resource was never acted on (it has no child yet);
        ``fences``: what the child's store, update or other action holds as it begins
        (those of the resource's step; a delete, which ends the same whoever runs it, does
        not); ``carry``: the step's writes a new child's store commits (see ``create``)."""
        return ChildStacks(self, parent, resource_name, child_name, facade, taking_over,
                           new_resource, fences, carry)

    def context(self, tenant: str, username: str | None = None) -> RequestContext:
        # Child stacks act for the stack's owner; the parent's request was authorized already.
        return RequestContext(
            project_id=tenant, username=username or "", roles=("admin",), is_admin=True
        )

    # --- create ----------------------------------------------------------------------------

    def create(
        self,
        parent: Parent,
        resource_name: str,
        name: str,
        child: ChildDefinition,
        timeout_mins: int | None,
        adopt_data: Mapping[str, Any] | None,
        facade: StaticFacade | None = None,
        *,
        may_exist: bool = True,
        fences: Sequence[batch.Write] = (),
        carry: Carry | None = None,
    ) -> str:
        """The new child's id; ``may_exist``: the resource was acted on before, so its child
        may be there already (a create carried on after its engine died), and is used. The
        child is stored only while ``fences`` hold (``batch.LockLost``, ``ClaimLost``), and
        with the writes ``carry`` gives for its id (its owner's step's), whose second part
        is called once they are committed."""
        limits = self.core.limits
        if may_exist:
            with self.core.db.session(readonly=True) as session:
                existing = stack_store.find_child_id(session, parent.stack_id, name)
            if existing is not None:
                return existing
        if parent.depth >= limits.max_nested_stack_depth:
            raise RequestLimitExceeded(
                f"Recursion depth exceeds {limits.max_nested_stack_depth}."
            )
        stack_id = new_uuid()
        source = StackSource(
            dict(child.template), dict(child.files), child.environment.env_as_dict()
        )
        bound = BoundStack(
            source,
            StackIdentity(parent.tenant, name, stack_id),
            plugins=self.core.plugins,
            global_env=self.core.global_env,
            limits=self.core.template_limits,
            depth=parent.depth + 1,
            max_depth=limits.max_nested_stack_depth,
            facade=facade,
        )
        bound.cloud_validation = self.core.clouds.stack_validation(parent.stack_id)
        try:
            bound.validate()
        except (StackValidationFailed, RequestLimitExceeded):
            raise
        except HearthError as exc:
            raise StackValidationFailed(str(exc)) from None
        self._check_tree_size(parent, len(bound.resources))
        action = states.ADOPT if adopt_data else states.CREATE
        carried, committed = carry(stack_id) if carry is not None else ((), None)
        self.stacks.store_and_launch(
            bound,
            NewStack(
                tenant=parent.tenant,
                username=parent.username,
                action=action,
                # The parent decides about rollback, for the whole tree.
                disable_rollback=True,
                timeout=timeout_mins,
                owner_id=parent.stack_id,
                root_stack_id=parent.root_stack_id,
                nested_depth=parent.depth + 1,
                parent_resource_name=resource_name,
                files_id=parent.files_id_for(source.files),
                fences=fences,
                writes=carried,
            ),
            dict(adopt_data or {}),
            stored=committed,
        )
        return stack_id

    def _check_tree_size(self, parent: Parent, adding: int) -> None:
        """``max_resources_per_stack`` counts the whole tree: one indexed count, no walk."""
        limit = self.core.limits.max_resources_per_stack
        if limit == -1:
            return
        with self.core.db.session(readonly=True) as session:
            count = resource_store.count_in_tree(session, parent.root_stack_id)
        if count + adding > limit:
            raise RequestLimitExceeded("Maximum resources per stack exceeded.")

    # --- other actions ---------------------------------------------------------------------

    def _row(self, stack_id: str) -> _Brief | None:
        with self.core.db.session(readonly=True) as session:
            row = stack_store.stack_brief(session, stack_id)
        return None if row is None else _Brief(*row)

    def _outputs(self, stack_id: str) -> list[Any]:
        ended = self.actions.take_ended_outputs(stack_id)
        if ended is not None:
            return ended  # its run just ended here: what it wrote, without reading it back
        with self.core.db.session(readonly=True) as session:
            stored = stack_store.stack_outputs(session, stack_id)
        return stored if isinstance(stored, list) else []

    def _identity(self, row: _Brief) -> dict[str, str]:
        return {"tenant": row.tenant or "", "stack_name": row.name, "stack_id": row.id,
                "path": ""}

    def under_way(self, stack_id: str, action: str) -> bool:
        """Whether the child is in ``action`` already: a dead engine started it, and it goes
        on (the child is taken over as any stack is) rather than being started again, which
        would fail on its lock or cancel it."""
        with self.core.db.session(readonly=True) as session:
            found = stack_store.stack_state(session, stack_id)
        return found is not None and found[:2] == (action, states.IN_PROGRESS)

    def updated_since(self, stack_id: str, parent_id: str, resource_name: str) -> bool:
        """Whether the child's last update, over by now, began after the parent's resource
        began its update: the dead engine's handler started it and another engine ran it to
        its end (in a cluster the child's engine may outlive its parent's), so the parent
        takes its outcome rather than updating the child again."""
        with self.core.db.session(readonly=True) as session:
            child = stack_store.stack_last_action(session, stack_id)
            if child is None:
                return False
            action, status, updated_at = child
            if action != states.UPDATE or status == states.IN_PROGRESS or updated_at is None:
                return False
            began = event_store.last_time(
                session, parent_id, resource_name, states.UPDATE, states.IN_PROGRESS
            )
        return began is not None and updated_at >= began

    def update(
        self, stack_id: str, child: ChildDefinition, timeout_mins: int | None,
        fences: Sequence[batch.Write] = (),
    ) -> None:
        """Update the child to ``child``, begun only while ``fences`` hold."""
        row = self._row(stack_id)
        if row is None:
            raise StackValidationFailed(f"Nested stack {stack_id} not found")
        args: dict[str, Any] = {"disable_rollback": True}
        if timeout_mins:
            args["timeout_mins"] = timeout_mins
        self.stacks.update_stack(
            self.context(row.tenant or "", row.username),
            self._identity(row),
            dict(child.template),
            files=dict(child.files),
            args=args,
            environment=child.environment.env_as_dict(),
            fences=fences,
        )

    def delete(self, stack_id: str, abandon: bool) -> None:
        if not abandon:
            try:
                # The child acts for its owner, as the context says: no tenant to match.
                self.stacks.delete_stack(self.context(""), {"stack_id": stack_id})
            except EntityNotFound:
                pass  # gone already
            return
        row = self._row(stack_id)
        if row is None:
            return
        with self.core.db.session() as session:
            locking.acquire(self.core, session, row.id, row.name, row.action or states.DELETE)
            begin_stack_action(session, row.id, row.name, states.DELETE)
        self.actions.launch(row.id, RunSpec(states.DELETE, abandon=True))

    def act(self, stack_id: str, action: str, fences: Sequence[batch.Write] = ()) -> None:
        """Suspend, resume or check the child, begun only while ``fences`` hold."""
        row = self._row(stack_id)
        if row is None:
            raise StackValidationFailed(f"Nested stack {stack_id} not found")
        self.stacks.simple_action(
            self.context(row.tenant or "", row.username), self._identity(row), action,
            fences=fences,
        )

    def cancel(self, stack_id: str) -> None:
        run = self.actions.get(stack_id)
        if run is not None:
            run.request_cancel(rollback=False, drain=False)
            return
        with self.core.db.session() as session:
            holder = locking.holder_alive(self.core, session, stack_id)
            if holder is not None and holder != self.core.engine_id:
                lock_store.post_message(session, stack_id, "halt", unless_prefix=DELETE_PREFIX)

    # --- reads -----------------------------------------------------------------------------

    def runs_here(self, stack_id: str) -> bool:
        """Whether the child's run goes on in this engine: its end here wakes the poll of
        the resource that owns it (``ActionManager``)."""
        return self.actions.get(stack_id) is not None

    def state(self, stack_id: str) -> NestedState | None:
        run = self.actions.get(stack_id)
        if run is not None:
            # Running here: not done yet, and its end wakes the parent's poll.
            return NestedState(run.action, states.IN_PROGRESS, "")
        ended = self.actions.take_ended(stack_id)
        if ended is not None:
            # Its run just ended here: what it wrote, without reading it back.
            return None if ended.state is None else NestedState(*ended.state)
        with self.core.db.session(readonly=True) as session:
            found = stack_store.stack_state(session, stack_id)
        return None if found is None else NestedState(*found)

    def outputs(self, stack_id: str) -> dict[str, Any]:
        return {
            str(o.get("output_key")): o.get("output_value")
            for o in self._outputs(stack_id) if isinstance(o, Mapping)
        }

    def output_errors(self, stack_id: str) -> dict[str, str]:
        return {
            str(o.get("output_key")): str(o["output_error"])
            for o in self._outputs(stack_id) if isinstance(o, Mapping) and o.get("output_error")
        }

    def members(self, stack_id: str) -> list[NestedMember]:
        with self.core.db.session(readonly=True) as session:
            rows = queries.current_resources(session, stack_id)
            out = []
            for r in rows:
                cached = r.attr_data if isinstance(r.attr_data, Mapping) else {}
                attrs = cached.get("attrs")
                out.append(NestedMember(
                    name=r.name,
                    physical_id=r.physical_resource_id,
                    reference=cached.get("ref", r.physical_resource_id),
                    action=r.action or "",
                    status=r.status or "",
                    attributes=dict(attrs) if isinstance(attrs, Mapping) else {},
                ))
            return out

    def current_template(self, stack_id: str) -> tuple[dict[str, Any], dict[str, str]]:
        """The child's current template and files ({} and {} once it is gone)."""
        with self.core.db.session(readonly=True) as session:
            row = stack_store.get_stack(session, stack_id, show_deleted=False)
            if row is None:
                return {}, {}
            template, files, _ = stack_store.load_template(session, row.raw_template_id)
            return template, files


class ChildStacks:
    """``NestedStacks`` for one resource: its child is created under its stack."""

    def __init__(
        self, service: NestedStackService, parent: Parent, resource_name: str, child_name: str,
        facade: Callable[[], StaticFacade | None], taking_over: bool = False,
        new_resource: bool = False, fences: Callable[[], Sequence[batch.Write]] = tuple,
        carry: Carry | None = None,
    ) -> None:
        self._facade = facade
        self._fences = fences
        self._carry = carry
        self._taking_over = taking_over
        self._new_resource = new_resource
        self._service = service
        self._parent = parent
        self._resource = resource_name
        self._child_name = child_name

    def create(
        self,
        child: ChildDefinition,
        *,
        timeout_mins: int | None = None,
        adopt_data: Mapping[str, Any] | None = None,
    ) -> str:
        return self._service.create(
            self._parent, self._resource, self._child_name, child, timeout_mins, adopt_data,
            self._facade(), may_exist=not self._new_resource, fences=self._fences(),
            carry=self._carry,
        )

    def _joins(self, stack_id: str, action: str) -> bool:
        if not self._taking_over:
            return False
        joins = self._service.under_way(stack_id, action) or (
            action == states.UPDATE
            and self._service.updated_since(stack_id, self._parent.stack_id, self._resource)
        )
        if joins:
            # Another engine runs (or ran) that action: an end an earlier action of the
            # child left in this engine is not its outcome.
            self._service.actions.forget_ended(stack_id)
        return joins

    def update(
        self, stack_id: str, child: ChildDefinition, *, timeout_mins: int | None = None
    ) -> None:
        if not self._joins(stack_id, states.UPDATE):
            self._service.update(stack_id, child, timeout_mins, self._fences())

    def delete(self, stack_id: str, *, abandon: bool = False) -> None:
        if not self._joins(stack_id, states.DELETE):
            self._service.delete(stack_id, abandon)

    def act(self, stack_id: str, action: str) -> None:
        if not self._joins(stack_id, action):
            self._service.act(stack_id, action, self._fences())

    def cancel(self, stack_id: str) -> None:
        self._service.cancel(stack_id)

    def state(self, stack_id: str) -> NestedState | None:
        return self._service.state(stack_id)

    def outputs(self, stack_id: str) -> dict[str, Any]:
        return self._service.outputs(stack_id)

    def output_errors(self, stack_id: str) -> dict[str, str]:
        return self._service.output_errors(stack_id)

    def members(self, stack_id: str) -> list[NestedMember]:
        return self._service.members(stack_id)

    def template(self, stack_id: str) -> dict[str, Any]:
        return self._service.current_template(stack_id)[0]

    def template_files(self, stack_id: str) -> dict[str, str]:
        return self._service.current_template(stack_id)[1]

