"""The base of every type that owns a nested stack (provider templates, groups, stacks).

The resource's physical id is the child stack's id. Each action starts the same action on the
child through ``context.nested`` and completes when the child's state says so; a FAILED child
fails the resource with the child's reason carried over (see ``NestedStackFailed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from hearth.resources.base import Resource
from hearth.resources.exceptions import NestedStackFailed
from hearth.resources.nested import ChildDefinition, NestedMember
from hearth.resources.properties import Properties
from hearth.template.environment import Environment

COMPLETE = "COMPLETE"
FAILED = "FAILED"
IN_PROGRESS = "IN_PROGRESS"


def stack_arn(tenant: str, stack_name: str, stack_id: str) -> str:
    """Heat's ARN of a stack: what a nested stack's reference is without an OS::stack_id."""
    return f"arn:openstack:heat::{tenant}:stacks/{stack_name}/{stack_id}"


class StackResource(Resource):
    """A resource whose physical resource is a nested stack (module doc)."""

    # Making and watching a child stack is database work: the engine's small pool.
    handlers_wait_elsewhere: ClassVar[bool] = False
    # An update always reaches the child, which decides what changes (Heat does the same).
    always_update: ClassVar[bool] = True
    # A FAILED resource whose child exists is updated, not replaced.
    update_failed_in_place: ClassVar[bool] = True

    # --- what the child is made of (subclasses) ---------------------------------------------

    @classmethod
    def child_for(
        cls,
        name: str,
        properties: Properties,
        environment: Environment,
        files: Mapping[str, str],
    ) -> ChildDefinition | None:
        """The child for these properties, also used to validate it before anything exists.

        None when it cannot be known before the resource is created.
        """
        raise NotImplementedError

    @classmethod
    def preview_child_for(
        cls,
        name: str,
        properties: Properties,
        environment: Environment,
        files: Mapping[str, str],
    ) -> ChildDefinition | None:
        """The child a stack preview shows (``child_for`` unless validation checks less)."""
        return cls.child_for(name, properties, environment, files)

    def child_definition(self, properties: Properties | None = None) -> ChildDefinition:
        child = self.child_for(
            self.name,
            properties if properties is not None else self.properties,
            self.context.stack_environment(),
            self.context.stack_files(),
        )
        if child is None:
            raise ValueError(f"Resource {self.name} cannot make its nested stack")
        return child

    def child_timeout(self) -> int | None:
        return self.context.stack_timeout_mins

    # --- handlers --------------------------------------------------------------------------

    def stores_child_first(self) -> bool:
        """Whether this resource's create (and adopt) handler changes nothing outside the
        engine's database before it stores its child (``context.nested.create``): its
        IN_PROGRESS state is then committed with the child's store, in one transaction,
        rather than on its own before the handler runs."""
        return True

    def handle_create(self) -> Any:
        child_id = self.context.nested.create(
            self.child_definition(), timeout_mins=self.child_timeout()
        )
        self.resource_id_set(child_id)
        return None

    def check_create_complete(self, cookie: Any) -> bool:
        return self._child_done("CREATE")

    def handle_adopt(self, resource_data: Mapping[str, Any] | None) -> Any:
        # The abandon document of a stack resource is its child's own abandon document.
        child_id = self.context.nested.create(
            self.child_definition(), timeout_mins=self.child_timeout(),
            adopt_data=dict(resource_data or {}),
        )
        self.resource_id_set(child_id)
        return None

    def check_adopt_complete(self, cookie: Any) -> bool:
        return self._child_done("ADOPT")

    def handle_update(
        self, new_properties: Properties, prop_diff: Mapping[str, Any], tmpl_diff: Any
    ) -> Any:
        self.properties = new_properties
        if self.resource_id is None:
            # The child was never made (its create failed before it existed): make it now.
            return self.handle_create()
        self.context.nested.update(
            self.resource_id, self.child_definition(new_properties),
            timeout_mins=self.child_timeout(),
        )
        return None

    def check_update_complete(self, cookie: Any) -> bool:
        return self._child_done("UPDATE", also=("CREATE",))

    def handle_delete(self) -> Any:
        if self.resource_id is not None:
            self.context.nested.delete(self.resource_id)
        return None

    def check_delete_complete(self, cookie: Any) -> bool:
        if self.resource_id is None:
            return True
        return self._child_done("DELETE", gone_ok=True)

    def handle_abandon(self) -> Any:
        if self.resource_id is not None:
            self.context.nested.delete(self.resource_id, abandon=True)
        return None

    def handle_suspend(self) -> Any:
        return self._act("SUSPEND")

    def check_suspend_complete(self, cookie: Any) -> bool:
        return self.resource_id is None or self._child_done("SUSPEND")

    def handle_resume(self) -> Any:
        return self._act("RESUME")

    def check_resume_complete(self, cookie: Any) -> bool:
        return self.resource_id is None or self._child_done("RESUME")

    def handle_check(self) -> Any:
        return self._act("CHECK")

    def check_check_complete(self, cookie: Any) -> bool:
        return self.resource_id is None or self._child_done("CHECK")

    def _cancel_child(self, cookie: Any) -> None:
        if self.resource_id is not None:
            self.context.nested.cancel(self.resource_id)

    handle_create_cancel = _cancel_child
    handle_update_cancel = _cancel_child

    def _act(self, action: str) -> Any:
        if self.resource_id is not None:
            self.context.nested.act(self.resource_id, action)
        return None

    def _child_done(
        self, action: str, *, gone_ok: bool = False, also: tuple[str, ...] = ()
    ) -> bool:
        assert self.resource_id is not None
        state = self.context.nested.state(self.resource_id)
        if state is None:
            if gone_ok:
                return True
            raise NestedStackFailed(f"Nested stack {self.resource_id} not found", action)
        if state.action != action and state.action not in also:
            return False
        if state.status == IN_PROGRESS:
            return False
        if state.status == FAILED:
            raise NestedStackFailed(state.reason, state.action)
        return True

    # --- what the child offers ----------------------------------------------------------

    def child_outputs(self) -> dict[str, Any]:
        cached = getattr(self, "_outputs", None)
        if cached is None:
            cached = {} if self.resource_id is None else self.context.nested.outputs(
                self.resource_id
            )
            self._outputs = cached
        return cached

    def child_members(self) -> list[NestedMember]:
        if self.resource_id is None:
            return []
        return self.context.nested.members(self.resource_id)
