"""Engine liveness: a heartbeat in the service table, and the stacks dead engines left behind.

Every engine reports itself every ``heartbeat_interval`` seconds. An engine that missed enough
reports is dead: stacks it left IN_PROGRESS are taken over (lock stolen) and continued from their
stored traversal, or failed with a clear reason when they cannot be.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Protocol

from hearth.common.context import RequestContext
from hearth.common.errors import Forbidden
from hearth.engine import states
from hearth.engine.core import EngineCore
from hearth.engine.running.actions import ActionManager
from hearth.engine.running.loaded_stack import LoadedStack
from hearth.engine.running.messages import deleter_of
from hearth.engine.running.records import ResourceRecord, write_state
from hearth.engine.running.run_spec import RunSpec
from hearth.engine.running.stack_state import set_stack_state
from hearth.store import locks as lock_store
from hearth.store import resources as resource_store
from hearth.store import stacks as stack_store
from hearth.store import step_claims
from hearth.store.db import Session
from hearth.store.outage import is_database_outage, outage_summary

LOG = logging.getLogger(__name__)

# Actions a stack can be started again in when its engine died before storing the traversal:
# the stack row holds all they need (an update's new template is stored with its state).
_RESTARTABLE = (
    states.CREATE, states.UPDATE, states.DELETE, states.SUSPEND, states.RESUME, states.CHECK
)


class AcceptedDeletes(Protocol):
    """How a takeover begins a delete that an engine accepted and did not begin."""

    def begin_delete(
        self, session: Session, stack_id: str, name: str, row: Any = None
    ) -> LoadedStack: ...

    def launch_delete(self, stack_id: str, loaded: LoadedStack) -> None: ...


class Liveness:
    def __init__(
        self, core: EngineCore, actions: ActionManager, deletes: AcceptedDeletes
    ) -> None:
        self.core = core
        self.actions = actions
        self.deletes = deletes
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        with self.core.db.session() as session:
            self._register(session)
        # Beating before the first takeover, and in a thread of its own: taking stacks over
        # (templates loaded, runs launched) can take longer than the time this engine may go
        # without a heartbeat before other engines take its stacks away.
        beat = threading.Thread(target=self._beat, name="hearth-heartbeat", daemon=True)
        beat.start()
        self.recover()
        self._forget_dead()
        takeover = threading.Thread(target=self._recover_dead, name="hearth-takeover",
                                    daemon=True)
        takeover.start()
        self._threads = [beat, takeover]

    def _register(self, session: Session) -> None:
        lock_store.register_service(
            session,
            self.core.engine_id,
            self.core.settings.host,
            self.core.settings.host,
            max(1, round(self.core.settings.heartbeat_interval)),
        )

    def stop(self) -> None:
        """Stop the heartbeat (the record stays until ``unregister``)."""
        self._stop.set()
        for thread in self._threads:
            thread.join(5)

    def unregister(self) -> None:
        """Remove this engine's record: the locks it holds are free to take over now."""
        with self.core.db.session() as session:
            lock_store.unregister_service(session, self.core.engine_id)

    def _beat(self) -> None:
        interval = self.core.settings.heartbeat_interval
        wait = interval
        while not self._stop.wait(wait):
            began = time.monotonic()
            try:
                with self.core.db.session() as session:
                    if not lock_store.heartbeat(session, self.core.engine_id):
                        # Another engine of this host found this one dead (it missed its
                        # heartbeats) and forgot its record: without one, every lock this
                        # engine takes would look abandoned and be taken from it.
                        LOG.warning("Engine %s had no service record: registered again",
                                    self.core.engine_id)
                        self._register(session)
            except Exception as exc:
                _log_failure("Engine heartbeat failed", exc)
            # On time even when a report was slow to write.
            wait = max(0.0, interval - (time.monotonic() - began))

    def _recover_dead(self) -> None:
        while not self._stop.wait(self.core.settings.heartbeat_interval):
            self.resume_left()
            try:
                if self.recover():
                    self._forget_dead()
            except Exception as exc:
                _log_failure("Taking over the stacks of dead engines failed", exc)

    def resume_left(self) -> int:
        """Carry on the actions this engine's runs left when the database went away (their
        locks are still held here), as a takeover would; those the database does not take yet
        are tried again at the next beat. Returns how many were carried on."""
        left = self.actions.take_left()
        waiting: set[str] = set()
        resumed = 0
        for stack_id in left:
            if self.actions.get(stack_id) is not None:
                continue  # a new action of this engine took the stack meanwhile
            try:
                resumed += self._take_over(stack_id, left_here=True)
            except Exception as exc:
                if not is_database_outage(exc):
                    LOG.exception("Could not carry on stack %s", stack_id)
                waiting.add(stack_id)
        if waiting:
            self.actions.leave_again(waiting)
        return resumed

    def report_service(
        self, ctx: RequestContext, service_id: str, binary: str, host: str,
        report_interval: int,
    ) -> None:
        """An API process's heartbeat, so that it is listed beside the engines."""
        _require_admin(ctx)
        with self.core.db.session() as session:
            lock_store.report_service(session, service_id, host, binary, "api",
                                      max(1, int(report_interval)))

    def remove_service(self, ctx: RequestContext, service_id: str) -> None:
        """An API process that stops removes its record (an engine's own is removed by
        ``unregister``)."""
        _require_admin(ctx)
        with self.core.db.session() as session:
            lock_store.unregister_service(session, service_id)

    def _forget_dead(self) -> None:
        """Drop the service records of this host's dead engines once their stacks are taken
        over (they were listed forever)."""
        with self.core.db.session() as session:
            lock_store.forget_dead_services(session, self.core.settings.host,
                                            self.core.engine_id, self.core.settings.dead_after)

    def recover(self) -> int:
        """Take over the IN_PROGRESS stacks of dead engines; returns how many were taken."""
        taken = 0
        with self.core.db.session() as session:
            candidates = stack_store.in_progress_stack_ids(session)
        for stack_id in candidates:
            if self.actions.get(stack_id) is not None:
                continue
            try:
                if self._take_over(stack_id):
                    taken += 1
            except Exception:
                LOG.exception("Could not take over stack %s", stack_id)
        return taken

    def _take_over(self, stack_id: str, *, left_here: bool = False) -> bool:
        """Continue the stack's action from what is stored: a dead engine's, or
        (``left_here``) one a run of this engine left while holding the lock."""
        core = self.core
        with core.db.session() as session:
            holder, message = lock_store.holder_and_message(session, stack_id)
            mine = holder == core.engine_id
            # A delete accepted and not begun (its engine's note on the lock) is what the
            # stack gets, not the action that delete stopped.
            deleter = deleter_of(message) if message else None
            if mine and deleter == core.engine_id:
                # This engine's own, whose beginning failed or has not come yet: whoever
                # removes the note begins it.
                if not lock_store.clear_message(session, stack_id, core.engine_id, str(message)):
                    return False
            elif left_here:
                if holder is not None and not mine:
                    return False  # another engine took it over while this one missed beats
            elif holder is not None and (
                mine or lock_store.is_alive(session, holder, core.settings.dead_after)
            ):
                return False
            if holder is None:
                if not lock_store.try_insert(session, stack_id, core.engine_id):
                    return False
            elif not mine and not lock_store.steal(session, stack_id, holder, core.engine_id):
                return False
            if left_here:
                # The steps this engine ran of the stack stopped with its run: claims they
                # could not release then would keep them from the run that carries on.
                step_claims.release_stack(session, stack_id, core.engine_id)
            row = stack_store.get_stack(session, stack_id)
            if row is None or row.status != states.IN_PROGRESS:
                lock_store.release(session, stack_id, core.engine_id)
                return False
            if deleter is not None and row.action != states.DELETE:
                loaded = self.deletes.begin_delete(session, stack_id, row.name)
                LOG.info("Deleting stack %s as %s asked (it did not begin the delete)",
                         stack_id, "this engine" if deleter == core.engine_id
                         else f"engine {deleter}")
                # (launched once the transaction that began it has ended)
            else:
                loaded = None
                spec, traversal_id = _resumable(row)
                if spec is None:
                    self._fail(session, stack_id, row.name, row.action or "")
                    lock_store.release(session, stack_id, core.engine_id)
                    return True
        if loaded is not None:
            self.deletes.launch_delete(stack_id, loaded)
            return True
        assert spec is not None
        LOG.info("Continuing %s of stack %s left %s", spec.action, stack_id,
                 "when the database went away" if left_here else "by a dead engine")
        self.actions.launch(stack_id, spec, traversal_id=traversal_id, resuming=True)
        return True

    def _fail(self, session: Session, stack_id: str, name: str, action: str) -> None:
        reason = f"Engine went down during stack {action}"
        for row in resource_store.of_stack(session, stack_id):
            if row.status == states.IN_PROGRESS:
                record = ResourceRecord.from_row(row)
                write_state(session, record, record.action, states.FAILED, reason)
        set_stack_state(session, stack_id, name, action, states.FAILED, reason)


def _resumable(row: Any) -> tuple[RunSpec | None, str | None]:
    """The action a stack taken over carries on, and from which traversal: the one stored
    with it, else its action started again (None: it cannot be carried on)."""
    deps = row.current_deps or {}
    spec_data = deps.get("spec") if isinstance(deps, dict) else None
    if spec_data:
        return RunSpec.from_json(spec_data), row.current_traversal
    action = row.action or ""
    if action in _RESTARTABLE:
        # Not the last action's traversal: what it finished is not done by this one.
        return RunSpec(action, rollback=not row.disable_rollback), None
    return None, None


def _log_failure(what: str, error: Exception) -> None:
    if is_database_outage(error):  # one line a beat while the database is away
        LOG.warning("%s: the database is unavailable (%s)", what,
                    outage_summary(error))
    else:
        LOG.error("%s", what, exc_info=error)


def _require_admin(ctx: RequestContext) -> None:
    # Only Hearth's own API processes report themselves, with an admin context; no REST
    # route reaches these calls.
    if not ctx.is_admin:
        raise Forbidden("service:report")
