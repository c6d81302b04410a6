"""``POST /console/auth/tokens``: a password login passed through to the configured Keystone.

The console runs in a browser, and Keystone answers no cross-origin requests, so the page asks
Hearth (same origin) and Hearth asks Keystone. Only the token, its project and its expiry go
back; the password is not kept.
"""

from __future__ import annotations

from typing import Any

import falcon
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import generic
from oslo_config import cfg

from hearth.api.faults import BadRequest
from hearth.common.errors import HearthError

FIELDS = ("username", "password", "project", "domain")
TIMEOUT = 15


class LoginRefused(HearthError):
    http_status = 401

    @property
    def heat_type(self) -> str:
        return "HTTPUnauthorized"


class KeystoneUnavailable(HearthError):
    http_status = 503

    @property
    def heat_type(self) -> str:
        return "HTTPServiceUnavailable"


class LoginNotEnabled(HearthError):
    http_status = 404

    @property
    def heat_type(self) -> str:
        return "HTTPNotFound"


def keystone_url(conf: cfg.ConfigOpts) -> str:
    """Keystone's public endpoint as ``[keystone_authtoken]`` names it (registered by
    keystonemiddleware when the keystone-protected app is built)."""
    try:
        group = conf.keystone_authtoken
    except cfg.NoSuchOptError:
        return ""
    for name in ("www_authenticate_uri", "auth_url"):
        try:
            value = getattr(group, name)
        except (cfg.NoSuchOptError, AttributeError):
            continue
        if value:
            return str(value)
    return ""


def login_fields(body: Any) -> dict[str, str]:
    """The four strings of a login request; a clear 400 naming the field otherwise."""
    if not isinstance(body, dict):
        raise BadRequest("The login request body must be a JSON object with "
                         + ", ".join(FIELDS) + ".")
    fields: dict[str, str] = {}
    for name in FIELDS:
        value = body.get(name, "Default" if name == "domain" else None)
        if not isinstance(value, str) or not value.strip():
            raise BadRequest(f'The login request needs "{name}" (a non-empty string).')
        fields[name] = value if name == "password" else value.strip()
    return fields


class KeystoneLogin:
    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        if self.conf.api.auth_strategy != "keystone":
            raise LoginNotEnabled("This Hearth does not use Keystone ([api] auth_strategy is "
                                  f"{self.conf.api.auth_strategy}): no login is needed.")
        url = keystone_url(self.conf)
        if not url:
            raise KeystoneUnavailable("No Keystone is configured: set [keystone_authtoken] "
                                      "www_authenticate_uri.")
        fields = login_fields(req.get_media(default_when_empty=None))
        auth = generic.Password(
            auth_url=url, username=fields["username"], password=fields["password"],
            project_name=fields["project"], user_domain_name=fields["domain"],
            project_domain_name=fields["domain"],
        )
        sess = ks_session.Session(auth=auth, timeout=TIMEOUT)
        try:
            access = auth.get_access(sess)
        except ks_exc.Unauthorized:
            raise LoginRefused(
                f"Keystone refused the login of user {fields['username']!r} to project "
                f"{fields['project']!r} in domain {fields['domain']!r}: check the user name, "
                "password, project and domain."
            ) from None
        except (ks_exc.ConnectFailure, ks_exc.ConnectTimeout, ks_exc.DiscoveryFailure) as exc:
            raise KeystoneUnavailable(f"Keystone at {url} is not reachable: {exc}") from None
        except ks_exc.ClientException as exc:
            raise KeystoneUnavailable(f"Keystone at {url} answered: {exc}") from None
        expires = access.expires
        resp.media = {
            "token": access.auth_token,
            "project_id": access.project_id,
            "project_name": access.project_name,
            "user": access.username,
            "expires_at": expires.isoformat() if expires else None,
        }
