"""The actions this engine is running, and what happens after each one ends.

An action is launched once its stack's lock is held and its IN_PROGRESS state written; the run
goes on in the engine's event loop while the caller gets its answer. When a run ends it may hand
over to another run under the same lock (a rollback, or a delete that was waiting for it).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from hearth.engine import states
from hearth.engine.core import EngineCore
from hearth.engine.running.action_run import ActionRun
from hearth.engine.running.loaded_stack import LoadedStack
from hearth.engine.running.run_spec import EndedState, RunSpec
from hearth.engine.running.stack_state import set_stack_state
from hearth.engine.services.payloads import finish_snapshot
from hearth.store import locks as lock_store
from hearth.store import stacks as stack_store
from hearth.store.outage import is_database_outage, outage_summary

LOG = logging.getLogger(__name__)

# Ended child stack states kept for their parents' polls (each is read once).
ENDED_KEPT = 4096

T = TypeVar("T")


class ActionManager:
    def __init__(self, core: EngineCore) -> None:
        self.core = core
        self._lock = threading.Lock()
        # Only stacks with a run going on have entries in these tables: a long-running engine
        # sees an unbounded number of stacks, so an idle stack's entries are dropped.
        self.running: dict[str, ActionRun] = {}
        # Each run's future, held while it runs (the event loop itself keeps only weak
        # references to its tasks).
        self._futures: dict[str, Future[None]] = {}
        # Work to start once the stack's current run ends (e.g. a delete after a cancel).
        self._after: dict[str, Callable[[], None]] = {}
        self._idle: dict[str, threading.Event] = {}
        # Stacks whose run stopped when the database went away, their lock still held here:
        # ``Liveness`` carries them on once it answers (``take_left``).
        self._left: set[str] = set()
        # The state a child stack's run ended in here, for its parent's next poll (read
        # once; a newer run of the stack drops it; the oldest go beyond a bound).
        self._ended: OrderedDict[str, EndedState] = OrderedDict()
        # Its outputs likewise, for the parent's read of them after that poll.
        self._ended_outputs: OrderedDict[str, list[Any]] = OrderedDict()

    def launch(
        self,
        stack_id: str,
        spec: RunSpec,
        *,
        traversal_id: str | None = None,
        resuming: bool = False,
        loaded: LoadedStack | None = None,
    ) -> ActionRun | None:
        """Start a run for a stack whose lock this engine holds (``loaded``: as this engine
        just stored it).

        The stack's IN_PROGRESS state and lock are stored already, so the action is accepted
        even should its run not start (it reads the stack first): when the database went
        away, the action is carried on once it answers (None is returned); for any other
        fault the stack fails with it, and the fault is raised. Never is a stack left
        IN_PROGRESS under this engine's lock with nothing running."""
        try:
            run = ActionRun(
                self.core,
                stack_id,
                spec,
                traversal_id=traversal_id,
                resuming=resuming,
                on_finish=self._finished,
                loaded=loaded,
            )
        except Exception as exc:
            outage = is_database_outage(exc)
            with self._lock:
                # The run this one follows (a rollback's failed update) is over.
                self.running.pop(stack_id, None)
                self._futures.pop(stack_id, None)
                if outage:
                    self._left.add(stack_id)
            self._mark_idle(stack_id)
            if not outage:
                _fail_unstarted(self.core, stack_id, spec, exc)
                raise
            LOG.warning("The %s of stack %s starts once the database answers: %s",
                        spec.action, stack_id, outage_summary(exc))
            return None
        with self._lock:
            self.running[stack_id] = run
            self._ended.pop(stack_id, None)
            self._ended_outputs.pop(stack_id, None)
            self._idle.setdefault(stack_id, threading.Event()).clear()
            self._futures[stack_id] = self.core.workers.submit(run.run())
        return run

    def after_current(self, stack_id: str, work: Callable[[], None]) -> bool:
        """Run ``work`` when the stack's current run ends; False if nothing runs now.

        The run keeps its lock for ``work``; ``work`` must still make sure it holds the lock
        (the run may have released it just before this call).
        """
        with self._lock:
            run = self.running.get(stack_id)
            if run is None:
                return False
            self._after[stack_id] = work
            run.keep_lock = True
            return True

    def waiting_after(self, stack_id: str) -> bool:
        """Whether work waits for the stack's current run to end (a delete)."""
        with self._lock:
            return stack_id in self._after

    def _finished(self, run: ActionRun) -> None:
        """Called in the event loop when a run ends; chains the next one off the loop."""
        stack_id = run.stack_id
        if self.core.handing_over:
            # Stopped part-way, not ended: nothing follows here (the next engine continues).
            return
        if run.database_lost:
            with self._lock:
                if self.running.get(stack_id) is run:
                    del self.running[stack_id]
                    self._futures.pop(stack_id, None)
                self._after.pop(stack_id, None)
                self._left.add(stack_id)
            self._mark_idle(stack_id)
            return
        # The owner's runs here: steps this engine runs for another engine's run, and (below)
        # its stack's own run.
        owners = list(self.core.run_copies(run.owner_id)) if run.owner_id else []
        with self._lock:
            after = self._after.pop(stack_id, None)
            # A run that hands over stays registered until the next one replaces it: a delete
            # arriving meanwhile waits for (and stops) that one, rather than running beside it.
            if self.running.get(stack_id) is run and run.next_spec is None:
                del self.running[stack_id]
                self._futures.pop(stack_id, None)
            parent = self.running.get(run.owner_id) if run.owner_id else None
            if parent is not None:
                owners.insert(0, parent)
            # Kept only for an owner waiting here (one elsewhere reads the database): an end
            # nobody here takes would be read, stale, by a later action of the owner.
            if owners and run.ended is not None and run.next_spec is None:
                _keep(self._ended, stack_id, run.ended)
                if run.ended.outputs is not None:
                    _keep(self._ended_outputs, stack_id, run.ended.outputs)
        if run.parent_resource:
            # The resource that owns this stack notices at once (not at its next poll).
            for owner in owners:
                owner.wake_poll(run.parent_resource)
        next_spec = run.next_spec

        def chain() -> None:
            if next_spec is not None:
                new = self.launch(stack_id, next_spec, traversal_id=run.next_traversal)
                # (None: carried on once the database answers, a delete by its note)
                if new is not None and after is not None:
                    self.after_current(stack_id, after)
                elif new is not None and self.waiting_after(stack_id):
                    # A delete came while it handed over.
                    new.keep_lock = True
                    self.core.workers.call_soon(
                        lambda: new.request_cancel(rollback=False, drain=False,
                                                   delete_follows=True))
            elif after is not None:
                after()
            self._mark_idle(stack_id)

        if next_spec is None and after is None:
            self._mark_idle(stack_id)
            return
        asyncio.get_running_loop().run_in_executor(self.core.workers.pool, chain)

    def _mark_idle(self, stack_id: str) -> None:
        with self._lock:
            if stack_id in self.running:
                return
            # Waiters hold the event themselves; the next launch makes a new one.
            event = self._idle.pop(stack_id, None)
        if event is not None:
            event.set()

    def wait_idle(self, stack_id: str, timeout: float | None = None) -> bool:
        """Block until no run of this stack is going on here (tests and shutdown)."""
        with self._lock:
            event = self._idle.get(stack_id)
        return True if event is None else event.wait(timeout)

    def remembered(self) -> set[str]:
        """The stacks this manager holds anything for (tests: idle stacks are forgotten)."""
        with self._lock:
            return set(self.running) | set(self._futures) | set(self._after) | set(self._idle)

    def take_left(self) -> set[str]:
        """The stacks left when the database went away, since the last call."""
        with self._lock:
            left, self._left = self._left, set()
            return left

    def leave_again(self, stack_ids: set[str]) -> None:
        """Stacks ``take_left`` gave that could not be carried on yet."""
        with self._lock:
            self._left |= stack_ids

    def get(self, stack_id: str) -> ActionRun | None:
        with self._lock:
            return self.running.get(stack_id)

    def take_ended_outputs(self, stack_id: str) -> list[Any] | None:
        """The outputs a child stack's run just wrote at its end here (once, as
        ``take_ended``)."""
        with self._lock:
            if self.running.get(stack_id) is not None:
                return None
            return self._ended_outputs.pop(stack_id, None)

    def forget_ended(self, stack_id: str) -> None:
        """Drop what a child stack's earlier run left here: its owner waits for an action
        of it that another engine runs."""
        with self._lock:
            self._ended.pop(stack_id, None)
            self._ended_outputs.pop(stack_id, None)

    def take_ended(self, stack_id: str) -> EndedState | None:
        """What a child stack's run just wrote at its end here (once); None when this
        engine does not know (read the database)."""
        with self._lock:
            if self.running.get(stack_id) is not None:
                return None
            return self._ended.pop(stack_id, None)


def _keep(kept: OrderedDict[str, T], stack_id: str, value: T) -> None:
    """Keep ``value`` for a parent's next read, dropping the oldest beyond ``ENDED_KEPT``."""
    kept[stack_id] = value
    while len(kept) > ENDED_KEPT:
        kept.popitem(last=False)


def _fail_unstarted(core: EngineCore, stack_id: str, spec: RunSpec, error: Exception) -> None:
    """An action whose run could not start: the stack (and the snapshot it was taking) ends
    FAILED with the fault, and its lock (this engine's) is freed. Best effort: a failure
    here is logged."""
    action = spec.delete_as or spec.action
    reason = f"Stack {action} could not start: {error}"
    try:
        with core.db.session() as session:
            row = stack_store.run_columns(session, stack_id)
            if row is None or row.status != states.IN_PROGRESS:
                return
            if not lock_store.held(session, stack_id, core.engine_id):
                return
            set_stack_state(session, stack_id, row.name, row.action or action,
                            states.FAILED, reason)
            if spec.snapshot_id and spec.action == states.SNAPSHOT:
                finish_snapshot(core, session, stack_id, spec.snapshot_id, False, reason)
            lock_store.release(session, stack_id, core.engine_id)
    except Exception:
        LOG.exception("Could not fail stack %s, whose %s did not start", stack_id, action)
