"""Child stacks found valid while one stack tree is checked, so that identical ones are not
checked again: the members of a group, or the siblings made from one provider template, are
most often the same child many times over (364 stacks of 5 distinct kinds in the benchmark's
nested shape).

Two children are the same check when everything their validation reads is the same: their
template, environment (with the parameters their parent gives them), files, depth and the
resource_facade their parent offers. Their stack names differ, so a tree whose templates
read the stack's name or id (``OS::stack_name``...) is keyed by name as well. Kept only for
one validation of one tree (one request): nothing outside it, such as a cloud's flavors,
can change in between.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from typing import Any

from hearth.resources.nested import ChildDefinition
from hearth.template.context import StaticFacade

# Pseudo parameters whose values differ between otherwise identical children.
_IDENTITY_PARAMETERS = ("OS::stack_name", "OS::stack_id", "AWS::StackName", "AWS::StackId")


def _names_identity(text: str) -> bool:
    return any(name in text for name in _IDENTITY_PARAMETERS)


class CheckedChildren:
    """The children of one tree found valid so far (see the module doc)."""

    def __init__(self) -> None:
        self._valid: set[Hashable] = set()
        # Each distinct files mapping seen: (files, its token, whether it reads identity).
        self._files: list[tuple[Mapping[str, str], int, bool]] = []

    def key(
        self, child: ChildDefinition, depth: int, facade: StaticFacade, stack_name: str
    ) -> Hashable | None:
        """What identifies ``child``'s check; None when it cannot be told (never shared)."""
        try:
            template = json.dumps(child.template, sort_keys=True)
            environment = json.dumps(child.environment.env_as_dict(), sort_keys=True)
            seen_by_child = json.dumps(
                [facade.metadata, facade.deletion_policy, facade.update_policy],
                sort_keys=True,
            )
        except (TypeError, ValueError):
            return None
        files, files_name_identity = self._files_token(child.files)
        by_name = files_name_identity or _names_identity(template)
        return (depth, template, environment, files, seen_by_child,
                stack_name if by_name else None)

    def _files_token(self, files: Mapping[str, Any]) -> tuple[int, bool]:
        for known, token, names in self._files:
            # Most often the very mapping the tree's root was given (identity: no compare).
            if known is files or known == files:
                return token, names
        names = any(isinstance(text, str) and _names_identity(text) for text in files.values())
        self._files.append((files, len(self._files), names))
        return len(self._files) - 1, names

    def seen_valid(self, key: Hashable | None) -> bool:
        return key is not None and key in self._valid

    def add_valid(self, key: Hashable | None) -> None:
        if key is not None:
            self._valid.add(key)
