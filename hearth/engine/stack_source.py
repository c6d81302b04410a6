"""What a stack is made from, as stored (``StackSource``: template, files and the merged
environment), and how a request's template and environment become one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hearth.common.errors import HearthError, StackValidationFailed
from hearth.template.context import Limits
from hearth.template.env_merge import merge_environments, request_environment
from hearth.template.environment import Environment
from hearth.template.loader import check_decoded_depth, load_template_text
from hearth.template.template import Template
from hearth.template.validate import parameter_types


@dataclass
class StackSource:
    """What a stack is made from, as stored: template, files and the merged environment."""

    template: dict[str, Any]
    files: dict[str, str] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)


def source_from_request(
    template: Mapping[str, Any] | str | None,
    *,
    params: Mapping[str, Any] | None = None,
    files: Mapping[str, Any] | None = None,
    environment: Mapping[str, Any] | str | None = None,
    environment_files: Sequence[str] | None = None,
    global_env: Environment | None = None,
    limits: Limits | None = None,
) -> StackSource:
    """A request's template and environment, loaded and merged the way Heat merges them."""
    if template is None:
        raise HearthError("No Template provided.")
    files = dict(files or {})
    if isinstance(template, str):
        data = load_template_text(template, limits)
    else:
        check_decoded_depth(template, limits or Limits())
        data = dict(template)
    if isinstance(environment, Mapping):
        check_decoded_depth(environment, limits or Limits(), "environment")
    if not isinstance(data, dict):
        raise StackValidationFailed("The template is not a JSON object or YAML mapping.")
    tmpl = Template(data, {k: v for k, v in files.items() if isinstance(v, str)})
    env_doc = request_environment(environment, params, environment_files)
    merge_environments(environment_files, files, env_doc, parameter_types(tmpl, files))
    env = Environment(env_doc, global_env=global_env)
    return StackSource(
        template=data,
        files={k: v for k, v in files.items() if isinstance(v, str)},
        environment=env.env_as_dict(),
    )
