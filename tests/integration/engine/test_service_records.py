"""Service records: an engine that died is listed as down until its host's next engine has
taken over its stacks, then forgotten; a dead engine of another host stays listed, down."""

from __future__ import annotations

import time
from collections.abc import Callable

from hearth.common.context import RequestContext
from hearth.engine.engine import Engine

ADMIN = RequestContext.admin()


def engines_listed(engine: Engine) -> dict[str, str]:
    return {s["engine_id"]: s["status"] for s in engine.list_services(ADMIN)}


def test_a_dead_engine_of_this_host_is_forgotten_once_its_successor_starts(
    engine_factory: Callable[..., Engine],
) -> None:
    dead_here = engine_factory(host="host-one")
    dead_elsewhere = engine_factory(host="host-two")
    gone_ids = (dead_here.core.engine_id, dead_elsewhere.core.engine_id)
    for engine in (dead_here, dead_elsewhere):
        engine.stop(graceful=False)  # as a kill: the records stay
    time.sleep(0.5 * 3 + 0.5)  # dead after three missed heartbeats
    successor = engine_factory(host="host-one")
    listed = engines_listed(successor)
    assert gone_ids[0] not in listed
    assert listed[gone_ids[1]] == "down"
    assert listed[successor.core.engine_id] == "up"
