"""Options for reaching other OpenStack services: Heat's ``[clients*]`` and ``[trustee]`` groups.

Heat's names are kept (``[clients] endpoint_type``, ``[clients_nova] insecure``,
``region_name_for_services``, ``deferred_auth_method``, ``trusts_delegated_roles``,
``[trustee]``) so that an operator's Heat configuration carries over. Hearth adds ``[clients]
cloud`` (the embedded mode's credentials, a cloud of openstacksdk's ``clouds.yaml``) and the
retry and concurrency limits.
"""

from __future__ import annotations

from oslo_config import cfg

# The services Hearth's resource types talk to, as Heat names their option groups.
CLIENT_SERVICES: tuple[str, ...] = ("nova", "neutron", "glance", "cinder", "keystone", "heat")

_CLIENT_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "endpoint_type",
        help="Catalog interface used to reach the service (publicURL, internalURL, "
        "adminURL or public, internal, admin).",
    ),
    cfg.StrOpt("ca_file", help="CA certificate file for the service's TLS."),
    cfg.StrOpt("cert_file", help="Client certificate file for the service's TLS."),
    cfg.StrOpt("key_file", help="Private key of the client certificate."),
    cfg.BoolOpt("insecure", help="Skip TLS certificate verification."),
]

CLIENTS_OPTS: list[cfg.Opt] = [
    *(
        opt if opt.name != "endpoint_type" else cfg.StrOpt(
            "endpoint_type", default="publicURL", help=opt.help
        )
        for opt in _CLIENT_OPTS
    ),
    cfg.StrOpt(
        "cloud",
        help="Embedded mode (auth_strategy = noauth): the cloud of openstacksdk's "
        "clouds.yaml whose credentials every stack uses for other services. Unset: resource "
        "types of other services are unavailable.",
    ),
    cfg.StrOpt(
        "clouds_file",
        help="Path of the clouds.yaml holding [clients] cloud. Default: openstacksdk's own "
        "search ($OS_CLIENT_CONFIG_FILE, ./clouds.yaml, ~/.config/openstack/clouds.yaml, "
        "/etc/openstack/clouds.yaml).",
    ),
    cfg.IntOpt(
        "api_retries",
        default=4,
        min=0,
        help="Times a call to another service is retried (with backoff) after a connection "
        "failure or an answer that says it was not processed (429, 502, 503, 504).",
    ),
    cfg.IntOpt(
        "service_concurrency",
        default=32,
        min=1,
        help="Resource steps of one service (compute, network, ...) that run at the same "
        "time in one engine (in [DEFAULT] engine_wait_threads), so that a slow service "
        "cannot take every thread. Their requests are bounded by service_requests.",
    ),
    cfg.IntOpt(
        "service_requests",
        default=2,
        min=0,
        help="Requests one engine has in flight to one service at the same time (0: no "
        "limit). A service's API answers no faster with more at once, and spends more on "
        "each; the steps beyond it wait without a request. Ports made at the same moment "
        "go to Neutron together, as one bulk request.",
    ),
]

TRUSTEE_OPTS: list[cfg.Opt] = [
    cfg.StrOpt("auth_url", help="Keystone URL (v3) where trusts are created and used."),
    cfg.StrOpt("username", help="Hearth's service user, the trustee of every stack's trust."),
    cfg.StrOpt("password", secret=True, help="Password of the trustee user."),
    cfg.StrOpt("user_domain_name", default="Default", help="Domain of the trustee user."),
]

DEFERRED_AUTH_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "deferred_auth_method",
        default="trusts",
        choices=[("trusts", "a Keystone trust from the stack's creator to [trustee]")],
        help="How stack actions authenticate to other services after the request that "
        "started them (with auth_strategy = keystone).",
    ),
    cfg.ListOpt(
        "trusts_delegated_roles",
        default=[],
        help="Roles delegated by a stack's trust; empty: every role of the creating user.",
    ),
    cfg.StrOpt(
        "region_name_for_services",
        help="Region of the catalog endpoints used for other services (default: the "
        "request's region, else the first one).",
    ),
]


# Heat's stack user domain: Keystone users that in-instance agents act as (in [DEFAULT]).
STACK_DOMAIN_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "stack_user_domain_id",
        help="Id of the Keystone domain holding each stack's project and its users for "
        "in-instance agents (takes precedence over stack_user_domain_name).",
    ),
    cfg.StrOpt(
        "stack_user_domain_name",
        help="Name of the Keystone domain holding the stack users (when no "
        "stack_user_domain_id is set).",
    ),
    cfg.StrOpt(
        "stack_domain_admin",
        help="User of the stack user domain that administers it (creates the stacks' "
        "projects and users).",
    ),
    cfg.StrOpt(
        "stack_domain_admin_password", secret=True, help="Password of stack_domain_admin."
    ),
    cfg.StrOpt(
        "heat_stack_user_role",
        default="heat_stack_user",
        help="Role given to stack users on their stack's project; the API lets it read a "
        "resource's metadata and signal it, nothing else.",
    ),
]

def client_groups() -> dict[str, list[cfg.Opt]]:
    """``clients``, ``clients_<service>`` and ``trustee``, for the option registry."""
    groups: dict[str, list[cfg.Opt]] = {"clients": CLIENTS_OPTS, "trustee": TRUSTEE_OPTS}
    for service in CLIENT_SERVICES:
        groups[f"clients_{service}"] = list(_CLIENT_OPTS)
    return groups
