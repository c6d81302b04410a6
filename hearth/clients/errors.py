"""What a failed call to another service means, in Heat's terms.

Heat's classification: an object that is not found when it is being deleted is already gone
(success); a conflict or an exceeded quota fails the resource with the service's own message;
connection failures and answers that say the request was not processed (429, 502, 503, 504)
are retried with backoff inside the call (keystoneauth does it: ``Cloud`` configures it).

``translate`` turns openstacksdk's exceptions into ``CloudError`` subclasses named as the
service clients Heat uses name them (``BadRequest``, ``Conflict``, ``NotFound``,
``OverQuota``...), so a status reason reads ``Conflict: resources.port: <service message>``.
"""

from __future__ import annotations

import json
from typing import Any

from hearth.common.errors import HearthError

# Answers that say the service did not act on the request: safe to send it again.
RETRIABLE_STATUS_CODES: tuple[int, ...] = (429, 502, 503, 504)


class CloudError(HearthError):
    """A call to another service failed; ``status`` is its HTTP status (None: no answer)."""

    http_status = 400
    heat_name = "CloudError"

    def __init__(self, message: str, status: int | None = None, service: str | None = None):
        super().__init__(message)
        self.status = status
        self.service = service

    @property
    def heat_type(self) -> str:
        return self.heat_name


class BadRequest(CloudError):
    heat_name = "BadRequest"


class Unauthorized(CloudError):
    heat_name = "Unauthorized"
    http_status = 401


class Forbidden(CloudError):
    heat_name = "Forbidden"
    http_status = 403


class NotFound(CloudError):
    heat_name = "NotFound"
    http_status = 404


class Conflict(CloudError):
    heat_name = "Conflict"
    http_status = 409


class OverQuota(CloudError):
    heat_name = "OverQuotaClient"
    http_status = 413


class ServiceUnavailable(CloudError):
    """No answer, or a 5xx after the retries."""

    heat_name = "ServiceUnavailable"
    http_status = 503


class ResourceInError(CloudError):
    """The object went to an error state of its own (a server ERROR, a volume error)."""

    heat_name = "ResourceInError"


class ResourceUnknownStatus(CloudError):
    heat_name = "ResourceUnknownStatus"


_BY_STATUS: dict[int, type[CloudError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: OverQuota,
}


def status_of(exc: BaseException) -> int | None:
    if isinstance(exc, CloudError):
        return exc.status
    code = getattr(exc, "status_code", None)
    if isinstance(code, int):
        return code
    response = getattr(exc, "response", None)
    code = getattr(response, "status_code", None)
    return code if isinstance(code, int) else None


def is_not_found(exc: BaseException) -> bool:
    """The object does not exist (openstacksdk's ResourceNotFound or a 404)."""
    try:
        from openstack import exceptions as sdk
    except ImportError:  # pragma: no cover - openstacksdk is a dependency
        sdk = None  # type: ignore[assignment]
    if sdk is not None and isinstance(exc, sdk.ResourceNotFound | sdk.NotFoundException):
        return True
    return isinstance(exc, NotFound) or status_of(exc) == 404


def is_conflict(exc: BaseException) -> bool:
    return status_of(exc) == 409


def is_over_quota(exc: BaseException) -> bool:
    status = status_of(exc)
    if status == 413:
        return True
    text = str(getattr(exc, "details", "") or exc).lower()
    return status in (403, 409) and "quota" in text


def service_message(exc: BaseException) -> str:
    """The service's own words: the ``message`` of its fault body when it sent one."""
    details = getattr(exc, "details", None)
    response = getattr(exc, "response", None)
    text = None
    if response is not None:
        try:
            text = _fault_message(response.json())
        except (ValueError, AttributeError):
            text = None
    if text:
        return text
    if details:
        return str(details)
    message = getattr(exc, "message", None)
    return str(message or exc)


def _fault_message(body: Any) -> str | None:
    """The message of the fault bodies OpenStack services answer with."""
    if not isinstance(body, dict):
        return None
    for key in ("NeutronError", "badRequest", "conflictingRequest", "itemNotFound",
                "forbidden", "overLimit", "computeFault", "error", "message"):
        inner = body.get(key)
        if isinstance(inner, dict):
            message = inner.get("message") or inner.get("title")
            if message:
                return str(message)
        elif isinstance(inner, str) and key == "message":
            return inner
    if len(body) == 1:
        inner = next(iter(body.values()))
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return None


def translate(exc: BaseException, service: str | None = None) -> BaseException:
    """``exc`` as a CloudError when it came from a service call; other exceptions unchanged."""
    if isinstance(exc, CloudError):
        return exc
    try:
        from keystoneauth1 import exceptions as ksa
        from openstack import exceptions as sdk
    except ImportError:  # pragma: no cover
        return exc
    if isinstance(exc, ksa.ConnectFailure | ksa.ConnectionError | ksa.RetriableConnectionFailure):
        where = f" {service}" if service else ""
        return ServiceUnavailable(f"Unable to reach the{where} service: {exc}", None, service)
    if isinstance(exc, ksa.EndpointNotFound | sdk.EndpointNotFound):
        return ServiceUnavailable(f"No endpoint in the service catalog: {exc}", None, service)
    if not isinstance(exc, sdk.HttpException | ksa.HttpError):
        return exc
    status = status_of(exc)
    message = service_message(exc)
    if is_over_quota(exc):
        return OverQuota(message, status, service)
    cls = _BY_STATUS.get(status or 0)
    if cls is None:
        cls = ServiceUnavailable if status is not None and status >= 500 else CloudError
    return cls(message, status, service)


def json_or_text(value: Any) -> str:
    """A short printable form of a value for messages."""
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return str(value)
