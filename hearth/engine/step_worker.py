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
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.common import logs
from hearth.engine.core import EngineCore
from hearth.engine.records import ResourceRecord
from hearth.engine.resource_task import ResourceActionFailed
from hearth.engine.run_spec import RunSpec
from hearth.engine.scheduler import NotStarted
from hearth.engine.step_units import Ending, Outcome, StepTransport, StepUnit
from hearth.store import batch, step_claims
from hearth.store import resources as resource_store
from hearth.store import stacks as stack_store
from hearth.store.step_claims import Claim

if TYPE_CHECKING:
    from hearth.engine.action_run import ActionRun
    from hearth.engine.remote_steps import RemoteSteps

LOG = logging.getLogger(__name__)

# Copies of runs kept for their next steps; one unused this long is dropped.
KEEP_COPIES = 16
COPY_IDLE_SECONDS = 120.0


class StepWorker:
    """``take`` and ``stop`` are called from the bus's threads."""

    def __init__(self, core: EngineCore, transport: StepTransport) -> None:
        self.core = core
        self.transport = transport
        self._copies: OrderedDict[str, tuple[ActionRun, float]] = OrderedDict()
        self._copies_lock = threading.Lock()
        self._running: dict[tuple[str, int], asyncio.Task[None]] = {}
        self._why: dict[tuple[str, int], str] = {}

    def take(self, unit: StepUnit) -> None:
        """Claim ``unit`` and run it, unless another engine has it or it is no longer due."""
        if self.core.handing_over:
            return  # stopping: the coordinator takes it back when nobody claims it
        with self.core.db.session() as session:
            claim = step_claims.claim(
                session, resource_id=unit.resource_id, stack_id=unit.stack_id,
                traversal_id=unit.traversal_id, coordinator=unit.coordinator,
                engine_id=self.core.engine_id, action=unit.action,
                dead_after=self.core.settings.dead_after,
            )
            row = step_claims.rows(session, [unit.resource_id]).get(unit.resource_id)
        if claim is Claim.BUSY:
            return
        if claim is Claim.STALE:
            self.transport.report(unit, Outcome(Ending.NOT_STARTED))
            return
        if claim is Claim.FINISHED and row is not None:
            ending = Ending.FAILED if row.status == "FAILED" else Ending.DONE
            self.transport.report(unit, Outcome(ending, row.status_reason or ""))
            return
        remote = self.core.remote_steps
        if remote is not None and remote.claimed_here(unit):
            return
        self.core.workers.submit(self._run(unit))

    def stop(self, unit: StepUnit, why: str) -> None:
        def cancel() -> None:
            running = self._running.get(unit.key)
            if running is not None:
                self._why[unit.key] = why
                running.cancel()

        self.core.workers.call_soon(cancel)

    async def _run(self, unit: StepUnit) -> None:
        workers = self.core.workers
        me = asyncio.current_task()
        assert me is not None
        self._running[unit.key] = me
        logs.bind_stack(unit.stack_id)
        outcome = Outcome(Ending.LEFT, "not run", self.core.engine_id)
        copy: ActionRun | None = None
        try:
            copy = await workers.call(self._copy, unit)
            record = await workers.call(_refresh, copy, unit)
            task = copy.task_for(unit.node, record)
            task.resuming = True  # a step begun by an engine that died is carried on
            task.priority = unit.priority
            try:
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
        except ResourceActionFailed as exc:
            outcome = Outcome(Ending.FAILED, exc.reason, self.core.engine_id)
        except asyncio.CancelledError:
            outcome = Outcome(Ending.LEFT, "its engine stopped")
        except Exception:
            LOG.exception("Step %s of stack %s could not run here", unit.node, unit.stack_id)
            outcome = Outcome(Ending.LEFT, "its engine could not run it")
        finally:
            self._running.pop(unit.key, None)
            self._why.pop(unit.key, None)
            try:
                await asyncio.shield(workers.call(self._finish, unit, outcome))
            except Exception:
                LOG.warning("Could not report step %s of stack %s", unit.node, unit.stack_id,
                            exc_info=True)

    def _finish(self, unit: StepUnit, outcome: Outcome) -> None:
        with self.core.db.session() as session:
            step_claims.release(session, unit.resource_id, self.core.engine_id)
        self.transport.report(unit, outcome)

    def _copy(self, unit: StepUnit) -> ActionRun:
        """This engine's copy of the unit's run (made from what is stored, once)."""
        from hearth.engine.action_run import ActionRun

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


def _refresh(run: ActionRun, unit: StepUnit) -> ResourceRecord:
    """The unit's row and those of what it depends on, as stored now, in the copy."""
    kind, key = unit.node
    needs = sorted(run.bound.graph.get(key, set())) if kind == "u" and isinstance(key, str) else []
    with run.core.db.session(readonly=True) as session:
        row = resource_store.get(session, unit.resource_id)
        if row is None:
            raise NotStarted(str(unit.node))
        record = ResourceRecord.from_row(row)
        found = [resource_store.current_by_name(session, run.stack_id, name) for name in needs]
    run.rows[record.id] = record
    if kind == "u":
        run.current[record.name] = record
    for dep_row in found:
        if dep_row is None:
            continue
        dep = ResourceRecord.from_row(dep_row)
        run.rows[dep.id] = dep
        run.current[dep.name] = dep
        run.bound.nodes[dep.name] = dep.node_data()
    return record


class StepInbox:
    """What the bus delivers to this engine, as units (``hearth.rpc.step_bus``)."""

    def __init__(self, worker: StepWorker, remote: RemoteSteps) -> None:
        self._worker = worker
        self._remote = remote

    def take(self, unit: Mapping[str, Any]) -> None:
        self._worker.take(StepUnit.from_json(unit))

    def stop(self, unit: Mapping[str, Any], why: str) -> None:
        self._worker.stop(StepUnit.from_json(unit), why)

    def reported(self, unit: Mapping[str, Any], outcome: Mapping[str, Any]) -> None:
        self._remote.reported(StepUnit.from_json(unit), Outcome.from_json(outcome))
