"""OS::Heat::None: a placeholder that accepts anything and does nothing."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from hearth.common.ids import new_uuid
from hearth.resources.base import Resource
from hearth.resources.properties import Properties
from hearth.resources.support import SupportStatus
from hearth.resources.update import NO_UPDATE, UpdatePlan

IS_PLACEHOLDER = "is_placeholder"


class NoneResource(Resource):
    """Stands in for any type (mapped over it in an environment's resource_registry).

    Whatever properties it is given are ignored, every attribute reads as null, and a stack
    update never touches it.
    """

    type_description = (
        "Enables easily disabling certain resources via the resource_registry.\n\n"
        "It does nothing, but can effectively stub out any other resource because it\n"
        "will accept any properties and return any attribute (as None). Note this\n"
        "resource always does nothing on update (e.g it is not replaced even if a\n"
        "change to the stubbed resource properties would cause replacement)."
    )
    support_status = SupportStatus(version="5.0.0")
    handlers_block = False
    # Stack create checks nothing of it; POST /validate still checks its policies.
    skip_create_validation: ClassVar[bool] = True

    @classmethod
    def build_properties(
        cls, data: Mapping[str, Any] | None, *, unresolved: Collection[str] = frozenset()
    ) -> Properties:
        return Properties({}, {})

    @classmethod
    def plan_update(
        cls,
        name: str,
        old_data: Mapping[str, Any] | None,
        new_data: Mapping[str, Any] | None,
        *,
        type_name: str | None = None,
        tmpl_diff: Mapping[str, Any] | None = None,
    ) -> UpdatePlan:
        return NO_UPDATE

    def handle_create(self) -> None:
        self.resource_id_set(new_uuid())
        # Marks an id we made up, so that deleting it never reaches a real service.
        self.data_set(IS_PLACEHOLDER, "True")

    def handle_delete(self) -> str | None:
        return self.resource_id

    def get_attribute(self, name: str, *path: Any) -> Any:
        return None
