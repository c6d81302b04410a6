"""OS::Keystone::User: a Keystone user, its group memberships and its role assignments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.clients.errors import is_not_found
from hearth.common.errors import EntityNotFound, HearthError
from hearth.resources.attributes import AttributeSchema as A
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.base import since
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

GROUPS = "groups"


class MissingGroupMemberships(HearthError):
    """CHECK: the user is no longer in a group the stack put it in."""


class User(RoleAssigner):
    """Heat Template Resource for Keystone User.

    Users represent an individual API consumer. A user itself must be owned by
    a specific domain, and hence all user names are not globally unique, but
    only unique to their domain.
    """

    support_status = keystone_v3("2015.1")
    entity = "user"
    actor = "users"

    properties_schema = {
        "name": P(P.STRING, "Name of keystone user.", update_allowed=True),
        "domain": P(
            P.STRING,
            "Name or ID of keystone domain.",
            default="default",
            update_allowed=True,
            constraints=[CustomConstraint("keystone.domain")],
        ),
        "description": P(
            P.STRING, "Description of keystone user.", default="", update_allowed=True
        ),
        "enabled": P(
            P.BOOLEAN, "Keystone user is enabled or disabled.", default=True,
            update_allowed=True,
        ),
        "email": P(P.STRING, "Email address of keystone user.", update_allowed=True),
        "password": P(P.STRING, "Password of keystone user.", update_allowed=True),
        "default_project": P(
            P.STRING,
            "Name or ID of default project of keystone user.",
            update_allowed=True,
            constraints=[CustomConstraint("keystone.project")],
        ),
        GROUPS: P(
            P.LIST,
            "Keystone user groups.",
            update_allowed=True,
            schema=P(P.STRING, "Keystone user group.",
                     constraints=[CustomConstraint("keystone.group")]),
        ),
        ROLES: ROLES_SCHEMA,
    }

    attributes_schema = {
        "name": A("User name.", support_status=since("9.0.0"), type=A.STRING),
        "default_project_id": A("Default project id for user.",
                                support_status=since("9.0.0"), type=A.STRING),
        "domain_id": A("Domain id for user.", support_status=since("9.0.0"), type=A.STRING),
        "enabled": A("Flag of enable user.", support_status=since("9.0.0"), type=A.BOOLEAN),
        "password_expires_at": A("Show user password expiration time.",
                                 support_status=since("9.0.0"), type=A.STRING),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        check_roles(properties[ROLES])

    def handle_create(self) -> None:
        props = self.properties
        check_roles(props[ROLES])
        body: dict[str, Any] = {
            "name": self.name_or_default(props["name"]),
            "domain_id": self.find("domain", props["domain"]),
            "description": props["description"],
            "enabled": props["enabled"],
        }
        for key in ("email", "password"):
            if props[key] is not None:
                body[key] = props[key]
        if props["default_project"]:
            body["default_project_id"] = self.find("project", props["default_project"])
        user = self.create_object(body)["id"]
        for group in props[GROUPS] or []:
            self._membership("PUT", self.find("group", group), user)
        self.grant(user, requested(props[ROLES]))

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        if not prop_diff:
            return
        assert self.resource_id is not None
        check_roles(new_properties[ROLES])
        body: dict[str, Any] = {}
        if "name" in prop_diff:
            body["name"] = self.name_or_default(prop_diff["name"])
        for key in ("description", "enabled", "email", "password"):
            if key in prop_diff:
                body[key] = prop_diff[key]
        if "default_project" in prop_diff:
            body["default_project_id"] = self.find("project", prop_diff["default_project"])
        if "domain" in prop_diff:
            # Keystone refuses to move a user; it says so if the domain really differs.
            body["domain_id"] = self.find("domain", prop_diff["domain"])
        self.update_object(body)
        if GROUPS in prop_diff:
            self._change_groups(self.properties[GROUPS], prop_diff[GROUPS])
        if ROLES in prop_diff:
            self.change_roles(self.resource_id, self.properties[ROLES], prop_diff[ROLES])

    def _membership(self, method: str, group: str | None, user: str) -> None:
        self.api(method, f"/groups/{group}/users/{user}")

    def _change_groups(self, before: list[str] | None, after: list[str] | None) -> None:
        """Join the groups added, leave those removed (compared by id)."""
        assert self.resource_id is not None
        old, new = list(before or []), list(after or [])
        added = [g for g in new if g not in old]
        removed = [g for g in old if g not in new]
        kept = {self.find("group", g) for g in new} if removed else set()
        for group in added:
            self._membership("PUT", self.find("group", group), self.resource_id)
        for group in removed:
            try:
                group_id = self.find("group", group)
                if group_id not in kept:
                    self._membership("DELETE", group_id, self.resource_id)
            except Exception as exc:
                # A group (or membership) already gone has nothing to leave.
                if not (isinstance(exc, EntityNotFound) or is_not_found(exc)):
                    raise

    def member_of(self) -> set[str]:
        """Ids of the groups Keystone says the user is in."""
        found = self.api("GET", f"{self.object_path()}/groups") or {}
        return {str(g["id"]) for g in found.get("groups", [])}

    def handle_check(self) -> None:
        super().handle_check()
        assert self.resource_id is not None
        wanted = [self.find("group", g) for g in self.properties[GROUPS] or []]
        if wanted:
            missing = sorted(str(g) for g in set(wanted) - self.member_of())
            if missing:
                raise MissingGroupMemberships(
                    f"The user is not in the groups: {', '.join(missing)}"
                )
        self.check_roles_granted(self.resource_id, self.properties[ROLES])

    def get_live_state(self) -> dict[str, Any]:
        found = self.fetch_or_none()
        if found is None:
            return {}
        assert self.resource_id is not None
        return {
            "name": found.get("name"),
            "description": found.get("description"),
            "enabled": found.get("enabled"),
            "email": found.get("email"),
            "default_project": found.get("default_project_id"),
            "domain": found.get("domain_id"),
            GROUPS: sorted(self.member_of()),
            ROLES: self.live_roles(self.resource_id),
        }


def resource_mapping() -> dict[str, type[RoleAssigner]]:
    return {"OS::Keystone::User": User}
