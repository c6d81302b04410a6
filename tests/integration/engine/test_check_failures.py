"""A stack check goes on past failed resources, as Heat 27's does: every resource whose
requirements passed their check is checked, those that require a failed one are not, and the
stack's reason names each failure."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hearth.engine.engine import Engine
from tests.integration.engine.conftest import CTX, engine_with_plugin, resources, wait_state

PLUGIN = '''
import time

from hearth.resources.base import Resource
from hearth.resources.schema import PropertySchema


class Checked(Resource):
    """Its check fails when made ``broken``; a ``slow`` one takes a moment to check."""

    properties_schema = {
        "broken": PropertySchema(PropertySchema.BOOLEAN, default=False),
        "slow": PropertySchema(PropertySchema.BOOLEAN, default=False),
    }

    def handle_create(self):
        self.resource_id_set(self.physical_resource_name())

    def handle_check(self):
        if self.properties["slow"]:
            time.sleep(0.5)
        if self.properties["broken"]:
            raise Exception(f"{self.resource_id} is broken")


def resource_mapping():
    return {"Test::Checked": Checked}
'''


def checked(**props: object) -> dict[str, object]:
    return {"type": "Test::Checked", "properties": props}


TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "slow": checked(slow=True),
        "broken": checked(broken=True),
        "after_broken": {**checked(), "depends_on": ["broken"]},
        "after_slow": {**checked(), "depends_on": ["slow"]},
        "also_broken": {**checked(broken=True), "depends_on": ["after_slow"]},
    },
}


def test_a_check_goes_on_past_failures_and_names_each(
    engine_factory: Callable[..., Engine], tmp_path: Path
) -> None:
    engine, _module = engine_with_plugin(engine_factory, tmp_path, "checked_types", PLUGIN)
    identity = engine.create_stack(CTX, "checked", TEMPLATE, {})
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")

    engine.stack_check(CTX, identity)
    action, status, reason = wait_state(engine, identity)
    assert (action, status) == ("CHECK", "FAILED")
    rows = resources(engine, identity)
    # "broken" failed while "slow" was still being checked: what follows "slow" was checked
    # all the same, and "also_broken" failed in its turn.
    states = {name: (row.action, row.status) for name, row in rows.items()}
    assert states == {
        "slow": ("CHECK", "COMPLETE"),
        "broken": ("CHECK", "FAILED"),
        "after_slow": ("CHECK", "COMPLETE"),
        "also_broken": ("CHECK", "FAILED"),
        # Requires a resource that failed its check: not checked.
        "after_broken": ("CREATE", "COMPLETE"),
    }
    broken = rows["broken"].physical_resource_id
    also = rows["also_broken"].physical_resource_id
    assert reason == (
        f"Resource CHECK failed: broken: Resource CHECK failed: Exception: resources.broken: "
        f"{broken} is broken; also_broken: Resource CHECK failed: Exception: "
        f"resources.also_broken: {also} is broken"
    )
