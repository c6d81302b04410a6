"""SIGKILLs of a real ``hearth serve`` during nested-stack actions change nothing in the end.

A stack owning a nested stack (a ResourceGroup whose members take a few seconds) is created,
updated and deleted while the server is killed at seeded random moments and started again;
each action must end as it ends on a server left alone: the parent carries its child's action
on (it used to restart it and end UPDATE_FAILED "ActionInProgress" or DELETE_FAILED "Stack
DELETE cancelled", the child then finishing on its own).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from tests.integration.serve_process import ServeProcess, StackApi

SEED = 18
KILLS = 20
# Seconds each member waits in every action: the window the kills land in.
MEMBER_WAIT = 2
ACTION_TIMEOUT = 120.0

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2021-04-16",
    "parameters": {"value": {"type": "string"}},
    "resources": {
        "group": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {
                "count": 3,
                "resource_def": {
                    "type": "OS::Heat::TestResource",
                    "properties": {
                        "value": {"get_param": "value"},
                        "action_wait_secs": {
                            "create": MEMBER_WAIT, "update": MEMBER_WAIT,
                            "delete": MEMBER_WAIT,
                        },
                    },
                },
            },
        },
    },
    "outputs": {"values": {"value": {"get_attr": ["group", "output"]}}},
}


def outcome(stacks: StackApi, name: str, stack_id: str) -> dict[str, Any]:
    """What a user sees once an action ended: the stack, its outputs, its child."""
    status, reason = stacks.wait(stack_id)
    children = [s["stack_status"] for s in stacks.all_stacks() if s.get("parent") == stack_id]
    seen: dict[str, Any] = {"status": status, "reason": reason, "children": children}
    if status != "DELETE_COMPLETE":
        shown = stacks.show(name, stack_id)
        seen["outputs"] = {o["output_key"]: o.get("output_value")
                           for o in shown.get("outputs") or []}
        seen["resources"] = sorted(
            (r["resource_name"], r["resource_status"]) for r in stacks.resources(name, stack_id)
        )
    return seen


def test_sigkills_during_nested_create_update_delete_end_as_without_them(
    serve_process: ServeProcess,
) -> None:
    stacks = StackApi(serve_process.endpoint, timeout=ACTION_TIMEOUT)
    expected = lifecycle(stacks, "undisturbed", lambda stack_id, action: None)

    rng = random.Random(SEED)
    kills: Counter[str] = Counter()

    def kill_during(stack_id: str, action: str) -> None:
        """Kill the server at one or two random moments of the action; a kill counts only
        when it struck while the action was still going on."""
        for _ in range(rng.choice((1, 2))):
            time.sleep(rng.uniform(0.05, MEMBER_WAIT + 0.5))
            if kills.total() >= KILLS or not stacks.status(stack_id)[0].endswith("IN_PROGRESS"):
                return
            serve_process.kill()
            kills[action] += 1
            serve_process.start()

    rounds = 0
    while kills.total() < KILLS:
        rounds += 1
        assert rounds <= 10, f"only {kills} of {KILLS} kills struck an action in progress"
        seen = lifecycle(stacks, f"killed-{rounds}", kill_during)
        assert seen == expected, serve_process.log()[-5000:]
    assert set(kills) == {"CREATE", "UPDATE", "DELETE"}, kills


def lifecycle(
    stacks: StackApi, name: str, disturb: Callable[[str, str], None]
) -> list[dict[str, Any]]:
    """Create, update and delete a stack, ``disturb(stack_id, action)`` during each action;
    what each action ended in."""
    stack_id = stacks.create(name, TEMPLATE, {"value": "first"})
    disturb(stack_id, "CREATE")
    seen = [outcome(stacks, name, stack_id)]
    stacks.update(name, stack_id, TEMPLATE, {"value": "second"})
    disturb(stack_id, "UPDATE")
    seen.append(outcome(stacks, name, stack_id))
    stacks.delete(name, stack_id)
    disturb(stack_id, "DELETE")
    seen.append(outcome(stacks, name, stack_id))
    return seen
