"""The body of a create, update, preview or validate request (Heat's InstantiationData).

Each part is checked for its type here, so that a wrong type is a 400 naming the key, before
the engine sees anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from hearth.api.faults import BadRequest
from hearth.api.request import parse_count
from hearth.common import urlfetch

TEMPLATE_KEYS = (
    "stack_name", "template", "template_url", "parameters", "environment", "files",
    "environment_files", "files_container",
)
MAX_TIMEOUT_MINS = 2**31 - 1  # the stack's timeout column is a 32-bit integer


def _mapping(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise BadRequest(f'"{key}" must be a JSON object, not {type(value).__name__}.')
    return dict(value)


def _string_or_strings(value: Any) -> bool:
    return isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(v, str) for v in value)
    )


def fetch_template(url: str, max_size: int) -> str:
    """A template from ``template_url``: http(s) only, at most ``max_size`` bytes."""
    try:
        return urlfetch.fetch_template(url, max_size)
    except urlfetch.FetchError as exc:
        raise BadRequest(str(exc)) from None


class StackBody:
    """One request's stack data; ``patch`` marks a PATCH (existing stack data is kept)."""

    def __init__(self, data: Mapping[str, Any], *, patch: bool = False, max_template_size: int):
        self.data = dict(data)
        self.patch = patch
        self.max_template_size = max_template_size
        if patch:
            self.data["existing"] = True

    def stack_name(self) -> str:
        if "stack_name" not in self.data:
            raise BadRequest("No stack name specified")
        name = self.data["stack_name"]
        if not isinstance(name, str):
            raise BadRequest('"stack_name" must be a string.')
        return name

    def template(self) -> Mapping[str, Any] | str | None:
        if "adopt_stack_data" in self.data:
            return self._adopt_template()
        if "template" in self.data and self.data["template"] is not None:
            tmpl: Mapping[str, Any] | str = self.data["template"]
            if not isinstance(tmpl, Mapping | str):
                raise BadRequest('"template" must be a JSON object or a YAML/JSON string.')
            return tmpl
        if self.data.get("template_url"):
            url = self.data["template_url"]
            if not isinstance(url, str):
                raise BadRequest('"template_url" must be a string.')
            return fetch_template(url, self.max_template_size)
        if self.patch:
            return None
        raise BadRequest("No template specified")

    def _adopt_template(self) -> Mapping[str, Any] | str:
        raw = self.data["adopt_stack_data"]
        try:
            adopt = yaml.safe_load(raw) if isinstance(raw, str) else raw
            if not isinstance(adopt, Mapping):
                raise ValueError("the adopt data is not a JSON object")
            template: Mapping[str, Any] | str = adopt["template"]
            return template
        except (ValueError, KeyError, yaml.YAMLError) as exc:
            raise BadRequest(f"Invalid adopt data: {exc}") from None

    def parameters(self) -> dict[str, Any]:
        return _mapping(self.data, "parameters")

    def environment(self) -> Mapping[str, Any] | str | None:
        # Heat merges environment files itself and then ignores the client's merged copy.
        if self.environment_files():
            return None
        env = self.data.get("environment")
        if env is None or isinstance(env, Mapping):
            return env
        if isinstance(env, str):
            return env
        raise BadRequest('"environment" must be a JSON object or a YAML string.')

    def files(self) -> dict[str, Any]:
        if self.data.get("files_container") is not None:
            # Said plainly rather than ignored: there is no Swift client in Hearth.
            raise BadRequest(
                'Reading files from a Swift container ("files_container") is not supported '
                'by Hearth; send them in "files".'
            )
        files = _mapping(self.data, "files")
        for path, content in files.items():
            if not isinstance(content, str):
                raise BadRequest(f'"files" entry {path} must be a string.')
        return files

    def environment_files(self) -> list[str] | None:
        value = self.data.get("environment_files")
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise BadRequest('"environment_files" must be a list of strings.')
        return value

    def args(self, *, update: bool) -> dict[str, Any]:
        """Everything else: timeout_mins, disable_rollback, tags, existing, converge, ..."""
        args = {k: v for k, v in self.data.items() if k not in TEMPLATE_KEYS}
        if "timeout_mins" in args and args["timeout_mins"] is not None:
            args["timeout_mins"] = parse_count(
                "timeout_mins", args["timeout_mins"], MAX_TIMEOUT_MINS
            )
        if not update and "converge" in args:
            raise BadRequest(
                "converge flag only supported in stack update (or update preview) request."
            )
        tags = args.get("tags")
        if tags is not None and not _string_or_strings(tags):
            raise BadRequest('"tags" must be a comma-separated string or a list of strings.')
        clear = args.get("clear_parameters")
        if clear is not None and not _string_or_strings(clear):
            raise BadRequest('"clear_parameters" must be a list of parameter names.')
        return args

    def no_change(self) -> bool:
        """A PATCH that changes nothing (authorised by its own policy rule)."""
        return (
            self.template() is None
            and not self.data.get("environment")
            and not self.parameters()
            and not self.files()
            and not self.environment_files()
            and not any(k != "existing" for k in self.args(update=True))
        )
