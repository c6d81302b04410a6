"""How failed calls to other services are classified and worded (hearth.clients.errors)."""

from __future__ import annotations

import json

import pytest
import requests
from keystoneauth1 import exceptions as ksa
from openstack import exceptions as sdk

from hearth.clients import errors
from hearth.resources.exceptions import failure_reason


def answer(status: int, body: object) -> requests.Response:
    response = requests.Response()
    response.status_code = status
    response._content = json.dumps(body).encode()
    response.headers["Content-Type"] = "application/json"
    response.url = "http://127.0.0.1:9696/v2.0/ports"
    return response


def raised(status: int, body: object) -> BaseException:
    try:
        sdk.raise_from_response(answer(status, body))
    except Exception as exc:
        return exc
    raise AssertionError("no exception")


@pytest.mark.parametrize(
    ("status", "body", "kind", "message"),
    [
        (400, {"NeutronError": {"type": "HTTPBadRequest", "message": "Invalid input"}},
         "BadRequest", "Invalid input"),
        (404, {"itemNotFound": {"code": 404, "message": "Flavor x could not be found."}},
         "NotFound", "Flavor x could not be found."),
        (409, {"NeutronError": {"type": "IpAddressInUse", "message": "IP in use"}},
         "Conflict", "IP in use"),
        (409, {"NeutronError": {"type": "OverQuota",
                                "message": "Quota exceeded for resources: ['port']."}},
         "OverQuotaClient", "Quota exceeded for resources: ['port']."),
        (413, {"overLimit": {"code": 413, "message": "Maximum number of ports exceeded"}},
         "OverQuotaClient", "Maximum number of ports exceeded"),
        (403, {"forbidden": {"code": 403, "message": "Policy does not allow"}},
         "Forbidden", "Policy does not allow"),
        (500, {"computeFault": {"code": 500, "message": "Unexpected API Error."}},
         "ServiceUnavailable", "Unexpected API Error."),
    ],
)
def test_service_errors_keep_the_service_words(
    status: int, body: object, kind: str, message: str
) -> None:
    translated = errors.translate(raised(status, body), "network")
    assert isinstance(translated, errors.CloudError)
    assert translated.heat_type == kind
    assert str(translated) == message
    assert translated.status == status
    # What a user reads in the resource's status reason.
    assert failure_reason(translated, "port") == f"{kind}: resources.port: {message}"


def test_not_found_is_recognised_in_every_form() -> None:
    assert errors.is_not_found(raised(404, {"itemNotFound": {"message": "gone"}}))
    assert errors.is_not_found(sdk.ResourceNotFound("gone"))
    assert errors.is_not_found(errors.NotFound("gone", 404))
    assert not errors.is_not_found(raised(409, {"conflictingRequest": {"message": "busy"}}))


def test_no_answer_is_service_unavailable() -> None:
    translated = errors.translate(ksa.ConnectFailure("refused"), "compute")
    assert isinstance(translated, errors.ServiceUnavailable)
    assert "Unable to reach the compute service" in str(translated)


def test_other_exceptions_pass_through() -> None:
    exc = ValueError("a bug of ours")
    assert errors.translate(exc) is exc


def test_a_cloud_call_raises_what_the_user_reads() -> None:
    from hearth.clients.cloud import Cloud
    from hearth.clients.settings import ClientSettings

    def session() -> None:
        raise AssertionError("no session is needed for this call")

    cloud = Cloud(ClientSettings(), session, description="test")  # type: ignore[arg-type]

    def create_port() -> None:
        sdk.raise_from_response(answer(409, {"NeutronError": {"message": "IP in use"}}))

    with pytest.raises(errors.Conflict, match="^IP in use$"):
        cloud.call(create_port, service="network")
    assert cloud.call(lambda x: x + 1, 41) == 42
