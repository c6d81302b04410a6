"""Steps a run offers to other engines (``remote_steps`` / ``step_worker``), between two
engines of one process joined by an in-process wire instead of the bus."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from hearth.engine.cluster.remote_steps import RemoteSteps
from hearth.engine.cluster.step_units import WireTransport
from hearth.engine.cluster.step_worker import StepInbox, StepWorker
from hearth.engine.engine import Engine
from hearth.resources.builtin import testing_resource
from hearth.store import batch
from hearth.store import resources as resource_store
from tests.integration.engine.conftest import CTX, resources, wait_state


class InProcessWire:
    """``StepWire`` between engines of this process: offers go to the takers named (the
    bus gives each to whichever engine asks first), reports to their coordinator."""

    def __init__(self) -> None:
        self.inboxes: dict[str, StepInbox] = {}
        self.takers: list[str] = []
        self.offered: list[tuple[str, int]] = []

    def offer(self, units: list[dict[str, Any]]) -> None:
        self.offered += [(u["stack_id"], u["resource_id"]) for u in units]
        self.inboxes[self.takers[0]].take(units)

    def stop(self, engine_id: str, unit: dict[str, Any], why: str) -> None:
        self.inboxes[engine_id].stop(unit, why)

    def report(self, coordinator: str, ended: list[dict[str, Any]]) -> None:
        self.inboxes[coordinator].reported(ended)


def join(wire: InProcessWire, engine: Engine) -> None:
    """``engine`` offers its waiting steps over ``wire`` and takes those offered to it."""
    remote = RemoteSteps(engine.core, WireTransport(wire))
    engine.core.remote_steps = remote
    wire.inboxes[engine.core.engine_id] = StepInbox(StepWorker(engine.core, remote), remote)


def coordinator_and_taker(
    engine_factory: Callable[..., Engine], keeps: int
) -> tuple[Engine, Engine, InProcessWire]:
    """A coordinator that runs ``keeps`` steps itself and offers the rest over the wire, and
    the engine that takes them."""
    coordinator = engine_factory(spread_steps=True, spread_steps_after=keeps)
    taker = engine_factory(spread_steps=True)
    wire = InProcessWire()
    join(wire, coordinator)
    join(wire, taker)
    wire.takers.append(taker.core.engine_id)
    return coordinator, taker, wire


CHAIN = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "r0": {"type": "OS::Heat::TestResource", "properties": {"value": "first"}},
        "r1": {"type": "OS::Heat::TestResource",
               "properties": {"value": {"get_attr": ["r0", "output"]}}},
    },
    "outputs": {"last": {"value": {"get_attr": ["r1", "output"]}}},
}


def test_a_step_offered_to_another_engine_reads_what_it_needs_as_finished(
    engine_factory: Callable[..., Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The coordinator runs r0 itself (it keeps one step for itself) and offers r1, which
    # becomes ready while r0 still counts as running here. Here a dependant starts as soon
    # as r0's final writes are queued; the engine taking r1 reads r0 from the database, so
    # the offer must wait for those writes: with the journal's commits slowed down, an
    # offer sent at once had r1 read r0 IN_PROGRESS, without its attributes (r1's value
    # None, the output TestResource's default).
    coordinator, _, wire = coordinator_and_taker(engine_factory, keeps=1)

    journal = coordinator.core.journal
    commit = journal._transaction

    def slow_commit(writes: Sequence[batch.Write]) -> None:
        time.sleep(0.3)
        commit(writes)

    monkeypatch.setattr(journal, "_transaction", slow_commit)
    ident = coordinator.create_stack(CTX, "offered", CHAIN)
    assert wait_state(coordinator, ident)[:2] == ("CREATE", "COMPLETE")

    rows = resources(coordinator, ident)
    assert wire.offered == [(ident["stack_id"], rows["r1"].id)]  # r1 ran on the taker
    shown = coordinator.show_stack(CTX, ident, resolve_outputs=True)[0]
    assert {o["output_key"]: o.get("output_value") for o in shown["outputs"]} == {
        "last": "first"}


def test_a_step_taken_back_from_a_paused_engine_is_not_written_over_when_it_wakes(
    engine_factory: Callable[..., Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The taker's handler stalls (a long pause) while its claim passes to an engine that
    # then died; the coordinator takes the step back and completes it, while the stack's
    # action goes on (``slow``). When the stalled handler wakes, what it writes of its
    # resource's data is refused: the data is that of the run that completed.
    coordinator, taker, wire = coordinator_and_taker(engine_factory, keeps=0)

    original = testing_resource.TestResource.handle_create
    paused = threading.Event()
    attempted = threading.Event()

    def paused_first(plugin: testing_resource.TestResource) -> Any:
        if paused.is_set() or plugin.name != "r":
            return original(plugin)  # ``slow``, or r run again by the coordinator
        with taker.core.db.session() as session:
            row = resource_store.by_uuid(session, plugin.context.resource_uuid)
            assert row is not None and row.engine_id == taker.core.engine_id
            resource_store.set_fields(session, row.id, engine_id="an-engine-that-died")
        paused.set()
        deadline = time.monotonic() + 30
        while resources(coordinator, ident)["r"].status != "COMPLETE":
            assert time.monotonic() < deadline, "the step was not taken back"
            time.sleep(0.1)
        try:
            plugin.data_set("woke", "late")
        finally:
            attempted.set()
        return original(plugin)

    monkeypatch.setattr(testing_resource.TestResource, "handle_create", paused_first)
    ident: dict[str, str] = {}
    ident.update(coordinator.create_stack(CTX, "paused", {
        "heat_template_version": "2018-08-31",
        "resources": {
            "r": {"type": "OS::Heat::TestResource", "properties": {"value": "v"}},
            "slow": {"type": "OS::Heat::TestResource",
                     "properties": {"value": "s", "wait_secs": 4}},
        },
    }))
    assert wait_state(coordinator, ident)[:2] == ("CREATE", "COMPLETE")
    row = resources(coordinator, ident)["r"]
    assert (ident["stack_id"], row.id) in wire.offered
    assert attempted.wait(30)
    with coordinator.core.db.session() as session:
        data = resource_store.data_all(session, row.id, coordinator.core.encryptor)
    assert data == {"value": "v"}
    assert (row.action, row.status, row.engine_id) == ("CREATE", "COMPLETE", None)
