"""The orchestration API (Heat's v1) of a region of the catalog, for OS::Heat::Stack's remote
stacks: the calls Heat's RemoteStack makes through heatclient, over the stack's credentials.

The endpoint is the catalog's ``orchestration`` service of the region asked for (the
``[clients_heat]`` interface); errors read as heatclient's (``ERROR: <the API's message>``,
named ``HTTPBadRequest``, ``HTTPNotFound``...). The endpoint may be this very server: while a
call waits, its API has a thread more (``hearth.common.blocking``), and every call has a time
limit besides.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.clients.errors import RETRIABLE_STATUS_CODES, CloudError, translate
from hearth.common.blocking import waiting_on_api

if TYPE_CHECKING:
    from hearth.clients.cloud import Cloud

ORCHESTRATION = "orchestration"
# Seconds to connect, and to wait for an answer (a validation or create of a big template
# takes a while; an answer that never comes must not hold a worker for ever).
TIMEOUT = (10.0, 300.0)

# heatclient's exception names, by HTTP status.
_HEATCLIENT_NAMES = {
    400: "HTTPBadRequest", 401: "HTTPUnauthorized", 403: "HTTPForbidden",
    404: "HTTPNotFound", 405: "HTTPMethodNotAllowed", 409: "HTTPConflict",
    413: "HTTPOverLimit", 415: "HTTPUnsupported", 500: "HTTPInternalServerError",
    501: "HTTPNotImplemented", 502: "HTTPBadGateway", 503: "HTTPServiceUnavailable",
}


class EndpointNotFound(CloudError):
    """The region has no orchestration endpoint in the catalog (Heat's words)."""

    heat_name = "EndpointNotFound"

    def __init__(self, interface: str, region: str | None) -> None:
        super().__init__(
            f"{interface} endpoint for {ORCHESTRATION} service in {region} region not found",
            None, ORCHESTRATION,
        )


class HeatAPIError(CloudError):
    """An error answer of the orchestration API, worded as heatclient words it."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"ERROR: {message}", status, ORCHESTRATION)
        self.heat_name = _HEATCLIENT_NAMES.get(status, "HTTPException")
        if status == 404:
            self.http_status = 404


def is_not_found(exc: BaseException) -> bool:
    return isinstance(exc, HeatAPIError) and exc.status == 404


def _message(body: bytes, reason: str) -> str:
    """The ``error.message`` of Heat's fault body, else the body or the HTTP reason."""
    try:
        data = json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace").strip() or reason
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    explanation = data.get("explanation") if isinstance(data, dict) else None
    return str(explanation or reason)


class RemoteOrchestration:
    """One region's orchestration API as the ``cloud``'s credentials see it.

    ``verify`` overrides the ``[clients_heat]`` TLS verification (a stack's own ``insecure``
    or ``ca_cert``).
    """

    def __init__(self, cloud: Cloud, region: str | None,
                 verify: bool | str | None = None) -> None:
        self.cloud = cloud
        self.region = region
        options = cloud.settings.service(ORCHESTRATION)
        self.interface = options.interface
        tls = options.tls
        self.verify: bool | str = (
            verify if verify is not None else (False if tls.insecure else tls.ca_file or True)
        )
        self.cert: Any = (tls.cert_file, tls.key_file) if tls.cert_file and tls.key_file \
            else tls.cert_file
        self._url: str | None = None

    # --- where -----------------------------------------------------------------------------

    def endpoint(self) -> str:
        """The API's URL (``.../v1/<project>``); EndpointNotFound when the region has none."""
        if self._url is None:
            from keystoneauth1 import exceptions as ksa

            try:
                url = self.cloud.session.get_endpoint(
                    service_type=ORCHESTRATION, interface=self.interface,
                    region_name=self.region,
                )
            except ksa.EndpointNotFound:
                url = None
            except ksa.ClientException as exc:
                raise translate(exc, "identity") from exc
            if not url:
                raise EndpointNotFound(self.interface, self.region)
            self._url = str(url).rstrip("/")
        return self._url

    # --- calls -------------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        """One call; the decoded JSON answer (None when empty). Errors as HeatAPIError."""
        from keystoneauth1 import exceptions as ksa

        kwargs: dict[str, Any] = {
            "raise_exc": False, "timeout": TIMEOUT, "verify": self.verify,
            "headers": {"Accept": "application/json"},
            "connect_retries": self.cloud.settings.api_retries,
            "status_code_retries": self.cloud.settings.api_retries,
            "retriable_status_codes": list(RETRIABLE_STATUS_CODES),
        }
        if self.cert:
            kwargs["cert"] = self.cert
        if body is not None:
            kwargs["json"] = dict(body)
        if (method == "POST" and path != "/validate") or method == "PUT":
            # Not sent again after a timeout: the first one may have been acted on.
            kwargs["connect_retries"] = 0
        try:
            with waiting_on_api():
                response = self.cloud.session.request(self.endpoint() + path, method, **kwargs)
        except ksa.ClientException as exc:
            raise translate(exc, ORCHESTRATION) from exc
        if response.status_code >= 400:
            raise HeatAPIError(response.status_code,
                               _message(response.content, str(response.reason)))
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            return None

    def validate(self, body: Mapping[str, Any]) -> Any:
        return self.request("POST", "/validate", body)

    def create(self, body: Mapping[str, Any]) -> str:
        """Create a stack; its id."""
        answer = self.request("POST", "/stacks", body)
        return str(answer["stack"]["id"])

    def get(self, stack_id: str) -> dict[str, Any]:
        """The stack as ``GET /stacks/<id>`` shows it (the lookup by id is redirected)."""
        answer = self.request("GET", f"/stacks/{stack_id}")
        return dict(answer["stack"])

    def update(self, stack_id: str, body: Mapping[str, Any]) -> None:
        self.request("PUT", f"/stacks/{stack_id}", body)

    def delete(self, stack_id: str) -> None:
        self.request("DELETE", f"/stacks/{stack_id}")

    def action(self, stack_id: str, action: str) -> None:
        """``suspend``, ``resume``, ``check``, ``cancel_update``..."""
        self.request("POST", f"/stacks/{stack_id}/actions", {action: None})
