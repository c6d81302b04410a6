"""``TemplateSandbox.wait_ready``: a server's start waited for (the benchmark measures a create
on an engine whose template workers are up, not one still starting them)."""

from __future__ import annotations

from hearth.engine.requests import StackRequest
from hearth.engine.template_sandbox import Budgets, TemplateSandbox

TEMPLATE = {"heat_template_version": "2021-04-16",
            "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": "ok"}}}}


def test_ready_once_every_worker_process_has_started() -> None:
    # A memory budget no other test uses: a pool of its own, started here.
    sandbox = TemplateSandbox(2, Budgets(memory_mb=1537))
    sandbox.warm()
    assert sandbox.wait_ready(120.0) is True
    # The workers it waited for take requests.
    sandbox.check_template(StackRequest(TEMPLATE, {}, {}, {}, {}), outputs=True)
