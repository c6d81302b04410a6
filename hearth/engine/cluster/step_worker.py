"""Steps other engines' runs offer: claimed, run here on a copy of the run loaded from the
database, and reported back (see ``remote_steps`` for the coordinator's side).

The copy is an ``ActionRun`` of the same traversal whose writes are fenced by the
coordinator's lock: if another engine takes the stack over, this copy's next write fails and
the step stops. One copy per traversal serves every step of it this engine takes; before
each step, the rows it reads (its own and those it depends on) are read again.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Coroutine
from functools import partial
from typing import TYPE_CHECKING, Any

from hearth.common import logs
from hearth.engine.cluster.step_units import (
    Ending,
    Outcome,
    Reported,
    StepTransport,
    StepUnit,
    reported_from_json,
    units_from_json,
)
from hearth.engine.core import EngineCore
from hearth.engine.running.records import ResourceRecord
from hearth.engine.running.run_spec import RunSpec
from hearth.engine.running.scheduler import NotStarted
from hearth.engine.running.step_outcomes import ResourceActionFailed
from hearth.engine.running.traversal import ResourceNode
from hearth.store import batch, step_claims
from hearth.store import resources as resource_store
from hearth.store import stacks as stack_store
from hearth.store.outage import is_database_outage
from hearth.store.step_claims import Claim

if TYPE_CHECKING:
    from hearth.engine.cluster.remote_steps import RemoteSteps
    from hearth.engine.running.action_run import ActionRun

LOG = logging.getLogger(__name__)

# Copies of runs kept for their next steps; one unused this long is dropped.
KEEP_COPIES = 16
COPY_IDLE_SECONDS = 120.0


class StepWorker:
    """``take`` and ``stop`` are called from the bus's threads."""

    def __init__(self, core: EngineCore, remote: RemoteSteps) -> None:
        self.core = core
        # This engine's own runs' side: units it offered run there, and it counts the steps
        # running here.
        self.remote = remote
        self.transport: StepTransport = remote.transport
        self._copies: OrderedDict[str, tuple[ActionRun, float]] = OrderedDict()
        self._copies_lock = threading.Lock()
        self._running: dict[tuple[str, int], asyncio.Task[None]] = {}
        self._why: dict[tuple[str, int], str] = {}
        self._reports: dict[str, list[Reported]] = {}
        # Sends and reads in flight (held: the loop keeps only weak references).
        self._tasks: set[asyncio.Future[None]] = set()
        core.run_copies = self.copies_of

    def copies_of(self, stack_id: str) -> list[ActionRun]:
        """This engine's copies of ``stack_id``'s runs (one per traversal it serves)."""
        with self._copies_lock:
            return [run for run, _ in self._copies.values() if run.stack_id == stack_id]

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def take(self, units: list[StepUnit]) -> None:
        """Claim ``units`` and run those taken; those another engine has, or that are no
        longer due, are left (the latter reported)."""
        if self.core.handing_over:
            return  # stopping: the coordinator takes them back when nobody claims them
        groups: dict[tuple[str, str, str, str], list[StepUnit]] = {}
        for unit in units:
            key = (unit.stack_id, unit.traversal_id, unit.coordinator, unit.action)
            groups.setdefault(key, []).append(unit)
        for group in groups.values():
            self._take_group(group)

    def _take_group(self, units: list[StepUnit]) -> None:
        first = units[0]
        by_id = {unit.resource_id: unit for unit in units}
        with self.core.db.session() as session:
            claims, taken = step_claims.claim_many(
                session, resource_ids=list(by_id), stack_id=first.stack_id,
                traversal_id=first.traversal_id, coordinator=first.coordinator,
                engine_id=self.core.engine_id, action=first.action,
                dead_after=self.core.settings.dead_after,
            )
            records = {rid: ResourceRecord.from_row(row) for rid, row in taken.items()}
            finished = step_claims.rows(
                session, [rid for rid, c in claims.items() if c is Claim.FINISHED])
        ended: list[Reported] = []
        for rid, claim in claims.items():
            unit = by_id[rid]
            if claim is Claim.STALE:
                ended.append((unit, Outcome(Ending.NOT_STARTED)))
            elif claim is Claim.FINISHED and rid in finished:
                row = finished[rid]
                ending = Ending.FAILED if row.status == "FAILED" else Ending.DONE
                ended.append((unit, Outcome(ending, row.status_reason or "")))
        if ended:
            self.transport.report(first.coordinator, ended)
        for rid, record in records.items():
            self.core.workers.call_soon(partial(self._start, by_id[rid], record))

    def _start(self, unit: StepUnit, record: ResourceRecord) -> None:
        """Run a claimed unit (loop thread): in its run when this engine offered it, on a
        copy of the run otherwise."""
        if unit.coordinator == self.core.engine_id:
            if not self.remote.claimed_here(unit):
                # Its run here stopped waiting for it (cancelled, handed over): not run.
                self._background(self.remote.release(unit.resource_id))
            return
        self._background(self._run(unit, record))

    def stop(self, unit: StepUnit, why: str) -> None:
        def cancel() -> None:
            running = self._running.get(unit.key)
            if running is not None:
                self._why[unit.key] = why
                running.cancel()

        self.core.workers.call_soon(cancel)

    async def _run(self, unit: StepUnit, record: ResourceRecord) -> None:
        workers = self.core.workers
        me = asyncio.current_task()
        assert me is not None
        self._running[unit.key] = me
        logs.bind_stack(unit.stack_id)
        outcome: Outcome | None = Outcome(Ending.LEFT, "not run", self.core.engine_id)
        copy: ActionRun | None = None
        try:
            copy = await workers.relay(self._prepare, unit, record)
            task = copy.task_for(unit.node, record)
            task.resuming = True  # a step begun by an engine that died is carried on
            task.priority = unit.priority
            task.claim = batch.ClaimHeld(record.id, self.core.engine_id)
            try:
                with self.remote.counted():
                    await copy.execute(unit.node, task)
                outcome = Outcome(Ending.DONE, engine_id=self.core.engine_id)
            except asyncio.CancelledError:
                why = self._why.get(unit.key)
                if why is None or self.core.handing_over:
                    raise
                # Stopped by its coordinator: the abort's writes are done once they are.
                await asyncio.gather(*list(copy._closings), return_exceptions=True)
                outcome = Outcome(Ending.FAILED, why, self.core.engine_id)
        except NotStarted:
            outcome = Outcome(Ending.NOT_STARTED)
        except batch.LockLost:
            outcome = Outcome(Ending.LOCK_LOST)
        except batch.ClaimLost:
            # Taken from this engine while it seemed dead (a long pause): whoever took it
            # runs it and tells the coordinator; this engine writes and says nothing.
            LOG.warning("Step %s of stack %s was taken over by another engine: it stops here",
                        unit.node, unit.stack_id)
            outcome = None
        except ResourceActionFailed as exc:
            outcome = Outcome(Ending.FAILED, exc.reason, self.core.engine_id)
        except asyncio.CancelledError:
            outcome = Outcome(Ending.LEFT, "its engine stopped")
        except Exception as exc:
            if is_database_outage(exc):
                # Its coordinator takes it back, carried on from what is stored.
                outcome = Outcome(Ending.LEFT, "the database went away")
            else:
                LOG.exception("Step %s of stack %s could not run here", unit.node,
                              unit.stack_id)
                outcome = Outcome(Ending.LEFT, "its engine could not run it")
        finally:
            if copy is not None and copy.database_lost:
                self._drop_copy(unit.traversal_id, copy)
            self._running.pop(unit.key, None)
            self._why.pop(unit.key, None)
            if outcome is not None:
                if outcome.ending not in (Ending.DONE, Ending.FAILED):
                    # (A step that ended wrote its claim's end with its state:
                    # ResourceTask._state.)
                    await self.remote.release(unit.resource_id)
                self._report(unit, outcome)

    def _report(self, unit: StepUnit, outcome: Outcome) -> None:
        """Reports of one turn of the loop leave together, one message per coordinator."""
        if not self._reports:
            asyncio.get_running_loop().call_soon(self._send_reports)
        self._reports.setdefault(unit.coordinator, []).append((unit, outcome))

    def _send_reports(self) -> None:
        reports, self._reports = self._reports, {}
        for coordinator, ended in reports.items():
            self._background(self._send(coordinator, ended))

    async def _send(self, coordinator: str, ended: list[Reported]) -> None:
        try:
            await self.core.workers.relay(self.transport.report, coordinator, ended)
        except Exception:  # the coordinator reads the rows in time (remote_steps._check)
            LOG.warning("Could not report %d steps to %s", len(ended), coordinator,
                        exc_info=True)

    def _drop_copy(self, traversal_id: str, copy: ActionRun) -> None:
        """A copy stopped for good (the database went away under it) serves no next step."""
        with self._copies_lock:
            found = self._copies.get(traversal_id)
            if found is not None and found[0] is copy:
                del self._copies[traversal_id]

    def _prepare(self, unit: StepUnit, record: ResourceRecord) -> ActionRun:
        copy = self._copy(unit)
        _refresh(copy, unit, record)
        return copy

    def _copy(self, unit: StepUnit) -> ActionRun:
        """This engine's copy of the unit's run (made from what is stored, once)."""
        from hearth.engine.running.action_run import ActionRun

        now = time.monotonic()
        with self._copies_lock:
            for key, (_, used) in list(self._copies.items()):
                if now - used > COPY_IDLE_SECONDS:
                    del self._copies[key]
            found = self._copies.get(unit.traversal_id)
            if found is not None and found[0].lock_owner == unit.coordinator:
                self._copies[unit.traversal_id] = (found[0], now)
                self._copies.move_to_end(unit.traversal_id)
                return found[0]
        with self.core.db.session(readonly=True) as session:
            row = stack_store.get_stack(session, unit.stack_id)
            deps = row.current_deps if row is not None else None
            spec_data = deps.get("spec") if isinstance(deps, dict) else None
            if row is None or row.current_traversal != unit.traversal_id or not spec_data:
                raise NotStarted(str(unit.node))
        copy = ActionRun(self.core, unit.stack_id, RunSpec.from_json(spec_data),
                         traversal_id=unit.traversal_id, resuming=True,
                         lock_owner=unit.coordinator)
        with self._copies_lock:
            self._copies[unit.traversal_id] = (copy, now)
            while len(self._copies) > KEEP_COPIES:
                self._copies.popitem(last=False)
        return copy


def _refresh(run: ActionRun, unit: StepUnit, record: ResourceRecord) -> None:
    """The unit's row as claimed, and those of what it depends on as stored now, in the
    copy."""
    node = unit.node
    needs = sorted(run.bound.graph.get(node.name, set())) if isinstance(node, ResourceNode) else []
    found = []
    if needs:
        with run.core.db.session(readonly=True) as session:
            found = [ResourceRecord.from_row(row) for row in
                     resource_store.current_by_names(session, run.stack_id, needs)]
    run.rows[record.id] = record
    if isinstance(node, ResourceNode):
        run.current[record.name] = record
    for dep in found:
        run.rows[dep.id] = dep
        run.current[dep.name] = dep
        run.bound.nodes[dep.name] = dep.node_data()


class StepInbox:
    """What the bus delivers to this engine, as units (``hearth.rpc.step_bus``)."""

    def __init__(self, worker: StepWorker, remote: RemoteSteps) -> None:
        self._worker = worker
        self._remote = remote

    def take(self, units: list[dict[str, Any]]) -> None:
        self._worker.take(units_from_json(units))

    def stop(self, unit: dict[str, Any], why: str) -> None:
        self._worker.stop(StepUnit.from_json(unit), why)

    def reported(self, ended: list[dict[str, Any]]) -> None:
        self._remote.reported(reported_from_json(ended))
