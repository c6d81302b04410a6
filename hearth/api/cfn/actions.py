"""The actions of the CFN API: each reads its query parameters, calls the engine the v1 API
uses, and answers the payload that goes inside ``<Action>Result``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hearth.api.cfn import params as p
from hearth.api.cfn import views
from hearth.api.cfn.errors import INVALID_PARAMETER_COMBINATION, CfnError
from hearth.common.context import RequestContext
from hearth.rpc.protocol import EngineAPI


@dataclass(frozen=True)
class Call:
    """One request, as every action sees it."""

    engine: EngineAPI
    ctx: RequestContext
    params: Mapping[str, str]
    max_template_size: int

    def identity(self, required: bool = True) -> dict[str, str] | None:
        name = p.required(self.params, "StackName") if required else self.params.get("StackName")
        return p.stack_identity(self.engine, self.ctx, name) if name else None

    def stack_identity(self) -> dict[str, str]:
        identity = self.identity()
        assert identity is not None  # required: a missing name raised MissingParameter
        return identity

    def template(self) -> str:
        return p.template(self.params, self.max_template_size)


def list_stacks(call: Call) -> Any:
    return {"StackSummaries": [views.stack_summary(s)
                               for s in call.engine.list_stacks(call.ctx)]}


def describe_stacks(call: Call) -> Any:
    stacks = call.engine.show_stack(call.ctx, call.identity(required=False))
    return {"Stacks": [views.stack(s) for s in stacks]}


def create_stack(call: Call) -> Any:
    args = p.stack_args(call.params)
    template = call.template()
    name = p.required(call.params, "StackName")
    identity = call.engine.create_stack(
        call.ctx, name, template, p.user_parameters(call.params), {}, args,
    )
    return {"StackId": views.arn(identity)}


def update_stack(call: Call) -> Any:
    args = p.stack_args(call.params)
    template = call.template()
    identity = call.stack_identity()
    result = call.engine.update_stack(
        call.ctx, identity, template, p.user_parameters(call.params), {}, args,
    )
    return {"StackId": views.arn(result or identity)}


def delete_stack(call: Call) -> Any:
    call.engine.delete_stack(call.ctx, call.stack_identity())
    return ""


def cancel_update_stack(call: Call) -> Any:
    call.engine.stack_cancel_update(call.ctx, call.stack_identity(), cancel_with_rollback=True)
    return {}


def describe_stack_events(call: Call) -> Any:
    events = call.engine.list_events(call.ctx, call.identity(required=False))
    return {"StackEvents": [views.event(e) for e in events]}


def describe_stack_resource(call: Call) -> Any:
    name = p.required(call.params, "LogicalResourceId")
    res = call.engine.describe_stack_resource(
        call.ctx, call.stack_identity(), name, with_attr=False
    )
    return {"StackResourceDetail": views.resource_detail(res)}


def describe_stack_resources(call: Call) -> Any:
    stack_name = call.params.get("StackName")
    physical = call.params.get("PhysicalResourceId")
    if stack_name and physical:
        raise CfnError(INVALID_PARAMETER_COMBINATION,
                       "Use `StackName` or `PhysicalResourceId` but not both")
    if physical:
        found = call.engine.find_physical_resource(call.ctx, physical)
        identity = {**found, "path": ""}
    else:
        identity = call.stack_identity()
    wanted = call.params.get("LogicalResourceId")
    resources = [
        r for r in call.engine.list_stack_resources(call.ctx, identity, with_detail=True)
        if not wanted or r["resource_name"] == wanted
    ]
    return {"StackResources": [views.resource(r) for r in resources]}


def list_stack_resources(call: Call) -> Any:
    resources = call.engine.list_stack_resources(call.ctx, call.stack_identity())
    return {"StackResourceSummaries": [views.resource_summary(r) for r in resources]}


def get_template(call: Call) -> Any:
    return {"TemplateBody": call.engine.get_template(call.ctx, call.stack_identity())}


def validate_template(call: Call) -> Any:
    result = call.engine.validate_template(call.ctx, call.template())
    if "Error" in result:
        # Heat answers a template that does not validate with the bare reason.
        return result["Error"]
    return views.validation(result)


def estimate_template_cost(call: Call) -> Any:
    # Heat answers every estimate with this link (there is no billing to estimate from).
    return {"Url": "http://en.wikipedia.org/wiki/Gratis"}


ACTIONS: dict[str, Callable[[Call], Any]] = {
    "ListStacks": list_stacks,
    "CreateStack": create_stack,
    "DescribeStacks": describe_stacks,
    "DeleteStack": delete_stack,
    "UpdateStack": update_stack,
    "CancelUpdateStack": cancel_update_stack,
    "DescribeStackEvents": describe_stack_events,
    "ValidateTemplate": validate_template,
    "GetTemplate": get_template,
    "EstimateTemplateCost": estimate_template_cost,
    "DescribeStackResource": describe_stack_resource,
    "DescribeStackResources": describe_stack_resources,
    "ListStackResources": list_stack_resources,
}
