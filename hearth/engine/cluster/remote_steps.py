"""A run's steps offered to every engine of a cluster, and waited for by the run's engine.

The engine holding a stack's lock (the coordinator) runs the graph: when a step of a type
that waits on other services may start, it offers the step as a ``StepUnit`` on the bus.
Whichever engine claims the resource row first (``hearth.store.step_claims``) runs it,
possibly the coordinator itself, and reports how it ended; what depends on it then starts.

The database is the truth, messages only say "look": every ``heartbeat_interval`` the
coordinator reads the rows of the steps it waits for. A step finished whose report was lost
is seen there; a step nobody claimed in time (its message lost with a broker restart) or
whose engine died or stopped is taken back and run here, carried on from its stored cookie
as a takeover is.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hearth.engine.cluster.step_units import Ending, Outcome, Reported, StepTransport, StepUnit
from hearth.engine.core import EngineCore
from hearth.engine.running import traversal
from hearth.engine.running.records import ResourceRecord
from hearth.engine.running.resource_task import ResourceTask
from hearth.engine.running.scheduler import NotStarted
from hearth.engine.running.step_outcomes import ResourceActionFailed
from hearth.store import batch, step_claims
from hearth.store import locks as lock_store
from hearth.store import resources as resource_store
from hearth.store.outage import is_database_outage
from hearth.store.step_claims import Claim

if TYPE_CHECKING:
    from hearth.engine.running.action_run import ActionRun

LOG = logging.getLogger(__name__)

# Heartbeats a step may wait unclaimed before its coordinator runs it itself.
UNCLAIMED_BEATS = 2
# Units per offer message: enough to spare the bus and the database most of the per-message
# work, few enough that a burst is shared among the engines.
OFFER_BATCH = 8
# Seconds a stopped run waits for another engine to write a stopped step's end.
STOP_WAIT = 30.0


@dataclass
class _Waiter:
    unit: StepUnit
    future: asyncio.Future[Outcome]
    offered_at: float = field(default_factory=time.monotonic)


class RemoteSteps:
    """The coordinator's side; used from the engine's loop unless said otherwise. Its
    database reads and bus sends run in the engine's relay threads, never queued behind the
    steps themselves nor the run's own database work."""

    def __init__(self, core: EngineCore, transport: StepTransport) -> None:
        self.core = core
        self.transport = transport
        self._waiting: dict[tuple[str, int], _Waiter] = {}
        self._checker: asyncio.Task[None] | None = None
        # Live engines, as last read (offers are shared among them).
        self._engines = 2
        self._engines_read_at = -float("inf")
        # Waiting steps running in this engine now (its own runs' and other engines').
        self.running_here = 0
        # Units made ready in one turn of the loop leave together, a few per message.
        self._outbox: list[StepUnit] = []
        # Sends and reads in flight (held: the loop keeps only weak references).
        self._tasks: set[asyncio.Future[None]] = set()
        # Rows to read again, read together in one turn.
        self._reloads: dict[int, list[asyncio.Future[ResourceRecord]]] = {}

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def busy(self) -> bool:
        """Whether this engine's next ready step goes to the other engines: it already runs
        as many as it keeps for itself (``spread_steps_after``)."""
        settings = self.core.settings
        keep = settings.wait_threads if settings.spread_after < 0 else settings.spread_after
        return self.running_here >= keep

    async def others_live(self) -> bool:
        """Whether another engine is alive to take offers (read at most once a beat): an
        engine alone runs everything itself rather than offering steps to itself."""
        return await self._live_engines() > 1

    async def release(self, resource_id: int) -> None:
        """This engine no longer runs the step; returns once the first try is over. While
        the database is away the release is tried again every beat, in the background and
        also when the caller is cancelled: a claim left behind by a live engine would keep
        the step from every engine."""
        tried = asyncio.Event()
        self._background(self._release_until_done(resource_id, tried))
        await tried.wait()

    async def _release_until_done(self, resource_id: int, tried: asyncio.Event) -> None:
        try:
            while True:
                try:
                    await self.core.workers.relay(
                        _release, self.core, resource_id, self.core.engine_id)
                    return
                except Exception as exc:
                    if not is_database_outage(exc):
                        LOG.warning("Could not release the claim of resource %s",
                                    resource_id, exc_info=True)
                        return
                tried.set()
                if self.core.handing_over:
                    return  # this engine's record goes: its claims are free to take
                await asyncio.sleep(self.interval)
        finally:
            tried.set()

    @contextlib.contextmanager
    def counted(self) -> Iterator[None]:
        self.running_here += 1
        try:
            yield
        finally:
            self.running_here -= 1

    @property
    def interval(self) -> float:
        return self.core.settings.heartbeat_interval

    # --- the run's side ------------------------------------------------------------------

    async def run(self, run: ActionRun, node: traversal.Node, task: ResourceTask) -> None:
        """Have ``task`` run by some engine; return or raise as ``run.execute`` would."""
        # The engine that takes it reads what it depends on from the database, while here a
        # dependant starts as soon as the writes of what it needs are queued: those writes
        # must be committed before anyone else can take the step.
        await self.core.journal.flushed()
        unit = StepUnit(
            stack_id=run.stack_id, traversal_id=run.traversal_id, node=node,
            resource_id=task.record.id, action=task.action, coordinator=run.lock_owner,
            priority=task.priority,
        )
        outcome = await self._offered(run, unit, task)
        while outcome.ending in (Ending.CLAIMED_HERE, Ending.LEFT):
            if outcome.ending is Ending.LEFT:
                claim = await self.core.workers.relay(self._claim_here, unit)
                if claim is Claim.BUSY:  # another engine took it meanwhile
                    outcome = await self._offered(run, unit, task, offer=False)
                    continue
                if claim is not Claim.TAKEN:
                    outcome = await self.core.workers.relay(self._claim_outcome, unit, claim)
                    break
            await self._run_here(run, node, task, taken_back=outcome.ending is Ending.LEFT)
            return
        await self._settle(run, node, task, outcome)

    async def _offered(
        self, run: ActionRun, unit: StepUnit, task: ResourceTask, *, offer: bool = True
    ) -> Outcome:
        loop = asyncio.get_running_loop()
        waiter = _Waiter(unit, loop.create_future())
        self._waiting[unit.key] = waiter
        if self._checker is None or self._checker.done():
            self._checker = asyncio.ensure_future(self._check())
        try:
            if offer:
                if not self._outbox:
                    loop.call_soon(self._send_offers)
                self._outbox.append(unit)
            return await waiter.future
        except asyncio.CancelledError:
            if not (self.core.handing_over or run.left_off):
                # Whoever runs it carries on for the engine that takes the stack over.
                await self._stopped(unit, run.why_cancelled(task))
            raise
        finally:
            if self._waiting.get(unit.key) is waiter:
                del self._waiting[unit.key]

    def _send_offers(self) -> None:
        units, self._outbox = self._outbox, []
        self._background(self._offer_all(units))

    async def _offer_all(self, units: list[StepUnit]) -> None:
        """In at least as many messages as there are engines (the bus hands each message to
        one engine), at most ``OFFER_BATCH`` units each."""
        engines = await self._live_engines()
        size = max(1, min(OFFER_BATCH, -(-len(units) // engines)))
        for start in range(0, len(units), size):
            self._background(self._offer(units[start:start + size]))

    async def _live_engines(self) -> int:
        now = time.monotonic()
        if now - self._engines_read_at > self.interval:
            self._engines_read_at = now
            try:
                self._engines = max(1, await self.core.workers.relay(_count_live, self.core))
            except Exception:  # the database is briefly unreachable: the last count holds
                LOG.debug("Counting live engines failed", exc_info=True)
        return self._engines

    async def _offer(self, units: list[StepUnit]) -> None:
        try:
            await self.core.workers.relay(self.transport.offer, units)
        except Exception:  # the bus is down: unclaimed, they are taken back in time
            LOG.warning("Could not offer %d steps", len(units), exc_info=True)

    async def _reloaded(self, run: ActionRun, resource_id: int) -> ResourceRecord:
        """The row as the engine that ran the step left it, in the run's memory."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[ResourceRecord] = loop.create_future()
        if not self._reloads:
            loop.call_soon(lambda: self._background(self._reload_all()))
        self._reloads.setdefault(resource_id, []).append(future)
        record = await future
        run.rows[record.id] = record
        return record

    async def _reload_all(self) -> None:
        wanted, self._reloads = self._reloads, {}
        try:
            found = await self.core.workers.relay(_records, self.core, list(wanted))
        except Exception as exc:
            for futures in wanted.values():
                for future in futures:
                    if not future.done():
                        future.set_exception(exc)
            return
        for rid, futures in wanted.items():
            record = found.get(rid)
            for future in futures:
                if future.done():
                    continue
                if record is None:
                    future.set_exception(NotStarted(str(rid)))
                else:
                    future.set_result(record)

    async def _run_here(self, run: ActionRun, node: traversal.Node, task: ResourceTask,
                        *, taken_back: bool) -> None:
        """Run the claimed step in this engine, under its claim."""
        try:
            if taken_back:
                # What another engine began is carried on, from the row as it left it.
                task.record = await self._reloaded(run, task.record.id)
                task.resuming = True
            with self.counted():
                await run.execute(node, task)
        except ResourceActionFailed:
            raise  # its FAILED state ended the claim
        except BaseException:
            await self.release(task.record.id)
            raise

    async def _settle(self, run: ActionRun, node: traversal.Node, task: ResourceTask,
                      outcome: Outcome) -> None:
        """What the run does with a step another engine ended."""
        if outcome.ending is Ending.NOT_STARTED:
            raise NotStarted(task.name)
        if outcome.ending is Ending.LOCK_LOST:
            run._lose_lock()
            raise batch.LockLost(run.stack_id, None)
        task.record = await self._reloaded(run, task.record.id)
        if outcome.ending is Ending.FAILED:
            raise ResourceActionFailed(task.name, task.action, outcome.reason)
        run.settle_and_release(node, task)

    async def _stopped(self, unit: StepUnit, why: str) -> None:
        """The run stops this step at once (a timeout, a delete): nobody may begin it from
        now on, and whoever runs it stops it; wait until its end is written."""
        with contextlib.suppress(Exception):
            claim = await self.core.workers.relay(self._claim_here, unit)
            if claim is not Claim.BUSY:
                return  # kept claimed here: a late offer finds it taken
            rows = await self.core.workers.relay(_rows, self.core, [unit.resource_id])
            runner = rows[unit.resource_id].engine_id if unit.resource_id in rows else None
            if runner is None or runner == self.core.engine_id:
                return  # nobody runs it (this engine's worker leaves what its run dropped)
            loop = asyncio.get_running_loop()
            waiter = _Waiter(unit, loop.create_future())
            self._waiting[unit.key] = waiter
            try:
                await self.core.workers.relay(self.transport.stop, runner, unit, why)
                await asyncio.shield(asyncio.wait_for(waiter.future, STOP_WAIT))
            finally:
                if self._waiting.get(unit.key) is waiter:
                    del self._waiting[unit.key]

    def _claim_here(self, unit: StepUnit) -> Claim:
        with self.core.db.session() as session:
            return step_claims.claim(
                session, resource_id=unit.resource_id, stack_id=unit.stack_id,
                traversal_id=unit.traversal_id, coordinator=unit.coordinator,
                engine_id=self.core.engine_id, action=unit.action,
                dead_after=self.core.settings.dead_after,
            )

    def _claim_outcome(self, unit: StepUnit, claim: Claim) -> Outcome:
        """The end of a step that could not be claimed back: finished, or no longer this
        run's to do."""
        if claim is Claim.FINISHED:
            rows = _rows(self.core, [unit.resource_id])
            return _finished(rows[unit.resource_id])
        with self.core.db.session(readonly=True) as session:
            holder = lock_store.holder(session, unit.stack_id)
        if holder != unit.coordinator:
            return Outcome(Ending.LOCK_LOST)
        return Outcome(Ending.NOT_STARTED)

    # --- what other engines tell (any thread) ------------------------------------------------

    def reported(self, ended: list[Reported]) -> None:
        def resolve() -> None:
            for unit, outcome in ended:
                self._resolve(unit.key, outcome)

        self.core.workers.call_soon(resolve)

    def claimed_here(self, unit: StepUnit) -> bool:
        """Whether ``unit``, offered by this engine and claimed by its step worker, is one
        its run still waits for: it then runs in that run, with no copy of the stack loaded
        (loop thread only)."""
        waiter = self._waiting.get(unit.key)
        if waiter is None or waiter.future.done():
            return False
        waiter.future.set_result(Outcome(Ending.CLAIMED_HERE))
        return True

    def _resolve(self, key: tuple[str, int], outcome: Outcome) -> None:
        waiter = self._waiting.get(key)
        if waiter is not None and not waiter.future.done():
            waiter.future.set_result(outcome)

    # --- the database's word ----------------------------------------------------------------

    async def _check(self) -> None:
        """Every interval, the rows of the steps waited for: finished ones end, steps nobody
        runs (unclaimed too long, or their engine dead) are taken back."""
        while self._waiting:
            await asyncio.sleep(self.interval)
            waiting = list(self._waiting.values())
            if not waiting:
                return
            try:
                rows, dead = await self.core.workers.relay(self._look, waiting)
            except Exception:  # the database is briefly unreachable: look again next time
                LOG.debug("Checking offered steps failed", exc_info=True)
                continue
            now = time.monotonic()
            for waiter in waiting:
                if waiter.future.done():
                    continue
                unit = waiter.unit
                row = rows.get(unit.resource_id)
                if row is None:
                    waiter.future.set_result(Outcome(Ending.NOT_STARTED))
                elif row.finished_in(unit.traversal_id, unit.action):
                    waiter.future.set_result(_finished(row))
                elif row.engine_id is not None and row.engine_id in dead:
                    waiter.future.set_result(Outcome(Ending.LEFT, "its engine died"))
                elif (row.engine_id is None
                      and now - waiter.offered_at > UNCLAIMED_BEATS * self.interval):
                    waiter.future.set_result(Outcome(Ending.LEFT, "not claimed in time"))

    def _look(self, waiting: list[_Waiter]) -> tuple[dict[int, step_claims.StepRow], set[str]]:
        with self.core.db.session(readonly=True) as session:
            rows = step_claims.rows(session, [w.unit.resource_id for w in waiting])
            engines = {r.engine_id for r in rows.values() if r.engine_id is not None}
            dead = step_claims.dead(session, engines, self.core.settings.dead_after)
        return rows, dead


def _finished(row: step_claims.StepRow) -> Outcome:
    if row.status == "FAILED":
        return Outcome(Ending.FAILED, row.status_reason or "")
    return Outcome(Ending.DONE)


def _rows(core: EngineCore, ids: list[int]) -> dict[int, step_claims.StepRow]:
    with core.db.session(readonly=True) as session:
        return step_claims.rows(session, ids)


def _release(core: EngineCore, resource_id: int, engine_id: str) -> None:
    with core.db.session() as session:
        step_claims.release(session, resource_id, engine_id)


def _count_live(core: EngineCore) -> int:
    with core.db.session(readonly=True) as session:
        return step_claims.live_engine_count(session, core.settings.dead_after)


def _records(core: EngineCore, ids: list[int]) -> dict[int, ResourceRecord]:
    with core.db.session(readonly=True) as session:
        return {row.id: ResourceRecord.from_row(row)
                for row in resource_store.get_many(session, ids)}

