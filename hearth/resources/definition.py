"""Checking one resource definition against its plugin, with Heat's messages and paths.

Faults found in the definition are reported at ``resources.<name>.<section>...`` in the
template's own spelling (``properties`` / ``Properties``); faults a plugin's own ``validate``
hook finds are reported as it raised them, as in Heat.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.properties import PROPERTY_ERROR, Properties

if TYPE_CHECKING:
    from hearth.resources.base import Resource
    from hearth.template.environment import Environment

# Heat's default stack timeout (``stack_action_timeout``), for checks that compare with it.
DEFAULT_STACK_TIMEOUT = 3600.0

PROPERTIES = "Properties"
UPDATE_POLICY = "UpdatePolicy"
DELETION_POLICY = "DeletionPolicy"
DELETION_POLICIES = ("Delete", "Retain", "Snapshot")

_HOT_SECTIONS = {
    "Resources": "resources",
    PROPERTIES: "properties",
    UPDATE_POLICY: "update_policy",
    DELETION_POLICY: "deletion_policy",
}


@dataclass(frozen=True)
class ValidationScope:
    """What a plugin's ``validate`` hook may need besides the properties."""

    name: str
    type_name: str
    stack_timeout: float = DEFAULT_STACK_TIMEOUT
    # The stack's environment and files map (None when checked without a stack).
    environment: Environment | None = None
    files: Mapping[str, str] | None = None
    # The stack's resources, name -> type (None when checked without a stack).
    resources: Mapping[str, str] | None = None


def section_name(section: str, cfn: bool) -> str:
    """A definition section as the template spells it."""
    return section if cfn else _HOT_SECTIONS.get(section, section)


def at_resource(exc: StackValidationFailed, name: str, cfn: bool = False) -> StackValidationFailed:
    """``exc`` (path starting with its section) moved under ``resources.<name>``."""
    path: list[str | int] = [section_name("Resources", cfn), name]
    if exc.path:
        path.append(section_name(str(exc.path[0]), cfn))
        path.extend(exc.path[1:])
    return StackValidationFailed(exc.detail, path, exc.error)


def in_section(exc: StackValidationFailed, section: str) -> StackValidationFailed:
    return StackValidationFailed(exc.detail, [section, *exc.path], exc.error or PROPERTY_ERROR)


def check_deletion_policy(cls: type[Resource], policy: str | None) -> None:
    if policy is None:
        return
    normalised = policy.capitalize()
    if normalised not in DELETION_POLICIES:
        raise StackValidationFailed(f'Invalid deletion policy "{policy}"', [DELETION_POLICY])
    if normalised == "Snapshot" and not cls.has_handler("snapshot_delete"):
        raise StackValidationFailed(
            f'"{normalised}" deletion policy not supported', [DELETION_POLICY]
        )


def check_update_policy(
    cls: type[Resource], update_policy: Any, unresolved: Collection[str]
) -> None:
    data = update_policy if isinstance(update_policy, Mapping) else {}
    try:
        Properties(cls.update_policy_schema, data, unresolved=unresolved).validate()
    except StackValidationFailed as exc:
        raise in_section(exc, UPDATE_POLICY) from None


def validate_definition(
    cls: type[Resource],
    name: str,
    properties_data: Mapping[str, Any] | None,
    *,
    type_name: str,
    unresolved: Collection[str] = frozenset(),
    update_policy: Any = None,
    update_policy_unresolved: Collection[str] = frozenset(),
    deletion_policy: str | None = "Delete",
    strict: bool = True,
    cfn: bool = False,
    stack_timeout: float = DEFAULT_STACK_TIMEOUT,
    context: Any = None,
    environment: Environment | None = None,
    files: Mapping[str, str] | None = None,
    resources: Mapping[str, str] | None = None,
) -> None:
    """Heat's checks of one definition; see ``Resource.validate_definition``.

    ``context`` reaches custom constraints backed by a service (it has the ``cloud``)."""
    if strict and cls.skip_create_validation:
        return
    try:
        check_deletion_policy(cls, deletion_policy)
        check_update_policy(cls, update_policy, update_policy_unresolved)
        props = cls.build_properties(properties_data, unresolved=frozenset(unresolved))
        props.context = context
        try:
            props.validate(with_value=strict)
        except StackValidationFailed as exc:
            raise in_section(exc, PROPERTIES) from None
    except StackValidationFailed as exc:
        raise at_resource(exc, name, cfn) from None
    if strict:
        cls.validate(
            props,
            ValidationScope(name, type_name, stack_timeout, environment, files, resources),
        )
