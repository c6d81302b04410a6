"""Reading a CFN query: ``Parameters.member.N.ParameterKey/Value``, the template, the stack's
create/update arguments, and ``StackName`` as a name, an id or an ARN."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hearth.api.cfn.errors import (
    INVALID_PARAMETER_COMBINATION,
    INVALID_PARAMETER_VALUE,
    MISSING_PARAMETER,
    CfnError,
)
from hearth.common import urlfetch
from hearth.common.context import RequestContext
from hearth.common.identifier import Identity
from hearth.rpc.protocol import EngineAPI

_MEMBER = re.compile(r"^Parameters\.member\.(\d+)\.(ParameterKey|ParameterValue)$")
# OnFailure values and the disable_rollback each means (DELETE is rollback, as in Heat).
_ON_FAILURE = {"DO_NOTHING": "true", "ROLLBACK": "false", "DELETE": "false"}


def required(params: Mapping[str, str], name: str) -> str:
    value = params.get(name)
    if not value:
        raise CfnError(MISSING_PARAMETER, f"The parameter {name} is required.")
    return value


def user_parameters(params: Mapping[str, str]) -> dict[str, str]:
    """The stack parameters, member by member (a member needs both key and value)."""
    members: dict[int, dict[str, str]] = {}
    for name, value in params.items():
        match = _MEMBER.match(name)
        if match:
            members.setdefault(int(match.group(1)), {})[match.group(2)] = value
    return {
        m["ParameterKey"]: m["ParameterValue"]
        for _, m in sorted(members.items())
        if "ParameterKey" in m and "ParameterValue" in m
    }


def template(params: Mapping[str, str], max_size: int) -> str:
    """``TemplateBody``, else the text at ``TemplateUrl`` (AWS and boto spell it ``TemplateURL``;
    Heat reads only ``TemplateUrl``, both are read here)."""
    body = params.get("TemplateBody")
    if body:
        if len(body.encode()) > max_size:
            raise CfnError(INVALID_PARAMETER_VALUE,
                           f"Template exceeds maximum allowed size ({max_size} bytes)")
        return body
    url = params.get("TemplateUrl") or params.get("TemplateURL")
    if not url:
        raise CfnError(MISSING_PARAMETER, "TemplateBody or TemplateUrl were not given.")
    try:
        return urlfetch.fetch_template(url, max_size)
    except urlfetch.FetchError as exc:
        raise CfnError(INVALID_PARAMETER_VALUE, f"Failed to fetch template: {exc}") from None


def stack_args(params: Mapping[str, str]) -> dict[str, Any]:
    """``timeout_mins`` and ``disable_rollback`` from TimeoutInMinutes, DisableRollback and
    OnFailure (the last two may not come together)."""
    args: dict[str, Any] = {}
    if "DisableRollback" in params and "OnFailure" in params:
        raise CfnError(INVALID_PARAMETER_COMBINATION,
                       "DisableRollback and OnFailure may not be used together")
    timeout = params.get("TimeoutInMinutes")
    if timeout:
        try:
            minutes = int(timeout)
        except ValueError:
            raise CfnError(INVALID_PARAMETER_VALUE,
                           f"TimeoutInMinutes {timeout!r} is not an integer") from None
        if minutes <= 0:
            raise CfnError(INVALID_PARAMETER_VALUE, "TimeoutInMinutes must be positive")
        args["timeout_mins"] = minutes
    rollback = params.get("DisableRollback")
    if rollback is not None:
        if rollback.lower() not in ("true", "false"):
            raise CfnError(INVALID_PARAMETER_VALUE,
                           f"DisableRollback {rollback!r} is not true or false")
        args["disable_rollback"] = rollback.lower() == "true"
    on_failure = params.get("OnFailure")
    if on_failure in _ON_FAILURE:
        args["disable_rollback"] = _ON_FAILURE[on_failure] == "true"
    return args


def stack_identity(
    engine: EngineAPI, ctx: RequestContext, name_or_arn: str
) -> dict[str, str]:
    """The identity of the stack named by ``StackName``: an ARN, else a stack id or name."""
    try:
        return Identity.from_arn(name_or_arn).as_dict()
    except ValueError:
        return engine.identify_stack(ctx, name_or_arn)
