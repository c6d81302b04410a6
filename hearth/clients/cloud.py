"""One set of credentials on the cloud: a keystoneauth session and an openstacksdk connection.

Plugins get a ``Cloud`` from ``ResourceContext.cloud`` and call ``cloud.conn.network...``
(openstacksdk's proxies) inside ``cloud.call`` (or use the helpers of
``hearth.resources.openstack``), which turns the services' errors into ``CloudError``s.
Retries of calls the service did not act on are keystoneauth's own (``connect_retries``,
``status_code_retries``), configured here from ``[clients] api_retries``.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar, cast

from hearth.clients.errors import RETRIABLE_STATUS_CODES, translate
from hearth.clients.grouped import GroupedCreates
from hearth.clients.requests_in_flight import RequestsInFlight
from hearth.clients.settings import SERVICE_GROUPS, ClientSettings

if TYPE_CHECKING:
    from keystoneauth1.session import Session
    from openstack.connection import Connection

T = TypeVar("T")

# How long an object found by id is taken as there without asking again, and how many are kept.
FOUND_TTL = 10.0
FOUND_KEPT = 4096
# How long an object this engine made (and has not deleted) is taken as there: a stack's ports
# name its networks and subnets, made minutes before under a busy service, again and again.
MADE_TTL = 300.0


@cache
def service_type_aliases(service_type: str) -> tuple[str, ...]:
    """The catalog names a service goes by (block-storage: volumev3, volumev2, volume...)."""
    import os_service_types

    found = os_service_types.ServiceTypes().get_all_types(service_type)
    return tuple(found) if found else (service_type,)


class Cloud:
    """The services one set of credentials reaches (the stack's trust, or a clouds.yaml cloud).

    The session and connection are made on first use, once, and shared by every thread.
    """

    def __init__(
        self,
        settings: ClientSettings,
        session_factory: Callable[[], Session],
        *,
        description: str,
        connection_factory: Callable[[Session], Connection] | None = None,
        in_flight: RequestsInFlight | None = None,
    ) -> None:
        self.settings = settings
        self.description = description
        self._session_factory = session_factory
        self._connection_factory = connection_factory
        self._session: Session | None = None
        self._conn: Connection | None = None
        self._lock = threading.Lock()
        self._endpoints: dict[str, str | None] = {}
        self._extensions: dict[str, frozenset[str]] = {}
        # Objects recently found or made, by id (key -> (expiry, value)): ``seen_recently``.
        self._found: OrderedDict[tuple[str, ...], tuple[float, Any]] = OrderedDict()
        self._finding: dict[tuple[str, ...], threading.Event] = {}
        self._grouped: dict[str, GroupedCreates] = {}
        # Shared by the engine's clouds: requests in flight per service (no limit alone).
        self._in_flight = in_flight or RequestsInFlight(0)

    def __repr__(self) -> str:
        return f"<Cloud {self.description}>"

    # --- session and connection ----------------------------------------------------------

    @property
    def session(self) -> Session:
        if self._session is None:
            with self._lock:
                if self._session is None:
                    self._session = self._session_factory()
        return self._session

    @property
    def conn(self) -> Connection:
        """openstacksdk's connection (``conn.compute``, ``conn.network``, ``conn.image``...)."""
        if self._conn is None:
            session = self.session
            with self._lock:
                if self._conn is None:
                    factory = self._connection_factory or self._default_connection
                    self._conn = factory(session)
        return self._conn

    def _default_connection(self, session: Session) -> Connection:
        from openstack.connection import Connection

        return Connection(session=session, **connection_options(self.settings))

    # --- the catalog ---------------------------------------------------------------------

    def endpoint(self, service_type: str) -> str | None:
        """The service's URL in the catalog (the configured interface and region), or None."""
        if service_type in self._endpoints:
            return self._endpoints[service_type]
        found = self._lookup_endpoint(service_type)
        self._endpoints[service_type] = found
        return found

    def _lookup_endpoint(self, service_type: str) -> str | None:
        from keystoneauth1 import exceptions as ksa

        interface = self.settings.service(_canonical(service_type)).interface
        for name in service_type_aliases(service_type):
            try:
                url = self.session.get_endpoint(
                    service_type=name, interface=interface,
                    region_name=self.settings.region_name,
                )
            except ksa.EndpointNotFound:
                url = None
            except ksa.ClientException as exc:
                raise translate(exc, service_type) from exc
            if url:
                return str(url)
        return None

    def has_service(self, service_type: str) -> bool:
        return self.endpoint(service_type) is not None

    def extensions(self, service_type: str) -> frozenset[str]:
        """The API extensions (aliases) a service announces: Neutron's ``qos``, ``trunk``..."""
        if service_type in self._extensions:
            return self._extensions[service_type]
        from openstack import exceptions as sdk

        proxy = {"network": "network", "compute": "compute",
                 "block-storage": "block_storage"}.get(service_type)
        found: frozenset[str] = frozenset()
        if proxy is not None:
            def listing() -> frozenset[str]:
                response = getattr(self.conn, proxy).get("/extensions")
                sdk.raise_from_response(response)
                return frozenset(e["alias"] for e in response.json().get("extensions", []))

            found = self.call(listing, service=service_type)
        self._extensions[service_type] = found
        return found

    @property
    def user_id(self) -> str:
        return str(self.session.get_user_id())

    @property
    def project_id(self) -> str:
        return str(self.session.get_project_id())

    # --- lookups -------------------------------------------------------------------------

    def seen_recently(self, key: tuple[str, ...], find: Callable[[], T | None],
                      ttl: float = FOUND_TTL) -> T | None:
        """``find()``, unless it found something for ``key`` less than ``ttl`` seconds ago.

        For lookups by id only: an id is never reused, so what was found stays right but
        for a deletion within ``ttl`` (then the next call on it fails with the service's
        own not-found). A stack's constraint check and its handler resolve the same
        networks and flavors again and again; a miss is never remembered. Threads that ask
        for a key while another one is finding it wait for that answer instead of asking
        the service too (a stack's 200 ports start at the same moment).
        """
        while True:
            now = time.monotonic()
            with self._lock:
                hit = self._found.get(key)
                if hit is not None and hit[0] > now:
                    return cast("T", hit[1])
                pending = self._finding.get(key)
                if pending is None:
                    pending = self._finding[key] = threading.Event()
                    break
            pending.wait()
            with self._lock:
                hit = self._found.get(key)
            if hit is None:  # the other thread found nothing (or failed): ask ourselves
                return self._find_once(key, find, ttl, None)
        return self._find_once(key, find, ttl, pending)

    def _find_once(self, key: tuple[str, ...], find: Callable[[], T | None], ttl: float,
                   pending: threading.Event | None) -> T | None:
        try:
            value = find()
            if value is not None:
                self._keep(key, value, ttl)
            return value
        finally:
            if pending is not None:
                with self._lock:
                    self._finding.pop(key, None)
                pending.set()

    def made(self, key: tuple[str, ...], value: Any, ttl: float = MADE_TTL) -> None:
        """This engine made the object of ``key``: ``seen_recently`` answers ``value`` for it
        for ``ttl`` seconds, or until ``gone``. Deleted behind the engine's back, the next
        call on it fails with the service's own not-found, as after any lookup."""
        self._keep(key, value, ttl)

    def gone(self, key: tuple[str, ...]) -> None:
        """The object of ``key`` is being deleted: find it again if asked."""
        with self._lock:
            self._found.pop(key, None)

    def _keep(self, key: tuple[str, ...], value: Any, ttl: float) -> None:
        with self._lock:
            self._found[key] = (time.monotonic() + ttl, value)
            self._found.move_to_end(key)
            while len(self._found) > FOUND_KEPT:
                self._found.popitem(last=False)

    # --- calls ---------------------------------------------------------------------------

    def grouped_creates(self, kind: str) -> GroupedCreates:
        """The creates of ``kind`` (e.g. ``network/ports``) that go to the service together
        while one request of them is in flight (``hearth.clients.grouped``)."""
        with self._lock:
            found = self._grouped.get(kind)
            if found is None:
                found = self._grouped[kind] = GroupedCreates()
            return found

    def call(self, fn: Callable[..., T], *args: Any, service: str | None = None,
             **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` with the services' errors as CloudErrors, once one of
        the service's places for requests in flight is free (``RequestsInFlight``)."""
        try:
            with self._in_flight.held(_canonical(service) if service else None):
                return fn(*args, **kwargs)
        except Exception as exc:
            translated = translate(exc, service)
            if translated is exc:
                raise
            raise translated from exc


def _canonical(service_type: str) -> str:
    """The service type our settings use for a catalog alias (volumev3 -> block-storage)."""
    if service_type in SERVICE_GROUPS:
        return service_type
    for known in SERVICE_GROUPS:
        if service_type in service_type_aliases(known):
            return known
    return service_type


def connection_options(settings: ClientSettings) -> dict[str, Any]:
    """openstacksdk config for every connection: interfaces, TLS, region and retries."""
    options: dict[str, Any] = {
        "connect_retries": settings.api_retries,
        "status_code_retries": settings.api_retries,
        "retriable_status_codes": list(RETRIABLE_STATUS_CODES),
    }
    if settings.region_name:
        options["region_name"] = settings.region_name
    for service_type in SERVICE_GROUPS:
        opts = settings.service(service_type)
        key = service_type.replace("-", "_")
        options[f"{key}_interface"] = opts.interface
    return options
