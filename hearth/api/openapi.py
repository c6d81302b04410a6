"""The OpenAPI 3 document of API v1, built from the route table by apispec."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import falcon
from apispec import APISpec

from hearth.api.console.routes import OPERATIONS as CONSOLE_OPERATIONS

if TYPE_CHECKING:
    from hearth.api.routes import Route

FIELD = re.compile(r"{(\w+)}")

# The status a successful call answers with, where it is not 200.
SUCCESS = {
    ("StackCollection", "POST"): "201",
    ("StackItem", "PUT"): "202",
    ("StackItem", "PATCH"): "202",
    ("StackItem", "DELETE"): "204",
    ("StackSnapshot", "DELETE"): "204",
    ("StackSnapshotRestore", "POST"): "202",
    ("SoftwareConfig", "DELETE"): "204",
    ("SoftwareDeployment", "DELETE"): "204",
}
ERROR = {"$ref": "#/components/schemas/Error"}
ERROR_SCHEMA = {
    "type": "object",
    "required": ["code", "title", "explanation", "error"],
    "properties": {
        "code": {"type": "integer"},
        "title": {"type": "string"},
        "explanation": {"type": "string"},
        "error": {
            "type": "object",
            "properties": {
                "type": {"type": "string"},
                "message": {"type": "string"},
                "traceback": {"type": "string", "nullable": True},
            },
        },
    },
}


def _operation(route: Route, method: str, summary: str) -> dict[str, Any]:
    name = route.handler.__name__
    if name.startswith("StackLookup"):
        ok = "302"
    else:
        ok = SUCCESS.get((name, method), "200")
    responses: dict[str, Any] = {ok: {"description": "Success"}}
    for code in ("400", "401", "403", "404", "409"):
        responses[code] = {
            "description": "Error",
            "content": {"application/json": {"schema": ERROR}},
        }
    op: dict[str, Any] = {
        "summary": summary,
        "operationId": f"{name}.{method.lower()}"
        + (f".{route.options['path']}" if "path" in route.options else ""),
        "tags": [route.path.split("/")[3] if route.path.count("/") >= 3 else "versions"],
        "responses": responses,
    }
    if method in ("POST", "PUT", "PATCH"):
        op["requestBody"] = {
            "required": False,
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    return op


def build_document(routes: Sequence[Route]) -> dict[str, Any]:
    spec = APISpec(
        title="Hearth Orchestration API",
        version="1.0",
        openapi_version="3.0.3",
        info={"description": "OpenStack Orchestration (Heat) API v1, as served by Hearth."},
    )
    spec.components.schema("Error", ERROR_SCHEMA)
    for path, op_id in (("/", "versions"), ("/versions", "versions.list")):
        responses: dict[str, Any] = {"300": {"description": "The versions document"}}
        if path == "/":
            responses["302"] = {"description": "To the web console, for a browser that "
                                "asks for HTML"}
        spec.path(path=path, operations={"get": {
            "summary": "API versions", "operationId": op_id, "responses": responses,
        }})
    for path, method, op_id, summary, answers in CONSOLE_OPERATIONS:
        spec.path(path=path, operations={method: {
            "summary": summary, "operationId": op_id, "tags": ["console"],
            "responses": {code: {"description": text} for code, text in answers.items()},
        }})
    spec.path(path="/openapi.json", operations={"get": {
        "summary": "This OpenAPI document", "operationId": "openapi",
        "responses": {"200": {"description": "The OpenAPI 3 document"}},
    }})
    seen: set[str] = set()
    for route in routes:
        fields = FIELD.findall(route.path)
        params = [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            for name in fields
        ]
        operations = {
            m.lower(): _operation(route, m, summary) for m, summary in route.methods.items()
        }
        for op in operations.values():
            # one handler on several paths (events of a stack, of a resource): ids are unique
            if op["operationId"] in seen:
                op["operationId"] += f".{fields[-1]}"
            seen.add(op["operationId"])
        spec.path(path=route.path, parameters=params, operations=operations)
    return spec.to_dict()


class OpenApiDocument:
    """``GET /openapi.json``."""

    def __init__(self, routes: Sequence[Route]) -> None:
        self.document = build_document(routes)

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self.document
