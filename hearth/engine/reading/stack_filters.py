"""Stack and resource list filters as heat-engine reads them: REST filter names translated to
the stack store's columns (Heat's ``translate_filters``), ``ACTION_STATUS`` values split into
action and status, and the sort keys and directions Heat honours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hearth.common.errors import Invalid
from hearth.engine import states
from hearth.store.models import Resource

Filters = Mapping[str, Any]

# The stack sort keys Heat honours; others are ignored, as Heat ignores them.
STACK_SORT_KEYS = ("stack_name", "stack_status", "creation_time", "updated_time")
SORT_DIRS = ("asc", "desc")

# API filter names -> the column names the stack store filters on (Heat's translate_filters).
_STACK_FILTER_ALIASES = {
    "stack_name": "name",
    "stack_action": "action",
    "stack_status": "status",
    "stack_status_reason": "stack_status_reason",
    "disable_rollback": "disable_rollback",
    "timeout_mins": "timeout_mins",
    "stack_owner": "username",
    "parent": "owner_id",
    "stack_user_project_id": "stack_user_project_id",
}
_STACK_FILTER_COLUMNS = frozenset(
    {"id", "name", "action", "status", "tenant", "username", "owner_id"}
    | set(_STACK_FILTER_ALIASES.values())
)
_RESOURCE_FILTER_KEYS = frozenset({"name", "status", "action", "id", "physical_resource_id"})



def as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple | set | frozenset) else [value]


def _split_states(values: Sequence[Any]) -> tuple[set[str], set[str]]:
    """``CREATE_FAILED``-style values -> (actions, statuses), as Heat parses status filters.

    A value with no known status in it matches nothing.
    """
    actions: set[str] = set()
    statuses: set[str] = set()
    for value in values:
        text = str(value)
        for status in states.STATUSES:
            index = text.rfind(status)
            if index != -1:
                statuses.add(text[index:])
                if index > 1:
                    actions.add(text[: index - 1])
                break
    return actions, statuses


def _merge_states(out: dict[str, list[Any]]) -> None:
    if "status" not in out:
        return
    actions, statuses = _split_states(out["status"])
    out["status"] = sorted(statuses)
    if actions:
        out["action"] = sorted(set(out.get("action", [])) | actions)


def _coerce_stack_value(column: str, value: Any) -> Any:
    # Query strings carry text; boolean and integer columns compare with typed values.
    if column == "disable_rollback" and isinstance(value, str):
        lowered = value.lower()
        if lowered not in ("true", "false"):
            raise Invalid(f"Unrecognized value '{value}' for disable_rollback")
        return lowered == "true"
    if column == "timeout_mins" and isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            raise Invalid(f"Unrecognized value '{value}' for timeout_mins") from None
    return value


def translate_stack_filters(filters: Filters | None) -> dict[str, list[Any]]:
    """Stack list filters (REST names or column names) as the stack store's columns."""
    out: dict[str, list[Any]] = {}
    for key, value in (filters or {}).items():
        column = _STACK_FILTER_ALIASES.get(key, key)
        if column not in _STACK_FILTER_COLUMNS:
            raise Invalid(f"Unknown stack filter: {key}")
        if key in _STACK_FILTER_ALIASES and not value:
            continue
        out.setdefault(column, []).extend(as_list(value))
    _merge_states(out)
    return {k: [_coerce_stack_value(k, v) for v in vs] for k, vs in out.items()}


@dataclass(frozen=True)
class ResourceFilter:
    columns: dict[str, set[str]] = field(default_factory=dict)
    types: list[str] | None = None

    @classmethod
    def parse(cls, filters: Filters | None) -> ResourceFilter:
        raw: dict[str, list[Any]] = {}
        types: list[str] | None = None
        for key, value in (filters or {}).items():
            if key == "type":
                types = [str(v) for v in as_list(value)]
                continue
            if key not in _RESOURCE_FILTER_KEYS:
                raise Invalid(f"Unknown resource filter: {key}")
            raw.setdefault(key, []).extend(as_list(value))
        _merge_states(raw)
        return cls({k: {str(v) for v in vs} for k, vs in raw.items()}, types)

    def matches(self, row: Resource) -> bool:
        for key, allowed in self.columns.items():
            actual = getattr(row, key)
            if actual is None or str(actual) not in allowed:
                return False
        # Heat matches the type filter as a substring of the resource's type.
        if self.types is not None:
            rtype = row.resource_type or ""
            return any(t in rtype for t in self.types)
        return True


def matches_nothing(columns: Mapping[str, Sequence[Any]]) -> bool:
    """A filter left with no value (e.g. a status that is no status) matches no stack."""
    return any(not values for values in columns.values())


def check_sort_dir(sort_dir: str | None) -> None:
    if sort_dir is not None and sort_dir not in SORT_DIRS:
        raise Invalid(f"Unknown sort direction, must be one of: {', '.join(SORT_DIRS)}")
