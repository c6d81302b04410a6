"""OS::Heat::ResourceGroup: ``count`` resources of one definition, kept in a nested stack.

Members are named "0", "1", ...; names taken out by removal policies are never used again
(they are kept in resource data, as Heat keeps them). A change reaches the nested stack as one
update, or in batches when the update policy asks for them (``rolling_update`` when
``resource_def`` changes, ``batch_create`` on create). Each batch is one update of the nested
stack, started from ``check_*_complete`` once the previous one is done; the pause between
batches is a timestamp in the cookie, so any engine worker can carry the change on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from hearth.resources import group_size
from hearth.resources.builtin import group_template as gt
from hearth.resources.builtin import resource_group_schema as schema
from hearth.resources.builtin import rolling, waiting
from hearth.resources.builtin.resource_group_schema import (
    BATCH_CREATE,
    COUNT,
    INDEX_VAR,
    MAX_BATCH_SIZE,
    MIN_IN_SERVICE,
    PAUSE_TIME,
    REMOVAL_POLICIES,
    REMOVAL_POLICIES_MODE,
    RESOURCE_DEF,
    ROLLING_UPDATE,
)
from hearth.resources.definition import DEFAULT_STACK_TIMEOUT, ValidationScope
from hearth.resources.exceptions import PollDelay
from hearth.resources.nested import ChildDefinition, NestedMember
from hearth.resources.properties import Properties
from hearth.resources.stack_resource import FAILED, StackResource
from hearth.resources.support import SupportStatus
from hearth.template.environment import Environment


class ResourceGroup(StackResource):
    """A group of identical resources (members "0".."count-1") in a nested stack."""

    type_description = schema.DESCRIPTION
    support_status = SupportStatus(version="2014.1")
    properties_schema = schema.PROPERTIES
    attributes_schema = schema.ATTRIBUTES
    update_policy_schema = schema.UPDATE_POLICY
    # The child's members, read once per step (see child_members).
    _members: list[NestedMember] | None = None

    # --- the child stack -----------------------------------------------------------------

    @classmethod
    def child_for(
        cls,
        name: str,
        properties: Properties,
        environment: Environment,
        files: Mapping[str, str],
    ) -> ChildDefinition | None:
        """A child of the first member only: what Heat validates before the group exists
        (so a group of 10,000 validates as fast as a group of one). A zero count validates
        nothing of ``resource_def``, so that a count of 0 can switch a feature off."""
        if not properties.get(COUNT):
            return None
        return cls._unborn_child(name, properties, environment, files, 1)

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        group_size.check(properties.get(COUNT))

    @classmethod
    def preview_child_for(
        cls,
        name: str,
        properties: Properties,
        environment: Environment,
        files: Mapping[str, str],
    ) -> ChildDefinition | None:
        """Every member (a preview shows them all; none for a zero count)."""
        count = properties.get(COUNT) or 0
        return cls._unborn_child(name, properties, environment, files, count)

    @classmethod
    def _unborn_child(
        cls,
        name: str,
        properties: Properties,
        environment: Environment,
        files: Mapping[str, str],
        size: int,
    ) -> ChildDefinition | None:
        """The child of a group that does not exist yet, of ``size`` members."""
        resource_def = properties.get(RESOURCE_DEF)
        if not isinstance(resource_def, Mapping) or resource_def.get("type") is None:
            return None  # it comes from a resource that does not exist yet
        if size:
            gt.check_member_type(environment, resource_def.get("type"))
        skipped = set(gt.removal_entries(properties.get(REMOVAL_POLICIES), (), None, {}))
        index_var = str(properties.get(INDEX_VAR))
        definitions = [
            (n, gt.member_definition(resource_def, n, index_var))
            for n in gt.member_names(size, skipped)
        ]
        return ChildDefinition(
            gt.child_template(definitions), environment.child({}, None, name), files
        )

    def child_definition(self, properties: Properties | None = None) -> ChildDefinition:
        props = properties if properties is not None else self.properties
        resource_def = gt.clean_definition(props[RESOURCE_DEF])
        index_var = str(props[INDEX_VAR])
        definitions = [
            (n, gt.member_definition(resource_def, n, index_var)) for n in self._names(props)
        ]
        return self._child(gt.child_template(definitions))

    def _child(
        self, template: Mapping[str, Any], old_files: Mapping[str, str] | None = None
    ) -> ChildDefinition:
        files = {**(old_files or {}), **self.context.stack_files()}
        env = self.context.stack_environment().child({}, None, self.name)
        return ChildDefinition(template, env, files)

    # --- names and removal policies --------------------------------------------------------

    def _skiplist(self) -> list[str]:
        return gt.stored_skiplist(self.data())

    def _names(self, props: Properties) -> list[str]:
        skipped = set(self._skiplist())
        if self.resource_id is None:
            # Before the first create the policies' entries are names as given.
            skipped |= set(gt.removal_entries(props[REMOVAL_POLICIES], skipped, None, {}))
        return gt.member_names(props[COUNT], skipped)

    def _update_skiplist(self, props: Properties) -> None:
        current = self._skiplist()
        existing: set[str] | None = None
        refs: dict[str, Any] = {}
        if self.resource_id is not None:
            members = self.context.nested.members(self.resource_id)
            existing = {m.name for m in members}
            refs = {m.name: m.reference for m in members}
        new = gt.removal_entries(props[REMOVAL_POLICIES], current, existing, refs)
        updated = gt.updated_skiplist(current, new, props[REMOVAL_POLICIES_MODE])
        if updated != set(current):
            self.data_set(gt.SKIPLIST_KEY, gt.skiplist_data(updated))

    # --- create and update -----------------------------------------------------------------

    def _policy(self, name: str) -> dict[str, Any] | None:
        policy = self.context.update_policy().get(name)
        if not isinstance(policy, Mapping):
            return None
        # Defaults applied, as Heat's update policy properties give them.
        return dict(Properties(self.update_policy_schema, {name: policy})[name])

    def handle_create(self) -> Any:
        self._update_skiplist(self.properties)
        policy = self._policy(BATCH_CREATE)
        count = self.properties[COUNT]
        if policy is None or not count:
            return super().handle_create()
        batches = rolling.plan_batches(count, 0, policy[MAX_BATCH_SIZE])
        cookie = self._batch_cookie(batches, policy[PAUSE_TIME])
        # An empty child first; each batch is then an update of it (as Heat does).
        child_id = self.context.nested.create(
            self._child(gt.child_template([])), timeout_mins=self.child_timeout()
        )
        self.resource_id_set(child_id)
        return cookie

    def check_create_complete(self, cookie: Any) -> bool:
        if not cookie:
            return super().check_create_complete(cookie)
        return self._step_batches(cookie)

    def handle_update(
        self, new_properties: Properties, prop_diff: Mapping[str, Any], tmpl_diff: Any
    ) -> Any:
        self.properties = new_properties
        self._members = None
        if self.resource_id is None:
            return self.handle_create()
        self._update_skiplist(new_properties)
        policy = self._policy(ROLLING_UPDATE)
        if policy is not None and RESOURCE_DEF in prop_diff:
            batches = self._rolling_batches(policy)
            if batches:
                cookie = self._batch_cookie(batches, policy[PAUSE_TIME])
                self._start_batch(cookie)
                return cookie
        self.context.nested.update(
            self.resource_id, self.child_definition(new_properties),
            timeout_mins=self.child_timeout(),
        )
        return None

    def check_update_complete(self, cookie: Any) -> bool:
        if not cookie:
            return super().check_update_complete(cookie)
        return self._step_batches(cookie)

    # --- batches ---------------------------------------------------------------------------

    def _rolling_batches(self, policy: Mapping[str, Any]) -> list[rolling.Batch]:
        assert self.resource_id is not None
        members = self.context.nested.members(self.resource_id)
        skipped = set(self._skiplist())
        # Failed members count as members; skipped healthy ones are about to go.
        gone = sum(1 for m in members if m.status != FAILED and m.name in skipped)
        return rolling.plan_batches(
            self.properties[COUNT], len(members) - gone, policy[MAX_BATCH_SIZE],
            policy[MIN_IN_SERVICE],
        )

    def _batch_cookie(self, batches: list[rolling.Batch], pause: float) -> dict[str, Any]:
        """Everything the batches need, as plain JSON (any worker may carry them on)."""
        stack_timeout = (
            self.context.stack_timeout_mins * 60.0
            if self.context.stack_timeout_mins else DEFAULT_STACK_TIMEOUT
        )
        left = rolling.total_pause_check(len(batches), pause, stack_timeout)
        return {
            "batches": [list(b) for b in batches],
            "next": 0,
            "pause": pause,
            "paused_at": None,
            "timeout_mins": math.ceil(left / 60),
            "count": self.properties[COUNT],
            "index_var": self.properties[INDEX_VAR],
            "resource_def": gt.clean_definition(self.properties[RESOURCE_DEF]),
        }

    def _step_batches(self, cookie: dict[str, Any]) -> bool:
        """Wait for the running batch, pause, start the next one; True after the last."""
        if cookie.get("paused_at") is not None:
            left = float(cookie["pause"]) - (waiting.clock() - float(cookie["paused_at"]))
            if left > 0:
                raise PollDelay(left)
            cookie["paused_at"] = None
            self._start_batch(cookie)
            return False
        if not self._child_done("UPDATE", also=("CREATE",)):
            return False
        if cookie["next"] >= len(cookie["batches"]):
            return True
        if cookie["pause"] > 0 and cookie["next"] > 0:
            cookie["paused_at"] = waiting.clock()
            raise PollDelay(float(cookie["pause"]))
        self._start_batch(cookie)
        return False

    def _start_batch(self, cookie: dict[str, Any]) -> None:
        assert self.resource_id is not None
        capacity, new = cookie["batches"][cookie["next"]]
        cookie["next"] += 1
        nested = self.context.nested
        current = gt.current_definitions(nested.template(self.resource_id))
        skipped = set(self._skiplist())
        existing = [
            (m.name, current[m.name])
            for m in nested.members(self.resource_id)
            if m.status != FAILED and m.name not in skipped and m.name in current
        ]
        resource_def, index_var = cookie["resource_def"], str(cookie["index_var"])
        members = rolling.batch_members(
            gt.member_names(capacity, skipped), existing, int(cookie["count"]), capacity, new,
            lambda n: gt.member_definition(resource_def, n, index_var),
        )
        # The old members' definitions may need the files of the previous template.
        nested.update(
            self.resource_id,
            self._child(gt.child_template(members), nested.template_files(self.resource_id)),
            timeout_mins=cookie["timeout_mins"],
        )

    # --- attributes ------------------------------------------------------------------------

    @classmethod
    def attribute_names(cls) -> frozenset[str] | None:
        return None  # any member attribute, and resource.<name>[.<attribute>]

    def child_members(self) -> list[NestedMember]:
        # Every attribute of the group is read from the same members.
        if self._members is None:
            self._members = super().child_members()
        return self._members

    def get_attribute(self, name: str, *path: Any) -> Any:
        if name == gt.REMOVED_RSRC_LIST:
            return self._skiplist()  # the path is not applied (as Heat)
        if self.resource_id is None and name.startswith(gt.MEMBER_PREFIX):
            return None
        view = gt.MemberView(self.name, self._names(self.properties), self.child_members())
        return gt.group_attribute(view, name, path)
