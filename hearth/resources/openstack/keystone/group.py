"""OS::Keystone::Group: a Keystone group and its role assignments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.keystone.assignments import (
    ROLES,
    ROLES_SCHEMA,
    RoleAssigner,
    check_roles,
    requested,
)
from hearth.resources.openstack.keystone.base import keystone_v3
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint


class Group(RoleAssigner):
    """Heat Template Resource for Keystone Group.

    Groups are a container representing a collection of users. A group itself
    must be owned by a specific domain, and hence all group names are not
    globally unique, but only unique to their domain.
    """

    support_status = keystone_v3("2015.1")
    entity = "group"
    actor = "groups"

    properties_schema = {
        "name": P(P.STRING, "Name of keystone group.", update_allowed=True),
        "domain": P(
            P.STRING,
            "Name or id of keystone domain.",
            default="default",
            update_allowed=True,
            constraints=[CustomConstraint("keystone.domain")],
        ),
        "description": P(
            P.STRING, "Description of keystone group.", default="", update_allowed=True
        ),
        ROLES: ROLES_SCHEMA,
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        check_roles(properties[ROLES])

    def handle_create(self) -> None:
        props = self.properties
        check_roles(props[ROLES])
        group = self.create_object({
            "name": self.name_or_default(props["name"]),
            "domain_id": self.find("domain", props["domain"]),
            "description": props["description"],
        })
        self.grant(group["id"], requested(props[ROLES]))

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        if not prop_diff:
            return
        assert self.resource_id is not None
        check_roles(new_properties[ROLES])
        body: dict[str, Any] = {}
        if "name" in prop_diff:
            body["name"] = self.name_or_default(prop_diff["name"])
        if "description" in prop_diff:
            body["description"] = prop_diff["description"]
        if "domain" in prop_diff:
            # Keystone refuses to move a group; it says so if the domain really differs.
            body["domain_id"] = self.find("domain", prop_diff["domain"])
        self.update_object(body)
        if ROLES in prop_diff:
            self.change_roles(self.resource_id, self.properties[ROLES], prop_diff[ROLES])

    def handle_check(self) -> None:
        super().handle_check()
        assert self.resource_id is not None
        self.check_roles_granted(self.resource_id, self.properties[ROLES])

    def get_live_state(self) -> dict[str, Any]:
        found = self.fetch_or_none()
        if found is None:
            return {}
        assert self.resource_id is not None
        return {
            "name": found.get("name"),
            "description": found.get("description"),
            "domain": found.get("domain_id"),
            ROLES: self.live_roles(self.resource_id),
        }


def resource_mapping() -> dict[str, type[RoleAssigner]]:
    return {"OS::Keystone::Group": Group}
