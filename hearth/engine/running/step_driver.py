"""Driving one resource's steps to their end: the step body an ``ActionRun`` runs for its own
graph and for another engine's run (``step_worker``), with its thread, service slot and
priority, its polling, hooks, commits and last writes."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from hearth.clients.requests_in_flight import step_priority
from hearth.engine import states
from hearth.engine.resource_labels import resource_label
from hearth.engine.running import traversal
from hearth.engine.running.records import ResourceRecord
from hearth.engine.running.resource_task import ResourceTask
from hearth.engine.running.run_control import RunControl
from hearth.engine.running.run_spec import RunSpec
from hearth.engine.running.scheduler import GraphRunner, NotStarted, StopReason
from hearth.engine.running.step_outcomes import ResourceActionFailed, Step
from hearth.engine.stack_builder import BoundStack
from hearth.store import batch
from hearth.store import resources as resource_store
from hearth.store.outage import is_database_outage

# Polling of check_*_complete: quick at first, then backing off.
POLL_FIRST = 0.02
POLL_MAX = 1.0
HOOK_POLL_MAX = 2.0

T = TypeVar("T")


class StepDriver(RunControl):
    """Part of ``ActionRun``: how it runs one task's steps."""

    spec: RunSpec
    bound: BoundStack
    rows: dict[int, ResourceRecord]
    current: dict[str, ResourceRecord]
    runner: GraphRunner[traversal.Node] | None
    # Every commit of the run's steps holds it: a run whose stack another engine took over
    # writes nothing more.
    fence: batch.LockHeld
    _closings: set[asyncio.Future[Any]]

    async def execute(self, node: traversal.Node, task: ResourceTask) -> None:
        """Run ``task``'s steps here to the end: its writes committed, what depends on it
        released (by the graph runner, when this run has one)."""
        workers = self.core.workers
        step = Step()
        # Made before the step starts: a child stack its handler starts may end (and wake
        # this step's poll) before the first poll. Shared by the rows of one name (an old
        # row's delete beside its replacement's steps): a wake-up costs the other one poll.
        # Loop-run types start no child stacks: theirs is made if they ever poll.
        wake = None if task.inline else self._poll_event(task.name)
        try:
            if task.may_carry and self.bound.graph.get(task.name):
                # Its handler may run before any commit of its own (which would come after
                # them in the journal): what it depends on wrote is on disk first.
                await self.core.journal.flushed()
            started = await self._step(task, self._start, task)
            step = started[0]  # what an abort is told (its cookie)
            step = await self._drive(task, started, wake)
            releases = isinstance(node, traversal.ResourceNode) or self.spec.action == states.DELETE
            if step.hook is None and releases:
                # What depends on it may start now: the journal commits its writes after
                # these, and any handler of theirs waits for that.
                self.settle_and_release(node, task)
            await self._commit(task)
            if step.hook is not None:
                await self._wait_hook(task, step.hook)
        except (NotStarted, batch.ClaimLost):
            raise  # (a lost claim: another engine runs the step now, and writes its end)
        except batch.LockLost:
            self._lose_lock()
            raise
        except asyncio.CancelledError:
            if self.core.handing_over or self.left_off:
                # The engine stops, or another one took over: the resource stays
                # IN_PROGRESS for the next one.
                raise
            why = task.cancel_why or self.why_cancelled(task)
            with contextlib.suppress(Exception):
                await self._closing(self._abort(task, step.cookie, why))
            raise
        except Exception as exc:
            if is_database_outage(exc) or self.database_lost:
                # Not the resource's failure: the run is carried on once the database is back.
                self._lose_database(exc)
                raise
            reason = await self._closing(self._fail(task, exc))
            raise ResourceActionFailed(task.name, task.action, reason) from exc
        self._settle(node, task)
        if isinstance(node, traversal.RowNode) and self.spec.action != states.DELETE:
            await workers.call(self._forget_row, task.record)

    def why_cancelled(self, task: ResourceTask) -> str:
        timed_out = self.runner is not None and self.runner.result.stop is StopReason.TIMEOUT
        if self.stop.message:
            return self.stop.message
        if timed_out:
            # Heat's words: the step as a task of the resource, "Task create from
            # TestResource "r" Stack "s" [id] Timed out".
            cls = self.bound.stored_class(task.record.resource_type, task.name)
            # Heat names the task when it begins: a create's has no physical id yet.
            physical = None if task.action == states.CREATE else task.record.physical_id
            label = resource_label(cls, task.name, physical, self.stack_name, self.stack_id)
            return f"Task {task.action.lower()} from {label} Timed out"
        return self.abort_why or "cancelled"

    def settle_and_release(self, node: traversal.Node, task: ResourceTask) -> None:
        self._settle(node, task)
        if self.runner is not None:
            self.runner.release(node)

    def _settle(self, node: traversal.Node, task: ResourceTask) -> None:
        """What dependants read of a finished resource: its record and its values."""
        if isinstance(node, traversal.ResourceNode):
            self.current[task.name] = task.record
            self.bound.nodes[task.name] = task.node_data()

    async def _call(self, task: ResourceTask, fn: Callable[..., T], *args: Any) -> T:
        """One step of ``task``: on the loop or in a worker (see ``_runs_inline``); a step of
        a type of another service waits for one of that service's slots first, on the loop,
        so a slow service holds at most its share of the worker threads."""
        if task.inline:
            return fn(*args)
        workers = self.core.workers
        run = workers.wait if task.waits else workers.call
        if task.service is None:
            return await run(fn, *args)
        async with self.core.service_slots(task.service).held(task.priority):
            return await run(self._prioritised, task.priority, fn, *args)

    @staticmethod
    def _prioritised(priority: int, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` whose requests to its service wait as the step's place on the
        critical path says (``hearth.clients.requests_in_flight``)."""
        with step_priority(priority):
            return fn(*args)

    async def _commit(self, task: ResourceTask) -> None:
        writes = task.take_writes()
        if writes:
            await self.core.journal.commit([*writes, *task.fences()])

    async def _abort(self, task: ResourceTask, cookie: Any, why: str) -> None:
        await self._call(task, task.abort, cookie, why)
        await self._commit(task)

    async def _fail(self, task: ResourceTask, exc: Exception) -> str:
        reason = await self._call(task, task.fail, exc)
        await self._commit(task)  # with what the step that raised had written
        return reason

    async def _closing(self, work: Coroutine[Any, Any, T]) -> T:
        """The last writes of a resource, shielded: a cancel of its task (the graph stopping)
        does not lose them, and the stack's final state waits for them (see ``_run``)."""
        future = asyncio.ensure_future(work)
        self._closings.add(future)
        return await asyncio.shield(future)

    def _start(self, task: ResourceTask) -> Step:
        # Checked in the worker, when the step really begins: work queued behind a failure
        # never starts.
        if not self.runner.may_start if self.runner is not None else self.stop.requested:
            raise NotStarted(task.name)
        return task.start()

    async def _step(
        self, task: ResourceTask, fn: Callable[..., Step], *args: Any
    ) -> tuple[Step, Step | None]:
        """``fn(*args)``, one step of ``task``, and what ``task.finish`` gave when that step
        left the task done: the final state follows at once, in the same call (one hand-off
        to a worker less per resource), and is committed with what is left."""
        return await self._call(task, _then_finish, task, fn, *args)

    async def _drive(
        self, task: ResourceTask, started: tuple[Step, Step | None], wake: asyncio.Event | None
    ) -> Step:
        """Poll with backoff until the handler's work is complete (hooks waited for), or
        at once when ``wake`` is set; the step the task's finish gave."""
        step, finished = started
        delay = POLL_FIRST
        while finished is None:
            if step.then is not None:
                # The handler waits for IN_PROGRESS to be on disk, unless it cannot touch
                # anything outside the database (a loop-run type).
                if not task.inline:
                    await self._commit(task)
                step, finished = await self._step(task, step.then)
                continue
            await self._commit(task)
            if step.hook is not None:
                await self._wait_hook(task, step.hook)
                step, finished = await self._step(task, task.after_hook)
                continue
            if wake is None:
                wake = self._poll_event(task.name)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    wake.wait(), step.delay if step.delay is not None else delay
                )
            if self.hands_over(task):
                raise NotStarted(task.name)  # the newer update takes it from here
            delay = min(delay * 2, POLL_MAX)
            # Cleared before the poll: a wake-up during the poll is not lost.
            wake.clear()
            step, finished = await self._step(task, task.poll, step.cookie)
        return finished

    def _poll_event(self, name: str) -> asyncio.Event:
        """What wakes the poll of resource ``name`` (made once per run and name: every step
        that runs in a worker asks for it)."""
        event = self.poll_events.get(name)
        if event is None:
            event = self.poll_events[name] = asyncio.Event()
        return event

    async def _wait_hook(self, task: ResourceTask, hook: str) -> None:
        event = self.hook_events.setdefault(task.name, asyncio.Event())
        delay = POLL_FIRST
        while await self.core.workers.call(task.hook_pending, hook):
            if self.superseded:
                raise NotStarted(task.name)  # the newer update pauses it again
            event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), delay)
            delay = min(delay * 2, HOOK_POLL_MAX)

    def wake_poll(self, name: str) -> None:
        """Poll resource ``name`` now rather than after its backoff (loop thread only)."""
        event = self.poll_events.get(name)
        if event is not None:
            event.set()

    def wake_hook(self, name: str) -> None:
        event = self.hook_events.get(name)
        if event is not None:
            event.set()

    def _forget_row(self, record: ResourceRecord) -> None:
        with self.core.db.session() as session:
            resource_store.remove(session, [record.id])
        self.rows.pop(record.id, None)


def _then_finish(
    task: ResourceTask, fn: Callable[..., Step], *args: Any
) -> tuple[Step, Step | None]:
    step = fn(*args)
    if step.done and step.hook is None and step.then is None:
        return step, task.finish()
    return step, None
