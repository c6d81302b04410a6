"""OS::Keystone::UserRoleAssignment and OS::Keystone::GroupRoleAssignment: roles granted to
an existing user or group on projects and domains.

As in Heat these resources have no physical id of their own (a reference gives the resource
name). Unlike Heat, changing the user (group) moves the roles: they are revoked from the old
one and granted to the new one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from hearth.common.errors import EntityNotFound
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


class ActorRoleAssignment(RoleAssigner):
    """Roles granted to the user or group that the ``actor_property`` names."""

    # The property naming the actor, which is also the kind the finders look it up as.
    actor_property: ClassVar[str] = "user"
    support_status = keystone_v3("5.0.0")

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        check_roles(properties[ROLES])

    def actor_id(self, properties: Mapping[str, Any] | None = None) -> str | None:
        """The actor's id; None when it no longer exists."""
        source = self.properties if properties is None else properties
        try:
            return self.find(self.actor_property, source[self.actor_property])
        except EntityNotFound:
            return None

    def handle_create(self) -> None:
        check_roles(self.properties[ROLES])
        actor = self.find(self.actor_property, self.properties[self.actor_property])
        assert actor is not None
        self.grant(actor, requested(self.properties[ROLES]))

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        if not prop_diff:
            return
        check_roles(new_properties[ROLES])
        if self.actor_property in prop_diff:
            before = self.actor_id()
            if before is not None:
                self.revoke_all(before, self.properties[ROLES])
            after = self.find(self.actor_property, new_properties[self.actor_property])
            assert after is not None
            self.grant(after, requested(new_properties[ROLES]))
        elif ROLES in prop_diff:
            actor = self.find(self.actor_property, self.properties[self.actor_property])
            assert actor is not None
            self.change_roles(actor, self.properties[ROLES], new_properties[ROLES])

    def handle_delete(self) -> None:
        actor = self.actor_id()
        if actor is not None:
            self.revoke_all(actor, self.properties[ROLES])

    def handle_check(self) -> None:
        actor = self.find(self.actor_property, self.properties[self.actor_property])
        assert actor is not None
        self.check_roles_granted(actor, self.properties[ROLES])


class UserRoleAssignment(ActorRoleAssignment):
    """Resource for granting roles to a user.

    Resource for specifying users and their's roles.
    """

    actor = "users"
    actor_property = "user"

    properties_schema = {
        "user": P(
            P.STRING,
            "Name or id of keystone user.",
            required=True,
            update_allowed=True,
            constraints=[CustomConstraint("keystone.user")],
        ),
        ROLES: ROLES_SCHEMA,
    }


class GroupRoleAssignment(ActorRoleAssignment):
    """Resource for granting roles to a group.

    Resource for specifying groups and their's roles.
    """

    actor = "groups"
    actor_property = "group"

    properties_schema = {
        "group": P(
            P.STRING,
            "Name or id of keystone group.",
            required=True,
            update_allowed=True,
            constraints=[CustomConstraint("keystone.group")],
        ),
        ROLES: ROLES_SCHEMA,
    }


def resource_mapping() -> dict[str, type[ActorRoleAssignment]]:
    return {
        "OS::Keystone::UserRoleAssignment": UserRoleAssignment,
        "OS::Keystone::GroupRoleAssignment": GroupRoleAssignment,
    }
