"""The HOT ``parameter_groups`` section: its checks, and what POST /validate echoes of it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hearth.common.errors import StackValidationFailed

SECTION = "parameter_groups"
_ERROR = "Parameter Groups error"


def _failure(message: str, group: Any = None, *, at_section: bool = False) -> StackValidationFailed:
    path: list[Any] = [SECTION]
    if not at_section:
        label = group.get("label", "") if isinstance(group, dict) else ""
        path.append(label)
    return StackValidationFailed(message, path, _ERROR)


class ParameterGroups:
    """``groups`` is the raw section (None or empty when absent); ``parameter_names`` every name
    a group may list. Heat accepts the template's parameters plus the pseudo parameters that exist
    without a stack (``OS::stack_id``, ``OS::project_id``; ``AWS::StackId``): pass
    ``Parameters(version, section).keys()`` built without a stack identity to match it."""

    def __init__(self, groups: Any, parameter_names: Iterable[Any]) -> None:
        self.groups = groups
        self.parameter_names = list(parameter_names)

    @property
    def output(self) -> Any:
        """What POST /validate returns as ``ParameterGroups``: the section verbatim, or None
        when it is absent or empty (the key is then left out)."""
        return self.groups if self.groups else None

    def validate(self) -> None:
        """Raise StackValidationFailed (with Heat's messages) for a malformed section."""
        if not self.groups:
            return
        if not isinstance(self.groups, list):
            raise _failure(f"The {SECTION} should be a list.", at_section=True)
        grouped: list[Any] = []
        for group in self.groups:
            if not isinstance(group, dict):
                raise _failure("Each parameter group should be a map.", at_section=True)
            members = group.get("parameters")
            if members is None:
                raise _failure("The parameters must be provided for each parameter group.", group)
            if not isinstance(members, list):
                raise _failure("The parameters of parameter group should be a list.", group)
            for name in members:
                if name in grouped:
                    raise _failure(
                        f"The {name} parameter must be assigned to one parameter group only.",
                        group,
                    )
                grouped.append(name)
                if name not in self.parameter_names:
                    raise _failure(
                        f"The grouped parameter {name} does not reference a valid parameter.",
                        group,
                    )


def validate_parameter_groups(groups: Any, parameter_names: Iterable[Any]) -> None:
    ParameterGroups(groups, parameter_names).validate()
