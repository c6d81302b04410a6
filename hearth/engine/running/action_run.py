"""One stack action from start to end: its graph, its units of work, its final state.

An ``ActionRun`` is built from what is stored (stack row, template, resource rows), so the same
code starts an action and continues one an engine left behind. The stack lock is held for the
whole run; the final state, the outputs and the lock's release are written together.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from hearth.common import logs, metrics
from hearth.common.ids import new_uuid
from hearth.engine import states
from hearth.engine.core import EngineCore
from hearth.engine.plugin_access.cloud_access import service_type_of
from hearth.engine.plugin_access.plugin_context import StackScope
from hearth.engine.running import loaded_stack, supersede, traversal
from hearth.engine.running.loaded_stack import LoadedStack
from hearth.engine.running.parent import Parent
from hearth.engine.running.records import ResourceRecord
from hearth.engine.running.resource_task import ResourceTask
from hearth.engine.running.run_end import RunEnd
from hearth.engine.running.run_spec import (
    RESOURCE_ACTION,
    EndedState,
    RunSpec,
    outcome,
)
from hearth.engine.running.scheduler import (
    GraphResult,
    GraphRunner,
    StopSignal,
)
from hearth.engine.running.update_plan import ResourcePlan, current_rows, plan_resource
from hearth.engine.stack_builder import BoundStack
from hearth.engine.stack_source import StackSource
from hearth.resources.stack_resource import StackResource
from hearth.store import batch
from hearth.store import resources as resource_store
from hearth.store.db import Session
from hearth.store.outage import is_database_outage
from hearth.template.functions import base
from hearth.template.parameters import StackIdentity

if TYPE_CHECKING:
    from hearth.resources.base import Resource

LOG = logging.getLogger(__name__)

T = TypeVar("T")

class ActionRun(RunEnd):
    """A stack action in progress (see the module doc)."""

    def __init__(
        self,
        core: EngineCore,
        stack_id: str,
        spec: RunSpec,
        *,
        traversal_id: str | None = None,
        resuming: bool = False,
        on_finish: Callable[[ActionRun], None] | None = None,
        lock_owner: str | None = None,
        loaded: LoadedStack | None = None,
    ) -> None:
        """``loaded``: the stack as its engine just stored it (read from the database
        otherwise)."""
        self.core = core
        # The engine whose stack lock fences this run's writes: this one, unless the run
        # only carries out steps for another engine's run (``step_worker``).
        self.lock_owner = lock_owner or core.engine_id
        self.stack_id = stack_id
        self.spec = spec
        self.action = spec.delete_as or spec.action
        self.traversal_id = traversal_id or new_uuid()
        # A traversal handed on (takeover, rollback, newer update): the stack's own until then.
        self.given_traversal = traversal_id is not None
        self.superseded = False
        self.next_traversal: str | None = None
        self.resuming = resuming
        self.stop = StopSignal()
        self.tasks: dict[traversal.Node, ResourceTask] = {}
        # Each node's place on the critical path (requests to a busy service go longest first).
        self.chain_lengths: dict[traversal.Node, int] = {}
        self.hook_events: dict[str, asyncio.Event] = {}
        # Set to poll a resource at once (its child stack ended in this engine).
        self.poll_events: dict[str, asyncio.Event] = {}
        self._closings: set[asyncio.Future[Any]] = set()
        self.on_finish = on_finish
        # Set when another action waits for this one: the lock is handed over, not released.
        self.keep_lock = False
        self.next_spec: RunSpec | None = None
        self.cancel_rollback = False
        # Set when a cancel already wrote the stack's FAILED state and event.
        self.failed_early = False
        # Set when this run stops at once and writes nothing more, because another engine
        # took the stack over (``_lose_lock``) or the database went away
        # (``_lose_database``: this engine carries the action on once it answers).
        self.left_off = False
        self.database_lost = False
        self.delete_follows = False
        self.delete_by: str | None = None
        self.abort_why = ""
        # What the run's end wrote of the stack; None when it wrote no state (not ended,
        # superseded, or a cancel wrote it early).
        self.ended: EndedState | None = None
        self.fence = batch.LockHeld(stack_id, self.lock_owner)
        self.runner: GraphRunner[traversal.Node] | None = None
        self._load(loaded)

    # --- loading -------------------------------------------------------------------------

    def _load(self, loaded: LoadedStack | None) -> None:
        core = self.core
        if loaded is None:
            loaded = loaded_stack.read(core.db, core.encryptor, self.stack_id)
        self.stack_name = loaded.name
        self.tenant = loaded.tenant
        self.username = loaded.username
        self.depth = loaded.depth
        self.root_stack_id = loaded.root_stack_id
        self.owner_id = loaded.owner_id
        self.parent_resource = loaded.parent_resource
        self.disable_rollback = loaded.disable_rollback
        self.timeout_mins = loaded.timeout_mins
        self.template_id = loaded.template_id
        self.prev_template_id = loaded.prev_template_id
        self.loaded_traversal = loaded.traversal_id
        self.stored_files = loaded.stored_files
        self.traversal_stored = loaded.traversal_stored
        self.data = loaded.data
        self.properties = loaded.properties
        # Every row of the stack by id (replaced and removed ones too).
        self.rows = {r.id: r for r in loaded.rows}
        self.old_templates = {r.current_template_id for r in loaded.rows} - {
            None, self.template_id}
        self.bound = loaded.bound or BoundStack(
            StackSource(loaded.template, loaded.files, loaded.environment),
            StackIdentity(self.tenant, self.stack_name, self.stack_id),
            plugins=core.plugins, global_env=core.global_env,
            limits=core.template_limits, depth=self.depth,
            max_depth=core.limits.max_nested_stack_depth, facade=loaded.facade,
        )
        if loaded.graph is not None:
            self.bound.graph = loaded.graph
        # What every resource's plugin context knows of this stack.
        self.scope = StackScope(
            self.stack_name, self.tenant, self.action, self.bound.env,
            self.bound.source.files, self.timeout_mins, self.bound.update_policy,
        )
        self.current = self._current_rows()
        for name, record in self.current.items():
            self.bound.nodes[name] = record.node_data()

    def _current_rows(self) -> dict[str, ResourceRecord]:
        return current_rows(
            self.rows.values(), update_like=self.is_update_like,
            keep_deleted=self.action == states.DELETE, template_id=self.template_id,
            prev_template_id=self.prev_template_id, traversal_id=self.traversal_id,
        )

    @property
    def abandoning(self) -> bool:
        return self.spec.abandon

    @property
    def resource_action(self) -> str:
        return RESOURCE_ACTION[self.spec.action]

    # --- what tasks ask -------------------------------------------------------------------

    def parent(self) -> Parent:
        """This stack, as the parent of its resources' child stacks."""
        return Parent(self.stack_id, self.tenant, self.username, self.depth, self.root_stack_id,
                      self.stored_files)

    def plugin_class(self, type_name: str, name: str) -> type[Resource]:
        """The class of a resource of this stack (provider templates resolved; the stack's
        definition finds it once)."""
        return self.bound.stored_class(type_name, name)

    def resource_type(self, name: str) -> str:
        """The type the template gives resource ``name`` (found once by the definition)."""
        return self.bound.resource_type(name)

    def update_plan(self, record: ResourceRecord, name: str,
                    replace_failed: Callable[[], bool] | None = None) -> ResourcePlan:
        new_def = self.bound.frozen_definition(name)
        old_props = self.properties.get(record.prop_data_id)
        old_def = dict(record.definition or {})
        if old_def:
            old_def["properties"] = old_props
        return plan_resource(
            lambda type_name: self.bound.class_of(type_name, name),
            name, record.state, old_def, old_props, new_def,
            has_child=record.physical_id is not None, replace_failed=replace_failed,
        )

    def make_replacement(self, record: ResourceRecord, name: str,
                         decided: Sequence[batch.Write] = ()) -> ResourceRecord:
        """A new row for ``name`` that replaces ``record`` (the old one is cleaned up later).

        ``decided`` (the old row's "requires replacement") is committed with the link to the
        new row: an engine that takes the traversal over finds both or neither, so it never
        creates the replacement without the old row's event, nor replaces twice."""
        with self.core.db.session() as session:
            self.check_lock(session)
            batch.apply(session.connection(), decided)
            new = self._add_row(session, name, record.resource_type, replaces=record.id,
                                traversal_id=self.traversal_id,
                                current_template_id=self.template_id)
            resource_store.set_fields(session, record.id, replaced_by=new.id)
        record.replaced_by = new.id
        return new

    def stored_definition(self, name: str) -> dict[str, Any]:
        frozen = self.bound.frozen_definition(name)
        frozen.pop("properties", None)
        return frozen

    def external_id(self, name: str) -> str | None:
        snippet = self.bound.resources[name].external_id
        if snippet is None:
            return None
        value = base.resolve(snippet, self.bound.definition)
        return None if value is None else str(value)

    def adopt_data(self, name: str) -> dict[str, Any]:
        resources = self.spec.adopt_data.get("resources") or {}
        data = resources.get(name) or {}
        return dict(data) if isinstance(data, Mapping) else {}

    # --- the run -------------------------------------------------------------------------

    def graph(self) -> dict[traversal.Node, set[traversal.Node]]:
        action = self.spec.action
        if action in (states.CREATE, states.ADOPT):
            return traversal.forward(self.bound.graph)
        if action == states.DELETE:
            return traversal.reverse_rows(self.rows.values())
        if action == states.SUSPEND:
            rows = list(self.current.values())
            return traversal.named(traversal.reverse_rows(rows), rows)
        if action in (states.RESUME, states.CHECK, states.SNAPSHOT):
            nodes = traversal.stored_forward(self.current.values())
            # Resources never created stored no requirements: the template's order holds
            # for them (a check stops before what depends on a failure).
            for name, deps in self.bound.graph.items():
                node = traversal.ResourceNode(name)
                if node in nodes:
                    nodes[node] |= {
                        dep for dep in map(traversal.ResourceNode, deps) if dep in nodes
                    }
            return nodes
        kept = {name: self.current[name] for name in self.bound.resources if name in self.current}
        leftovers = [
            r for r in self.rows.values()
            if self.current.get(r.name) is not r or r.name not in self.bound.resources
        ]
        return traversal.update(self.bound.graph, kept, leftovers)

    def _known_record(self, node: traversal.Node) -> ResourceRecord | None:
        if isinstance(node, traversal.RowNode):
            return self.rows.get(node.row_id)
        return self.current.get(node.name)

    def _record_for(self, node: traversal.Node) -> ResourceRecord:
        if isinstance(node, traversal.RowNode):
            return self.rows[node.row_id]
        found = self.current.get(node.name)
        return found if found is not None else self._new_row(node.name)

    def _new_row(self, name: str, rtype: str | None = None, **extra: Any) -> ResourceRecord:
        """A new INIT row for ``name``, current from now on."""
        with self.core.db.session() as session:
            self.check_lock(session)
            return self._add_row(session, name, rtype, **extra)

    def _add_row(self, session: Session, name: str, rtype: str | None = None,
                 **extra: Any) -> ResourceRecord:
        row = resource_store.add(
            session,
            name=name,
            stack_id=self.stack_id,
            root_stack_id=self.root_stack_id,
            action=states.INIT,
            status=states.COMPLETE,
            status_reason="",
            resource_type=rtype or self.bound.resources[name].type,
            requires=[],
            **extra,
        )
        record = ResourceRecord.from_row(row)
        self.rows[record.id] = record
        self.current[name] = record
        return record

    def _node_action(self, node: traversal.Node) -> str:
        if isinstance(node, traversal.RowNode):
            return states.DELETE
        return self.resource_action

    async def run(self) -> None:
        """Drive the whole action; never raises (failures end as the stack's state)."""
        logs.bind_stack(self.stack_id)
        try:
            await self._run()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if is_database_outage(exc):
                self._lose_database(exc)
            elif not self.left_off:
                try:
                    await self.core.workers.call(
                        self._finish, False, f"{type(exc).__name__}: {exc}", None
                    )
                except Exception as failed:
                    if not is_database_outage(failed):
                        raise
                    self._lose_database(failed)
        finally:
            if self.on_finish is not None:
                self.on_finish(self)

    async def _run(self) -> None:
        workers = self.core.workers
        nodes = await self._prepare()
        self.chain_lengths = traversal.chain_lengths(nodes)
        done_before = traversal.done_before(
            nodes, self.rows, self.current, self.traversal_id, self.resource_action
        ) if self.resuming else set()
        loop = asyncio.get_running_loop()
        timeout = (self.timeout_mins * 60) if self.timeout_mins else (
            self.core.limits.stack_action_timeout
        )
        deadline = loop.time() + timeout
        runner: GraphRunner[traversal.Node] = GraphRunner(
            nodes,
            self._run_node,
            already_done=done_before,
            error_wait_time=float(self.core.limits.error_wait_time),
            grace_period=self._grace,
            deadline=deadline,
            stop=self.stop,
            aggregate_failures=self.spec.action == states.DELETE,
            start_after_failures=self.spec.action == states.CHECK,
            observe=self._observe_step,
        )
        self.runner = runner
        self.core.messages.watch(self.stack_id, self._on_message)
        try:
            result = await runner.run()
        finally:
            self.core.messages.unwatch(self.stack_id, self._on_message)
        if (result.success and self.is_update_like and not self.superseded
                and not self.left_off):
            result = await self._cleanup_replaced(deadline)
        # The stack's final state comes after every failed or aborted resource's own.
        await asyncio.gather(*self._closings, return_exceptions=True)
        partial_check = self.action == states.CHECK and any(
            not self.plugin_class(t.record.resource_type, t.name).has_handler("check")
            for t in self.tasks.values()
        )
        success, reason = outcome(
            self.action, self.resource_action, result, self.stop.message, partial_check
        )
        if self.left_off:
            return
        await workers.call(self._finish, success, reason, result.stop)

    def _observe_step(self, node: traversal.Node, outcome: str, seconds: float) -> None:
        metrics.resource_step(self._node_action(node), outcome, seconds)

    def _grace(self, node: traversal.Node) -> float:
        task = self.tasks.get(node)
        return task.grace_period() if task is not None else 0.0

    async def _prepare(self) -> dict[traversal.Node, set[traversal.Node]]:
        if self.traversal_stored:
            # Stored with the stack a moment ago (a create, a delete): a newer update since
            # then is told to this run (``supersede``), and the run's end sees it in any
            # case. Its nodes are made from the definition's graph, which came with it, or
            # from the rows: no template work, so here on the loop.
            return self.graph()
        nodes = await self.core.workers.call(self.graph)
        # On disk before any resource starts (another engine resumes from it), unless a newer
        # update owns the stack by now: then nothing starts here.
        deps = traversal.stored_form(self.spec.to_json(), nodes)
        if not await self.core.workers.call(supersede.take_traversal, self, deps):
            self.superseded = True
            return {}
        return nodes

    async def _run_node(self, node: traversal.Node) -> None:
        workers = self.core.workers
        known = self._known_record(node)
        try:
            record = known if known is not None else await workers.call(self._record_for, node)
        except batch.LockLost:
            self._lose_lock()
            raise
        except Exception as exc:
            if is_database_outage(exc):
                self._lose_database(exc)
            raise
        task = self.task_for(node, record)
        self.tasks[node] = task
        remote = self.core.remote_steps
        offered = task.waits or (not task.inline and self.core.settings.spread_nested)
        if offered and remote is not None and not self.is_update_like:
            # Run here while this engine has room, offered to every engine beyond that. A
            # nested stack's step may go too: its child is made and run where the step runs,
            # so a tree of stacks spreads over the engines.
            if remote.busy() and await remote.others_live():
                await remote.run(self, node, task)
                return
            with remote.counted():
                await self.execute(node, task)
            return
        await self.execute(node, task)

    def task_for(self, node: traversal.Node, record: ResourceRecord) -> ResourceTask:
        task = ResourceTask(self, record, self._node_action(node))
        task.inline = self._runs_inline(task)
        task.service = None if task.inline else self._service_of(task)
        task.waits = not task.inline and self._waits_elsewhere(task)
        task.may_carry = (not task.inline and task.action in (states.CREATE, states.ADOPT)
                          and self._makes_children(task))
        task.priority = self.chain_lengths.get(node, 0)
        return task

    def _makes_children(self, task: ResourceTask) -> bool:
        try:
            return issubclass(self._task_class(task), StackResource)
        except Exception:  # reported by the step itself
            return False

    def _runs_inline(self, task: ResourceTask) -> bool:
        """Steps run on the loop for types whose handlers never block. Updates always run in
        a worker: planning one may read and write the database."""
        if self.is_update_like:
            return False
        try:
            cls = self._task_class(task)
        except Exception:  # reported by the step itself, in a worker
            return False
        return not cls.handlers_block

    def _waits_elsewhere(self, task: ResourceTask) -> bool:
        """Whether the type's steps run in the engine's pool of waiting threads. Updates
        plan in the database first: the small pool."""
        if self.is_update_like:
            return False
        try:
            return self._task_class(task).handlers_wait_elsewhere
        except Exception:  # reported by the step itself
            return False

    def _service_of(self, task: ResourceTask) -> str | None:
        try:
            return service_type_of(self._task_class(task))
        except Exception:  # reported by the step itself
            return None

    def _task_class(self, task: ResourceTask) -> type[Resource]:
        """The plugin class a task's steps run: the template's type for a new resource,
        the stored row's otherwise."""
        type_name = task.record.resource_type
        if task.action in (states.CREATE, states.ADOPT) and task.name in self.bound.resources:
            type_name = self.resource_type(task.name)
        return self.plugin_class(type_name, task.name)

    def requires_ids(self, name: str) -> list[int]:
        """Row ids of what ``name`` needs, stored with it to order a later delete."""
        deps = self.bound.graph.get(name, set())
        return [self.current[d].id for d in sorted(deps) if d in self.current]

    async def _cleanup_replaced(self, deadline: float) -> GraphResult[traversal.Node]:
        """Second phase of an update: delete the rows replaced in the first."""
        replaced = [
            r for r in self.rows.values()
            if r.replaced_by is not None and r.name in self.current
            and self.current[r.name].id != r.id
        ]
        nodes = traversal.reverse_rows(replaced)
        runner: GraphRunner[traversal.Node] = GraphRunner(
            nodes,
            self._run_node,
            error_wait_time=float(self.core.limits.error_wait_time),
            grace_period=self._grace,
            deadline=deadline,
            stop=self.stop,
            observe=self._observe_step,
        )
        self.runner = runner
        return await runner.run()
