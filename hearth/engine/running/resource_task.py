"""One unit of work: bring one resource through one action of one traversal.

A task runs as a few short steps: ``start`` (hooks, state IN_PROGRESS), the plugin's
``handle_<action>``, ``poll`` (``check_<action>_complete``, repeated by the driver with backoff)
and ``finish`` (state COMPLETE, attributes cached for dependants). A step does not write: it
lists its writes (``self.writes``), and the driver commits them before anything follows the
step (the handler only runs once IN_PROGRESS is on disk), so that another engine can carry on.
Steps run in a worker thread, or on the engine's loop when the plugin's handlers never block.
What an update does to the resource is decided in ``update_decision``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hearth.clients.errors import ResourceInError
from hearth.common.errors import NotSupported
from hearth.engine import states
from hearth.engine.plugin_access.plugin_context import CancelFlag, EngineResourceContext
from hearth.engine.running.attribute_cache import cached_attributes, jsonable
from hearth.engine.running.records import ResourceRecord, event_write, state_writes
from hearth.engine.running.resource_view import NodeData
from hearth.engine.running.step_outcomes import (
    ResourceActionFailed,
    Step,
    StepAbandoned,
    failure_reason,
)
from hearth.engine.running.update_decision import UpdateDecision
from hearth.resources.context import physical_resource_name
from hearth.resources.exceptions import PollDelay, UpdateReplace
from hearth.resources.stack_resource import StackResource
from hearth.store import batch
from hearth.store import resources as resource_store
from hearth.store.types import utcnow

# Seconds between polls of a child stack whose end will wake the poll (see
# ``_child_runs_here``): each poll costs the engine a step.
WOKEN_POLL_FALLBACK = 1.0

if TYPE_CHECKING:
    from hearth.engine.running.action_run import ActionRun
    from hearth.resources.base import Resource
    from hearth.resources.nested import NestedStacks

# What a resource action is called in hook names.
_HOOK_ACTIONS = {states.CREATE: "create", states.UPDATE: "update", states.DELETE: "delete"}


class ResourceTask(UpdateDecision):
    """One resource through one action; see the module doc for the steps."""

    def __init__(self, run: ActionRun, record: ResourceRecord, action: str) -> None:
        self.run = run
        self.core = run.core
        self.record = record
        # The resource action: CREATE, UPDATE, DELETE, SUSPEND, RESUME, CHECK, SNAPSHOT, ADOPT.
        self.action = action
        self.cancel_event = CancelFlag()
        self.plugin: Resource | None = None
        self._handler_action = action
        self._new_props: dict[str, Any] | None = None
        self._plan: Any = None
        self._post_hook: str | None = None
        self._noop = False
        # A pre-update hook was set before the update was planned (existing resources).
        self._hook_before_decision = False
        # What the current step changes, committed by the driver when the step returns.
        self.writes: list[batch.Write] = []
        # Whether the steps run on the engine's loop (handlers that never block).
        self.inline = False
        # The catalog service the type talks to (its steps take that service's slots).
        self.service: str | None = None
        # Whether its steps run in the engine's pool of waiting threads (Workers.wait).
        self.waits = False
        # Its place on the action's critical path (ActionRun.chain_lengths).
        self.priority = 0
        # Whether its create may run the handler before its own first commit (a type that
        # makes a child stack, see ``_carries_into_child``): the writes of what it depends
        # on are then committed before its step starts.
        self.may_carry = False
        # Whether a step a dead engine began may be carried on (the run's, unless this
        # task takes over a step another engine of the run left).
        self.resuming = run.resuming
        # Why it was stopped, when the stop came from another engine's run (step_worker).
        self.cancel_why = ""
        # The claim its writes are fenced by, when it runs another engine's step (see
        # ``batch.ClaimHeld``).
        self.claim: batch.ClaimHeld | None = None
        # Heat's action_retry_limit: creates retried after the object went to ERROR.
        self._create_retries = 0
        self._retry_deleting = False
        self._state_before: tuple[str | None, str | None] = (None, None)
        # Whether the step's writes so far go in with the store of the child stack its
        # handler makes (see ``_carry``).
        self._carrying = False

    def fences(self) -> list[batch.Write]:
        """What each commit of this step's writes holds, so that it commits only while this
        engine may still write them: the run's stack lock and, for a step of another
        engine's run, the step's claim."""
        fence = self.run.fence
        return [fence] if self.claim is None else [fence, self.claim]

    def take_writes(self) -> list[batch.Write]:
        # Emptied in place: a loop-run plugin's context appends to this very list.
        writes = list(self.writes)
        self.writes.clear()
        return writes

    def _change(self, **fields: Any) -> None:
        """Fields of the row that are not its state (no event, same version)."""
        self.writes.append(
            batch.ResourceChange(self.record.id, {"updated_at": utcnow(), **fields}, bump=False)
        )

    def _state(self, action: str, status: str, reason: str, **fields: Any) -> None:
        if status in (states.COMPLETE, states.FAILED):
            # The step's claim (an engine of a cluster ran it) ends with it, in one write.
            fields.setdefault("engine_id", None)
        self.writes.extend(state_writes(self.record, action, status, reason, **fields))

    # --- helpers ------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.record.name

    def _nested(self) -> NestedStacks | None:
        """The child stacks of this resource (asked for by the few types that own one)."""
        run = self.run
        if self.core.nested is None:
            return None
        name = physical_resource_name(run.stack_name, self.record.name, self.record.uuid)
        return self.core.nested.for_resource(
            run.parent(), self.record.name, name,
            lambda: run.bound.facade_of(self.record.name)
            if self.record.name in run.bound.resources else None,
            taking_over=self._taken_over(),
            new_resource=self._state_before == (states.INIT, states.COMPLETE),
            fences=self.fences,
            carry=self._carry if self._carrying else None,
        )

    def _taken_over(self) -> bool:
        """Whether this action is one a dead engine had begun on this resource."""
        return self.resuming and self._state_before == (
            self._handler_action, states.IN_PROGRESS
        )

    def _context(self) -> EngineResourceContext:
        run = self.run
        return EngineResourceContext(
            self.core,
            self.record,
            run.scope,
            nested=self._nested,
            cancel_event=self.cancel_event,
            # Data a loop-run handler sets is committed with its step (it may not block).
            buffer=self.writes if self.inline else None,
            fences=self.fences,
            stored_data=(lambda: run.data.take(self.record.id)) if self.inline else None,
        )

    def _stored_properties(self) -> dict[str, Any] | None:
        return self.run.properties.get(self.record.prop_data_id)

    def _make_plugin(self, type_name: str, props: Mapping[str, Any] | None) -> Resource:
        return self._context().plugin(self.run.plugin_class(type_name, self.name), props,
                                      type_name)

    def _stored_plugin(self) -> Resource:
        return self._make_plugin(self.record.resource_type, self._stored_properties())

    def _hook_name(self, when: str) -> str | None:
        what = _HOOK_ACTIONS.get(self.action)
        if what is None or self.run.action == states.ROLLBACK:
            return None
        hook = f"{when}-{what}"
        return hook if self.run.bound.env.matches_hook(self.name, hook) else None

    def _set_hook(self, hook: str) -> Step:
        self.writes.append(batch.DataChange(self.record.id, hook, "True"))
        self.writes.append(
            event_write(self.record, f"{self.action} paused until Hook {hook} is cleared")
        )
        return Step(hook=hook)

    def hook_pending(self, hook: str) -> bool:
        with self.core.db.session() as session:
            return resource_store.data_all(session, self.record.id).get(hook) == "True"

    # --- steps ---------------------------------------------------------------------------

    def start(self) -> Step:
        """Hooks, then IN_PROGRESS and the plugin's handler (or, for an action a dead
        engine's handler began, polling on from its stored cookie)."""
        self._count_takeover()
        resumed = self._poll_on()
        if resumed is not None:
            return resumed
        if self.action in (states.CREATE, states.UPDATE) and self.run.is_update_like:
            return self._start_update_like()
        if self.action == states.DELETE and not self.record.exists:
            self._noop = True
            return Step(done=True)
        hook = self._hook_name("pre")
        if hook is not None:
            return self._set_hook(hook)
        return self._begin()

    def _count_takeover(self) -> None:
        """A step whose engine died before its handler had returned is carried on at most
        ``step_takeover_limit`` times: the one after, it fails, so that a step that kills
        its engine (a poisoned template, a plugin that crashes the process) does not kill
        each engine in turn. A step that was waiting (its handler's cookie stored) was not
        what killed the engine, and is not counted."""
        record = self.record
        if (self.resuming and record.status == states.IN_PROGRESS
                and record.step_cookie is None):
            taken = record.takeovers + 1
            limit = self.core.limits.step_takeover_limit
            if taken > limit:
                raise StepAbandoned(
                    f"The engine running this {record.action} stopped {taken} times while it "
                    f"was in progress; it is not run again (step_takeover_limit is {limit})")
            record.takeovers = taken
            self._change(takeovers=taken)
        elif record.takeovers:
            record.takeovers = 0
            self._change(takeovers=0)

    def _poll_on(self) -> Step | None:
        """Carry on an action whose handler ran under a dead engine and stored its cookie,
        when the type polls from the cookie alone (``polls_from_cookie``)."""
        record = self.record
        run = self.run
        if not (self.resuming and record.status == states.IN_PROGRESS
                and record.step_cookie is not None and record.traversal_id == run.traversal_id):
            return None
        # What the handler was doing: an update traversal also creates and replaces.
        expected = {states.CREATE, states.UPDATE} if self.action in (
            states.CREATE, states.UPDATE) and run.is_update_like else {self.action}
        if record.action not in expected:
            return None
        try:
            cls = run.plugin_class(record.resource_type, self.name)
        except Exception:  # the handler's path reports it
            return None
        if not cls.polls_from_cookie:
            return None
        self.action = self._handler_action = record.action
        self._state_before = (record.action, states.IN_PROGRESS)
        if self.action == states.UPDATE:
            # The plugin as its handler left it, on the new properties (stored at the end).
            self._new_props = run.bound.resolve_properties(self.name)
            self.plugin = self._make_plugin(record.resource_type, self._new_props)
        else:
            self.plugin = self._stored_plugin()
        cookie = record.step_cookie
        return Step(cookie=cookie, then=lambda: self.poll(cookie))

    def _begin(self) -> Step:
        action = self.action
        self._handler_action = action
        # What the resource was before this action (a Snapshot delete policy skips the
        # snapshot of a resource whose create or update failed).
        self._state_before = (self.record.action, self.record.status)
        fields: dict[str, Any] = {"traversal_id": self.run.traversal_id, "step_cookie": None}
        if self._taken_over():
            # A dead engine's resource carried on: its IN_PROGRESS event was written already.
            fields["event"] = False
        if action in (states.CREATE, states.ADOPT, states.UPDATE):
            fields["requires"] = self.run.requires_ids(self.name)
            self.record.requires = fields["requires"]
        if action in (states.CREATE, states.ADOPT):
            type_name = self.run.resource_type(self.name)
            props = self.run.bound.resolve_properties(self.name)
            fields["rsrc_prop_data_id"] = self._new_properties_row(props)
            fields["resource_type"] = type_name
            # Stored now, as Heat does: a provider template reads it (resource_facade).
            fields["rsrc_metadata"] = self.run.bound.resolve_metadata(self.name)
            self._state(action, states.IN_PROGRESS, "state changed", **fields)
            self.plugin = self._make_plugin(type_name, props)
            if action == states.CREATE:
                # Values only known now (from other resources) are checked before the
                # handler; Heat's adopt takes the object as it is, unchecked.
                self.plugin.validate_properties()
            if self._carries_into_child():
                # IN_PROGRESS is committed with the child stack the handler stores: the
                # handler runs now, in this step.
                self._carrying = True
                try:
                    return self._handle()
                finally:
                    self._carrying = False
        else:
            self._state(action, states.IN_PROGRESS, "state changed", **fields)
            self.plugin = self._stored_plugin()
        # The handler runs once IN_PROGRESS is committed.
        return Step(then=self._handle)

    def _carries_into_child(self) -> bool:
        """Whether this create's handler runs before its IN_PROGRESS is committed, which then
        goes in with the child stack's store: a type whose handler does nothing outside the
        database before that store (``stores_child_first``), whose child is made here. A
        create carried on from a dead engine finds its child made already, and commits
        first, as any other."""
        plugin = self.plugin
        return (
            self.may_carry and self.core.nested is not None and not self._taken_over()
            and isinstance(plugin, StackResource) and plugin.stores_child_first()
        )

    def _carry(self, child_id: str) -> tuple[list[batch.Write], Callable[[], None]]:
        """For the store of the child stack ``child_id``: the step's writes so far (its
        IN_PROGRESS state) and the child's id as the resource's physical id, committed in
        the child's transaction, so that the child never exists without its owner's row
        saying so; and what to call once they are committed (they leave the step's
        writes). Should the store fail, they stay the step's, committed with its failure."""
        self._carrying = False  # one child per step
        record = self.record
        pending = len(self.writes)
        carried = [
            *self.writes,
            batch.ResourceChange(
                record.id, {"physical_resource_id": child_id, "updated_at": utcnow()},
                bump=False,
            ),
        ]

        def committed() -> None:
            del self.writes[:pending]
            record.physical_id = child_id

        return carried, committed

    def _new_properties_row(self, props: Mapping[str, Any] | None) -> batch.PropsRow | None:
        """A properties row for this resource, written with the step's other writes."""
        record = self.record

        def stored(new_id: int) -> None:
            record.prop_data_id = new_id

        row = self.run.properties.new_row(props, stored)
        if row is not None:
            self.writes.append(row)
        return row

    def _handle(self) -> Step:
        plugin = self.plugin
        assert plugin is not None
        action = self._handler_action
        if action == states.DELETE:
            policy = (self.record.definition or {}).get("deletion_policy", "Delete")
            if self.run.abandoning and plugin.has_handler("abandon"):
                # A nested stack is abandoned with its parent (its resources are kept).
                cookie = plugin.handle_abandon()  # type: ignore[attr-defined]
                return self._after_handler(cookie, check=plugin.has_check("delete"))
            if self.run.abandoning or policy == "Retain":
                return Step(done=True)
            if policy == "Snapshot" and plugin.has_handler("snapshot_delete"):
                handler = plugin.handle_snapshot_delete  # type: ignore[attr-defined]
                cookie = handler(self._state_before)
                return self._after_handler(cookie, check=plugin.has_check("delete"))
        if action == states.CHECK and not plugin.has_handler("check"):
            self._post_reason = f"CHECK not supported for {self.record.resource_type}"
            return Step(done=True)
        if action == states.CREATE:
            external = self.run.external_id(self.name)
            if external is not None:
                plugin.resource_id_set(external)
                return self._after_handler(None, check=False)
        if action == states.UPDATE:
            cookie = self._handle_update(plugin)
        elif action == states.ADOPT:
            cookie = plugin.handle_adopt(self.run.adopt_data(self.name))
        elif plugin.has_handler(action.lower()):
            cookie = getattr(plugin, f"handle_{action.lower()}")()
        else:
            cookie = None
        return self._after_handler(cookie, check=plugin.has_check(action.lower()))

    def _handle_update(self, plugin: Resource) -> Any:
        plan = self._plan
        new_props = self.run.bound.resolve_properties(self.name)
        self._new_props = new_props
        new_plugin = self._make_plugin(self.record.resource_type, new_props)
        try:
            return plugin.handle_update(new_plugin.properties, plan.prop_diff, plan.tmpl_diff)
        except UpdateReplace:
            raise NotSupported(
                f"Resource {self.name} asked to be replaced in the middle of an update"
            ) from None

    def _after_handler(self, cookie: Any, *, check: bool) -> Step:
        plugin = self.plugin
        assert plugin is not None
        fields: dict[str, Any] = {}
        if plugin.resource_id != self.record.physical_id:
            fields["physical_resource_id"] = plugin.resource_id
            self.record.physical_id = plugin.resource_id
        if not check:
            # finish() follows at once and stores the physical id with the final state.
            return Step(done=True)
        stored = jsonable(cookie)
        if stored != self.record.step_cookie:
            fields["step_cookie"] = self.record.step_cookie = stored
        if fields:
            self._change(**fields)
        if self._child_runs_here(plugin):
            return Step(cookie=cookie, delay=WOKEN_POLL_FALLBACK)
        # Polled once the cookie is committed.
        return Step(cookie=cookie, then=lambda: self.poll(cookie))

    def _child_runs_here(self, plugin: Resource) -> bool:
        """Whether an action of the resource's child stack runs in this engine: its end
        wakes this step's poll, so there is no poll before that (but one as a safety net
        each ``WOKEN_POLL_FALLBACK`` seconds)."""
        nested = self.core.nested
        return (
            nested is not None and isinstance(plugin, StackResource)
            and plugin.resource_id is not None and nested.runs_here(plugin.resource_id)
        )

    def poll(self, cookie: Any) -> Step:
        plugin = self.plugin
        assert plugin is not None
        if self._retry_deleting:
            return self._poll_retry_delete(cookie)
        action = self._handler_action.lower()
        try:
            done = bool(getattr(plugin, f"check_{action}_complete")(cookie))
        except PollDelay as delay:
            return Step(cookie=cookie, delay=float(delay.seconds))
        except ResourceInError:
            # Heat's action_retry_limit: an object that went to ERROR while being created
            # is deleted and made again, so many times.
            if action != "create" or self._create_retries >= self.core.limits.action_retry_limit:
                raise
            self._create_retries += 1
            return self._start_retry_delete()
        if plugin.resource_id != self.record.physical_id:
            self._change(physical_resource_id=plugin.resource_id)
            self.record.physical_id = plugin.resource_id
        if not done and self._child_runs_here(plugin):
            return Step(cookie=cookie, delay=WOKEN_POLL_FALLBACK)
        return Step(done=done, cookie=cookie)

    def _start_retry_delete(self) -> Step:
        plugin = self.plugin
        assert plugin is not None
        self._retry_deleting = True
        handler = getattr(plugin, "handle_delete", None)
        cookie = handler() if callable(handler) else None
        if cookie is None or not plugin.has_check("delete"):
            return self._retry_create()
        return Step(cookie=cookie)

    def _poll_retry_delete(self, cookie: Any) -> Step:
        plugin = self.plugin
        assert plugin is not None
        try:
            done = bool(plugin.check_delete_complete(cookie))  # type: ignore[attr-defined]
        except PollDelay as delay:
            return Step(cookie=cookie, delay=float(delay.seconds))
        return self._retry_create() if done else Step(cookie=cookie)

    def _retry_create(self) -> Step:
        plugin = self.plugin
        assert plugin is not None
        self._retry_deleting = False
        plugin.resource_id_set(None)
        cookie = plugin.handle_create()  # type: ignore[attr-defined]
        return self._after_handler(cookie, check=plugin.has_check("create"))

    def finish(self) -> Step:
        """COMPLETE, attributes cached; then a post-hook if one is set."""
        if self._noop:
            self._change(engine_id=None)
            return Step(done=True)
        plugin = self.plugin
        action = self.action
        fields: dict[str, Any] = {
            "step_cookie": None,
            "physical_resource_id": self.record.physical_id,
        }
        reason = getattr(self, "_post_reason", "state changed")
        if action == states.DELETE:
            fields["attr_data"] = None
        elif plugin is not None:
            fields["attr_data"] = cached_attributes(
                plugin,
                self.run.bound.needed_attributes.get(self.name, set()),
                self.run.bound.attribute_paths.get(self.name),
            )
            if action in (states.CREATE, states.UPDATE, states.ADOPT):
                fields["definition"] = self.run.stored_definition(self.name)
                # An in-place type change (a deprecated name's substitute) is now the type.
                fields["resource_type"] = self.run.resource_type(self.name)
                fields["rsrc_metadata"] = self._completed_metadata(plugin)
                fields["current_template_id"] = self.run.template_id
        if action == states.UPDATE and self._new_props is not None:
            fields["rsrc_prop_data_id"] = self._new_properties_row(self._new_props)
        self._state(action, states.COMPLETE, reason, **fields)
        hook = self._hook_name("post")
        if hook is not None:
            return self._set_hook(hook)
        return Step(done=True)

    def fail(self, exc: BaseException) -> str:
        """The handler raised: FAILED with Heat's reason. Returns the reason."""
        reason = failure_reason(self.name, exc)
        if isinstance(exc, ResourceActionFailed) and (
            exc.recorded or self.record.status == states.FAILED
        ):
            return reason
        fields: dict[str, Any] = {"step_cookie": None}
        plugin = self.plugin
        if plugin is not None and plugin.resource_id != self.record.physical_id:
            # Kept as Heat keeps it (stored when set): the delete that follows needs it.
            fields["physical_resource_id"] = plugin.resource_id
        self._state(self.action, states.FAILED, reason, **fields)
        return reason

    def abort(self, cookie: Any, why: str) -> None:
        """Cancelled (timeout, cancel, another failure): FAILED "<ACTION> aborted (why)"."""
        self.cancel_event.set()
        plugin = self.plugin
        canceller = f"handle_{self._handler_action.lower()}_cancel"
        if plugin is not None and hasattr(plugin, canceller):
            try:
                getattr(plugin, canceller)(cookie)
            except Exception:
                pass
        if self.record.status != states.IN_PROGRESS:
            return
        reason = f"{self.action} aborted" + (f" ({why})" if why else "")
        self._state(self.action, states.FAILED, reason, step_cookie=None)

    def node_data(self) -> NodeData:
        return self.record.node_data()

    def grace_period(self) -> float:
        plugin = self.plugin
        canceller = f"handle_{self._handler_action.lower()}_cancel"
        if plugin is not None and hasattr(plugin, canceller):
            return 0.0
        return float(self.core.limits.error_wait_time)

    def _completed_metadata(self, plugin: Resource) -> Any:
        """The template's metadata, re-resolved, with the keys the type maintains itself
        (its stored values: deployments may have been published meanwhile)."""
        metadata = self.run.bound.resolve_metadata(self.name)
        owned = type(plugin).metadata_owned_keys
        if not owned:
            return metadata
        with self.run.core.db.session(readonly=True) as session:
            stored = resource_store.stored_metadata(session, self.record.id)
        if not isinstance(stored, dict):
            return metadata
        merged = dict(metadata) if isinstance(metadata, dict) else {}
        merged.update({k: stored[k] for k in owned if k in stored})
        return merged
