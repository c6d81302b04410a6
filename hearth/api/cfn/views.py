"""Engine answers in the CFN API's words (Heat's field names and formats)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hearth.common.identifier import Identity


def arn(identity: Mapping[str, Any]) -> str:
    return Identity.from_dict(dict(identity)).arn()


def _status(action: Any, status: Any) -> str:
    return f"{action}_{status}"


def _safe_keys(value: Any) -> Any:
    """``:`` in keys becomes ``.``, so every key is a valid XML element name."""
    if isinstance(value, Mapping):
        return {str(k).replace(":", "."): _safe_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_safe_keys(v) for v in value]
    return value


def stack_summary(stack: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "StackId": arn(stack["stack_identity"]),
        "StackName": stack["stack_name"],
        "CreationTime": stack.get("creation_time"),
        "LastUpdatedTime": stack.get("updated_time"),
        "StackStatusReason": stack.get("stack_status_reason"),
        "StackStatus": _status(stack.get("stack_action"), stack.get("stack_status")),
        "DeletionTime": stack.get("deletion_time"),
    }


def stack(stack: Mapping[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "StackId": arn(stack["stack_identity"]),
        "StackName": stack["stack_name"],
        "Description": stack.get("description"),
        "CreationTime": stack.get("creation_time"),
        "StackStatus": _status(stack.get("stack_action"), stack.get("stack_status")),
        "StackStatusReason": stack.get("stack_status_reason"),
        "DisableRollback": bool(stack.get("disable_rollback")),
        "TimeoutInMinutes": stack.get("timeout_mins"),
        "NotificationARNs": [],
        "Capabilities": [],
        "Parameters": [
            {"ParameterKey": k, "ParameterValue": str(v)}
            for k, v in (stack.get("parameters") or {}).items()
        ],
        "Outputs": [
            {"OutputKey": o.get("output_key"), "OutputValue": _safe_keys(o.get("output_value")),
             "Description": o.get("description")}
            for o in stack.get("outputs") or []
        ],
    }
    if stack.get("updated_time") is not None:
        result["LastUpdatedTime"] = stack["updated_time"]
    return result


def event(ev: Mapping[str, Any]) -> dict[str, Any]:
    identity = ev["event_identity"]
    result = {
        "EventId": str(identity["path"]).rsplit("/", 1)[-1],
        "StackId": arn(ev["stack_identity"]),
        "StackName": ev["stack_name"],
        "LogicalResourceId": ev.get("resource_name"),
        "PhysicalResourceId": ev.get("physical_resource_id"),
        "ResourceType": ev.get("resource_type"),
        "ResourceStatus": _status(ev.get("resource_action"), ev.get("resource_status")),
        "ResourceStatusReason": ev.get("resource_status_reason"),
        "Timestamp": ev.get("event_time"),
    }
    if "resource_properties" in ev:
        # Heat's list omits the properties; they are shown when the engine has them.
        result["ResourceProperties"] = json.dumps(ev["resource_properties"])
    return result


def _resource_common(res: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "StackId": arn(res["stack_identity"]),
        "StackName": res["stack_name"],
        "LogicalResourceId": res["resource_name"],
        "PhysicalResourceId": res.get("physical_resource_id") or "",
        "ResourceType": res.get("resource_type"),
        "ResourceStatus": _status(res.get("resource_action"), res.get("resource_status")),
        "ResourceStatusReason": res.get("resource_status_reason"),
    }


def resource_detail(res: Mapping[str, Any]) -> dict[str, Any]:
    return {
        **_resource_common(res),
        "Description": res.get("description", ""),
        "LastUpdatedTimestamp": res.get("updated_time"),
        "Metadata": res.get("metadata") or {},
    }


def resource(res: Mapping[str, Any]) -> dict[str, Any]:
    return {
        **_resource_common(res),
        "Description": res.get("description", ""),
        "Timestamp": res.get("updated_time"),
    }


def resource_summary(res: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "LogicalResourceId": res["resource_name"],
        "PhysicalResourceId": res.get("physical_resource_id") or "",
        "ResourceType": res.get("resource_type"),
        "ResourceStatus": _status(res.get("resource_action"), res.get("resource_status")),
        "ResourceStatusReason": res.get("resource_status_reason"),
        "LastUpdatedTimestamp": res.get("updated_time"),
    }


def validation(result: Mapping[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "Description": result.get("Description") or "",
        "Parameters": [
            {
                "ParameterKey": name,
                "DefaultValue": schema.get("Default", ""),
                "Description": schema.get("Description", ""),
                "NoEcho": "true" if str(schema.get("NoEcho", "false")).lower() == "true"
                else "false",
            }
            for name, schema in (result.get("Parameters") or {}).items()
        ],
        "Environment": result.get("Environment") or {},
    }
    if result.get("ParameterGroups"):
        answer["ParameterGroups"] = result["ParameterGroups"]
    return answer
