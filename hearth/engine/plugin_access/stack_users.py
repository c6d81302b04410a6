"""The stack users of one resource's stack (hearth.resources.stack_users_api), and the removal
of a stack's user project with the stack.

As in Heat, a stack tree has one project in the stack user domain: the root stack's, named
``<owner project>-<root stack id>``, which child stacks take on as their own
``stack_user_project_id`` (Heat hands it to a child when the child is made; here a child takes
it when one of its resources first needs a stack user). The project is made on first use and
recorded with a compare-and-set on the stack row, so racing resources end with one.
"""

from __future__ import annotations

import logging

from hearth.clients.stack_domain import StackDomainClient, user_name
from hearth.common.errors import HearthError
from hearth.engine.core import EngineCore
from hearth.resources.stack_users_api import Ec2Keypair, StackUserCredentials
from hearth.store import stacks as stack_store

LOG = logging.getLogger(__name__)

NOT_CONFIGURED = (
    "no stack user domain is configured ([DEFAULT] stack_user_domain_id or "
    "stack_user_domain_name, stack_domain_admin, stack_domain_admin_password, and Keystone's "
    "URL in [trustee] auth_url or [keystone_authtoken] www_authenticate_uri)"
)


def stack_domain_client(core: EngineCore) -> StackDomainClient | None:
    """The engine's client of the stack user domain (made once), None when not configured."""
    client: StackDomainClient | None = getattr(core, "_stack_domain_client", None)
    if client is None:
        settings = core.settings.clients
        if settings.stack_domain is None:
            return None
        client = StackDomainClient(settings, settings.stack_domain)
        core._stack_domain_client = client  # type: ignore[attr-defined]
    return client


def _claim(core: EngineCore, stack_id: str, project_id: str) -> str:
    """Set the stack's project unless it has one; the project it has afterwards."""
    with core.db.session() as session:
        stack_store.claim_user_project(session, stack_id, project_id)
    # A fresh transaction: it sees the winner's value whatever the isolation level.
    with core.db.session(readonly=True) as session:
        row = stack_store.get_stack(session, stack_id)
        if row is None or not row.stack_user_project_id:
            raise HearthError(f"Stack {stack_id} disappeared")
        return row.stack_user_project_id


class EngineStackUsers:
    def __init__(self, core: EngineCore, stack_id: str, tenant: str, username: str) -> None:
        self._core = core
        self._stack_id = stack_id
        self._tenant = tenant
        self._username = username

    def configured(self) -> str | None:
        return None if stack_domain_client(self._core) is not None else NOT_CONFIGURED

    def _client(self) -> StackDomainClient:
        client = stack_domain_client(self._core)
        if client is None:
            raise HearthError(f"Stack users are not available: {NOT_CONFIGURED}")
        return client

    def _project(self, client: StackDomainClient) -> str:
        """The stack's user project: its own, else its root's, else a new one of the root."""
        with self._core.db.session(readonly=True) as session:
            row = stack_store.get_stack(session, self._stack_id)
            if row is None:
                raise HearthError(f"Stack {self._stack_id} disappeared")
            own = row.stack_user_project_id
            root_id = row.root_stack_id or row.id
            root = row if root_id == row.id else stack_store.get_stack(session, root_id)
            if root is None:
                root_id, root = row.id, row
            shared = root.stack_user_project_id
            tenant = root.tenant or self._tenant
        if own:
            return own
        if not shared:
            made, created = client.create_project(tenant, root_id)
            shared = _claim(self._core, root_id, made)
            if created and shared != made:
                _drop_project(client, made)
        if root_id != self._stack_id:
            return _claim(self._core, self._stack_id, shared)
        return shared

    def create_user(self, password: str) -> StackUserCredentials:
        client = self._client()
        project_id = self._project(client)
        user_id = client.create_user(self._username, password, project_id)
        return StackUserCredentials(
            user_id=user_id, username=user_name(self._username), password=password,
            project_id=project_id, auth_url=client.domain.auth_url,
            region_name=self._core.settings.clients.region_name,
        )

    def delete_user(self, user_id: str) -> None:
        self._client().delete_user(user_id)

    def create_ec2_keypair(self, user_id: str) -> Ec2Keypair:
        client = self._client()
        credential_id, access, secret = client.create_ec2_keypair(user_id, self._project(client))
        return Ec2Keypair(credential_id=credential_id, access=access, secret=secret)

    def delete_ec2_keypair(self, credential_id: str) -> None:
        self._client().delete_ec2_keypair(credential_id)

    def enable_user(self, user_id: str) -> None:
        self._client().set_user_enabled(user_id, True)

    def disable_user(self, user_id: str) -> None:
        self._client().set_user_enabled(user_id, False)


def _drop_project(client: StackDomainClient, project_id: str) -> None:
    try:
        client.delete_project(project_id)
    except Exception:
        LOG.exception("Could not delete stack user project %s", project_id)


def delete_project_of(core: EngineCore, stack_id: str) -> None:
    """After the stack's delete: its user project and the users left in it, unless the
    project is its root's (that goes with the root). Best effort: the stack is gone whatever
    Keystone says."""
    client = stack_domain_client(core)
    if client is None:
        return
    with core.db.session(readonly=True) as session:
        row = stack_store.get_stack(session, stack_id)
        project_id = row.stack_user_project_id if row is not None else None
        if row is None or not project_id:
            return
        root_id = row.root_stack_id or row.id
        if root_id != row.id:
            root = stack_store.get_stack(session, root_id)
            if root is not None and root.stack_user_project_id == project_id:
                return
    _drop_project(client, project_id)
