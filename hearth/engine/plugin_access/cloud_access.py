"""Whose credentials a stack uses on other services, and its trust's life.

With Keystone auth, a stack whose tree needs another service gets a trust when it is created
(or when an update first brings such a resource), while the caller's token is valid; every
later step of the stack authenticates through it; it is deleted with the stack. Without
Keystone, every stack uses the configured ``clouds.yaml`` cloud.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING

from hearth.clients.cloud import Cloud
from hearth.clients.credentials import (
    Credentials,
    NoCloudConfigured,
    TokenCredentials,
    TrustCredentials,
)
from hearth.clients.manager import CloudClients
from hearth.common.context import RequestContext
from hearth.common.errors import HearthError, ResourceTypeUnavailable
from hearth.store import credentials as creds_store
from hearth.store import stacks as stack_store
from hearth.store.crypto import Encryptor
from hearth.store.db import Database

if TYPE_CHECKING:
    from hearth.resources.base import Resource

LOG = logging.getLogger(__name__)

# Stacks whose credentials are remembered (a lookup is one query).
_KEPT = 1024

# Heat's names of the catalog types, in its "<client> <type> endpoint ..." reasons.
HEAT_SERVICE_TYPES = {"block-storage": "volumev3"}


def service_type_of(cls: type[Resource]) -> str | None:
    """The catalog service a resource type needs (``CloudResource.service_type``), or None."""
    found = getattr(cls, "service_type", None)
    return found if isinstance(found, str) else None


def needs_cloud(classes: Iterable[type[Resource]]) -> bool:
    return any(service_type_of(cls) for cls in classes)


class CloudValidation:
    """The caller's view of the cloud while a stack definition is validated.

    ``cloud`` is what service custom constraints read (``nova.flavor``...); ``check`` raises
    ResourceTypeUnavailable for a type whose service is not in the catalog, and notes that the
    stack needs the cloud (``used``: it then gets a trust).
    """

    def __init__(self, clouds: StackClouds, cloud: Cloud) -> None:
        self._clouds = clouds
        self.cloud = cloud
        self.used = False

    def check(self, cls: type[Resource], type_name: str) -> None:
        if service_type_of(cls) is None:
            return
        self.used = True
        self._clouds.check_available(self.cloud, cls, type_name)


class StackClouds:
    """The Cloud of a stack (at action time) and of a request (at validation time)."""

    def __init__(
        self, db: Database, clients: CloudClients, encryptor: Encryptor | None,
        auth_url: str | None = None,
    ) -> None:
        self.db = db
        self.clients = clients
        self.encryptor = encryptor
        self.auth_url = auth_url
        self._by_stack: OrderedDict[str, Credentials | None] = OrderedDict()
        self._lock = threading.Lock()

    # --- at action time ------------------------------------------------------------------

    def for_stack(self, stack_id: str) -> Cloud:
        return self.clients.cloud(self.credentials_of(stack_id))

    def credentials_of(self, stack_id: str) -> Credentials | None:
        with self._lock:
            if stack_id in self._by_stack:
                return self._by_stack[stack_id]
        if self.clients.uses_trusts:
            with self.db.session(readonly=True) as session:
                trust = creds_store.trust_of_stack(session, stack_id, self.encryptor)
            found: Credentials | None = (
                None if trust is None
                else TrustCredentials(trust.trust_id, trust.trustor_user_id)
            )
        else:
            found = self.clients.default_credentials()
        with self._lock:
            self._by_stack[stack_id] = found
            while len(self._by_stack) > _KEPT:
                self._by_stack.popitem(last=False)
        return found

    def forget(self, stack_id: str) -> None:
        with self._lock:
            self._by_stack.pop(stack_id, None)

    # --- at request time -----------------------------------------------------------------

    def for_request(self, ctx: RequestContext) -> Cloud:
        """The caller's view of the cloud: their token's catalog, or the configured cloud."""
        if self.clients.uses_trusts:
            if not self.auth_url:
                return self.clients.no_cloud(
                    "Other services need [trustee] auth_url, username and password")
            if not ctx.auth_token:
                return self.clients.no_cloud("The request carries no Keystone token")
            return self.clients.cloud(
                TokenCredentials(ctx.auth_token, ctx.project_id, self.auth_url)
            )
        return self.clients.cloud(self.clients.default_credentials())

    def validation(self, ctx: RequestContext) -> CloudValidation:
        return CloudValidation(self, self.for_request(ctx))

    def stack_validation(self, stack_id: str) -> CloudValidation:
        """What a child stack is validated against while its parent acts: the tree's own
        credentials (its root's trust, or the configured cloud), not the engine's context."""
        return CloudValidation(self, self.for_stack(stack_id))

    def check_available(self, cloud: Cloud, cls: type[Resource], type_name: str) -> None:
        """ResourceTypeUnavailable when the type's service is not in the cloud's catalog."""
        service = service_type_of(cls)
        if service is None:
            return
        try:
            found = cloud.has_service(service)
        except NoCloudConfigured as exc:
            raise _unavailable(cls, type_name, str(exc)) from None
        except HearthError as exc:
            raise _unavailable(cls, type_name, str(exc)) from None
        client = getattr(cls, "default_client_name", None) or service
        if not found:
            reason = getattr(cloud, "why", None) or (
                f"{client} {HEAT_SERVICE_TYPES.get(service, service)} endpoint is not in "
                "service catalog."
            )
            raise _unavailable(cls, type_name, reason)
        wanted = getattr(cls, "required_service_extension", None)
        if wanted:
            try:
                have = cloud.extensions(service)
            except HearthError as exc:
                raise _unavailable(cls, type_name, str(exc)) from None
            for alias in str(wanted).replace(",", " ").split():
                if alias not in have:
                    raise _unavailable(
                        cls, type_name,
                        f"Required extension {alias} in {client} service is not available.",
                    )

    # --- trusts --------------------------------------------------------------------------

    def new_trust(self, ctx: RequestContext, validation: CloudValidation | None) -> int | None:
        """For a new root stack that uses other services (Keystone auth): the stored trust."""
        if not self.clients.uses_trusts or validation is None or not validation.used:
            return None
        trust = self.clients.create_trust(self._caller(ctx))
        with self.db.session() as session:
            return creds_store.store_trust(
                session, trust.trust_id, trust.trustor_user_id, ctx.project_id, self.encryptor
            )

    def drop_trust(self, creds_id: int) -> None:
        """Undo ``new_trust`` (the stack was not stored after all)."""
        with self.db.session() as session:
            trust = creds_store.trust_by_id(session, creds_id, self.encryptor)
            creds_store.delete_creds(session, creds_id)
        if trust is not None:
            self._delete_in_keystone(trust.trust_id)

    def _caller(self, ctx: RequestContext) -> TokenCredentials:
        if not ctx.auth_token or not self.auth_url:
            raise HearthError(
                "Resources of other services need the caller's Keystone token to create the "
                "stack's trust ([trustee] auth_url must be set), and there is none"
            )
        return TokenCredentials(ctx.auth_token, ctx.project_id, self.auth_url)

    def _delete_in_keystone(self, trust_id: str) -> None:
        try:
            self.clients.delete_trust(TrustCredentials(trust_id))
        except Exception as exc:  # the stack is gone either way; Keystone expires the trust
            LOG.warning("Could not delete trust %s: %s", trust_id, exc)

    def ensure_trust(self, ctx: RequestContext, stack_id: str) -> None:
        """Give the stack (a root stack) a trust from the caller when it has none yet."""
        if not self.clients.uses_trusts:
            return
        with self.db.session(readonly=True) as session:
            existing = creds_store.trust_of_stack(session, stack_id, self.encryptor)
        if existing is not None:
            return
        trust = self.clients.create_trust(self._caller(ctx))
        with self.db.session() as session:
            creds_id = creds_store.store_trust(
                session, trust.trust_id, trust.trustor_user_id, ctx.project_id, self.encryptor
            )
            row = stack_store.get_stack(session, stack_id)
            if row is not None:
                row.user_creds_id = creds_id
        self.forget(stack_id)

    def delete_trust(self, stack_id: str) -> None:
        """After the stack's delete: its trust in Keystone, then the stored row."""
        with self.db.session(readonly=True) as session:
            row = stack_store.get_stack(session, stack_id)
            creds_id = None if row is None else row.user_creds_id
            trust = None
            if creds_id is not None:
                trust = creds_store.trust_of_stack(session, stack_id, self.encryptor)
        if creds_id is None:
            return
        if trust is not None:
            self._delete_in_keystone(trust.trust_id)
        with self.db.session() as session:
            creds_store.delete_stack_creds(session, stack_id, creds_id)
        self.forget(stack_id)


def _unavailable(cls: type[Resource], type_name: str, reason: str) -> ResourceTypeUnavailable:
    service = getattr(cls, "default_client_name", None) or service_type_of(cls) or "hearth"
    return ResourceTypeUnavailable(type_name, reason, service=str(service))
