"""Who is calling: the request context from a Keystone token or from the noauth settings.

With ``auth_strategy = keystone`` the WSGI app is wrapped in keystonemiddleware's auth_token,
which validates ``X-Auth-Token`` and sets the ``X-Project-Id``/``X-User-Id``/``X-Roles``
headers read here. With ``noauth`` the project is the one in the URL and the user and roles
come from the configuration. Either way the context keeps no reference to the token once the
engine has it: actions run on after the caller's token expires.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import falcon
from oslo_config import cfg

from hearth.api.faults import HTTPForbidden
from hearth.common.context import RequestContext
from hearth.common.policy import Policy

WsgiApp = Callable[..., Any]


def _header_list(value: str | None) -> tuple[str, ...]:
    return tuple(r.strip() for r in (value or "").split(",") if r.strip())


class Authenticator:
    def __init__(self, conf: cfg.ConfigOpts, policy: Policy) -> None:
        self.keystone = conf.api.auth_strategy == "keystone"
        self.noauth_user = str(conf.api.noauth_user)
        self.noauth_roles = tuple(conf.api.noauth_roles)
        self.policy = policy

    def context(self, req: falcon.Request, url_tenant: str) -> RequestContext:
        """The caller, checked against the project in the URL (403 on a mismatch)."""
        if self.keystone:
            ctx = self._from_token_headers(req)
        else:
            user = req.get_header("X-Auth-User") or self.noauth_user
            ctx = RequestContext(
                project_id=url_tenant,
                user_id=user,
                username=user,
                roles=self.noauth_roles,
                region_name=req.get_header("X-Region-Name"),
                request_id=_request_id(req),
            )
        ctx = _with_admin(ctx, self.policy.is_admin(ctx))
        # Heat lets an admin address any project's URL and acts in the admin's own project.
        if not ctx.is_admin and ctx.project_id != url_tenant:
            raise HTTPForbidden()
        return ctx

    def _from_token_headers(self, req: falcon.Request) -> RequestContext:
        if req.get_header("X-Identity-Status") != "Confirmed":
            raise falcon.HTTPUnauthorized(
                title="Unauthorized", description="Authentication required"
            )
        return RequestContext(
            project_id=req.get_header("X-Project-Id") or "",
            user_id=req.get_header("X-User-Id") or "",
            username=req.get_header("X-User-Name") or "",
            roles=_header_list(req.get_header("X-Roles")),
            auth_token=req.get_header("X-Auth-Token"),
            region_name=req.get_header("X-Region-Name"),
            request_id=_request_id(req),
        )


def _request_id(req: falcon.Request) -> str:
    rid = req.context.get("request_id")
    return str(rid) if rid else ""


def _with_admin(ctx: RequestContext, is_admin: bool) -> RequestContext:
    return ctx if ctx.is_admin == is_admin else dataclasses.replace(ctx, is_admin=is_admin)


def keystone_protected(app: WsgiApp, conf: cfg.ConfigOpts) -> WsgiApp:
    """``app`` behind keystonemiddleware's auth_token, configured from ``[keystone_authtoken]``."""
    from keystonemiddleware import auth_token

    return auth_token.AuthProtocol(app, {"oslo_config_config": conf})  # type: ignore[no-any-return]
