"""The options of create/update/preview requests, checked and with Heat's defaults."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hearth.common.errors import Invalid, StackValidationFailed

STACK_NAME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9_.-]{0,254}$")
MAX_TAG_LENGTH = 80


def check_stack_name(name: Any) -> str:
    if not isinstance(name, str) or not STACK_NAME_RE.match(name):
        raise StackValidationFailed(
            f'Invalid stack name {name} must contain only alphanumeric or "_-." characters, '
            "must start with alpha and must be 255 characters or less."
        )
    return name


def parse_tags(value: Any) -> list[str] | None:
    """Tags as a list, from a list or a comma-separated string (None when not given)."""
    if value is None:
        return None
    if isinstance(value, str):
        tags = [t.strip() for t in value.split(",") if t.strip()]
    elif isinstance(value, Sequence):
        tags = [str(t) for t in value]
    else:
        raise Invalid("tags must be a list or a comma-separated string")
    for tag in tags:
        if len(tag) > MAX_TAG_LENGTH:
            raise Invalid(f"Tag {tag} is too long: at most {MAX_TAG_LENGTH} characters")
        if "," in tag:
            raise Invalid(f"Tag {tag} contains a comma")
    return tags


def _bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise Invalid(f'Unrecognized value "{value}" for "{name}", acceptable values are: true, false')


def _timeout(value: Any) -> int | None:
    if value is None or value == "":
        return None
    try:
        minutes = int(value)
    except (TypeError, ValueError):
        raise Invalid(f"Invalid timeout value {value}") from None
    if minutes < 0:
        raise Invalid(f"Invalid timeout value {value}")
    return minutes or None


@dataclass
class ActionArgs:
    """The ``args`` of Heat's create/update RPC calls."""

    timeout_mins: int | None = None
    disable_rollback: bool | None = None
    tags: list[str] | None = None
    existing: bool = False
    clear_parameters: list[str] = field(default_factory=list)
    adopt_stack_data: Any = None
    converge: bool = False

    @classmethod
    def parse(cls, args: Mapping[str, Any] | None) -> ActionArgs:
        args = dict(args or {})
        out = cls()
        if "timeout_mins" in args:
            out.timeout_mins = _timeout(args["timeout_mins"])
        if args.get("disable_rollback") is not None:
            out.disable_rollback = _bool(args["disable_rollback"], "disable_rollback")
        out.tags = parse_tags(args.get("tags"))
        if args.get("existing") is not None:
            out.existing = _bool(args["existing"], "existing")
        clear = args.get("clear_parameters") or []
        if isinstance(clear, str):
            clear = [clear]
        out.clear_parameters = [str(c) for c in clear]
        out.adopt_stack_data = args.get("adopt_stack_data")
        if args.get("converge") is not None:
            out.converge = _bool(args["converge"], "converge")
        return out


@dataclass
class StackRequest:
    """What a create, update or preview request says the stack is made from."""

    template: Mapping[str, Any] | str | None
    params: Mapping[str, Any] | None = None
    files: Mapping[str, Any] | None = None
    environment: Mapping[str, Any] | str | None = None
    environment_files: Sequence[str] | None = None
