"""The derived config of a deployment: the source config with the deployment's input values,
plus the ``deploy_*`` inputs that tell the agent where it is and how to signal back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.resources.builtin.software import deployment_schema as s


def declared_inputs(
    source_inputs: list[Mapping[str, Any]], input_values: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Each declared input with its value (given, else its default), then an input for each
    value that has no declaration."""
    values = dict(input_values)
    derived: list[dict[str, Any]] = []
    for declared in source_inputs:
        entry = {k: v for k, v in declared.items() if k != "value"}
        entry["value"] = values.pop(str(declared["name"]), declared.get("default"))
        derived.append(entry)
    derived.extend({"name": name, "value": value} for name, value in values.items())
    return derived


def _described(name: str, value: Any, description: str) -> dict[str, Any]:
    return {"name": name, "value": value, "description": description}


def deploy_inputs(
    *,
    server_id: str,
    action: str,
    stack_path: str,
    resource_name: str,
    transport: str,
    signal_url: str | None = None,
    user: Any = None,
) -> list[dict[str, Any]]:
    """The ``deploy_*`` inputs; ``signal_url`` for the URL transports, ``user``
    (agent_credentials.AgentUser) for HEAT_SIGNAL."""
    inputs = [
        _described(s.DEPLOY_SERVER_ID, server_id, "ID of the server being deployed to"),
        _described(s.DEPLOY_ACTION, action, "Name of the current action being deployed"),
        _described(s.DEPLOY_STACK_ID, stack_path,
                   "ID of the stack this deployment belongs to"),
        _described(s.DEPLOY_RESOURCE_NAME, resource_name,
                   "Name of this deployment resource in the stack"),
        _described(s.DEPLOY_SIGNAL_TRANSPORT, transport,
                   "How the server should signal to heat with the deployment output values."),
    ]
    if transport in (s.CFN_SIGNAL, s.TEMP_URL_SIGNAL):
        inputs.append(_described(s.DEPLOY_SIGNAL_ID, signal_url,
                                 "ID of signal to use for signaling output values"))
        # Heat's CFN URL takes a POST, its Swift temp URL a PUT; Hearth's takes both.
        verb = "POST" if transport == s.CFN_SIGNAL else "PUT"
        inputs.append(_described(s.DEPLOY_SIGNAL_VERB, verb,
                                 "HTTP verb to use for signaling output values"))
    elif transport == s.HEAT_SIGNAL and user is not None:
        inputs += [
            _described(s.DEPLOY_AUTH_URL, user.auth_url, "URL for API authentication"),
            _described(s.DEPLOY_USERNAME, user.username, "Username for API authentication"),
            _described(s.DEPLOY_USER_ID, user.user_id, "User ID for API authentication"),
            _described(s.DEPLOY_PASSWORD, user.password, "Password for API authentication"),
            _described(s.DEPLOY_PROJECT_ID, user.project_id,
                       "ID of project for API authentication"),
        ]
        if user.region_name:
            inputs.append(_described(s.DEPLOY_REGION_NAME, user.region_name,
                                     "Region name for API authentication"))
    return inputs
