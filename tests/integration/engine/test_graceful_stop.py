"""A graceful stop (SIGTERM) hands running resources over to the next engine unfailed.

They used to end CREATE_FAILED "CREATE aborted" and, taken over, start their waits again from
zero; now they stay IN_PROGRESS with what they stored, and the next engine polls on.
"""

from __future__ import annotations

import time
from typing import Any

from tests.integration.serve_process import ServeProcess, StackApi

WAIT = 6.0

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2021-04-16",
    "resources": {
        "waiter": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": "v", "action_wait_secs": {"create": WAIT}},
        },
        "group": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {
                "count": 2,
                "resource_def": {
                    "type": "OS::Heat::TestResource",
                    "properties": {"value": "m", "action_wait_secs": {"create": WAIT}},
                },
            },
        },
    },
}


def test_sigterm_leaves_resources_in_progress_for_the_next_engine(
    serve_process: ServeProcess,
) -> None:
    stacks = StackApi(serve_process.endpoint)
    stack_id = stacks.create("handed-over", TEMPLATE, {})
    waiting_since = time.monotonic()
    deadline = waiting_since + 30
    while not all(r["resource_status"] == "CREATE_IN_PROGRESS"
                  for r in stacks.resources("handed-over", stack_id, nested_depth=1)):
        assert time.monotonic() < deadline, "the members never started"
        time.sleep(0.05)
    time.sleep(1)

    assert serve_process.terminate() == 0
    serve_process.start()
    restarted_after = time.monotonic() - waiting_since

    assert stacks.wait(stack_id) == ("CREATE_COMPLETE", "Stack CREATE completed successfully")
    took = time.monotonic() - waiting_since
    # The waits went on from where they were: not started again after the restart.
    assert took < restarted_after + WAIT, (took, restarted_after)
    events = stacks.events("handed-over", stack_id, nested_depth=1)
    stack_names = {s["stack_name"] for s in stacks.all_stacks()}
    seen = [(e["resource_name"], e["resource_status"]) for e in events
            if e["resource_name"] not in stack_names]
    assert not [e for e in seen if e[1].endswith("FAILED")], seen
    # One IN_PROGRESS and one COMPLETE per resource, as without the stop.
    names = sorted({name for name, _ in seen})
    assert sorted(seen) == sorted(
        (name, status) for name in names for status in ("CREATE_IN_PROGRESS", "CREATE_COMPLETE")
    ), seen
