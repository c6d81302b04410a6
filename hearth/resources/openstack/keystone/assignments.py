"""Role assignments of a user or a group on projects and domains (Heat's role-assignment
mixin), shared by OS::Keystone::User, Group, UserRoleAssignment and GroupRoleAssignment.

A ``roles`` property is a list of ``{role, project}`` or ``{role, domain}``. An update grants
what was added and revokes what was removed; entries are compared by the ids they name, so
changing a name to the id of the same object neither grants nor revokes anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

from hearth.clients.errors import is_not_found
from hearth.common.errors import EntityNotFound, HearthError, StackValidationFailed
from hearth.resources.openstack.keystone.base import KeystoneResource
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint

ROLES, ROLE, PROJECT, DOMAIN = "roles", "role", "project", "domain"

ROLES_SCHEMA = P(
    P.LIST,
    "List of role assignments.",
    schema=P(
        P.MAP,
        "Map between role with either project or domain.",
        schema={
            ROLE: P(P.STRING, "Keystone role.", required=True,
                    constraints=[CustomConstraint("keystone.role")]),
            PROJECT: P(P.STRING, "Keystone project.",
                       constraints=[CustomConstraint("keystone.project")]),
            DOMAIN: P(P.STRING, "Keystone domain.",
                      constraints=[CustomConstraint("keystone.domain")]),
        },
    ),
    update_allowed=True,
)


class Assignment(NamedTuple):
    """One role on one project or domain (names or ids as given, or ids once resolved)."""

    role: str
    scope: str  # "projects" or "domains": Keystone's collection of the target
    target: str

    def describe(self) -> str:
        return f"role {self.role} on {self.scope[:-1]} {self.target}"


class MissingRoleAssignments(HearthError):
    """CHECK: a role the stack granted is no longer granted."""


def check_roles(roles: Sequence[Mapping[str, Any]] | None) -> None:
    """Each entry names a project or a domain, not both (Heat's words)."""
    for entry in roles or []:
        project, domain = entry.get(PROJECT), entry.get(DOMAIN)
        if project is not None and domain is not None:
            raise StackValidationFailed(
                "Cannot define the following properties at the same time: project, domain."
            )
        if project is None and domain is None:
            raise StackValidationFailed(
                f"Either project or domain must be specified for role {entry.get(ROLE)}"
            )


def requested(roles: Sequence[Mapping[str, Any]] | None) -> list[Assignment]:
    """The assignments a ``roles`` value asks for, without duplicates, in order."""
    out: list[Assignment] = []
    for entry in roles or []:
        project, domain = entry.get(PROJECT), entry.get(DOMAIN)
        if project is not None:
            wanted = Assignment(str(entry[ROLE]), "projects", str(project))
        elif domain is not None:
            wanted = Assignment(str(entry[ROLE]), "domains", str(domain))
        else:
            continue
        if wanted not in out:
            out.append(wanted)
    return out


class RoleAssigner(KeystoneResource):
    """A Keystone type that grants roles to a user or a group (``actor``)."""

    # Keystone's collection of the actor the roles are granted to.
    actor: ClassVar[str] = "users"

    def resolve(self, assignment: Assignment) -> Assignment:
        """The assignment with ids (EntityNotFound when a name matches nothing)."""
        kind = "project" if assignment.scope == "projects" else "domain"
        role = self.find("role", assignment.role)
        target = self.find(kind, assignment.target)
        assert role is not None and target is not None
        return Assignment(role, assignment.scope, target)

    def _role_path(self, actor_id: str, assignment: Assignment) -> str:
        return (f"/{assignment.scope}/{assignment.target}/{self.actor}/{actor_id}"
                f"/roles/{assignment.role}")

    def grant(self, actor_id: str, assignments: Iterable[Assignment]) -> None:
        for assignment in assignments:
            self.api("PUT", self._role_path(actor_id, self.resolve(assignment)))

    def revoke(self, actor_id: str, resolved: Iterable[Assignment]) -> None:
        """Revoke assignments given by id; one that is not there is already revoked."""
        for assignment in resolved:
            try:
                self.api("DELETE", self._role_path(actor_id, assignment))
            except Exception as exc:
                if not is_not_found(exc):
                    raise

    def resolved_or_none(self, assignment: Assignment) -> Assignment | None:
        """The assignment with ids, or None when its role or target no longer exists
        (then there is nothing to revoke)."""
        try:
            return self.resolve(assignment)
        except EntityNotFound:
            return None

    def revoke_all(self, actor_id: str, roles: Sequence[Mapping[str, Any]] | None) -> None:
        found = (self.resolved_or_none(a) for a in requested(roles))
        self.revoke(actor_id, [a for a in found if a is not None])

    def change_roles(self, actor_id: str, before: Sequence[Mapping[str, Any]] | None,
                     after: Sequence[Mapping[str, Any]] | None) -> None:
        """Grant what ``after`` adds to ``before``, then revoke what it removes."""
        old, new = requested(before), requested(after)
        self.grant(actor_id, [a for a in new if a not in old])
        removed = [a for a in old if a not in new]
        if not removed:
            return
        # What is kept, by id: a removed entry may name a kept one differently.
        kept = {self.resolve(a) for a in new}
        gone = (self.resolved_or_none(a) for a in removed)
        self.revoke(actor_id, [a for a in gone if a is not None and a not in kept])

    def granted(self, actor_id: str) -> set[Assignment]:
        """What Keystone says the actor has been granted directly (not inherited)."""
        key = "user.id" if self.actor == "users" else "group.id"
        found = self.api("GET", "/role_assignments", params={key: actor_id}) or {}
        out: set[Assignment] = set()
        for item in found.get("role_assignments", []):
            scope = item.get("scope") or {}
            if "OS-INHERIT:inherited_to" in scope:
                continue
            role = (item.get("role") or {}).get("id")
            for name in ("project", "domain"):
                target = (scope.get(name) or {}).get("id")
                if role and target:
                    out.add(Assignment(role, f"{name}s", target))
        return out

    def live_roles(self, actor_id: str) -> list[dict[str, str | None]]:
        """What is granted, as a ``roles`` value (for drift detection)."""
        return [
            {ROLE: a.role, PROJECT: a.target if a.scope == "projects" else None,
             DOMAIN: a.target if a.scope == "domains" else None}
            for a in sorted(self.granted(actor_id))
        ]

    def check_roles_granted(self, actor_id: str,
                            roles: Sequence[Mapping[str, Any]] | None) -> None:
        """CHECK: every assignment the properties ask for is granted in Keystone."""
        wanted = [self.resolve(a) for a in requested(roles)]
        if not wanted:
            return
        have = self.granted(actor_id)
        missing = [a.describe() for a in wanted if a not in have]
        if missing:
            raise MissingRoleAssignments(
                f"Role assignments not found in Keystone: {', '.join(missing)}"
            )
