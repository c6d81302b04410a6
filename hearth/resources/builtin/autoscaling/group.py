"""What every scaling group shares: members in a child stack, resized and rolled in steps.

A group's physical resource is its child stack, whose resources are the members. Every change
of size or definition sends the child a whole new template (``members.member_definitions``) and
waits for the child's update. A stack update of the group may need several such child updates
(the batches of a rolling update, then the resize): they run one after the other from the
update's cookie, with the pause the policy asks for between batches.

Groups that scale (the two AutoScalingGroups) also take adjustments from scaling policies
(``handle_peer_request``, run by the engine when a policy is signalled) and keep Heat's
cooldown state in their metadata.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar

from hearth.common.errors import InvalidTemplateAttribute, NotFound
from hearth.resources.attributes import select_from_attribute
from hearth.resources.builtin.autoscaling import capacity, members
from hearth.resources.exceptions import NoActionRequired, PollDelay
from hearth.resources.nested import ChildDefinition, NestedMember
from hearth.resources.properties import Properties
from hearth.resources.stack_resource import StackResource

# Members of InstanceGroups are of this type; the child's registry maps it to an instance.
SCALED_RESOURCE_TYPE = "OS::Heat::ScaledResource"
CHILD_ENVIRONMENT = {
    "parameters": {},
    "resource_registry": {SCALED_RESOURCE_TYPE: "AWS::EC2::Instance"},
}
# Heat's stack timeout when the stack has none.
DEFAULT_TIMEOUT_SECS = 3600
# The request a scaling policy sends its group (see ``handle_peer_request``).
ADJUST = "adjust"
# Resource data key of the cooldown end recorded when a stack action resized the group (the
# engine rewrites the metadata from the template when an action ends).
COOLDOWN_DATA_KEY = "cooldown_end"


def optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def optional_number(value: Any) -> float | None:
    # An int stays an int: Heat's cooldown messages show the number as given.
    if value is None:
        return None
    return value if isinstance(value, int | float) else float(value)


class ScalingGroup(StackResource):
    """The base of InstanceGroup and the AutoScalingGroups (module doc)."""

    # The child template's format, and the name of its output of member references.
    child_is_cfn: ClassVar[bool] = True
    refs_output: ClassVar[str] = "references"

    # --- what subclasses say ----------------------------------------------------------------

    def member_definition(self) -> members.Definition:
        """The definition new (and rolled) members get."""
        raise NotImplementedError

    def requested_size(self) -> int | None:
        """The size the properties ask for (Heat's ``get_size``)."""
        raise NotImplementedError

    def initial_size(self) -> int:
        return self.requested_size() or 0

    def target_size(self) -> int:
        """The size a stack update resizes to, once any rolling update is done."""
        requested = self.requested_size()
        return self.size() if requested is None else requested

    def rolling_policy(
        self, prop_diff: Mapping[str, Any], tmpl_diff: Mapping[str, Any]
    ) -> tuple[int, int, float] | None:
        """(min in service, batch size, pause seconds) when this update rolls the members."""
        return None

    # The child's members, read once per step.
    _members_cache: list[NestedMember] | None = None

    # --- members -------------------------------------------------------------------------

    def _all_members(self) -> list[NestedMember]:
        cached = self._members_cache
        if cached is None:
            cached = self.child_members()
            self._members_cache = cached
        return cached

    def _forget_members(self) -> None:
        self._members_cache = None
        # StackResource caches the child's outputs too.
        self.__dict__.pop("_outputs", None)

    def live_members(self) -> list[NestedMember]:
        """Members not FAILED, in Heat's order (the order of ``resource.N`` and lists)."""
        return members.ordered(self._all_members(), include_failed=False)

    def size(self, include_failed: bool = False) -> int:
        return len(members.ordered(self._all_members(), include_failed))

    def _old_definitions(self) -> list[tuple[str, Any]]:
        """The current members and their definitions (from the child's template), in the
        order they go: failed ones first, then the oldest."""
        assert self.resource_id is not None
        template = self.context.nested.template(self.resource_id)
        section = template.get("Resources" if self.child_is_cfn else "resources")
        defined = dict(section) if isinstance(section, Mapping) else {}
        names = [
            m.name for m in members.ordered(self._all_members(), include_failed=True)
            if m.name in defined
        ]
        seen = set(names)
        # Members the child has not made a row for yet come after those it has.
        names += [n for n in defined if n not in seen]
        return [(n, defined[n]) for n in names]

    # --- the child stack -----------------------------------------------------------------

    def _child(self, size: int, num_new: int) -> ChildDefinition:
        new_definition = self.member_definition()
        old = self._old_definitions() if self.resource_id is not None else []
        pairs = list(members.member_definitions(old, new_definition, size, num_new))
        template = members.child_template(pairs, self.child_is_cfn, self.refs_output)
        env = self.context.stack_environment().child(CHILD_ENVIRONMENT, None, self.name)
        return ChildDefinition(template, env, self.context.stack_files())

    def child_definition(self, properties: Properties | None = None) -> ChildDefinition:
        if properties is not None:
            self.properties = properties
        return self._child(self.initial_size(), 0)

    def _resize(self, size: int, num_new: int = 0) -> None:
        child = self._child(size, num_new)
        self._forget_members()
        assert self.resource_id is not None
        self.context.nested.update(self.resource_id, child, timeout_mins=self.child_timeout())

    # --- create and update -----------------------------------------------------------------

    def check_create_complete(self, cookie: Any) -> bool:
        if not super().check_create_complete(cookie):
            return False
        self._forget_members()
        self.after_resize()
        return True

    def handle_update(
        self, new_properties: Properties, prop_diff: Mapping[str, Any], tmpl_diff: Any
    ) -> Any:
        self.properties = new_properties
        self._forget_members()
        if self.resource_id is None:
            # The child was never made (its create failed before it existed).
            return self.handle_create()
        steps: list[dict[str, Any]] = []
        pause = 0.0
        policy = self.rolling_policy(prop_diff, tmpl_diff or {})
        if policy is not None:
            min_in_service, batch_size, pause = policy
            steps = self._batches(min_in_service, batch_size, pause)
        steps.append({"kind": "resize"})
        cookie = {"steps": steps, "at": 0, "pause": pause, "pause_until": None}
        self._run_step(cookie)
        return cookie

    def _batches(self, min_in_service: int, batch_size: int, pause: float) -> list[dict[str, Any]]:
        current = self.size(include_failed=True)
        target = min(self.requested_size() or current, current)
        found = list(capacity.batches(target, current, batch_size, min_in_service))
        timeout = (self.context.stack_timeout_mins or 0) * 60 or DEFAULT_TIMEOUT_SECS
        if pause * max(len(found) - 1, 0) >= timeout:
            raise ValueError("The current update policy will result in stack update timeout.")
        return [{"kind": "batch", "size": size, "new": count} for size, count in found]

    def _run_step(self, cookie: dict[str, Any]) -> None:
        # The child changed since the members were last read.
        self._forget_members()
        step = cookie["steps"][cookie["at"]]
        if step["kind"] == "batch":
            self._resize(int(step["size"]), int(step["new"]))
        else:
            self._resize(self.target_size())

    def check_update_complete(self, cookie: Any) -> bool:
        if not isinstance(cookie, dict):
            done = super().check_update_complete(cookie)
        else:
            done = self._advance(cookie)
        if done:
            self._forget_members()
            self.after_resize()
        return done

    def _advance(self, cookie: dict[str, Any]) -> bool:
        """One poll of a stepped update: wait for the child, pause, start the next step."""
        if cookie.get("pause_until"):
            remaining = float(cookie["pause_until"]) - time.time()
            if remaining > 0:
                raise PollDelay(remaining)
            cookie["pause_until"] = None
            self._run_step(cookie)
            return False
        if not self._child_done("UPDATE"):
            return False
        steps = cookie["steps"]
        cookie["at"] += 1
        if cookie["at"] >= len(steps):
            return True
        between_batches = steps[cookie["at"] - 1]["kind"] == steps[cookie["at"]]["kind"]
        if between_batches and float(cookie.get("pause") or 0) > 0:
            cookie["pause_until"] = time.time() + float(cookie["pause"])
            return False
        self._run_step(cookie)
        return False

    def after_resize(self) -> None:
        """Hook: a create or update of the group is done (the AutoScalingGroups start a
        cooldown)."""

    # --- attributes ----------------------------------------------------------------------

    def member_at(self, index: str) -> NestedMember:
        """``resource.<index>``: the index-th live member, or Heat's NotFound."""
        live = self.live_members()
        try:
            return live[int(index)]
        except (ValueError, IndexError):
            raise NotFound(
                f"Member '{index}' not found in group resource '{self.name}'."
            ) from None

    def member_path(self, name: str, path: tuple[Any, ...]) -> Any:
        parts = name.split(".", 2)
        if len(parts) < 2:
            raise InvalidTemplateAttribute(self.name, name)
        member = self.member_at(parts[1])
        if len(parts) > 2:
            return select_from_attribute(member.attributes.get(parts[2]), path)
        return select_from_attribute(member.reference, path)


class CooldownGroup(ScalingGroup):
    """A group that scaling policies adjust, with Heat's cooldown (module doc)."""

    def min_max(self) -> tuple[int, int]:
        raise NotImplementedError

    def cooldown(self) -> float | None:
        raise NotImplementedError

    def target_size(self) -> int:
        current = self.size()
        desired = self.requested_size() or current
        low, high = self.min_max()
        return capacity.new_capacity(current, desired, capacity.EXACT_CAPACITY, None, low, high)

    def after_resize(self) -> None:
        # The engine rewrites the metadata when the action ends, so the cooldown that starts
        # now is kept in the resource data, where the next adjustment also looks.
        previous = self._data_cooldown_end()
        end = capacity.cooldown_end(self.cooldown(), previous)
        self.data_set(COOLDOWN_DATA_KEY, end)

    def _data_cooldown_end(self) -> str | None:
        return self.data().get(COOLDOWN_DATA_KEY) or None

    # --- adjustments from scaling policies ---------------------------------------------------

    def handle_peer_request(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Adjust the size as a policy asks (``ADJUST``), if the cooldown permits.

        NoActionRequired (the signal is then ignored) when the size would not change, while
        another scaling runs, or during the cooldown.
        """
        if request.get("action") != ADJUST:
            raise ValueError(f"Unknown request {request.get('action')!r}")
        adjustment = request["adjustment"]
        adjustment_type = str(request.get("adjustment_type") or capacity.CHANGE_IN_CAPACITY)
        current = self.size()
        low, high = self.min_max()
        wanted = capacity.new_capacity(
            current, adjustment, adjustment_type, request.get("min_adjustment_step"), low, high
        )
        if wanted == current:
            raise NoActionRequired()
        cooldown = request.get("cooldown")
        if cooldown is None:
            cooldown = self.cooldown()
        extra = self._data_cooldown_end()
        self.metadata = self.context.metadata_merge(
            lambda current_md: capacity.check_scaling_allowed(
                self.name, current_md, cooldown, extra
            )
        )
        cookie = {"cooldown": cooldown, "reason": f"{adjustment_type} : {adjustment}"}
        try:
            self._resize(wanted)
        except Exception:
            self._end_scaling(cookie, size_changed=False)
            raise
        return cookie

    def check_peer_request_complete(self, cookie: dict[str, Any]) -> bool:
        assert self.resource_id is not None
        state = self.context.nested.state(self.resource_id)
        if state is not None and state.action != "UPDATE" and state.status != "IN_PROGRESS":
            # Another action (a delete, a suspend) took the child over: no new size.
            self._end_scaling(cookie, size_changed=False)
            return True
        try:
            done = self._child_done("UPDATE")
        except Exception:
            self._end_scaling(cookie, size_changed=False)
            raise
        if done:
            self._end_scaling(cookie, size_changed=True)
        return done

    def _end_scaling(self, cookie: Mapping[str, Any], size_changed: bool) -> None:
        extra = self._data_cooldown_end()
        self.metadata = self.context.metadata_merge(
            lambda current_md: capacity.finished_scaling(
                current_md, cookie.get("cooldown"), str(cookie.get("reason")), size_changed,
                extra,
            )
        )

    def handle_metadata_reset(self) -> None:
        # Marking the group healthy again clears a scaling that never finished.
        metadata = self.context.metadata_get()
        if isinstance(metadata, Mapping) and capacity.SCALING_IN_PROGRESS in metadata:
            self.context.metadata_set({**metadata, capacity.SCALING_IN_PROGRESS: False})
