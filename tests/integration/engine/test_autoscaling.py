"""Autoscaling through the engine: groups, scaling policies and their signals, launch
configurations, rolling updates (the behaviours Heat's functional tests assert)."""

from __future__ import annotations

import copy
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from hearth.common.errors import NotSupported
from hearth.engine.engine import Engine
from hearth.engine.plugin_access import peer_requests
from hearth.engine.services.signals import SignalFailed
from tests.integration.engine.conftest import CTX, events, resources, stack_row, wait_state

SHORT_NAME = re.compile(r"^[a-z2-7]{12}$")


def group_template(
    *, desired: int = 2, min_size: int = 1, max_size: int = 5, cooldown: int = 0,
    **policies: dict[str, Any],
) -> dict[str, Any]:
    tmpl: dict[str, Any] = {
        "heat_template_version": "2014-10-16",
        "resources": {
            "group": {
                "type": "OS::Heat::AutoScalingGroup",
                "properties": {
                    "cooldown": cooldown, "desired_capacity": desired,
                    "min_size": min_size, "max_size": max_size,
                    "resource": {"type": "OS::Heat::RandomString"},
                },
            },
        },
        "outputs": {
            "all_values": {"value": {"get_attr": ["group", "outputs_list", "value"]}},
            "by_name": {"value": {"get_attr": ["group", "outputs", "value"]}},
            "value_0": {"value": {"get_attr": ["group", "resource.0.value"]}},
            "size": {"value": {"get_attr": ["group", "current_size"]}},
            "refs": {"value": {"get_attr": ["group", "refs"]}},
            "refs_map": {"value": {"get_attr": ["group", "refs_map"]}},
        },
    }
    for name, props in policies.items():
        tmpl["resources"][name] = {
            "type": "OS::Heat::ScalingPolicy",
            "properties": {"auto_scaling_group_id": {"get_resource": "group"},
                           "adjustment_type": "change_in_capacity", **props},
        }
    return tmpl


def create(engine: Engine, tmpl: dict[str, Any], **kwargs: Any) -> dict[str, str]:
    ident = engine.create_stack(CTX, "scaling", tmpl, args={}, **kwargs)
    assert wait_state(engine, ident)[:2] == ("CREATE", "COMPLETE"), wait_state(engine, ident)
    return ident


def outputs(engine: Engine, ident: dict[str, str]) -> dict[str, Any]:
    shown = engine.show_stack(CTX, ident, resolve_outputs=True)[0]
    return {o["output_key"]: o.get("output_value") for o in shown.get("outputs", [])}


def child(engine: Engine, ident: dict[str, str], name: str = "group") -> dict[str, str]:
    child_id = resources(engine, ident)[name].physical_resource_id
    row = stack_row(engine, {"stack_id": child_id})
    return {"tenant": CTX.project_id, "stack_name": row.name, "stack_id": row.id, "path": ""}


def member_names(engine: Engine, ident: dict[str, str], name: str = "group") -> list[str]:
    """The members, oldest first."""
    listed = engine.list_stack_resources(CTX, child(engine, ident, name))
    rows = resources(engine, child(engine, ident, name))
    return sorted((r["resource_name"] for r in listed), key=lambda n: rows[n].id)


def signal(engine: Engine, ident: dict[str, str], policy: str, details: Any = None) -> None:
    """Signal a policy and wait until the scaling it started is over."""
    engine.resource_signal(CTX, ident, policy, details)
    assert peer_requests.wait_idle(engine.core, 60)


def signal_events(engine: Engine, ident: dict[str, str], name: str) -> list[str]:
    return [e[3] for e in events(engine, ident) if e[0] == name and e[1] == "SIGNAL"]


def wait_until(check: Callable[[], Any], timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


# --- OS::Heat::AutoScalingGroup ---------------------------------------------------------------


def test_group_makes_its_members_and_answers_their_attributes(engine: Engine) -> None:
    ident = create(engine, group_template(desired=2))
    names = member_names(engine, ident)
    assert len(names) == 2 and all(SHORT_NAME.match(n) for n in names)
    out = outputs(engine, ident)
    assert out["size"] == 2
    assert len(out["all_values"]) == 2 and all(len(v) == 32 for v in out["all_values"])
    assert out["value_0"] == out["all_values"][0]
    assert out["by_name"] == dict(zip(names, out["all_values"], strict=True))
    assert out["refs"] == [out["refs_map"][n] for n in names]
    listed = engine.list_stack_resources(CTX, child(engine, ident))
    assert {r["resource_type"] for r in listed} == {"OS::Heat::RandomString"}
    # The members' references, as the child stack's refs_map output (Heat's child template).
    template = engine.get_template(CTX, child(engine, ident))
    assert template["outputs"]["refs_map"]["value"] == {
        n: {"get_resource": n} for n in names}


def test_scale_up_signal_grows_the_group_and_keeps_its_members(engine: Engine) -> None:
    ident = create(engine, group_template(desired=2, up={"scaling_adjustment": 1}))
    before = member_names(engine, ident)
    values = outputs(engine, ident)["all_values"]

    signal(engine, ident, "up")

    after = member_names(engine, ident)
    assert after[:2] == before and len(after) == 3
    out = outputs(engine, ident)
    assert out["size"] == 3 and out["all_values"][:2] == values
    assert signal_events(engine, ident, "up") == ["No signal details provided"]
    # The group keeps its own state, as in Heat: its child stack shows the update.
    group = resources(engine, ident)["group"]
    assert (group.action, group.status) == ("CREATE", "COMPLETE")
    assert stack_row(engine, child(engine, ident)).action == "UPDATE"
    assert group.rsrc_metadata["scaling_in_progress"] is False
    [(_, reason)] = group.rsrc_metadata["cooldown_end"].items()
    assert reason == "change_in_capacity : 1"


def test_scale_down_removes_the_oldest_member(engine: Engine) -> None:
    ident = create(engine, group_template(desired=3, down={"scaling_adjustment": -1}))
    before = member_names(engine, ident)
    signal(engine, ident, "down", {"current": "alarm", "previous": "ok", "reason": "cpu"})
    assert member_names(engine, ident) == before[1:]
    assert outputs(engine, ident)["size"] == 2
    assert signal_events(engine, ident, "down") == ["alarm state changed from ok to alarm (cpu)"]


def test_min_and_max_size_bound_the_group(engine: Engine) -> None:
    ident = create(engine, group_template(
        desired=4, min_size=2, max_size=5,
        up={"scaling_adjustment": 3}, down={"scaling_adjustment": -5},
    ))
    signal(engine, ident, "up")
    assert outputs(engine, ident)["size"] == 5
    # At the maximum there is nothing to do: the signal is ignored, no event recorded.
    signal(engine, ident, "up")
    assert outputs(engine, ident)["size"] == 5
    assert len(signal_events(engine, ident, "up")) == 1
    signal(engine, ident, "down")
    assert outputs(engine, ident)["size"] == 2


def test_cooldown_ignores_a_signal_that_comes_too_soon(engine: Engine) -> None:
    ident = create(engine, group_template(
        desired=2, up={"scaling_adjustment": 1, "cooldown": 60}))
    signal(engine, ident, "up")
    assert outputs(engine, ident)["size"] == 3
    signal(engine, ident, "up")
    assert outputs(engine, ident)["size"] == 3
    assert len(signal_events(engine, ident, "up")) == 1


def test_a_group_cooldown_starts_when_the_group_is_created(engine: Engine) -> None:
    ident = create(engine, group_template(desired=3, cooldown=60, up={"scaling_adjustment": 1}))
    signal(engine, ident, "up")
    assert outputs(engine, ident)["size"] == 3
    assert signal_events(engine, ident, "up") == []


@pytest.mark.parametrize(
    ("policy", "sizes"),
    [
        ({"adjustment_type": "exact_capacity", "scaling_adjustment": 4}, [4, 4]),
        # 50% of 4 is 2 members; then 50% of 6 is 3, but the group stops at 8.
        ({"adjustment_type": "percent_change_in_capacity", "scaling_adjustment": 50},
         [6, 8]),
        # 10% of 4 is less than one member: still one; min_adjustment_step makes it two.
        ({"adjustment_type": "percent_change_in_capacity", "scaling_adjustment": 10,
          "min_adjustment_step": 2}, [6, 8]),
        ({"adjustment_type": "percent_change_in_capacity", "scaling_adjustment": -10},
         [3, 2]),
    ],
)
def test_adjustment_types(engine: Engine, policy: dict[str, Any], sizes: list[int]) -> None:
    ident = create(engine, group_template(desired=4, min_size=2, max_size=8, p=policy))
    got = []
    for _ in sizes:
        signal(engine, ident, "p")
        got.append(outputs(engine, ident)["size"])
    assert got == sizes


def test_a_signal_during_a_scaling_is_ignored(engine: Engine) -> None:
    tmpl = group_template(desired=1, up={"scaling_adjustment": 1})
    # Members that take a while to make, so that the second signal finds the first at work.
    tmpl["resources"]["group"]["properties"]["resource"] = {
        "type": "OS::Heat::TestResource", "properties": {"action_wait_secs": {"create": 1}}}
    ident = create(engine, tmpl)
    engine.resource_signal(CTX, ident, "up", None)
    metadata = engine.resource_metadata(CTX, ident, "group")
    assert metadata["scaling_in_progress"] is True
    engine.resource_signal(CTX, ident, "up", None)
    assert peer_requests.wait_idle(engine.core, 60)
    assert outputs(engine, ident)["size"] == 2
    assert len(signal_events(engine, ident, "up")) == 1
    assert engine.resource_metadata(CTX, ident, "group")["scaling_in_progress"] is False


def test_an_empty_group_updates_without_changes(engine: Engine) -> None:
    tmpl = group_template(desired=0, min_size=0, max_size=0, p={"scaling_adjustment": 1})
    ident = create(engine, tmpl)
    assert outputs(engine, ident)["size"] == 0
    new = group_template(desired=0, min_size=0, max_size=0, p={"scaling_adjustment": 2})
    engine.update_stack(CTX, ident, new, args={})
    assert wait_state(engine, ident)[:2] == ("UPDATE", "COMPLETE")
    signal(engine, ident, "p")
    assert outputs(engine, ident)["size"] == 0


def test_update_of_desired_capacity_resizes_and_keeps_members(engine: Engine) -> None:
    ident = create(engine, group_template(desired=2))
    before = member_names(engine, ident)
    engine.update_stack(CTX, ident, group_template(desired=4), args={})
    assert wait_state(engine, ident)[:2] == ("UPDATE", "COMPLETE")
    after = member_names(engine, ident)
    assert after[:2] == before and len(after) == 4
    assert outputs(engine, ident)["size"] == 4
    engine.update_stack(CTX, ident, group_template(desired=1), args={})
    assert wait_state(engine, ident)[:2] == ("UPDATE", "COMPLETE")
    assert member_names(engine, ident) == after[3:]


def test_update_with_a_changed_policy_is_used_by_the_next_signal(engine: Engine) -> None:
    ident = create(engine, group_template(desired=2, up={"scaling_adjustment": 1}))
    signal(engine, ident, "up")
    new = group_template(desired=2, up={"scaling_adjustment": 2})
    del new["resources"]["group"]["properties"]["desired_capacity"]
    engine.update_stack(CTX, ident, new, args={})
    assert wait_state(engine, ident)[:2] == ("UPDATE", "COMPLETE")
    # Without desired_capacity the update keeps the size the policy made.
    assert outputs(engine, ident)["size"] == 3
    signal(engine, ident, "up")
    assert outputs(engine, ident)["size"] == 5


def test_members_from_a_provider_template_and_rolling_replacement(engine: Engine) -> None:
    files = {"randomstr.yaml": (
        "heat_template_version: 2013-05-23\n"
        "parameters:\n  length: {type: number, default: 8}\n"
        "resources:\n  random_str:\n    type: OS::Heat::RandomString\n"
        "    properties: {length: {get_param: length}}\n"
        "outputs:\n  random_str: {value: {get_attr: [random_str, value]}}\n"
    )}
    tmpl = group_template(desired=3)
    group = tmpl["resources"]["group"]["properties"]
    group["resource"] = {"type": "randomstr.yaml"}
    group["rolling_updates"] = {"min_in_service": 2, "max_batch_size": 1}
    tmpl["outputs"]["all_values"]["value"] = {"get_attr": ["group", "outputs_list", "random_str"]}
    tmpl["outputs"]["value_0"]["value"] = {"get_attr": ["group", "resource.0.random_str"]}
    ident = create(engine, tmpl, files=files)
    out = outputs(engine, ident)
    assert len(out["all_values"]) == 3 and out["value_0"] == out["all_values"][0]
    assert all(len(v) == 8 for v in out["all_values"])
    before = member_names(engine, ident)

    new = copy.deepcopy(tmpl)
    new["resources"]["group"]["properties"]["resource"]["properties"] = {"length": 12}
    engine.update_stack(CTX, ident, new, files=files, args={})
    assert wait_state(engine, ident)[:2] == ("UPDATE", "COMPLETE")
    # Every member took the new definition, one at a time, in place (names kept).
    assert member_names(engine, ident) == before
    assert all(len(v) == 12 for v in outputs(engine, ident)["all_values"])


def test_signal_for_a_missing_group_says_so(engine: Engine) -> None:
    tmpl = group_template(up={"scaling_adjustment": 1})
    tmpl["resources"]["up"]["properties"]["auto_scaling_group_id"] = "nope"
    ident = create(engine, tmpl)
    with pytest.raises(SignalFailed, match='Alarm up could not find scaling group named "nope"'):
        engine.resource_signal(CTX, ident, "up", None)


def test_alarm_url_signals_the_policy_without_a_token(engine: Engine) -> None:
    tmpl = group_template(desired=1, up={"scaling_adjustment": 1})
    tmpl["outputs"]["url"] = {"value": {"get_attr": ["up", "alarm_url"]}}
    tmpl["outputs"]["signal_url"] = {"value": {"get_attr": ["up", "signal_url"]}}
    ident = create(engine, tmpl)
    out = outputs(engine, ident)
    public = engine.core.settings.public_url
    assert out["signal_url"] == (
        f"{public}/v1/{CTX.project_id}/stacks/scaling/{ident['stack_id']}/resources/up/signal"
    )
    uuid, secret = out["url"].rsplit("/", 2)[-2:]
    assert out["url"].startswith(f"{public}/v1/signal/")
    engine.resource_signal_by_token(uuid, secret, {"current": "alarm"})
    assert peer_requests.wait_idle(engine.core, 60)
    assert outputs(engine, ident)["size"] == 2


def test_signal_during_suspend_is_refused(engine: Engine) -> None:
    ident = create(engine, group_template(desired=1, up={"scaling_adjustment": 1}))
    engine.stack_suspend(CTX, ident)
    assert wait_state(engine, ident)[:2] == ("SUSPEND", "COMPLETE")
    with pytest.raises(NotSupported, match="Signal resource during SUSPEND is not supported"):
        engine.resource_signal(CTX, ident, "up", None)
    assert ("up", "SUSPEND", "COMPLETE", "Cannot signal resource during SUSPEND") in events(
        engine, ident)
    assert len(member_names(engine, ident)) == 1


# --- AWS::AutoScaling::AutoScalingGroup and OS::Heat::InstanceGroup ----------------------------

INSTANCE = """
heat_template_version: 2013-05-23
parameters:
  ImageId: {type: string}
  InstanceType: {type: string}
  SecurityGroups: {type: comma_delimited_list}
  UserData: {type: string}
  Tags: {type: comma_delimited_list, default: "x,y"}
resources:
  random1:
    type: OS::Heat::TestResource
    properties: {value: {get_param: UserData}}
outputs:
  PublicIp: {value: {get_attr: [random1, output]}}
"""
LB = """
heat_template_version: 2013-05-23
parameters:
  ImageId: {type: string}
  InstanceType: {type: string}
  SecurityGroups: {type: comma_delimited_list}
  UserData: {type: string}
  Tags: {type: comma_delimited_list, default: "x,y"}
outputs:
  PublicIp: {value: "not-used"}
"""
FILES = {"provider.yaml": INSTANCE, "lb.yaml": LB}
ENV = {"resource_registry": {
    "resources": {"custom_lb": {"AWS::EC2::Instance": "lb.yaml"}},
    "AWS::EC2::Instance": "provider.yaml",
}}


def aws_template(size: int = 2, user_data: str = "jsconfig data") -> dict[str, Any]:
    def policy(adjustment: str) -> dict[str, Any]:
        return {"Type": "AWS::AutoScaling::ScalingPolicy", "Properties": {
            "AdjustmentType": "ChangeInCapacity",
            "AutoScalingGroupName": {"Ref": "JobServerGroup"},
            "Cooldown": "0", "ScalingAdjustment": adjustment}}

    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {
            "custom_lb": {
                "Type": "AWS::EC2::Instance",
                "Properties": {"ImageId": "image", "InstanceType": "flavor",
                               "UserData": "foo", "SecurityGroups": ["sg-1"], "Tags": []},
                "Metadata": {"IPs": {"Fn::GetAtt": ["JobServerGroup", "InstanceList"]}},
            },
            "JobServerGroup": {"Type": "AWS::AutoScaling::AutoScalingGroup", "Properties": {
                "AvailabilityZones": ["nova"],
                "LaunchConfigurationName": {"Ref": "JobServerConfig"},
                "DesiredCapacity": str(size), "MinSize": "0", "MaxSize": "20"}},
            "JobServerConfig": {
                "Type": "AWS::AutoScaling::LaunchConfiguration",
                "Metadata": {"foo": "bar"},
                "Properties": {"ImageId": "image", "InstanceType": "flavor",
                               "SecurityGroups": ["sg-1"], "UserData": user_data}},
            "ScaleUpPolicy": policy("1"),
            "ScaleDownPolicy": policy("-2"),
        },
        "Outputs": {
            "InstanceList": {"Value": {"Fn::GetAtt": ["JobServerGroup", "InstanceList"]}},
            "JobServerConfigRef": {"Value": {"Ref": "JobServerConfig"}},
        },
    }


def instance_count(engine: Engine, ident: dict[str, str]) -> int:
    return len(outputs(engine, ident)["InstanceList"].split(","))


def lb_ips(engine: Engine, ident: dict[str, str]) -> int:
    return len(engine.resource_metadata(CTX, ident, "custom_lb")["IPs"].split(","))


def test_aws_group_of_provider_instances_scales_on_signals(engine: Engine) -> None:
    ident = create(engine, aws_template(size=2), files=FILES, environment=ENV)
    assert instance_count(engine, ident) == 2 and lb_ips(engine, ident) == 2
    assert outputs(engine, ident)["InstanceList"] == "jsconfig data,jsconfig data"
    assert re.match(r"^scaling-JobServerConfig-[a-z2-7]{12}$",
                    outputs(engine, ident)["JobServerConfigRef"])
    members = engine.list_stack_resources(CTX, child(engine, ident, "JobServerGroup"))
    assert {r["resource_type"] for r in members} == {"OS::Heat::ScaledResource"}
    # The members get the launch configuration's properties and metadata, and the tags.
    member = resources(engine, child(engine, ident, "JobServerGroup"))[members[0]["resource_name"]]
    assert member.rsrc_metadata == {"foo": "bar"}

    signal(engine, ident, "ScaleUpPolicy")
    assert stack_row(engine, child(engine, ident, "JobServerGroup")).status == "COMPLETE"
    assert instance_count(engine, ident) == 3
    # Heat refreshes the metadata that reads the group once the signal is handled.
    assert lb_ips(engine, ident) == 3
    signal(engine, ident, "ScaleDownPolicy")
    assert instance_count(engine, ident) == 1 and lb_ips(engine, ident) == 1


def test_a_failing_instance_fails_the_group_and_stays(engine: Engine) -> None:
    bad = INSTANCE.replace("properties: {value: {get_param: UserData}}",
                           "properties: {fail: true}")
    ident = engine.create_stack(CTX, "scaling", aws_template(size=2),
                                files={**FILES, "provider.yaml": bad}, environment=ENV,
                                args={"disable_rollback": True})
    action, status, reason = wait_state(engine, ident)
    assert (action, status) == ("CREATE", "FAILED")
    assert "resources.JobServerGroup" in reason
    group = child(engine, ident, "JobServerGroup")
    states = {(r.action, r.status) for r in resources(engine, group).values()}
    assert ("CREATE", "FAILED") in states


def test_aws_group_size_update(engine: Engine) -> None:
    ident = create(engine, aws_template(size=2), files=FILES, environment=ENV)
    engine.update_stack(CTX, ident, aws_template(size=5), files=FILES, environment=ENV,
                        args={})
    assert wait_state(engine, ident)[:2] == ("UPDATE", "COMPLETE")
    assert instance_count(engine, ident) == 5


def test_aws_group_refuses_inconsistent_sizes(engine: Engine) -> None:
    tmpl = aws_template(size=30)
    with pytest.raises(Exception, match="DesiredCapacity must be between MinSize and MaxSize"):
        engine.create_stack(CTX, "bad", tmpl, files=FILES, environment=ENV, args={})


def instance_group(size: int, user_data: str, min_in_service: int) -> dict[str, Any]:
    tmpl = aws_template(user_data=user_data)
    for name in ("custom_lb", "ScaleUpPolicy", "ScaleDownPolicy"):
        del tmpl["Resources"][name]
    tmpl["Resources"]["JobServerGroup"] = {
        "Type": "OS::Heat::InstanceGroup",
        "Properties": {"AvailabilityZones": ["nova"], "Size": str(size),
                       "LaunchConfigurationName": {"Ref": "JobServerConfig"}},
        "UpdatePolicy": {"RollingUpdate": {
            "MinInstancesInService": str(min_in_service), "MaxBatchSize": "2",
            "PauseTime": "PT0S"}},
    }
    return tmpl


def rolled(engine: Engine, min_in_service: int) -> tuple[list[str], list[str], str]:
    """Names before and after an update that replaces the launch configuration."""
    tmpl = instance_group(4, "one", min_in_service)
    ident = create(engine, tmpl, files=FILES, environment=ENV)
    before = member_names(engine, ident, "JobServerGroup")
    config = outputs(engine, ident)["JobServerConfigRef"]
    assert outputs(engine, ident)["InstanceList"] == "one,one,one,one"
    engine.update_stack(CTX, ident, instance_group(4, "two", min_in_service), files=FILES,
                        environment=ENV, args={})
    assert wait_state(engine, ident)[:2] == ("UPDATE", "COMPLETE")
    assert outputs(engine, ident)["JobServerConfigRef"] != config
    rows = resources(engine, child(engine, ident, "JobServerGroup"))
    assert {(r.action, r.status) for r in rows.values()} == {("UPDATE", "COMPLETE")}
    after = member_names(engine, ident, "JobServerGroup")
    return before, after, outputs(engine, ident)["InstanceList"]


def test_instance_group_rolls_a_new_launch_configuration(engine: Engine) -> None:
    # Two at a time with one in service: every member updated in place.
    before, after, instances = rolled(engine, min_in_service=1)
    assert after == before
    assert instances == "two,two,two,two"


def test_instance_group_rolling_update_keeps_members_in_service(engine: Engine) -> None:
    # Two at a time with three in service: the group grows to five for the batches, then the
    # oldest member goes. As in Heat, members updated in place keep their place in the
    # creation order, so the member dropped at the end had the new definition and the last
    # one of the old ones keeps its old one.
    before, after, instances = rolled(engine, min_in_service=3)
    assert after[:3] == before[1:] and after[3] not in before
    assert instances == "two,two,one,two"


@pytest.mark.parametrize(("new_flavor", "replaced"), [("small", False), ("tiny", True)])
def test_launch_configuration_is_replaced_only_when_a_resolved_property_changes(
    engine: Engine, new_flavor: str, replaced: bool
) -> None:
    # As in Heat, a property that goes from {"Ref": "flavor"} to a literal compares by the
    # value it resolves to: the same flavor leaves the configuration (and the members) as they
    # are; another flavor makes a new configuration, which the group then rolls out. (Heat's
    # *_update_no_replace functional tests count on instance_type != minimal_instance_type.)
    tmpl = instance_group(3, "data", min_in_service=1)
    tmpl["Parameters"] = {"flavor": {"Type": "String"}}
    tmpl["Resources"]["JobServerConfig"]["Properties"]["InstanceType"] = {"Ref": "flavor"}
    env = {**ENV, "parameters": {"flavor": "small"}}
    ident = create(engine, tmpl, files=FILES, environment=env)
    config = outputs(engine, ident)["JobServerConfigRef"]
    members = member_names(engine, ident, "JobServerGroup")

    updated = copy.deepcopy(tmpl)
    updated["Resources"]["JobServerConfig"]["Properties"]["InstanceType"] = new_flavor
    engine.update_stack(CTX, ident, updated, files=FILES, environment=env, args={})
    assert wait_state(engine, ident)[:2] == ("UPDATE", "COMPLETE")
    assert (outputs(engine, ident)["JobServerConfigRef"] != config) is replaced
    assert member_names(engine, ident, "JobServerGroup") == members
    states = {(r.action, r.status)
              for r in resources(engine, child(engine, ident, "JobServerGroup")).values()}
    assert states == {("UPDATE", "COMPLETE")} if replaced else {("CREATE", "COMPLETE")}
