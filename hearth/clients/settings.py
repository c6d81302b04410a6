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
    # Another region's orchestration API (OS::Heat::Stack with a region_name).
    "orchestration": "heat",
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
class StackDomain:
    """Heat's stack user domain and its admin (``[DEFAULT] stack_user_domain_*``)."""

    auth_url: str
    admin: str
    password: str = field(repr=False)
    domain_id: str | None = None
    domain_name: str | None = None
    role: str = "heat_stack_user"


@dataclass(frozen=True)
class ClientSettings:
    # The clouds.yaml cloud for the embedded mode (None: no cloud).
    cloud: str | None = None
    clouds_file: str | None = None
    region_name: str | None = None
    services: dict[str, ServiceOptions] = field(default_factory=dict)
    default_service: ServiceOptions = field(default_factory=ServiceOptions)
    api_retries: int = 4
    service_concurrency: int = 32
    service_requests: int = 2
    trustee: Trustee | None = None
    delegated_roles: tuple[str, ...] = ()
    keystone_auth: bool = False
    stack_domain: StackDomain | None = None
    # The role of stack users (``heat_stack_user_role``): the API restricts its holders.
    stack_user_role: str = "heat_stack_user"

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
        stack_domain = None
        domain = conf.stack_user_domain_id or conf.stack_user_domain_name
        admin = domain and conf.stack_domain_admin and conf.stack_domain_admin_password
        keystone = keystone_v3_url(conf) if admin else None
        if admin and keystone:
            stack_domain = StackDomain(
                auth_url=keystone, admin=conf.stack_domain_admin,
                password=conf.stack_domain_admin_password or "",
                domain_id=conf.stack_user_domain_id,
                domain_name=None if conf.stack_user_domain_id else conf.stack_user_domain_name,
                role=conf.heat_stack_user_role,
            )
        return cls(
            cloud=base.cloud,
            clouds_file=base.clouds_file,
            region_name=conf.region_name_for_services,
            services=services,
            default_service=default,
            api_retries=base.api_retries,
            service_concurrency=base.service_concurrency,
            service_requests=base.service_requests,
            trustee=trustee,
            delegated_roles=tuple(conf.trusts_delegated_roles),
            keystone_auth=conf.api.auth_strategy == "keystone",
            stack_domain=stack_domain,
            stack_user_role=conf.heat_stack_user_role,
        )


def keystone_v3_url(conf: cfg.ConfigOpts) -> str | None:
    """The Keystone v3 URL of the stack user domain: the one Hearth uses for trusts
    (``[trustee] auth_url``), else the API's public one (``[keystone_authtoken]
    www_authenticate_uri``, Heat's fallback too)."""
    url = conf.trustee.auth_url
    if not url and conf.api.auth_strategy == "keystone":
        from keystonemiddleware import auth_token

        # keystonemiddleware registers these when the API app is built, after the engine.
        for group, opts in auth_token.list_opts():
            conf.register_opts(opts, group=group)
        url = conf.keystone_authtoken.www_authenticate_uri
    if not url:
        return None
    url = str(url).rstrip("/")
    url = url.removesuffix("/v2.0")
    return url if url.endswith("/v3") else f"{url}/v3"


def _tls(group: Any, fallback: TLSOptions | None) -> TLSOptions:
    fallback = fallback or TLSOptions()
    return TLSOptions(
        ca_file=group.ca_file or fallback.ca_file,
        cert_file=group.cert_file or fallback.cert_file,
        key_file=group.key_file or fallback.key_file,
        insecure=fallback.insecure if group.insecure is None else bool(group.insecure),
    )
