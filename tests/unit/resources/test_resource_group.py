"""ResourceGroup and ResourceChain without an engine: child templates (checked against what
Heat 27 generates), removal policies, batch plans, attributes, and batched updates driven
through a fake child stack."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from hearth.common.errors import InvalidTemplateAttribute, NotFound, ResourceTypeNotFound
from hearth.resources.builtin import group_template as gt
from hearth.resources.builtin import resource_mapping, rolling, waiting
from hearth.resources.builtin.resource_chain import ResourceChain, chain_definitions
from hearth.resources.builtin.resource_group import ResourceGroup
from hearth.resources.exceptions import NestedStackFailed, PollDelay
from hearth.resources.nested import ChildDefinition, NestedMember, NestedState
from hearth.resources.properties import Properties
from hearth.template.environment import Environment, make_global_environment
from tests.unit.resources.fakes import FakeResourceContext

GLOBAL = make_global_environment(resource_mapping())


def env(doc: Mapping[str, Any] | None = None) -> Environment:
    return Environment(doc or {}, global_env=GLOBAL)


def group_props(**props: Any) -> Properties:
    return Properties(ResourceGroup.properties_schema, props)


# --- templates: what Heat 27 generates for the same definitions ------------------------------

# Heat 27's child template for count 3, index_var "%ix%", removal of "1" at create, and a
# property given as null (recorded with heat.engine.resources.openstack.heat.resource_group).
HEAT_GROUP_CHILD = {
    "heat_template_version": "2015-04-30",
    "resources": {
        name: {
            "type": "OS::Heat::TestResource",
            "properties": {"value": f"v-{name}", "action_wait_secs": {"create": 0}},
            "metadata": {"m": "%ix%"},
        }
        for name in ("0", "2", "3")
    },
    "outputs": {"refs_map": {"value": {n: {"get_resource": n} for n in ("0", "2", "3")}}},
}

HEAT_CHAIN_CHILD = {
    "heat_template_version": "2015-04-30",
    "resources": {
        "0": {"type": "OS::Heat::None", "properties": {"a": "b"}},
        "1": {"type": "OS::Heat::RandomString", "properties": {"a": "b"}, "depends_on": ["0"]},
        "2": {"type": "OS::Heat::None", "properties": {"a": "b"}, "depends_on": ["1"]},
    },
}

RESOURCE_DEF = {
    "type": "OS::Heat::TestResource",
    "properties": {"value": "v-%ix%", "action_wait_secs": {"create": 0}, "description": None},
    "metadata": {"m": "%ix%"},
}


def test_child_template_is_heats() -> None:
    group, _ = make_group(count=3, index_var="%ix%", resource_def=RESOURCE_DEF,
                          removal_policies=[{"resource_list": ["1"]}])
    child = group.child_definition()
    assert child.template == HEAT_GROUP_CHILD


def test_chain_template_is_heats() -> None:
    props = Properties(ResourceChain.properties_schema, {
        "resources": ["OS::Heat::None", "OS::Heat::RandomString", "OS::Heat::None"],
        "resource_properties": {"a": "b"},
    })
    child = ResourceChain.child_for("chain", props, env(), {})
    assert child is not None and child.template == HEAT_CHAIN_CHILD


def test_a_concurrent_chain_has_no_dependencies() -> None:
    defs = chain_definitions(["A", "B", "C"], None, concurrent=True)
    assert defs == [("0", {"type": "A"}), ("1", {"type": "B"}), ("2", {"type": "C"})]


def test_index_substitution_reaches_nested_values_but_not_metadata() -> None:
    rdef = {"type": "T", "properties": {"name": "srv-%index%", "tags": ["%index%", 3],
                                        "deep": {"k": ["a%index%b"]}},
            "metadata": {"x": "%index%"}}
    assert gt.member_definition(rdef, "7", "%index%") == {
        "type": "T",
        "properties": {"name": "srv-7", "tags": ["7", 3], "deep": {"k": ["a7b"]}},
        "metadata": {"x": "%index%"},
    }


def test_member_names_never_reuse_removed_ones() -> None:
    assert gt.member_names(3) == ["0", "1", "2"]
    assert gt.member_names(3, {"0", "2"}) == ["1", "3", "4"]
    assert gt.member_names(0, {"1"}) == []


# --- removal policies ---------------------------------------------------------------------


def test_removal_entries_before_the_group_exists_are_names() -> None:
    policies = [{"resource_list": ["1", 5, "ref-x"]}]
    assert list(gt.removal_entries(policies, (), None, {})) == ["1", "5", "ref-x"]


def test_removal_entries_by_name_or_reference() -> None:
    policies = [{"resource_list": ["0", "ref-of-2", "nobody", 9]}]
    found = gt.removal_entries(policies, ["9"], {"0", "1", "2"}, {"1": "ref-of-1",
                                                                   "2": "ref-of-2"})
    # Unknown names are ignored; a removed name stays removed.
    assert list(found) == ["0", "2", "9"]


def test_update_mode_forgets_earlier_removals() -> None:
    assert gt.updated_skiplist(["1", "2"], ["4"], "append") == {"1", "2", "4"}
    assert gt.updated_skiplist(["1", "2"], ["4"], "update") == {"4"}
    assert gt.skiplist_data({"10", "2", "1"}) == "1,10,2"  # Heat's string order


# --- batch plans ---------------------------------------------------------------------------


def test_batch_create_adds_members_batch_by_batch() -> None:
    assert rolling.plan_batches(3, 0, 1) == [(1, 1), (2, 1), (3, 1)]
    assert rolling.plan_batches(5, 0, 2) == [(2, 2), (4, 2), (5, 1)]


def test_rolling_update_keeps_capacity() -> None:
    assert rolling.plan_batches(3, 3, 1) == [(3, 1)] * 3
    assert rolling.plan_batches(10, 10, 2, min_in_service=1) == [(10, 2)] * 5
    # min_in_service above the target: extra capacity while the batches run, then a last
    # step back to the target (the plans Heat 27's ResourceGroup._get_batches makes).
    assert rolling.plan_batches(4, 4, 2, min_in_service=4) == [(6, 2)] * 3 + [(4, 0)]
    assert rolling.plan_batches(6, 10, 4, min_in_service=8) == [(10, 4), (8, 2), (6, 0)]
    assert rolling.plan_batches(12, 10, 3, min_in_service=1) == [(12, 3)] * 4
    assert rolling.plan_batches(3, 3, 20) == [(3, 3)]
    assert rolling.plan_batches(0, 3, 1) == [(0, 0)]


def test_pauses_longer_than_the_stack_timeout_are_refused() -> None:
    assert rolling.total_pause_check(3, 10, 3600) == 3580
    with pytest.raises(ValueError, match="will result in stack update timeout"):
        rolling.total_pause_check(3, 1800, 3600)


def simulate(
    count: int, target: int, batch: int, min_in_service: int
) -> tuple[int, int, int, int]:
    """A rolling update of ``count`` members to ``target`` new ones, as the nested stack
    would apply each batch: (kept, created, deleted, biggest batch of changes)."""
    ids = itertools.count()
    state = {str(i): ("old", next(ids)) for i in range(count)}
    first = {v[1] for v in state.values()}
    worst = 0
    for capacity, new in rolling.plan_batches(target, count, batch, min_in_service):
        existing = [(n, {"d": d}) for n, (d, _) in state.items()]
        members = rolling.batch_members(
            gt.member_names(capacity), existing, target, capacity, new, lambda n: {"d": "new"}
        )
        changed = sum(1 for n, d in members if n not in state or state[n][0] != d["d"])
        worst = max(worst, changed)
        state = {n: (d["d"], state[n][1] if n in state else next(ids)) for n, d in members}
    assert all(d == "new" for d, _ in state.values()) and len(state) == target
    final = {v[1] for v in state.values()}
    return len(final & first), len(final - first), len(first - final), worst


@pytest.mark.parametrize(
    ("target", "batch", "min_in_service", "kept", "created", "deleted"),
    [
        # The cases of Heat's functional ResourceGroupUpdatePolicyTest (10 members).
        (10, 3, 1, 10, 0, 0),
        (6, 3, 1, 6, 0, 4),
        (12, 3, 1, 10, 2, 0),
        (6, 4, 8, 6, 0, 4),
        (10, 4, 8, 10, 0, 0),
        (10, 20, 0, 10, 0, 0),
        (10, 1, 20, 10, 0, 0),
    ],
)
def test_rolling_updates_as_heat_counts_them(
    target: int, batch: int, min_in_service: int, kept: int, created: int, deleted: int
) -> None:
    got = simulate(10, target, batch, min_in_service)
    assert got[:3] == (kept, created, deleted)
    assert got[3] <= batch


# --- the plugin, over a fake child stack ----------------------------------------------------


@dataclass
class FakeNested:
    """A child stack that does what it is told at once (or stays IN_PROGRESS on request)."""

    members_: list[NestedMember] = field(default_factory=list)
    template_: dict[str, Any] = field(default_factory=dict)
    state_: NestedState | None = None
    updates: list[ChildDefinition] = field(default_factory=list)
    hold: bool = False

    def create(self, child: ChildDefinition, **_: Any) -> str:
        self._apply(child, "CREATE")
        return "child-id"

    def update(self, stack_id: str, child: ChildDefinition, **_: Any) -> None:
        self.updates.append(child)
        self._apply(child, "UPDATE")

    def _apply(self, child: ChildDefinition, action: str) -> None:
        self.template_ = dict(child.template)
        names = list(child.template.get("resources", {}))
        self.members_ = [
            NestedMember(n, f"id-{n}", f"ref-{n}", action, "COMPLETE", {"value": f"val-{n}"})
            for n in names
        ]
        status = "IN_PROGRESS" if self.hold else "COMPLETE"
        self.state_ = NestedState(action, status, "")

    def state(self, stack_id: str) -> NestedState | None:
        return self.state_

    def members(self, stack_id: str) -> list[NestedMember]:
        return list(self.members_)

    def template(self, stack_id: str) -> dict[str, Any]:
        return self.template_

    def template_files(self, stack_id: str) -> dict[str, str]:
        return {}


@dataclass
class GroupContext(FakeResourceContext):
    nested: FakeNested = field(default_factory=FakeNested)
    policy: dict[str, Any] = field(default_factory=dict)
    stack_timeout_mins: int | None = None

    def stack_environment(self) -> Environment:
        return env()

    def stack_files(self) -> dict[str, str]:
        return {}

    def update_policy(self) -> dict[str, Any]:
        return self.policy


def make_group(
    context: GroupContext | None = None, resource_id: str | None = None, **props: Any
) -> tuple[ResourceGroup, GroupContext]:
    ctx = context or GroupContext(resource_name="group")
    group = ResourceGroup("group", "OS::Heat::ResourceGroup", props, ctx,  # type: ignore[arg-type]
                          resource_id=resource_id)
    return group, ctx


def created_group(count: int = 3, **props: Any) -> tuple[ResourceGroup, GroupContext]:
    props.setdefault("resource_def", {"type": "OS::Heat::RandomString"})
    group, ctx = make_group(count=count, **props)
    group.handle_create()
    assert group.check_create_complete(None)
    return group, ctx


def test_validation_child_has_one_member_and_none_for_count_zero() -> None:
    big = group_props(count=10000, resource_def={"type": "OS::Heat::RandomString"})
    child = ResourceGroup.child_for("group", big, env(), {})
    assert child is not None and list(child.template["resources"]) == ["0"]
    zero = group_props(count=0, resource_def={"type": "OS::No::Such"})
    assert ResourceGroup.child_for("group", zero, env(), {}) is None


def test_an_unknown_member_type_is_reported_as_heat_does() -> None:
    props = group_props(count=2, resource_def={"type": "OS::No::Such"})
    with pytest.raises(ResourceTypeNotFound) as err:
        ResourceGroup.child_for("group", props, env(), {})
    assert str(err.value) == "The Resource Type (OS::No::Such) could not be found."


def test_attributes_read_the_members() -> None:
    group, _ = created_group()
    assert group.get_reference_id() == "child-id"
    assert group.get_attribute("refs") == ["ref-0", "ref-1", "ref-2"]
    assert group.get_attribute("refs", 1) == "ref-1"
    assert group.get_attribute("refs_map") == {"0": "ref-0", "1": "ref-1", "2": "ref-2"}
    assert group.get_attribute("value") == ["val-0", "val-1", "val-2"]
    assert group.get_attribute("attributes", "value") == {
        "0": "val-0", "1": "val-1", "2": "val-2"}
    assert group.get_attribute("resource.1") == "ref-1"
    assert group.get_attribute("resource.1.value") == "val-1"
    assert group.get_attribute("resource.1", "value") == "val-1"
    assert group.get_attribute("removed_rsrc_list") == []
    with pytest.raises(InvalidTemplateAttribute):
        group.get_attribute("attributes")
    with pytest.raises(NotFound, match="Member '7' not found in group resource 'group'."):
        group.get_attribute("resource.7.value")


def test_scale_up_down_and_removal_policies_keep_names() -> None:
    group, ctx = created_group(count=3)
    new = group_props(count=5, resource_def={"type": "OS::Heat::RandomString"})
    group.handle_update(new, {"count": 5}, {})
    assert list(ctx.nested.template_["resources"]) == ["0", "1", "2", "3", "4"]
    remove = group_props(count=3, resource_def={"type": "OS::Heat::RandomString"},
                         removal_policies=[{"resource_list": ["1", "ref-3"]}])
    group.handle_update(remove, {"count": 3}, {})
    assert list(ctx.nested.template_["resources"]) == ["0", "2", "4"]
    assert ctx.stored[gt.SKIPLIST_KEY] == "1,3"
    assert group.get_attribute("removed_rsrc_list") == ["1", "3"]
    # Appended: the names stay removed when the policy is dropped...
    again = group_props(count=4, resource_def={"type": "OS::Heat::RandomString"})
    group.handle_update(again, {"count": 4}, {})
    assert list(ctx.nested.template_["resources"]) == ["0", "2", "4", "5"]
    # ...until the mode says to replace the list.
    reset = group_props(count=4, resource_def={"type": "OS::Heat::RandomString"},
                        removal_policies_mode="update")
    group.handle_update(reset, {"count": 4}, {})
    assert list(ctx.nested.template_["resources"]) == ["0", "1", "2", "3"]


def test_rolling_update_runs_one_batch_at_a_time_with_pauses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [1000.0]
    monkeypatch.setattr(waiting, "clock", lambda: now[0])
    old = {"type": "OS::Heat::TestResource", "properties": {"value": "a"}}
    new = {"type": "OS::Heat::TestResource", "properties": {"value": "b"}}
    group, ctx = created_group(count=3, resource_def=old)
    ctx.policy = {"rolling_update": {"max_batch_size": 1, "pause_time": 5}}
    ctx.nested.hold = True
    cookie = group.handle_update(group_props(count=3, resource_def=new),
                                 {"resource_def": new}, {})
    assert len(ctx.nested.updates) == 1
    assert not group.check_update_complete(cookie)  # the batch is still running
    ctx.nested.state_ = NestedState("UPDATE", "COMPLETE", "")
    with pytest.raises(PollDelay):
        group.check_update_complete(cookie)  # the pause starts
    now[0] += 2
    with pytest.raises(PollDelay) as delay:
        group.check_update_complete(cookie)
    assert delay.value.seconds == pytest.approx(3)
    now[0] += 3
    assert not group.check_update_complete(cookie)
    assert len(ctx.nested.updates) == 2
    ctx.nested.state_ = NestedState("UPDATE", "COMPLETE", "")
    now[0] += 10
    with pytest.raises(PollDelay):
        group.check_update_complete(cookie)
    now[0] += 10
    group.check_update_complete(cookie)
    ctx.nested.state_ = NestedState("UPDATE", "COMPLETE", "")
    assert group.check_update_complete(cookie)
    # The highest index is updated first, one member per batch.
    values = [
        {n: d["properties"]["value"] for n, d in u.template["resources"].items()}
        for u in ctx.nested.updates
    ]
    assert values == [
        {"0": "a", "1": "a", "2": "b"},
        {"0": "a", "1": "b", "2": "b"},
        {"0": "b", "1": "b", "2": "b"},
    ]


def test_batch_create_starts_empty_then_adds_batches() -> None:
    ctx = GroupContext(resource_name="group",
                       policy={"batch_create": {"max_batch_size": 2}})
    group, _ = make_group(ctx, count=3, resource_def={"type": "OS::Heat::None"})
    cookie = group.handle_create()
    assert ctx.nested.template_["resources"] == {}
    while not group.check_create_complete(cookie):
        pass
    sizes = [len(u.template["resources"]) for u in ctx.nested.updates]
    assert sizes == [2, 3]


def test_a_failed_batch_fails_the_group() -> None:
    group, ctx = created_group(count=2, resource_def={"type": "OS::Heat::None"})
    ctx.policy = {"rolling_update": {"max_batch_size": 1}}
    new = {"type": "OS::Heat::None", "properties": {"x": 1}}
    cookie = group.handle_update(group_props(count=2, resource_def=new),
                                 {"resource_def": new}, {})
    ctx.nested.state_ = NestedState(
        "UPDATE", "FAILED", "Resource UPDATE failed: ValueError: resources[1]: boom")
    with pytest.raises(NestedStackFailed):
        group.check_update_complete(cookie)
