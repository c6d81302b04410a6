"""The client options read once from the configuration (``hearth.common.client_config``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from oslo_config import cfg

from hearth.common.client_config import CLIENT_SERVICES

# Heat's per-service option groups, by the catalog service type they configure.
SERVICE_GROUPS: dict[str, str] = {
    "compute": "nova",
    "network": "neutron",
    "image": "glance",
    "block-storage": "cinder",
    "identity": "keystone",
}

# Heat's endpoint_type spellings, as keystoneauth's interfaces.
_INTERFACES = {"publicURL": "public", "internalURL": "internal", "adminURL": "admin"}


def interface_name(endpoint_type: str | None) -> str | None:
    if endpoint_type is None:
        return None
    return _INTERFACES.get(endpoint_type, endpoint_type)


@dataclass(frozen=True)
class TLSOptions:
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    insecure: bool = False


@dataclass(frozen=True)
class ServiceOptions:
    """``[clients_<service>]`` over ``[clients]``: where and how to reach one service."""

    interface: str = "public"
    tls: TLSOptions = field(default_factory=TLSOptions)


@dataclass(frozen=True)
class Trustee:
    auth_url: str
    username: str
    password: str = field(repr=False)
    user_domain_name: str = "Default"


@dataclass(frozen=True)
class ClientSettings:
    # The clouds.yaml cloud for the embedded mode (None: no cloud).
    cloud: str | None = None
    clouds_file: str | None = None
    region_name: str | None = None
    services: dict[str, ServiceOptions] = field(default_factory=dict)
    default_service: ServiceOptions = field(default_factory=ServiceOptions)
    api_retries: int = 4
    service_concurrency: int = 4
    trustee: Trustee | None = None
    delegated_roles: tuple[str, ...] = ()
    keystone_auth: bool = False

    def service(self, service_type: str) -> ServiceOptions:
        return self.services.get(service_type, self.default_service)

    @classmethod
    def from_config(cls, conf: cfg.ConfigOpts) -> ClientSettings:
        base = conf.clients
        default = ServiceOptions(
            interface=interface_name(base.endpoint_type) or "public",
            tls=_tls(base, None),
        )
        services: dict[str, ServiceOptions] = {}
        for service_type, group_name in SERVICE_GROUPS.items():
            assert group_name in CLIENT_SERVICES
            group = conf[f"clients_{group_name}"]
            services[service_type] = ServiceOptions(
                interface=interface_name(group.endpoint_type) or default.interface,
                tls=_tls(group, default.tls),
            )
        trustee = None
        if conf.trustee.auth_url and conf.trustee.username:
            trustee = Trustee(
                auth_url=conf.trustee.auth_url,
                username=conf.trustee.username,
                password=conf.trustee.password or "",
                user_domain_name=conf.trustee.user_domain_name,
            )
        return cls(
            cloud=base.cloud,
            clouds_file=base.clouds_file,
            region_name=conf.region_name_for_services,
            services=services,
            default_service=default,
            api_retries=base.api_retries,
            service_concurrency=base.service_concurrency,
            trustee=trustee,
            delegated_roles=tuple(conf.trusts_delegated_roles),
            keystone_auth=conf.api.auth_strategy == "keystone",
        )


def _tls(group: Any, fallback: TLSOptions | None) -> TLSOptions:
    fallback = fallback or TLSOptions()
    return TLSOptions(
        ca_file=group.ca_file or fallback.ca_file,
        cert_file=group.cert_file or fallback.cert_file,
        key_file=group.key_file or fallback.key_file,
        insecure=fallback.insecure if group.insecure is None else bool(group.insecure),
    )
