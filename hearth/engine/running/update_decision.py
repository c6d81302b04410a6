"""What an update-like traversal (update, rollback, restore) does to one resource: nothing,
an update in place, a replacement, or a create; decided when the resource's task starts, after
a pre-update hook where the environment sets one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hearth.common.errors import NotSupported
from hearth.engine import states
from hearth.engine.running.records import ResourceRecord
from hearth.engine.running.step_outcomes import ResourceActionFailed, Step
from hearth.store import batch

if TYPE_CHECKING:
    from hearth.engine.running.action_run import ActionRun
    from hearth.resources.base import Resource


class UpdateDecision:
    """The update decision of a ``ResourceTask`` (which it is a part of)."""

    # The task's, set in ResourceTask.__init__.
    run: ActionRun
    record: ResourceRecord
    action: str
    writes: list[batch.Write]
    resuming: bool
    _handler_action: str
    _plan: Any
    _noop: bool
    _hook_before_decision: bool

    if TYPE_CHECKING:
        # The task's own steps and helpers.
        @property
        def name(self) -> str: ...
        def take_writes(self) -> list[batch.Write]: ...
        def _change(self, **fields: Any) -> None: ...
        def _state(self, action: str, status: str, reason: str, **fields: Any) -> None: ...
        def _stored_plugin(self) -> Resource: ...
        def _hook_name(self, when: str) -> str | None: ...
        def _set_hook(self, hook: str) -> Step: ...
        def _begin(self) -> Step: ...

    def _start_update_like(self) -> Step:
        """The first step of an update-like traversal's task: on with the create a dead
        engine left, or a pre-update hook, or the decision and what follows it."""
        if self._own_create_left():
            # The create this traversal began (a new resource or a replacement) goes
            # on, on the same row: deciding again would replace that row in turn.
            self.action = states.CREATE
            return self._begin()
        # Heat pauses an existing resource at pre-update before it knows whether
        # anything changes (so the hook fires for unchanged and replaced ones too).
        if self.record.exists and self._existing_update_hook():
            self._hook_before_decision = True
            return self._set_hook("pre-update")
        return self._decide_then_begin()

    def _own_create_left(self) -> bool:
        """Whether a dead engine of this update-like traversal was creating this row."""
        record = self.record
        return (self.resuming and record.state == (states.CREATE, states.IN_PROGRESS)
                and record.traversal_id == self.run.traversal_id)

    def _existing_update_hook(self) -> bool:
        return self.run.action != states.ROLLBACK and self.run.bound.env.matches_hook(
            self.name, "pre-update"
        )

    def _decide_then_begin(self) -> Step:
        decided = self._decide_update()
        if decided is not None:
            return decided
        hook = None if self._hook_before_decision else self._hook_name("pre")
        if hook is not None:
            return self._set_hook(hook)
        return self._begin()

    def after_hook(self) -> Step:
        if self._hook_before_decision and self._plan is None:
            return self._decide_then_begin()
        return self._begin()

    def _decide_update(self) -> Step | None:
        """For update-like traversals: nothing to do, update in place, or replace."""
        # A row chosen although a replacement of it exists is current again (Heat's
        # update_convergence); the replacement is cleaned up by this traversal.
        taking_back = self._take_back() if self.record.replaced_by is not None else None
        if self.record.exists:
            before = (self.record.definition or {}).get("external_id")
            if before != self.run.external_id(self.name):
                # Heat cannot move a resource to or from an external one by an update.
                raise NotSupported(
                    f"Update to property external_id of {self.name} "
                    f"({self.record.resource_type})"
                )
        plan = self.run.update_plan(self.record, self.name,
                                    replace_failed=self._needs_replace_failed)
        self._plan = plan
        if plan.kind == "unchanged":
            self._noop = True
            # Now on this template, as Heat records (what a later update's choice of row
            # goes by); no state change, no event, unless it had failed.
            on_template = {"current_template_id": self.run.template_id}
            if self.record.status == states.FAILED:
                self._state(
                    self.record.action,
                    states.COMPLETE,
                    "Update status to COMPLETE for FAILED resource neither update nor replace.",
                    **on_template,
                )
            else:
                self.record.current_template_id = self.run.template_id
                self.writes.append(batch.ResourceChange(self.record.id, on_template, bump=False))
            return Step(done=True)
        if plan.kind == "create":
            self.action = states.CREATE
            return None
        if plan.kind == "replace":
            self._check_restricted("replace")
            if self.record.exists and self.record.status != states.FAILED:
                self._state(states.UPDATE, states.COMPLETE,
                            f"The Resource {self.name} requires replacement.")
            if self.record.exists and self.record.physical_id is not None:
                # Heat's prepare_for_replace: the old one frees what its replacement takes
                # (a port's fixed IPs) before the replacement is created.
                prepare = getattr(self._stored_plugin(), "prepare_for_replace", None)
                if callable(prepare):
                    prepare()
            if taking_back is not None:
                # Replaced again: the new replacement is recorded instead.
                self.writes.remove(taking_back)
            self.record = self.run.make_replacement(self.record, self.name,
                                                    self.take_writes())
            self.action = states.CREATE
            self._handler_action = states.CREATE
            return None
        self._check_restricted("update")
        self.action = states.UPDATE
        new_type = self.run.resource_type(self.name)
        if new_type != self.record.resource_type:
            # Another name for a provider template: updated in place, under its new name.
            self.record.resource_type = new_type
            self._change(resource_type=new_type)
        return None

    def _needs_replace_failed(self) -> bool:
        """The FAILED resource's plugin decides whether it is replaced (Heat asks the
        service: a healthy server, volume or Neutron object is kept)."""
        if self.record.physical_id is None:
            return True
        return self._stored_plugin().needs_replace_failed()

    def _take_back(self) -> batch.ResourceChange:
        """This row is current again: a rollback first lets the plugin undo what preparing
        for the replacement did (Heat's ``restore_prev_rsrc``), told the replacement's
        physical id; then the row is no longer replaced (a write, returned)."""
        record = self.record
        if self.run.action == states.ROLLBACK and record.exists:
            restore = getattr(self._stored_plugin(), "restore_prev_rsrc", None)
            if callable(restore):
                replacement = self.run.rows.get(record.replaced_by or 0)
                restore(replacement.physical_id if replacement is not None else None)
        record.replaced_by = None
        change = batch.ResourceChange(record.id, {"replaced_by": None}, bump=False)
        self.writes.append(change)
        return change

    def _check_restricted(self, what: str) -> None:
        restricted = self.run.bound.env.restricted_actions(self.name)
        if what in restricted:
            # Heat records the refusal as an event; the resource keeps its state.
            message = f"{what} is restricted for resource."
            self.writes.append(
                batch.event(
                    self.record.stack_id, resource_name=self.name,
                    action=states.UPDATE, status=states.FAILED, reason=message,
                    physical_resource_id=self.record.physical_id,
                    resource_type=self.record.resource_type,
                )
            )
            reason = f"ResourceActionRestricted: resources.{self.name}: {message}"
            raise ResourceActionFailed(self.name, states.UPDATE, reason, recorded=True)
