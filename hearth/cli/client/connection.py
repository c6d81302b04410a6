"""Which Orchestration endpoint the client commands talk to, and how they authenticate.

In this order of precedence:

1. ``--os-endpoint URL`` (the full endpoint, ``.../v1/{project}``) with ``--os-token``/``OS_TOKEN``
   if the endpoint wants one (a noauth Hearth or Heat, or a token you already have);
2. Keystone, when ``--os-auth-url``/``OS_AUTH_URL`` is set: password auth from the usual
   ``OS_*`` variables or options (token auth when only a token is given), the endpoint taken
   from the catalog (service type ``orchestration``);
3. ``HEARTH_URL`` (e.g. ``http://127.0.0.1:8004``) with ``HEARTH_PROJECT`` (default
   ``admin``): an embedded ``hearth serve`` in noauth mode, endpoint
   ``$HEARTH_URL/v1/$HEARTH_PROJECT``;
4. nothing configured: ``http://127.0.0.1:8004/v1/admin``, the default of ``hearth serve``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from dataclasses import dataclass
from typing import Any

from heatclient import client as heat_client

DEFAULT_URL = "http://127.0.0.1:8004"
DEFAULT_PROJECT = "admin"

PRECEDENCE = (
    "Connection, first that applies: (1) --os-endpoint URL (the full endpoint, "
    ".../v1/PROJECT) with --os-token if it needs one; (2) Keystone when --os-auth-url or "
    "OS_AUTH_URL is set (password from --os-username/--os-password or OS_*; the endpoint "
    "comes from the catalog, service type orchestration); (3) HEARTH_URL "
    "(e.g. http://127.0.0.1:8004) with HEARTH_PROJECT (default admin) for a noauth "
    f"`hearth serve`; (4) {DEFAULT_URL}/v1/{DEFAULT_PROJECT}."
)

# option name -> environment variable that supplies its default
ENVIRONMENT = {
    "os_token": "OS_TOKEN",
    "os_auth_url": "OS_AUTH_URL",
    "os_username": "OS_USERNAME",
    "os_password": "OS_PASSWORD",
    "os_project_name": "OS_PROJECT_NAME",
    "os_project_id": "OS_PROJECT_ID",
    "os_user_domain_name": "OS_USER_DOMAIN_NAME",
    "os_project_domain_name": "OS_PROJECT_DOMAIN_NAME",
    "os_region_name": "OS_REGION_NAME",
    "os_interface": "OS_INTERFACE",
    "os_cacert": "OS_CACERT",
}


class ConnectionSettingsError(Exception):
    """The connection options do not say how to reach an endpoint."""


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("connection", PRECEDENCE)
    group.add_argument(
        "--os-endpoint", metavar="URL",
        help="full orchestration endpoint, e.g. http://127.0.0.1:8004/v1/admin",
    )
    group.add_argument("--os-token", metavar="TOKEN", help="token to send (env OS_TOKEN)")
    group.add_argument("--os-auth-url", metavar="URL", help="Keystone URL (env OS_AUTH_URL)")
    group.add_argument("--os-username", metavar="NAME", help="env OS_USERNAME")
    group.add_argument("--os-password", metavar="PASSWORD", help="env OS_PASSWORD")
    group.add_argument("--os-project-name", metavar="NAME", help="env OS_PROJECT_NAME")
    group.add_argument("--os-project-id", metavar="ID", help="env OS_PROJECT_ID")
    group.add_argument(
        "--os-user-domain-name", metavar="NAME", help="env OS_USER_DOMAIN_NAME (default Default)"
    )
    group.add_argument(
        "--os-project-domain-name", metavar="NAME",
        help="env OS_PROJECT_DOMAIN_NAME (default Default)",
    )
    group.add_argument("--os-region-name", metavar="REGION", help="env OS_REGION_NAME")
    group.add_argument(
        "--os-interface", metavar="INTERFACE", help="catalog interface (env OS_INTERFACE; "
        "default public)",
    )
    group.add_argument("--os-cacert", metavar="FILE", help="CA bundle (env OS_CACERT)")
    group.add_argument("--insecure", action="store_true", help="do not verify TLS certificates")
    group.add_argument(
        "--debug", action="store_true", help="log the HTTP requests and responses to stderr"
    )


def option(args: argparse.Namespace, name: str) -> str | None:
    """An option's value from the command line, else from its environment variable."""
    value = getattr(args, name, None)
    if value:
        return str(value)
    variable = ENVIRONMENT.get(name)
    return os.environ.get(variable) or None if variable else None


@dataclass(frozen=True)
class Target:
    """Where requests go: a fixed endpoint, or Keystone's catalog."""

    endpoint: str | None
    keystone: bool


def target(args: argparse.Namespace) -> Target:
    if getattr(args, "os_endpoint", None):
        return Target(str(args.os_endpoint).rstrip("/"), keystone=False)
    if option(args, "os_auth_url"):
        return Target(None, keystone=True)
    base = os.environ.get("HEARTH_URL") or DEFAULT_URL
    project = os.environ.get("HEARTH_PROJECT") or DEFAULT_PROJECT
    return Target(f"{base.rstrip('/')}/v1/{project}", keystone=False)


def configure_logging(debug: bool) -> None:
    """Quiet by default: heatclient logs (at ERROR) things a user need not see, such as a
    redirect without a JSON body. ``--debug`` shows every request instead."""
    if debug:
        logging.basicConfig(stream=sys.stderr, level=logging.DEBUG,
                            format="%(levelname)s %(name)s %(message)s")
        for name in ("heatclient", "keystoneauth", "urllib3"):
            logging.getLogger(name).setLevel(logging.DEBUG)
    else:
        for name in ("heatclient", "keystoneauth", "urllib3"):
            logging.getLogger(name).setLevel(logging.CRITICAL)


def connect(args: argparse.Namespace) -> Any:
    """A python-heatclient v1 client for the endpoint the options and environment name."""
    configure_logging(bool(getattr(args, "debug", False)))
    where = target(args)
    verify: bool | str = not getattr(args, "insecure", False)
    cacert = option(args, "os_cacert")
    if verify and cacert:
        verify = cacert
    if where.keystone:
        catalog: dict[str, Any] = {
            "service_type": "orchestration",
            "interface": option(args, "os_interface") or "public",
        }
        region = option(args, "os_region_name")
        if region:
            catalog["region_name"] = region
        return heat_client.Client("1", session=_keystone_session(args, verify), **catalog)
    assert where.endpoint is not None
    kwargs: dict[str, Any] = {"endpoint": where.endpoint, "token": option(args, "os_token")}
    if where.endpoint.startswith("https:"):
        kwargs["insecure"] = verify is False
        if isinstance(verify, str):
            kwargs["ca_file"] = verify
    return heat_client.Client("1", **kwargs)


def _keystone_session(args: argparse.Namespace, verify: bool | str) -> Any:
    from keystoneauth1 import session
    from keystoneauth1.identity import generic

    auth_url = option(args, "os_auth_url")
    assert auth_url is not None
    scope: dict[str, Any] = {
        "project_name": option(args, "os_project_name"),
        "project_id": option(args, "os_project_id"),
        "project_domain_name": option(args, "os_project_domain_name") or "Default",
    }
    password = option(args, "os_password")
    token = option(args, "os_token")
    auth: Any
    if password:
        auth = generic.Password(
            auth_url,
            username=option(args, "os_username"),
            password=password,
            user_domain_name=option(args, "os_user_domain_name") or "Default",
            **scope,
        )
    elif token:
        auth = generic.Token(auth_url, token=token, **scope)
    else:
        raise ConnectionSettingsError(
            f"Keystone at {auth_url} needs a password (--os-password or OS_PASSWORD) "
            "or a token (--os-token or OS_TOKEN)"
        )
    return session.Session(auth=auth, verify=verify)
