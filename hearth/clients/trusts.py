"""Heat's deferred authentication: a Keystone trust from the stack's creator to Hearth.

At create time, while the caller's token is valid, the caller (trustor) delegates their roles
on the project to Hearth's service user (trustee, ``[trustee]``), with impersonation, as
Heat's ``deferred_auth_method = trusts``. Every later action of the stack authenticates as
the trustee through that trust, so an update or delete works after the caller's token expired
or was revoked. The trust is deleted with the stack.
"""

from __future__ import annotations

import threading

from hearth.clients.credentials import (
    TokenCredentials,
    TrustCredentials,
    make_session,
    trustee_session,
)
from hearth.clients.errors import is_not_found, translate
from hearth.clients.settings import ClientSettings


class TrustManager:
    """Makes and deletes trusts; remembers the trustee's user id."""

    def __init__(self, settings: ClientSettings) -> None:
        self.settings = settings
        self._trustee_id: str | None = None
        self._lock = threading.Lock()

    def trustee_user_id(self) -> str:
        if self._trustee_id is None:
            with self._lock:
                if self._trustee_id is None:
                    session = trustee_session(self.settings)
                    try:
                        self._trustee_id = str(session.get_user_id())
                    except Exception as exc:
                        raise translate(exc, "identity") from exc
        return self._trustee_id

    def create(self, caller: TokenCredentials) -> TrustCredentials:
        """A trust from the caller's user to the trustee on the caller's project."""
        from keystoneauth1 import exceptions as ksa

        session = make_session(self.settings, caller)
        try:
            access = session.auth.get_access(session)  # type: ignore[union-attr]
            roles = list(self.settings.delegated_roles) or list(access.role_names or [])
            body = {
                "trust": {
                    "trustor_user_id": access.user_id,
                    "trustee_user_id": self.trustee_user_id(),
                    "project_id": caller.project_id,
                    "impersonation": True,
                    "roles": [{"name": name} for name in roles],
                }
            }
            answer = session.post(
                "/OS-TRUST/trusts", json=body,
                endpoint_filter={"service_type": "identity", "interface": "public"},
            )
        except ksa.ClientException as exc:
            raise translate(exc, "identity") from exc
        trust = answer.json()["trust"]
        return TrustCredentials(trust_id=trust["id"], trustor_user_id=access.user_id)

    def delete(self, trust: TrustCredentials) -> None:
        """Delete the trust (as the trustee, through the trust itself); gone is fine."""
        from keystoneauth1 import exceptions as ksa

        session = make_session(self.settings, trust)
        try:
            session.delete(
                f"/OS-TRUST/trusts/{trust.trust_id}",
                endpoint_filter={"service_type": "identity", "interface": "public"},
            )
        except ksa.ClientException as exc:
            if is_not_found(exc) or getattr(exc, "http_status", None) in (401, 404):
                # Already gone (a revoked or expired trust cannot even authenticate).
                return
            raise translate(exc, "identity") from exc
