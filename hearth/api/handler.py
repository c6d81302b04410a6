"""What every route handler shares: the engine, the caller's context, policy and the body."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import falcon

from hearth.api.attempts import FailedAttempts
from hearth.api.auth import Authenticator
from hearth.api.bodies import StackBody
from hearth.api.request import json_object, read_json
from hearth.common.context import RequestContext
from hearth.common.policy import Policy
from hearth.rpc.protocol import EngineAPI


@dataclass(frozen=True)
class ApiState:
    engine: EngineAPI
    policy: Policy
    auth: Authenticator
    max_body_size: int
    max_template_size: int
    revision: str
    # Refused guesses at the public secret URLs, per source address.
    secret_url_attempts: FailedAttempts


class Handler:
    """Base of the route classes: ``on_get``/``on_post``/... are defined by each route."""

    scope = "stacks"

    def __init__(self, state: ApiState) -> None:
        self.state = state
        self.engine = state.engine

    def guard(
        self, req: falcon.Request, tenant_id: str, rule: str, scope: str | None = None
    ) -> RequestContext:
        """The caller, allowed by ``<scope>:<rule>`` to act in the URL's project."""
        ctx = self.state.auth.context(req, tenant_id)
        self.state.policy.authorize(
            ctx, f"{scope or self.scope}:{rule}", {"project_id": ctx.project_id}
        )
        return ctx

    @staticmethod
    def identity(ctx: RequestContext, stack_name: str, stack_id: str) -> dict[str, str]:
        return {"tenant": ctx.project_id, "stack_name": stack_name, "stack_id": stack_id,
                "path": ""}

    def body(self, req: falcon.Request, *, required: bool = True) -> dict[str, Any]:
        return json_object(req, self.state.max_body_size, required=required)

    def any_body(self, req: falcon.Request) -> Any:
        return read_json(req, self.state.max_body_size)

    def stack_body(self, req: falcon.Request, *, patch: bool = False) -> StackBody:
        return StackBody(
            self.body(req), patch=patch, max_template_size=self.state.max_template_size
        )


def reply(resp: falcon.Response, data: Any, status: int = 200) -> None:
    resp.status = status
    resp.media = data


def empty(resp: falcon.Response, status: int = 200) -> None:
    """A success with no body; not labelled JSON, so clients don't try to decode it."""
    resp.status = status
    resp.content_type = falcon.MEDIA_TEXT
    resp.text = ""


def no_content(resp: falcon.Response) -> None:
    # No Content-Type either: a 204 has no content to type (WSGI's validator refuses one).
    resp.status = 204


def accepted(resp: falcon.Response) -> None:
    empty(resp, 202)


def template_args(body: StackBody, *, update: bool) -> Mapping[str, Any]:
    """The engine call's keyword arguments for a stack body."""
    return {
        "template": body.template(),
        "params": body.parameters(),
        "files": body.files(),
        "args": body.args(update=update),
        "environment": body.environment(),
        "environment_files": body.environment_files(),
    }
