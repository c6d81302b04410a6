"""The WSGI app of the CFN API: ``/v1/?Action=...`` (GET or form POST), wait condition and
signal URLs, and the versions document; every answer Heat's XML, every error an AWS one."""

from __future__ import annotations

import dataclasses
import json
import logging
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import falcon

from hearth.api.cfn import serialize
from hearth.api.cfn.actions import ACTIONS, Call
from hearth.api.cfn.errors import (
    ACCESS_DENIED,
    INTERNAL_FAILURE,
    INVALID_ACTION,
    INVALID_PARAMETER_VALUE,
    REQUEST_LIMIT_EXCEEDED,
    CfnError,
    from_engine,
)
from hearth.api.cfn.signature import SignatureChecker, read_signature
from hearth.common.context import RequestContext
from hearth.common.errors import Forbidden, HearthError
from hearth.common.identifier import Identity
from hearth.common.policy import Policy
from hearth.rpc.protocol import EngineAPI

LOG = logging.getLogger(__name__)
XML = "application/xml"
FORM = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class CfnState:
    engine: EngineAPI
    policy: Policy
    checker: SignatureChecker
    max_body_size: int
    max_template_size: int


def _error(resp: falcon.Response, error: CfnError) -> None:
    resp.status = error.kind.status
    resp.content_type = XML
    resp.data = serialize.error_xml(error)


def _body(req: falcon.Request, limit: int) -> bytes:
    length = req.content_length or 0
    if length > limit:
        raise CfnError(REQUEST_LIMIT_EXCEEDED, f"The request body is over {limit} bytes")
    data = req.bounded_stream.read(limit + 1) if length or req.method in ("POST", "PUT") else b""
    if len(data) > limit:
        raise CfnError(REQUEST_LIMIT_EXCEEDED, f"The request body is over {limit} bytes")
    return data


def _params(req: falcon.Request, body: bytes) -> dict[str, str]:
    params: dict[str, str] = {}
    for key, value in parse_qsl(req.query_string, keep_blank_values=True):
        params[key] = value
    if (req.content_type or "").split(";")[0].strip().lower() == FORM:
        try:
            form = parse_qsl(body.decode(), keep_blank_values=True, strict_parsing=False)
        except UnicodeDecodeError:
            raise CfnError(INVALID_PARAMETER_VALUE, "The form body is not UTF-8") from None
        params.update(form)
    return params


class _Endpoint:
    def __init__(self, state: CfnState) -> None:
        self.state = state

    def caller(self, req: falcon.Request, params: dict[str, str], body: bytes) -> RequestContext:
        signed = read_signature(
            verb=req.method, host=req.get_header("Host") or req.netloc, path=req.path,
            params=params, headers=dict(_headers(req)), body=body,
        )
        ctx = self.state.checker.context(signed, f"req-{uuid.uuid4()}")
        is_admin = self.state.policy.is_admin(ctx)
        return ctx if ctx.is_admin == is_admin else dataclasses.replace(ctx, is_admin=is_admin)


def _headers(req: falcon.Request) -> dict[str, str]:
    # Falcon upper-cases header names; the signature's canonical forms want them as sent.
    wanted = {"AUTHORIZATION": "Authorization", "X-AMZ-DATE": "X-Amz-Date",
              "HOST": "Host", "CONTENT-TYPE": "Content-Type",
              "X-AMZ-CONTENT-SHA256": "X-Amz-Content-SHA256"}
    headers = {wanted.get(k, k.title()): v for k, v in req.headers.items()}
    return headers


class ActionEndpoint(_Endpoint):
    """``/v1/`` with ``Action=...``."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._act(req, resp)

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._act(req, resp)

    def _act(self, req: falcon.Request, resp: falcon.Response) -> None:
        try:
            body = _body(req, self.state.max_body_size)
            params = _params(req, body)
            ctx = self.caller(req, params, body)
            name = params.get("Action", "")
            action = ACTIONS.get(name)
            if action is None:
                raise CfnError(INVALID_ACTION)
            try:
                self.state.policy.authorize(
                    ctx, f"cloudformation:{name}", {"project_id": ctx.project_id})
            except Forbidden:
                raise CfnError(ACCESS_DENIED, f"Action {name} not allowed for user") from None
            call = Call(self.state.engine, ctx, params, self.state.max_template_size)
            result = action(call)
        except CfnError as exc:
            _error(resp, exc)
            return
        except HearthError as exc:
            _error(resp, from_engine(exc))
            return
        except Exception:
            LOG.exception("CFN %s failed", req.params.get("Action"))
            _error(resp, CfnError(INTERNAL_FAILURE))
            return
        document = serialize.envelope(name, result)
        if params.get("ContentType") == "JSON":
            resp.content_type = falcon.MEDIA_JSON
            resp.data = serialize.to_json(document)
        else:
            resp.content_type = XML
            resp.data = serialize.to_xml(document)


class SignalEndpoint(_Endpoint):
    """``PUT /v1/waitcondition/<resource ARN>`` (cfn-signal) and ``POST /v1/signal/<ARN>``,
    each through a URL signed with the stack user's keys."""

    PREFIX = "/v1/"

    def __call__(self, req: falcon.Request, resp: falcon.Response, **_: Any) -> None:
        kind, _sep, arn = req.path[len(self.PREFIX):].partition("/")
        verb = {"waitcondition": "PUT", "signal": "POST"}.get(kind)
        if verb is None or not arn:
            _error(resp, CfnError(INVALID_ACTION))
            return
        if req.method != verb:
            _error(resp, CfnError(INVALID_ACTION, f"{kind} URLs take {verb}"))
            resp.status = 405  # the AWS body, with HTTP's status for a wrong method
            resp.set_header("Allow", verb)
            return
        try:
            body = _body(req, self.state.max_body_size)
            params = _params(req, b"")
            ctx = self.caller(req, params, body)
            identity, resource = _resource_arn(arn)
            details = _signal_body(body)
            if kind == "waitcondition":
                if details is None:
                    raise CfnError(INVALID_PARAMETER_VALUE, "The signal has no JSON body")
                self.state.engine.resource_signal(ctx, identity, resource, details,
                                                  sync_call=True)
            else:
                self.state.engine.resource_signal(ctx, identity, resource, details)
        except CfnError as exc:
            _error(resp, exc)
            return
        except HearthError as exc:
            _error(resp, from_engine(exc))
            return
        except Exception:
            LOG.exception("CFN signal of %s failed", arn)
            _error(resp, CfnError(INTERNAL_FAILURE))
            return
        resp.status = 200
        if kind == "waitcondition":
            resp.content_type = XML
            resp.data = serialize.to_xml({"resource": resource})
        else:
            resp.content_type = falcon.MEDIA_TEXT
            resp.text = ""


def _resource_arn(arn: str) -> tuple[dict[str, str], str]:
    try:
        identity = Identity.from_arn(arn)
    except ValueError as exc:
        raise CfnError(INVALID_PARAMETER_VALUE, str(exc)) from None
    prefix = "/resources/"
    name = identity.path[len(prefix):] if identity.path.startswith(prefix) else ""
    if not name or "/" in name:
        raise CfnError(INVALID_PARAMETER_VALUE, f'"{arn}" is not the ARN of a resource')
    return identity.stack().as_dict(), name


def _signal_body(body: bytes) -> Any:
    """The signal's JSON (cfn-signal sends it with no content type), or None without one."""
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        raise CfnError(INVALID_PARAMETER_VALUE, "The signal body is not JSON") from None


class Versions:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.status = 300
        resp.media = {"versions": [{
            "id": "v1.0", "status": "CURRENT",
            "links": [{"rel": "self", "href": f"{req.prefix}/v1/"}],
        }]}


def _not_found(req: falcon.Request, resp: falcon.Response, ex: Any, params: Any) -> None:
    _error(resp, CfnError(INVALID_ACTION, f"No such path {req.path}"))
    resp.status = 404


def build_cfn_app(state: CfnState) -> falcon.App[Any, Any]:
    app = falcon.App()
    app.req_options.keep_blank_qs_values = True
    app.add_error_handler(falcon.HTTPNotFound, _not_found)
    versions = Versions()
    app.add_route("/", versions)
    app.add_route("/versions", versions)
    actions = ActionEndpoint(state)
    app.add_route("/v1", actions)
    app.add_route("/v1/", actions)
    app.add_sink(SignalEndpoint(state), r"/v1/(waitcondition|signal)/")
    return app

