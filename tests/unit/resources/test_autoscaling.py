"""Autoscaling as plugins and pure rules: adjustments, cooldown, rolling batches, member
templates, validation and the policy/group conversation, with Heat 27's messages."""

from __future__ import annotations

import datetime
import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from hearth.common.errors import NotFound, NotSupported, StackValidationFailed
from hearth.resources.base import Resource
from hearth.resources.builtin.autoscaling import capacity, members
from hearth.resources.builtin.autoscaling.aws_group import AutoScalingGroup
from hearth.resources.builtin.autoscaling.group import ADJUST
from hearth.resources.builtin.autoscaling.heat_group import AutoScalingResourceGroup
from hearth.resources.builtin.autoscaling.launch_config import LaunchConfiguration
from hearth.resources.builtin.autoscaling.policy import (
    AutoScalingPolicy,
    AWSScalingPolicy,
    ResourcePropertyValueDependency,
)
from hearth.resources.exceptions import NoActionRequired
from hearth.resources.nested import ChildDefinition, NestedMember, NestedState
from hearth.template.environment import Environment
from tests.unit.resources.fakes import FakeResourceContext

# --- adjustments ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("current", "adjustment", "kind", "step", "expected"),
    [
        (1, 1, capacity.CHANGE_IN_CAPACITY, None, 2),
        (3, -1, capacity.CFN_CHANGE_IN_CAPACITY, None, 2),
        (1, 7, capacity.EXACT_CAPACITY, None, 7),
        (10, 33, capacity.PERCENT_CHANGE_IN_CAPACITY, None, 13),
        (10, -33, capacity.PERCENT_CHANGE_IN_CAPACITY, None, 7),
        # Less than one member still moves by one.
        (1, 10, capacity.PERCENT_CHANGE_IN_CAPACITY, None, 2),
        (2, -10, capacity.CFN_PERCENT_CHANGE_IN_CAPACITY, None, 1),
        (10, 10, capacity.PERCENT_CHANGE_IN_CAPACITY, 3, 13),
        (10, -10, capacity.PERCENT_CHANGE_IN_CAPACITY, 3, 7),
        # Bounded by the group's minimum and maximum.
        (18, 5, capacity.CHANGE_IN_CAPACITY, None, 20),
        (2, -5, capacity.CHANGE_IN_CAPACITY, None, 1),
        (4, 0, capacity.EXACT_CAPACITY, None, 1),
    ],
)
def test_new_capacity(
    current: int, adjustment: int, kind: str, step: int | None, expected: int
) -> None:
    assert capacity.new_capacity(current, adjustment, kind, step, 1, 20) == expected


# --- cooldown -------------------------------------------------------------------------------


def _iso(seconds: float) -> str:
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    return (now + datetime.timedelta(seconds=seconds)).isoformat()


def test_scaling_is_refused_while_another_runs() -> None:
    with pytest.raises(NoActionRequired) as err:
        capacity.check_scaling_allowed("grp", {"scaling_in_progress": True}, 0)
    assert str(err.value) == (
        "The resource grp could not perform scaling action: due to scaling activity"
    )


@pytest.mark.parametrize(
    ("shape", "extra_in"),
    [
        ("cooldown_end", None),
        # The end recorded when a stack action resized the group counts too.
        ("empty", 30),
        # Heat's older shape: the last scaling's time under "cooldown".
        ("cooldown", None),
    ],
)
def test_scaling_is_refused_during_the_cooldown(shape: str, extra_in: int | None) -> None:
    metadata = {
        "cooldown_end": {"cooldown_end": {_iso(60): "x"}},
        "empty": {},
        "cooldown": {"cooldown": {_iso(-5): "x"}},
    }[shape]
    extra = _iso(extra_in) if extra_in is not None else None
    with pytest.raises(NoActionRequired) as err:
        capacity.check_scaling_allowed("grp", metadata, 60, extra)
    assert str(err.value) == (
        "The resource grp could not perform scaling action: due to cooldown, cooldown 60"
    )


def test_scaling_after_the_cooldown_marks_it_in_progress() -> None:
    metadata = {"cooldown_end": {_iso(-1): "ExactCapacity : 2"}}
    allowed = capacity.check_scaling_allowed("grp", metadata, 60)
    assert allowed["scaling_in_progress"] is True
    assert allowed["cooldown_end"] == metadata["cooldown_end"]


def test_finished_scaling_starts_a_cooldown_never_earlier_than_the_last() -> None:
    later = _iso(600)
    done = capacity.finished_scaling({"cooldown_end": {later: "a"}}, 10, "change : 1")
    assert done == {"cooldown_end": {later: "change : 1"}, "scaling_in_progress": False}
    fresh = capacity.finished_scaling(None, 30, "ChangeInCapacity : 1")
    [(end, reason)] = fresh["cooldown_end"].items()
    assert reason == "ChangeInCapacity : 1" and _iso(25) < end < _iso(35)
    failed = capacity.finished_scaling({"scaling_in_progress": True}, 30, "x", False)
    assert failed == {"scaling_in_progress": False}


# --- rolling updates and member templates -------------------------------------------------


def roll(size: int, min_in_service: int, batch_size: int) -> tuple[int, int, int, list[str]]:
    """Heat's rolling update of ``size`` members: (names kept, created, deleted, final)."""
    counter = itertools.count()
    old = [(f"o{i}", {"v": 1}) for i in range(size)]
    current = list(old)
    for total, new in capacity.batches(size, size, batch_size, min_in_service):
        current = list(members.member_definitions(
            current, {"v": 2}, total, new, lambda: f"n{next(counter)}"))
    before = {n for n, _ in old}
    after = [n for n, _ in current]
    return len(before & set(after)), len(set(after) - before), len(before - set(after)), after


@pytest.mark.parametrize(
    ("min_in_service", "batch_size", "expected"),
    # The counts Heat's functional tests assert for a group of ten.
    [(1, 3, (10, 0, 0)), (8, 4, (8, 2, 2)), (0, 20, (10, 0, 0)), (20, 1, (9, 1, 1))],
)
def test_rolling_update_batches(
    min_in_service: int, batch_size: int, expected: tuple[int, int, int]
) -> None:
    kept, created, deleted, final = roll(10, min_in_service, batch_size)
    assert (kept, created, deleted) == expected
    # The oldest members are the ones that go.
    assert final[: 10 - created] == [f"o{i}" for i in range(deleted, 10)]


def test_batches_keep_members_in_service() -> None:
    assert list(capacity.batches(10, 10, 4, 8)) == [(12, 4), (12, 4), (10, 2)]
    assert list(capacity.batches(3, 3, 1, 0)) == [(3, 1), (3, 1), (3, 1)]
    assert list(capacity.batches(0, 0, 1, 0)) == []


def test_member_definitions_grow_and_shrink_keeping_members() -> None:
    names = iter(["new1", "new2"])
    old = [("a", {"v": 1}), ("b", {"v": 1})]
    grown = list(members.member_definitions(old, {"v": 2}, 4, 0, lambda: next(names)))
    # Existing members keep their definitions; only new ones take the new one.
    assert grown == [("a", {"v": 1}), ("b", {"v": 1}), ("new1", {"v": 2}), ("new2", {"v": 2})]
    assert list(members.member_definitions(old, {"v": 1}, 1, 0)) == [("b", {"v": 1})]
    assert list(members.member_definitions(old, {"v": 1}, 0, 0)) == []


def test_member_names_are_short_random_ids() -> None:
    names = {members.new_member_name() for _ in range(50)}
    assert len(names) == 50
    assert all(len(n) == 12 and n.isalnum() and n.islower() for n in names)


def test_members_are_ordered_failed_first_then_oldest() -> None:
    def member(name: str, status: str) -> NestedMember:
        return NestedMember(name, None, None, "CREATE", status)

    found = [member("a", "COMPLETE"), member("b", "FAILED"), member("c", "COMPLETE")]
    assert [m.name for m in members.ordered(found, True)] == ["b", "a", "c"]
    assert [m.name for m in members.ordered(found, False)] == ["a", "c"]


def test_iso_durations() -> None:
    assert capacity.parse_isoduration("PT1H2M3S") == 3723
    assert capacity.parse_isoduration("PT0S") == 0
    with pytest.raises(ValueError, match="Only ISO 8601 duration format of the form PT#H#M#S"):
        capacity.parse_isoduration("P1D")


# --- validation -----------------------------------------------------------------------------


def validate(cls: type[Resource], props: dict[str, Any], type_name: str,
             unresolved: frozenset[str] = frozenset()) -> None:
    cls.validate_definition("r", props, type_name=type_name, unresolved=unresolved)


HEAT_GROUP = "OS::Heat::AutoScalingGroup"
AWS_GROUP = "AWS::AutoScaling::AutoScalingGroup"


@pytest.mark.parametrize(
    ("sizes", "message"),
    [
        ({"min_size": 3, "max_size": 2}, "MinSize can not be greater than MaxSize"),
        ({"min_size": 1, "max_size": 2, "desired_capacity": 3},
         "DesiredCapacity must be between MinSize and MaxSize"),
    ],
)
def test_heat_group_sizes_are_checked(sizes: dict[str, int], message: str) -> None:
    props = {"resource": {"type": "OS::Heat::None"}, **sizes}
    with pytest.raises(StackValidationFailed) as err:
        validate(AutoScalingResourceGroup, props, HEAT_GROUP)
    assert str(err.value) == message


def test_aws_group_needs_exactly_one_source_of_instances() -> None:
    base = {"AvailabilityZones": ["nova"], "MinSize": "1", "MaxSize": "2"}
    with pytest.raises(StackValidationFailed, match="^Either 'InstanceId' or "
                       "'LaunchConfigurationName' must be provided.$"):
        validate(AutoScalingGroup, base, AWS_GROUP)
    # A reference to a configuration not made yet counts as given.
    validate(AutoScalingGroup, {**base, "LaunchConfigurationName": None}, AWS_GROUP,
             frozenset({"LaunchConfigurationName"}))
    with pytest.raises(NotSupported, match="Anything other than one VPCZoneIdentifier"):
        validate(AutoScalingGroup, {**base, "LaunchConfigurationName": "lc",
                                    "VPCZoneIdentifier": ["a", "b"]}, AWS_GROUP)


def test_policy_min_adjustment_step_needs_a_percentage() -> None:
    props = {"auto_scaling_group_id": "g", "adjustment_type": "change_in_capacity",
             "scaling_adjustment": 1, "min_adjustment_step": 2}
    with pytest.raises(ResourcePropertyValueDependency) as err:
        validate(AutoScalingPolicy, props, "OS::Heat::ScalingPolicy")
    assert str(err.value) == (
        "min_adjustment_step property should only be specified for adjustment_type with "
        "value percent_change_in_capacity."
    )
    cfn = {"AutoScalingGroupName": "g", "AdjustmentType": "ExactCapacity",
           "ScalingAdjustment": 1, "MinAdjustmentStep": 2}
    with pytest.raises(ResourcePropertyValueDependency, match="MinAdjustmentStep property "
                       "should only be specified for AdjustmentType with value "
                       "PercentChangeInCapacity."):
        validate(AWSScalingPolicy, cfn, "AWS::AutoScaling::ScalingPolicy")


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"ImageId": "cirros"}, "If without InstanceId, ImageId and InstanceType are required."),
        ({"ImageId": "i", "InstanceType": "f", "BlockDeviceMappings": [{"DeviceName": "vdb"}]},
         "Ebs is missing, this is required when specifying BlockDeviceMappings."),
        ({"ImageId": "i", "InstanceType": "f",
          "BlockDeviceMappings": [{"DeviceName": "vdb", "Ebs": {"VolumeSize": "1"}}]},
         "SnapshotId is missing, this is required when specifying BlockDeviceMappings."),
    ],
)
def test_launch_configuration_checks(props: dict[str, Any], message: str) -> None:
    with pytest.raises(StackValidationFailed) as err:
        validate(LaunchConfiguration, props, "AWS::AutoScaling::LaunchConfiguration")
    assert str(err.value) == message


def test_launch_configuration_takes_any_image_and_flavor_name() -> None:
    # No Glance or Nova to ask: the instance type the registry maps to decides.
    validate(LaunchConfiguration, {"ImageId": "cirros", "InstanceType": "m1.tiny",
                                   "KeyName": "k"}, "AWS::AutoScaling::LaunchConfiguration")
    shown = LaunchConfiguration.properties_schema["ImageId"].constraints
    assert [getattr(c, "name", None) for c in shown] == ["glance.image"]


# --- policies and groups talking --------------------------------------------------------------


@dataclass
class FakeChild:
    """A child stack held in memory: updates complete when ``finish`` is called."""

    template: dict[str, Any] = field(default_factory=dict)
    state: NestedState = field(default_factory=lambda: NestedState("CREATE", "COMPLETE", ""))
    updates: list[dict[str, Any]] = field(default_factory=list)

    def update(self, stack_id: str, child: ChildDefinition, **_: Any) -> None:
        self.template = dict(child.template)
        self.updates.append(self.template)
        self.state = NestedState("UPDATE", "IN_PROGRESS", "")

    def finish(self, status: str = "COMPLETE") -> None:
        self.state = NestedState("UPDATE", status, "Resource UPDATE failed: boom")

    def members(self, stack_id: str) -> list[NestedMember]:
        names = self.template.get("resources", {})
        return [NestedMember(n, n, f"ref-{n}", "CREATE", "COMPLETE") for n in names]

    def stack_template(self, stack_id: str) -> dict[str, Any]:
        return self.template


@dataclass
class GroupContext(FakeResourceContext):
    child: FakeChild = field(default_factory=FakeChild)
    stack_timeout_mins: int | None = None
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    found: bool = True

    @property
    def nested(self) -> Any:
        child = self.child

        class Nested:
            update = child.update
            members = child.members
            template = child.stack_template

            def state(self, stack_id: str) -> NestedState:
                return child.state

        return Nested()

    def stack_environment(self) -> Environment:
        return Environment({})

    def stack_files(self) -> dict[str, str]:
        return {}

    def drive_peer(self, reference: str, request: Mapping[str, Any]) -> bool:
        self.requests.append((reference, dict(request)))
        return self.found

    def authenticated_signal_url(self, project_id: str | None = None) -> str:
        return "http://hearth.test:8004/v1/t/stacks/s/i/resources/p/signal"


def group(size: int, **props: Any) -> tuple[Any, GroupContext]:
    ctx = GroupContext(resource_name="grp")
    ctx.child.template = {"resources": {f"m{i}": {"type": "OS::Heat::None"} for i in range(size)}}
    defaults = {"min_size": 1, "max_size": 4, "resource": {"type": "OS::Heat::None"}}
    plugin = AutoScalingResourceGroup(
        "grp", HEAT_GROUP, {**defaults, **props}, ctx, resource_id="child-id")
    return plugin, ctx


def adjust(
    adjustment: int, kind: str = capacity.CHANGE_IN_CAPACITY, **extra: Any
) -> dict[str, Any]:
    return {"action": ADJUST, "adjustment": adjustment, "adjustment_type": kind, **extra}


def test_group_adjustment_resizes_the_child_and_ends_with_a_cooldown() -> None:
    plugin, ctx = group(2, cooldown=120)
    cookie = plugin.handle_peer_request(adjust(1))
    assert ctx.metadata == {"scaling_in_progress": True}
    names = list(ctx.child.template["resources"])
    assert names[:2] == ["m0", "m1"] and len(names) == 3
    assert not plugin.check_peer_request_complete(cookie)
    ctx.child.finish()
    assert plugin.check_peer_request_complete(cookie)
    assert ctx.metadata["scaling_in_progress"] is False
    [(end, reason)] = ctx.metadata["cooldown_end"].items()
    assert reason == "change_in_capacity : 1" and end > _iso(100)
    # The next adjustment comes during the cooldown: ignored.
    with pytest.raises(NoActionRequired, match="due to cooldown, cooldown 120"):
        plugin.handle_peer_request(adjust(1))
    assert len(ctx.child.updates) == 1


def test_group_adjustment_to_the_same_size_does_nothing() -> None:
    plugin, ctx = group(4)
    with pytest.raises(NoActionRequired):
        plugin.handle_peer_request(adjust(2))
    assert ctx.child.updates == [] and ctx.metadata is None


def test_failed_resize_ends_the_scaling_without_a_cooldown() -> None:
    plugin, ctx = group(2)
    cookie = plugin.handle_peer_request(adjust(-1))
    assert list(ctx.child.template["resources"]) == ["m1"]
    ctx.child.finish("FAILED")
    with pytest.raises(Exception, match="boom"):
        plugin.check_peer_request_complete(cookie)
    assert ctx.metadata == {"scaling_in_progress": False}


def test_policy_signal_asks_its_group_to_adjust() -> None:
    ctx = GroupContext(resource_name="up")
    props = {"auto_scaling_group_id": "child-id", "adjustment_type": "exact_capacity",
             "scaling_adjustment": 3, "cooldown": 30}
    policy = AutoScalingPolicy("up", "OS::Heat::ScalingPolicy", props, ctx)
    assert policy.signal({"current": "ok"}) == "Unknown"
    assert ctx.requests == [("child-id", {
        "action": ADJUST, "adjustment": 3, "adjustment_type": "exact_capacity",
        "min_adjustment_step": None, "cooldown": 30})]
    ctx.found = False
    with pytest.raises(NotFound) as err:
        policy.signal(None)
    assert str(err.value) == 'Alarm up could not find scaling group named "child-id"'
    with pytest.raises(TypeError):
        policy.signal("not a map")


def test_policy_urls() -> None:
    ctx = GroupContext(resource_name="up")
    props = {"AutoScalingGroupName": "g", "AdjustmentType": "ChangeInCapacity",
             "ScalingAdjustment": 1}
    policy = AWSScalingPolicy("up", "AWS::AutoScaling::ScalingPolicy", props, ctx)
    assert policy.get_reference_id() == "up"
    policy.handle_create()
    url = policy.get_attribute("AlarmUrl")
    assert url == f"http://hearth.test:8004/v1/signal/{ctx.resource_uuid}/{ctx.stored['signal_token']}"
    assert "signal_token" in ctx.redacted
    assert policy.get_reference_id() == url
    policy.handle_delete()
    assert policy.get_attribute("AlarmUrl") is None
