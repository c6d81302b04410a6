"""OS::Heat::StructuredConfig: a config whose body is a map, and the input substitution its
deployments (OS::Heat::StructuredDeployment) apply to that map."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hearth.common.errors import UserParameterMissing
from hearth.resources.builtin.software.config import (
    CONFIG,
    GROUP,
    GROUP_SCHEMA,
    INPUTS,
    INPUTS_SCHEMA,
    OPTIONS,
    OPTIONS_SCHEMA,
    OUTPUTS,
    OUTPUTS_SCHEMA,
    SoftwareConfig,
)
from hearth.resources.schema import PropertySchema
from hearth.resources.support import SupportStatus

DEFAULT_INPUT_KEY = "get_input"


def _input_reference(snippet: Mapping[Any, Any], input_key: str) -> str | None:
    """The input name when ``snippet`` is exactly ``{input_key: "<name>"}``."""
    if len(snippet) != 1:
        return None
    key, argument = next(iter(snippet.items()))
    if key == input_key and isinstance(argument, str):
        return argument
    return None


def substitute_inputs(
    config: Any,
    inputs: Mapping[str, Any],
    input_key: str = DEFAULT_INPUT_KEY,
    ignore_missing: bool = False,
    *,
    strict: bool = False,
) -> Any:
    """``config`` with every ``{input_key: name}`` map (at any depth) replaced by the value of
    input ``name``, as a structured deployment does.

    An input that is not in ``inputs`` reads as None (Heat's ``LAX`` validation); with
    ``strict`` (Heat's ``STRICT``) it raises UserParameterMissing instead, and with
    ``ignore_missing`` the reference is kept as it is. A map that merely contains the key among
    others, or whose argument is not a string, is walked like any other map. Strings are kept;
    other iterables become lists.
    """

    def walk(snippet: Any) -> Any:
        if isinstance(snippet, Mapping):
            name = _input_reference(snippet, input_key)
            if name is None:
                return {key: walk(value) for key, value in snippet.items()}
            if name in inputs:
                return inputs[name]
            if strict:
                raise UserParameterMissing(name)
            return dict(snippet) if ignore_missing else None
        if isinstance(snippet, Iterable) and not isinstance(snippet, str | bytes):
            return [walk(item) for item in snippet]
        return snippet

    return walk(config)


class StructuredConfig(SoftwareConfig):
    """A SoftwareConfig whose ``config`` is a map, stored (and given back) as parsed JSON."""

    type_description = (
        "A resource which has same logic with OS::Heat::SoftwareConfig.\n\n"
        "This resource is like OS::Heat::SoftwareConfig except that the config\n"
        "property is represented by a Map rather than a String.\n\n"
        "This is useful for configuration tools which use YAML or JSON as their\n"
        "configuration syntax. The resulting configuration is transferred,\n"
        "stored and returned by the software_configs API as parsed JSON."
    )
    support_status = SupportStatus(version="2014.1")
    properties_schema = {
        GROUP: GROUP_SCHEMA,
        OPTIONS: OPTIONS_SCHEMA,
        INPUTS: INPUTS_SCHEMA,
        OUTPUTS: OUTPUTS_SCHEMA,
        CONFIG: PropertySchema(
            PropertySchema.MAP,
            "Map representing the configuration data structure which will be serialized to "
            "JSON format.",
        ),
    }
