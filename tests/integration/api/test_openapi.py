"""GET /openapi.json: a valid OpenAPI 3 document that lists exactly what the server serves."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import falcon
import pytest
import requests
from falcon.routing import map_http_methods
from openapi_spec_validator import validate

from hearth.api.app import build_falcon_app
from hearth.api.routes import ROUTES
from hearth.cli.serve import RunningServer
from tests.integration.api.conftest import NOAUTH_PROJECT, server_conf

UUID0 = "00000000-0000-0000-0000-000000000000"
# Values for the path fields: a stack (and so everything in it) that does not exist.
FIELDS = {
    "tenant_id": NOAUTH_PROJECT,
    "stack_name": "no-such-stack",
    "stack_id": UUID0,
    "resource_name": "r",
    "event_id": UUID0,
    "snapshot_id": UUID0,
    "output_key": "o",
    "type_name": "OS::Heat::None",
    "template_version": "heat_template_version.2018-08-31",
    "config_id": UUID0,
    "deployment_id": UUID0,
    "server_id": UUID0,
    "resource_uuid": UUID0,
    "secret": "not-the-secret",
}
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@pytest.fixture(scope="module")
def document(noauth_server: RunningServer) -> dict[str, Any]:
    resp = requests.get(f"{noauth_server.url}/openapi.json", timeout=10)
    assert resp.status_code == 200
    assert resp.headers["Content-Type"].startswith("application/json")
    doc: dict[str, Any] = resp.json()
    return doc


def documented(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {(path, method.upper()) for path, item in document["paths"].items()
            for method in item if method in HTTP_METHODS}


def served_routes(app: falcon.App[Any, Any]) -> Iterator[tuple[str, str]]:
    """(URI template, method) for every responder the app's router holds."""

    def walk(nodes: list[Any]) -> Iterator[tuple[str, str]]:
        for node in nodes:
            if node.resource is not None:
                for method in map_http_methods(node.resource):
                    yield node.uri_template, method
            yield from walk(node.children)

    yield from walk(app._router._roots)


def test_is_a_valid_openapi_3_document(document: dict[str, Any]) -> None:
    validate(document)
    assert document["openapi"].startswith("3.")
    assert document["info"]["title"]
    error = document["components"]["schemas"]["Error"]
    assert set(error["required"]) == {"code", "title", "explanation", "error"}


def test_every_route_of_the_table_is_documented(document: dict[str, Any]) -> None:
    docs = documented(document)
    for route in ROUTES:
        for method in route.methods:
            assert (route.path, method) in docs, (route.path, method)
        item = document["paths"][route.path]
        params = {p["name"] for p in item.get("parameters", [])}
        assert params == set(re.findall(r"{(\w+)}", route.path)), route.path


def test_every_route_the_app_serves_is_documented(
    document: dict[str, Any], noauth_server: RunningServer, tmp_path: Path
) -> None:
    app = build_falcon_app(noauth_server.engine, server_conf(tmp_path))
    served = set(served_routes(app))
    assert len(served) >= sum(len(r.methods) for r in ROUTES)
    missing = served - documented(document)
    assert not missing, sorted(missing)
    # and nothing is documented that the app does not serve
    extra = documented(document) - served
    assert not extra, sorted(extra)


def test_every_documented_operation_is_served(
    document: dict[str, Any], noauth_server: RunningServer
) -> None:
    """No documented path+method meets the router's 404 or 405; a handler's 404 is fine."""
    for path, method in sorted(documented(document)):
        url = noauth_server.url + re.sub(r"{(\w+)}", lambda m: FIELDS[m.group(1)], path)
        resp = requests.request(method, url, allow_redirects=False, timeout=10)
        where = f"{method} {path} -> {resp.status_code} {resp.text[:200]}"
        assert resp.status_code != 405, where
        assert resp.status_code < 500, where
        if resp.status_code == 404:
            error = resp.json()["error"]
            # the router's own "no such route" answer
            assert not (error["type"] == "HTTPNotFound"
                        and error["message"] == "The resource could not be found."), where
        documented_codes = set(document["paths"][path][method.lower()]["responses"])
        assert str(resp.status_code) in documented_codes, where
