"""Heat's action_retry_limit: an object that goes to ERROR while it is created is deleted
and created again, up to the limit; past it the resource fails with the service's reason."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hearth.engine.engine import Engine
from tests.integration.engine.conftest import CTX, engine_with_plugin, resources, wait_state

PLUGIN = '''
from hearth.clients.errors import ResourceInError
from hearth.resources.base import Resource

LOG = []
FAILURES = {"left": 0}


class Flaky(Resource):
    """Its object goes to ERROR the first FAILURES["left"] times it is made."""

    def handle_create(self):
        LOG.append("create")
        self.resource_id_set(f"obj-{len(LOG)}")
        return self.resource_id

    def check_create_complete(self, cookie):
        if FAILURES["left"] > 0:
            FAILURES["left"] -= 1
            raise ResourceInError(f"Went to status ERROR due to \\"{cookie} failed\\"")
        return True

    def handle_delete(self):
        LOG.append(f"delete {self.resource_id}")
        return self.resource_id

    def check_delete_complete(self, cookie):
        return True


def resource_mapping():
    return {"Test::Flaky": Flaky}
'''

TEMPLATE = {"heat_template_version": "2018-08-31",
            "resources": {"flaky": {"type": "Test::Flaky"}}}


def flaky_engine(factory: Callable[..., Engine], tmp_path: Path, limit: int) -> tuple[Engine, Any]:
    return engine_with_plugin(factory, tmp_path, "flaky_types", PLUGIN,
                              action_retry_limit=limit)


@pytest.mark.parametrize("failures", [0, 2])
def test_errors_within_the_limit_end_in_a_working_object(
    engine_factory: Callable[..., Engine], tmp_path: Path, failures: int
) -> None:
    engine, module = flaky_engine(engine_factory, tmp_path, limit=2)
    module.FAILURES["left"] = failures
    identity = engine.create_stack(CTX, "flaky", TEMPLATE, {})
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    made = [f"obj-{n}" for n in range(1, 2 * failures + 2, 2)]
    expected = []
    for number, obj in enumerate(made):
        expected.append("create")
        if number < failures:
            expected.append(f"delete {obj}")
    assert module.LOG == expected
    # The stack keeps the last object, the one that worked.
    assert resources(engine, identity)["flaky"].physical_resource_id == made[-1]


def test_past_the_limit_the_resource_fails_with_the_service_reason(
    engine_factory: Callable[..., Engine], tmp_path: Path
) -> None:
    engine, module = flaky_engine(engine_factory, tmp_path, limit=1)
    module.FAILURES["left"] = 5
    identity = engine.create_stack(CTX, "flaky", TEMPLATE, {})
    action, status, reason = wait_state(engine, identity)
    assert (action, status) == ("CREATE", "FAILED")
    assert "ResourceInError: resources.flaky: Went to status ERROR" in reason
    assert module.LOG == ["create", "delete obj-1", "create"]
    # The failed object is still recorded, so a delete of the stack finds it.
    assert resources(engine, identity)["flaky"].physical_resource_id == "obj-3"
