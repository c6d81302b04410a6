"""A stack update sent while an action is in progress supersedes it, as in Heat's convergence
engine (Heat answers it instead of 409, for any action but suspend and delete).

The request stores the new update at once (template, parameters, UPDATE_IN_PROGRESS) together
with a new ``current_traversal`` and its RunSpec: from then on that is the stack's traversal.
The run in progress, told directly (same engine) or by a lock message (another engine), starts
nothing new; what it has running finishes, except resources waiting on a child stack's create
or update, which it stops waiting for (the newer traversal updates them, which supersedes the
child's action in turn). Ending, the run finds that its traversal is no longer the stack's: it
writes no state, keeps the lock and hands over to a run of the newest traversal. An engine that
takes the stack over from a dead one reads that same newest traversal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hearth.common.errors import ActionInProgress
from hearth.common.ids import new_uuid
from hearth.engine import states
from hearth.engine.core import EngineCore
from hearth.engine.running import locking
from hearth.engine.running.messages import DELETE_PREFIX, deleter_of
from hearth.engine.running.records import write_state
from hearth.engine.running.run_spec import RunSpec
from hearth.engine.running.stack_state import drop_template
from hearth.store import locks as lock_store
from hearth.store import stacks as stack_store
from hearth.store.db import Session
from hearth.store.models import Stack as StackRow

if TYPE_CHECKING:
    from hearth.engine.running.action_run import ActionRun
    from hearth.engine.running.actions import ActionManager
    from hearth.engine.running.run_end import RunEnd

# Actions that converge the stack on a template: a newer template takes over from them.
# Suspend, resume, check and snapshot keep answering ActionInProgress.
SUPERSEDABLE = (states.CREATE, states.ADOPT, states.UPDATE, states.ROLLBACK, states.RESTORE)

_PREFIX = "supersede:"


def message(traversal_id: str) -> str:
    """The lock message telling the lock holder that ``traversal_id`` supersedes its run."""
    return _PREFIX + traversal_id


def traversal_of(text: str) -> str | None:
    return text[len(_PREFIX):] if text.startswith(_PREFIX) else None


# --- the request (StackService.update_stack) ----------------------------------------------


def lock_holder(
    core: EngineCore, actions: ActionManager, session: Session, row: StackRow
) -> str | None:
    """The live engine whose action the update will supersede; None when the lock is free
    (or its holder dead) and the update takes it as usual."""
    holder = locking.holder_alive(core, session, row.id)
    if holder is None:
        return None
    # A delete already waits for this run: it goes first.
    if row.action not in SUPERSEDABLE or (
        holder == core.engine_id and actions.waiting_after(row.id)
    ):
        raise ActionInProgress(row.name, row.action or states.UPDATE)
    # Likewise one accepted or asked for elsewhere (its note or message on the lock): the
    # update would be dropped when the delete begins.
    _, waiting = lock_store.holder_and_message(session, row.id)
    if waiting and deleter_of(waiting) is not None:
        raise ActionInProgress(row.name, states.DELETE)
    return holder


def claim(session: Session, stack_id: str, spec: RunSpec) -> str:
    """Make a new traversal, for ``spec``, the stack's (with the update's other writes)."""
    traversal_id = new_uuid()
    stack_store.set_fields(session, stack_id, current_traversal=traversal_id,
                           current_deps={"spec": spec.to_json()})
    return traversal_id


def lock_freed(core: EngineCore, session: Session, stack_id: str, holder: str) -> bool:
    """Whether ``holder``'s run ended (and freed the lock) before the claim: then this engine
    takes the lock and runs the update itself. Asked after the claim's writes, which hold the
    stack row: a run ending later sees the claim and hands over."""
    now = lock_store.holder(session, stack_id, for_update=True)
    if now is not None:
        return False  # still held: its holder hands over when its run ends
    return lock_store.try_insert(session, stack_id, core.engine_id)


def notify(
    core: EngineCore, actions: ActionManager, stack_id: str, holder: str, traversal_id: str
) -> None:
    """Tell the run in progress to stop starting work (it would see the claim at its end
    anyway; this makes it end sooner)."""
    if holder == core.engine_id:
        run = actions.get(stack_id)
        if run is not None:
            core.workers.call_soon(lambda: run.supersede(traversal_id))
        return
    with core.db.session() as session:
        # A delete's message stays: the delete goes first.
        lock_store.post_message(session, stack_id, message(traversal_id),
                                unless_prefix=DELETE_PREFIX)


# --- the runs (ActionRun) -------------------------------------------------------------------


def take_traversal(run: ActionRun, deps: dict[str, Any]) -> bool:
    """Store the run's graph as the stack's traversal; False when a newer update claimed the
    stack since the run read it (then the run does nothing and hands over at its end)."""
    with run.core.db.session() as session:
        if run.given_traversal and run.loaded_traversal != run.traversal_id:
            return False
        if not stack_store.claim_traversal(session, run.stack_id, run.loaded_traversal,
                                           run.traversal_id, current_deps=deps):
            return False
        if run.resuming and run.is_update_like:
            _fail_stale(session, run)
    return True


def _fail_stale(session: Session, run: ActionRun) -> None:
    """Resources a dead engine left IN_PROGRESS in a superseded traversal start from FAILED
    (Heat's "Worker went down"), so this one updates or replaces them rather than trusting a
    state nothing drives any more."""
    for record in run.rows.values():
        if (record.status == states.IN_PROGRESS
                and record.traversal_id not in (None, run.traversal_id)):
            write_state(session, record, record.action, states.FAILED,
                        f"Engine went down during resource {record.action}")


def superseded_at_end(
    run: RunEnd, session: Session, *, lock_checked: bool = True, **end: Any
) -> bool:
    """At a run's end: True when a newer traversal owns the stack (nothing of this run's end
    is written; ``next_spec`` becomes the newest update unless a delete stopped the run).
    Otherwise the stack gets a fresh traversal id for what follows (a rollback), so that an
    update arriving before that starts is seen by it, and the columns of ``end`` (the run's
    final state) with it. Unless ``lock_checked``, the lock is checked (``LockLost``) before
    this writes anything of a superseded end (the caller checks it otherwise)."""
    follow = new_uuid()
    if stack_store.claim_traversal(session, run.stack_id, run.traversal_id, follow,
                                   current_deps=None, **end):
        run.next_traversal = follow
        return False
    if not lock_checked:
        run.check_lock(session)
    # Its templates, unless the stack or a resource is still on them (the newest update
    # drops those that resources were on when it ends).
    drop_template(session, run.template_id, run.prev_template_id)
    stop = run.stop
    for_delete = stop.requested and not stop.drain and not run.cancel_rollback
    row = stack_store.get_stack(session, run.stack_id)
    deps = row.current_deps if row is not None else None
    spec = deps.get("spec") if isinstance(deps, dict) else None
    if spec and not for_delete and row is not None:
        run.next_spec = RunSpec.from_json(spec)
        run.next_traversal = row.current_traversal
    elif not run.keep_lock:
        lock_store.release(session, run.stack_id, run.core.engine_id)
    return True
