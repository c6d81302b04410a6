"""Heat's stack user domain in Keystone: per-stack projects and the users in-instance agents
act as (``[DEFAULT] stack_user_domain_*``, ``stack_domain_admin``), made and removed by the
domain's admin with a token scoped to that domain (only such a token may make projects there).

Every call goes to the configured Keystone URL (no catalog lookup); Keystone's errors become
``hearth.clients.errors`` types carrying Keystone's own message.
"""

from __future__ import annotations

import json
import logging
import secrets
import string
import threading
import uuid
from typing import Any

from hearth.clients.errors import (
    CloudError,
    Forbidden,
    NotFound,
    is_conflict,
    is_not_found,
    translate,
)
from hearth.clients.settings import ClientSettings, StackDomain

LOG = logging.getLogger(__name__)

# Keystone's limits: project names 64 characters, user names 255 (Heat keeps a user name's
# last 255 characters, and a project name's first 64).
PROJECT_NAME_LIMIT = 64
USER_NAME_LIMIT = 255
PROJECT_DESCRIPTION = "Heat stack user project"
# Keystone's security compliance rules are for people; an agent's password never changes and
# must not lock the agent out (Heat sets the same options).
USER_OPTIONS = {
    "ignore_change_password_upon_first_use": True,
    "ignore_password_expiry": True,
    "ignore_lockout_failure_attempts": True,
}


# An EC2 secret: letters and digits only, so that it survives config files, shells and URLs
# unquoted (the length and alphabet of Heat's generated passwords).
SECRET_ALPHABET = string.ascii_letters + string.digits
SECRET_LENGTH = 32


def ec2_secret() -> str:
    return "".join(secrets.choice(SECRET_ALPHABET) for _ in range(SECRET_LENGTH))


def project_name(owner_project_id: str, stack_id: str) -> str:
    return f"{owner_project_id}-{stack_id}"[:PROJECT_NAME_LIMIT]


def user_name(name: str) -> str:
    return name[-USER_NAME_LIMIT:]


class StackDomainClient:
    """The stack domain admin's calls; one per engine (its token and ids are reused)."""

    def __init__(self, settings: ClientSettings, domain: StackDomain) -> None:
        self.settings = settings
        self.domain = domain
        self._session: Any = None
        self._domain_id: str | None = domain.domain_id
        self._role_id: str | None = None
        self._lock = threading.Lock()

    # --- Keystone calls ------------------------------------------------------------------

    def _admin(self) -> Any:
        with self._lock:
            if self._session is None:
                from keystoneauth1 import session as ks_session
                from keystoneauth1.identity import v3

                from hearth.clients.credentials import _cert, _verify

                d = self.domain
                scope = (
                    {"domain_id": d.domain_id, "user_domain_id": d.domain_id} if d.domain_id
                    else {"domain_name": d.domain_name, "user_domain_name": d.domain_name}
                )
                auth = v3.Password(
                    auth_url=d.auth_url, username=d.admin, password=d.password, **scope
                )
                tls = self.settings.service("identity").tls
                self._session = ks_session.Session(
                    auth=auth, verify=_verify(tls), cert=_cert(tls)
                )
            return self._session

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        url = self.domain.auth_url.rstrip("/") + path
        session = self._admin()
        try:
            response = session.request(
                url, method, connect_retries=self.settings.api_retries, **kwargs
            )
        except Exception as exc:
            translated = translate(exc, "identity")
            if translated is exc:
                raise
            raise translated from exc
        return response.json() if response.content else None

    def domain_id(self) -> str:
        """The stack domain's id (configured, or that of the admin's domain-scoped token)."""
        if self._domain_id is None:
            session = self._admin()
            try:
                access = session.auth.get_access(session)
            except Exception as exc:
                raise translate(exc, "identity") from exc
            self._domain_id = str(access.domain_id)
        return self._domain_id

    def _role(self) -> str:
        if self._role_id is None:
            found = self._call("GET", "/roles", params={"name": self.domain.role})["roles"]
            if len(found) != 1:
                raise CloudError(f"Can't find role {self.domain.role}", None, "identity")
            self._role_id = str(found[0]["id"])
        return self._role_id

    def _one(self, collection: str, name: str) -> dict[str, Any] | None:
        """The project or user of that name in the stack domain."""
        found = self._call(
            "GET", f"/{collection}", params={"name": name, "domain_id": self.domain_id()}
        )[collection]
        return dict(found[0]) if found else None

    # --- what the engine asks ----------------------------------------------------------

    def create_project(self, owner_project_id: str, stack_id: str) -> tuple[str, bool]:
        """The stack's project: (its id, whether this call made it).

        Names are unique in a domain: whoever races for the same stack gets Keystone's 409
        and then the project the winner made.
        """
        name = project_name(owner_project_id, stack_id)
        body = {"project": {"name": name, "domain_id": self.domain_id(),
                            "description": PROJECT_DESCRIPTION}}
        try:
            return str(self._call("POST", "/projects", json=body)["project"]["id"]), True
        except CloudError as exc:
            if not is_conflict(exc):
                raise
            found = self._one("projects", name)
            if found is None:
                raise
            return str(found["id"]), False

    def create_user(self, name: str, password: str, project_id: str) -> str:
        """A user of the stack domain in ``project_id`` with the stack user role.

        A user of that name already there for the same project (a create step that ran
        again) is taken over with the new password.
        """
        name = user_name(name)
        role = self._role()
        body = {"user": {"name": name, "password": password, "domain_id": self.domain_id(),
                         "default_project_id": project_id, "enabled": True,
                         "options": USER_OPTIONS}}
        made = True
        try:
            user_id = str(self._call("POST", "/users", json=body)["user"]["id"])
        except CloudError as exc:
            found = self._one("users", name) if is_conflict(exc) else None
            if found is None or found.get("default_project_id") != project_id:
                raise
            user_id, made = str(found["id"]), False
            self._call("PATCH", f"/users/{user_id}", json={"user": {"password": password}})
        try:
            self._call("PUT", f"/projects/{project_id}/users/{user_id}/roles/{role}")
        except Exception:
            if made:  # a user without its role is of no use to anyone
                self._delete(f"/users/{user_id}")
            raise
        return user_id

    def delete_user(self, user_id: str) -> None:
        """Remove a user of the stack domain (gone already: done; of another domain: refused).
        Keystone removes the user's credentials (EC2 keypairs) with it."""
        if self._domain_user(user_id) is not None:
            self._delete(f"/users/{user_id}")

    def _domain_user(self, user_id: str) -> dict[str, Any] | None:
        """The user if it exists and is of the stack domain (None: gone; else: refused)."""
        try:
            user = dict(self._call("GET", f"/users/{user_id}")["user"])
        except CloudError as exc:
            if is_not_found(exc):
                return None
            raise
        if user.get("domain_id") != self.domain_id():
            raise Forbidden(f"User {user_id} is not in the stack user domain", 403, "identity")
        return user

    def set_user_enabled(self, user_id: str, enabled: bool) -> None:
        """Enable or disable a user of the stack domain (suspend / resume)."""
        if self._domain_user(user_id) is None:
            raise NotFound(f"Could not find user: {user_id}.", 404, "identity")
        self._call("PATCH", f"/users/{user_id}", json={"user": {"enabled": enabled}})

    def create_ec2_keypair(self, user_id: str, project_id: str) -> tuple[str, str, str]:
        """An EC2 credential of a stack domain user in ``project_id``: (credential id,
        access, secret). Keystone keeps the pair in the credential's blob and derives the
        credential's id from the access key."""
        access, secret = uuid.uuid4().hex, ec2_secret()
        body = {"credential": {"type": "ec2", "user_id": user_id, "project_id": project_id,
                               "blob": json.dumps({"access": access, "secret": secret})}}
        made = self._call("POST", "/credentials", json=body)["credential"]
        return str(made["id"]), access, secret

    def delete_ec2_keypair(self, credential_id: str) -> None:
        """Remove an EC2 credential of a stack domain user (gone already: done)."""
        try:
            credential = self._call("GET", f"/credentials/{credential_id}")["credential"]
        except CloudError as exc:
            if is_not_found(exc):
                return
            raise
        # Only the stack domain's own: the domain admin may see others' credentials too.
        if self._domain_user(str(credential.get("user_id"))) is None:
            return  # the user is gone, and Keystone removed its credentials with it
        self._delete(f"/credentials/{credential_id}")

    def delete_project(self, project_id: str) -> None:
        """The project and the users left in it (only a project of the stack domain)."""
        try:
            project = self._call("GET", f"/projects/{project_id}")["project"]
        except CloudError as exc:
            if is_not_found(exc):
                return
            if exc.status == 403:  # as Heat: not ours to look at, so not ours to delete
                LOG.warning("Not deleting project %s: %s", project_id, exc)
                return
            raise
        if project.get("domain_id") != self.domain_id():
            LOG.warning("Not deleting project %s: not in the stack user domain", project_id)
            return
        # Users belong to the domain, not the project: those its resources did not delete
        # would stay behind. Keystone cannot filter on default_project_id; we do.
        users = self._call("GET", "/users", params={"domain_id": self.domain_id()})["users"]
        for user in users:
            if user.get("default_project_id") == project_id:
                self._delete(f"/users/{user['id']}")
        self._delete(f"/projects/{project_id}")

    def _delete(self, path: str) -> None:
        try:
            self._call("DELETE", path)
        except CloudError as exc:
            if not is_not_found(exc):
                raise
