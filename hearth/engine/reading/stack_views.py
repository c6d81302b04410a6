"""Views of a stack derived from its stored template and environment: parameters as shown
(hidden ones masked), the outputs the template defines, and the environment with hidden
parameter values masked; and a snapshot as shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common.errors import HearthError
from hearth.engine.reading import formatting as fmt
from hearth.store.models import Snapshot, Stack
from hearth.template.loader import parse_template_text
from hearth.template.parameter_schema import parameter_schemata
from hearth.template.parameters import HIDDEN_VALUE, Parameters, StackIdentity
from hearth.template.template import Template


def _env_sections(env: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(parameters, parameter_defaults) of a stored environment."""
    params = env.get("parameters")
    defaults = env.get("parameter_defaults")
    return (
        dict(params) if isinstance(params, Mapping) else {},
        dict(defaults) if isinstance(defaults, Mapping) else {},
    )


def display_parameters(
    template: Template, env: Mapping[str, Any], row: Stack
) -> dict[str, str]:
    """Every parameter (pseudo ones included) as text, hidden ones masked."""
    values, defaults = _env_sections(env)
    identity = StackIdentity(row.tenant or "", row.name, row.id)
    params = Parameters(
        template.version, template.parameters_section, values, defaults, stack=identity
    )
    out: dict[str, str] = {}
    for name, param in params.params.items():
        # Hidden values may be stored encrypted; they are never shown, so never decrypted.
        if param.hidden:
            out[name] = HIDDEN_VALUE
            continue
        try:
            out[name] = param.display()
        except HearthError:
            # A value the stack was never given (nor defaulted) has nothing to show.
            continue
    return out


def template_outputs(template: Template) -> list[dict[str, Any]]:
    """The outputs the template defines: key and description, no value."""
    section = template.outputs_section
    if not isinstance(section, Mapping):
        return []
    key = template.output_key("description")
    return [
        {
            "output_key": str(name),
            "description": body.get(key) if isinstance(body, Mapping) else None,
        }
        for name, body in section.items()
    ]


def hidden_parameter_names(template: Template, files: Mapping[str, str]) -> set[str]:
    """Hidden parameters of the template and of any template among its files (Heat checks
    all of them when masking the environment; the stack's own declarations win)."""
    hidden: dict[str, bool] = {}
    for text in files.values():
        try:
            sub = Template(parse_template_text(text))
            schemata = parameter_schemata(sub.version, sub.parameters_section)
        except (HearthError, ValueError, TypeError):
            continue
        hidden.update({name: s.hidden for name, s in schemata.items()})
    schemata = parameter_schemata(template.version, template.parameters_section)
    hidden.update({name: s.hidden for name, s in schemata.items()})
    return {name for name, is_hidden in hidden.items() if is_hidden}


def mask_environment(env: Mapping[str, Any], hidden: set[str]) -> dict[str, Any]:
    out = dict(env)
    for section in ("parameters", "parameter_defaults"):
        values = out.get(section)
        if isinstance(values, Mapping):
            out[section] = {k: HIDDEN_VALUE if k in hidden else v for k, v in values.items()}
    return out


def snapshot_view(row: Snapshot, per_resource: dict[str, Any] | None) -> dict[str, Any]:
    # Resource data kept in its own rows is shown inside the snapshot's data, as Heat does.
    if not per_resource:
        return fmt.format_snapshot(row)
    return fmt.format_snapshot(row, {**(row.data or {}), "resources": per_resource})
