"""The engine's door to other services: one ``Cloud`` per set of credentials, kept and reused."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from hearth.clients.cloud import Cloud
from hearth.clients.credentials import (
    ConfiguredCloud,
    Credentials,
    NoCloudConfigured,
    TokenCredentials,
    TrustCredentials,
    cloud_region,
    make_session,
)
from hearth.clients.requests_in_flight import RequestsInFlight
from hearth.clients.settings import ClientSettings
from hearth.clients.trusts import TrustManager

if TYPE_CHECKING:
    from keystoneauth1.session import Session
    from openstack.connection import Connection

# Clouds kept (each holds a session and its token until it expires).
_KEPT = 256


class NoCloud(Cloud):
    """No credentials: every service is missing (noauth without ``[clients] cloud``)."""

    def __init__(self, settings: ClientSettings, why: str) -> None:
        super().__init__(settings, self._refuse, description="no cloud")
        self.why = why

    def _refuse(self) -> Session:
        raise NoCloudConfigured(self.why)

    def endpoint(self, service_type: str) -> str | None:
        return None


class CloudClients:
    """Clouds by credentials; the trusts that stacks use; what the embedded mode uses."""

    def __init__(self, settings: ClientSettings) -> None:
        self.settings = settings
        self.trusts = TrustManager(settings)
        self._clouds: OrderedDict[str, Cloud] = OrderedDict()
        self._lock = threading.Lock()
        # Every cloud of this engine counts its requests to a service in the same places.
        self.in_flight = RequestsInFlight(settings.service_requests)

    @property
    def uses_trusts(self) -> bool:
        """Stacks keep a trust (Keystone auth); otherwise they use the configured cloud."""
        return self.settings.keystone_auth

    def default_credentials(self) -> Credentials | None:
        """The embedded mode's clouds.yaml cloud, when one is configured."""
        return ConfiguredCloud(self.settings.cloud) if self.settings.cloud else None

    def no_cloud(self, why: str | None = None) -> Cloud:
        if why is None and self.settings.keystone_auth:
            why = "This stack has no trust to act with on other services"
        elif why is None:
            why = "No cloud is configured for other services ([clients] cloud)"
        return NoCloud(self.settings, why)

    def cloud(self, creds: Credentials | None) -> Cloud:
        """The Cloud of these credentials (made once, then reused)."""
        if creds is None:
            return self.no_cloud()
        key = creds.key
        with self._lock:
            found = self._clouds.get(key)
            if found is not None:
                self._clouds.move_to_end(key)
                return found
        made = self._make(creds)
        with self._lock:
            found = self._clouds.setdefault(key, made)
            self._clouds.move_to_end(key)
            while len(self._clouds) > _KEPT:
                self._clouds.popitem(last=False)
        return found

    def _make(self, creds: Credentials) -> Cloud:
        settings = self.settings
        if isinstance(creds, ConfiguredCloud):
            name = creds.name
            holder: dict[str, object] = {}

            def session() -> Session:
                region = cloud_region(settings, name)
                holder["region"] = region
                return region.get_session()  # type: ignore[no-any-return]

            def connection(_: Session) -> Connection:
                from openstack.connection import Connection

                return Connection(config=holder["region"])  # type: ignore[arg-type]

            return Cloud(settings, session, description=creds.key,
                         connection_factory=connection, in_flight=self.in_flight)
        factory: Callable[[], Session] = lambda: make_session(settings, creds)  # noqa: E731
        return Cloud(settings, factory, description=creds.key, in_flight=self.in_flight)

    def forget(self, creds: Credentials) -> None:
        with self._lock:
            self._clouds.pop(creds.key, None)

    # --- trusts --------------------------------------------------------------------------

    def create_trust(self, caller: TokenCredentials) -> TrustCredentials:
        return self.trusts.create(caller)

    def delete_trust(self, trust: TrustCredentials) -> None:
        self.forget(trust)
        self.trusts.delete(trust)
