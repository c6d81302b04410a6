"""Errors as Heat's API shows them: ``{"code", "title", "explanation", "error": {...}}``.

Every failure leaves the API in this shape, whether it was raised by the engine (a
``HearthError``), by request parsing here, or by the web framework (unknown URL, wrong method).
An unexpected exception is logged with its traceback and answered with a plain 500: the
traceback never reaches the user.
"""

from __future__ import annotations

import json
import logging
from http import HTTPStatus
from typing import Any

import falcon

from hearth.common.errors import HearthError

LOG = logging.getLogger(__name__)

# The explanations webob gives, which Heat's error bodies carry.
EXPLANATIONS = {
    400: "The server could not comply with the request since it is either malformed or "
    "otherwise incorrect.",
    401: "This server could not verify that you are authorized to access the document you "
    "requested.",
    403: "Access was denied to this resource.",
    404: "The resource could not be found.",
    405: "The method specified is not allowed for this resource.",
    409: "There was a conflict when trying to complete your request.",
    413: "The request is larger than the server is willing or able to process.",
    415: "The request media type is not supported by this server.",
    500: "The server has either erred or is incapable of performing the requested operation.",
    503: "The server is currently unavailable. Please try again at a later time.",
}


class BadRequest(HearthError):
    """A request the API itself refuses (shape, types, query keys); Heat's webob type name."""

    http_status = 400

    @property
    def heat_type(self) -> str:
        return "HTTPBadRequest"


class HTTPForbidden(HearthError):
    http_status = 403

    @property
    def heat_type(self) -> str:
        return "HTTPForbidden"

    def __init__(self, message: str = "Access was denied to this resource.") -> None:
        super().__init__(message)


class NotFoundHere(HearthError):
    http_status = 404

    @property
    def heat_type(self) -> str:
        return "HTTPNotFound"

    def __init__(self, message: str = "The resource could not be found.") -> None:
        super().__init__(message)


def error_body(status: int, type_name: str, message: str) -> dict[str, Any]:
    return {
        "code": status,
        "title": HTTPStatus(status).phrase,
        "explanation": EXPLANATIONS.get(status, HTTPStatus(status).description),
        "error": {"type": type_name, "message": message, "traceback": None},
    }


def _write(resp: falcon.Response, status: int, body: dict[str, Any]) -> None:
    resp.status = status
    resp.content_type = falcon.MEDIA_JSON
    resp.text = json.dumps(body)


def handle_hearth_error(
    req: falcon.Request, resp: falcon.Response, ex: HearthError, params: dict[str, Any]
) -> None:
    _write(resp, ex.http_status, error_body(ex.http_status, ex.heat_type, str(ex)))


# Falcon's own HTTPError/HTTPStatus keep their default handlers (more specific than
# Exception); their bodies come from serialize_http_error.
def handle_unexpected(
    req: falcon.Request, resp: falcon.Response, ex: Exception, params: dict[str, Any]
) -> None:
    LOG.exception("Unexpected error serving %s %s", req.method, req.path)
    _write(resp, 500, error_body(500, type(ex).__name__, "An unexpected error occurred."))


def serialize_http_error(
    req: falcon.Request, resp: falcon.Response, exception: falcon.HTTPError
) -> None:
    """Falcon's own errors (no route, wrong method, bad header) in Heat's body shape."""
    status = exception.status_code
    type_name = "HTTP" + HTTPStatus(status).phrase.replace(" ", "").replace("-", "")
    message = exception.description or EXPLANATIONS.get(status) or HTTPStatus(status).phrase
    resp.content_type = falcon.MEDIA_JSON
    resp.text = json.dumps(error_body(status, type_name, str(message)))
