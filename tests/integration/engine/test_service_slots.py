"""Steps of one service's types take that service's slots: a slow service cannot take every
worker thread, so the types of other services (and Heat's own) go on meanwhile."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hearth.engine.engine import Engine
from tests.integration.engine.conftest import CTX, engine_with_plugin, resources, wait_state

DONE = ("CREATE", "COMPLETE")

PLUGIN = '''
import threading
import time

from hearth.resources.base import Resource

STATE = {"running": 0, "most": 0, "lock": threading.Lock(), "release": threading.Event()}


class Slow(Resource):
    service_type = "slowsvc"

    def handle_create(self):
        with STATE["lock"]:
            STATE["running"] += 1
            STATE["most"] = max(STATE["most"], STATE["running"])
        try:
            STATE["release"].wait(30)
        finally:
            with STATE["lock"]:
                STATE["running"] -= 1


class Quick(Resource):
    service_type = "quicksvc"

    def handle_create(self):
        time.sleep(0.01)


def resource_mapping():
    return {"Test::Slow": Slow, "Test::Quick": Quick}
'''


def test_a_slow_service_holds_only_its_slots(
    engine_factory: Callable[..., Engine], tmp_path: Path
) -> None:
    # 4 threads for waiting steps; the slow service may use 2 of them.
    engine, module = engine_with_plugin(engine_factory, tmp_path, "slow_types", PLUGIN,
                                        engine_wait_threads=4)
    engine.core.settings.clients = type(engine.core.settings.clients)(service_concurrency=2)
    # These made-up services are in no catalog: only the slots are under test.
    engine.core.clouds.check_available = lambda *args: None  # type: ignore[method-assign]
    state: dict[str, Any] = module.STATE
    slow = {f"slow{i}": {"type": "Test::Slow"} for i in range(6)}
    quick = {f"quick{i}": {"type": "Test::Quick"} for i in range(6)}
    tmpl = {"heat_template_version": "2018-08-31", "resources": {**slow, **quick}}
    identity = engine.create_stack(CTX, "slots", tmpl, {})
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            rows = resources(engine, identity)
            if all((rows[n].action, rows[n].status) == DONE for n in quick):
                break
            time.sleep(0.05)
        rows = resources(engine, identity)
        # Every quick resource finished while the slow ones still hold their slots.
        assert {(rows[n].action, rows[n].status) for n in quick} == {DONE}
        assert DONE not in {(rows[n].action, rows[n].status) for n in slow}
        assert state["running"] == 2
    finally:
        state["release"].set()
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    assert state["most"] == 2


WAITING = '''
import threading
import time

from hearth.resources.base import Resource
from hearth.resources.builtin.resource_group import ResourceGroup

STATE = {"running": 0, "most": 0, "lock": threading.Lock()}


class Waits(Resource):
    def handle_create(self):
        with STATE["lock"]:
            STATE["running"] += 1
            STATE["most"] = max(STATE["most"], STATE["running"])
        time.sleep(0.2)  # as long as a call to a cloud API
        with STATE["lock"]:
            STATE["running"] -= 1


def resource_mapping():
    return {"Test::Waits": Waits}
'''


def test_steps_that_wait_elsewhere_are_not_bound_by_the_worker_threads(
    engine_factory: Callable[..., Engine], tmp_path: Path
) -> None:
    """A type whose handlers block (a cloud call, a sleep) runs in the pool of waiting
    threads, many at a time, not 2 at a time as the 2 worker threads would run them."""
    engine, module = engine_with_plugin(engine_factory, tmp_path, "waiting_types", WAITING,
                                        engine_worker_threads=2, engine_wait_threads=20)
    state: dict[str, Any] = module.STATE
    tmpl = {"heat_template_version": "2018-08-31",
            "resources": {f"w{i}": {"type": "Test::Waits"} for i in range(40)}}
    identity = engine.create_stack(CTX, "waits", tmpl, {})
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    assert 2 < state["most"] <= 20
