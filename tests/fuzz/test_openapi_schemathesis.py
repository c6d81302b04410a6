"""Schemathesis over Hearth's own OpenAPI document: request shapes for every route.

Path fields, query strings, headers and bodies are drawn from the document (which the route
table builds, so a new route is fuzzed as soon as it is served), in both of schemathesis's
modes: requests that fit the document and requests that break it. Every answer goes through
the harness's checks.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import schemathesis
from hypothesis import settings
from schemathesis.core import NotSet

from hearth.api.openapi import build_document
from hearth.api.routes import ROUTES
from tests.fuzz.conftest import cases
from tests.fuzz.harness import Harness

OPERATIONS = sum(len(route.methods) for route in ROUTES) + 3  # and /, /versions, /openapi.json
# A quarter of the run's cases, spread over the operations.
PER_OPERATION = max(2, cases(0.25) // OPERATIONS)

# schemathesis generates in both modes (fitting the document and breaking it) by default
schema = schemathesis.openapi.from_dict(build_document(ROUTES))


@schema.parametrize()
@settings(settings.get_profile("hearth-fuzz"), max_examples=PER_OPERATION)
def test_every_route(harness: Harness, case: schemathesis.Case[Any]) -> None:
    headers = {str(k): str(v) for k, v in (case.headers or {}).items()}
    query = urlencode(case.query, doseq=True) if case.query else None
    with harness.case("schemathesis"):
        body = None if isinstance(case.body, NotSet) else case.body
        harness.request(case.method, case.formatted_path, body=body, query=query,
                        headers=headers)
