"""One action per stack: the stack lock, taken over from engines that died."""

from __future__ import annotations

from hearth.common.errors import ActionInProgress
from hearth.engine import states
from hearth.engine.core import EngineCore
from hearth.engine.running.messages import deleter_of
from hearth.store import locks as lock_store
from hearth.store.db import Session


def acquire(
    core: EngineCore, session: Session, stack_id: str, stack_name: str, action: str
) -> None:
    """Take the stack's lock for this engine, or raise ActionInProgress.

    A lock whose engine stopped reporting (no heartbeat for ``dead_after``) is stale and is
    taken over with a compare-and-swap, so two engines can never both win it.
    """
    if lock_store.try_insert(session, stack_id, core.engine_id):
        return
    holder, message = lock_store.holder_and_message(session, stack_id)
    if holder is None and lock_store.try_insert(session, stack_id, core.engine_id):
        return
    if holder == core.engine_id or (
        holder is not None and lock_store.is_alive(session, holder, core.settings.dead_after)
    ):
        raise ActionInProgress(stack_name, action)
    if action != states.DELETE and message and deleter_of(message) is not None:
        # A delete the dead engine accepted and did not begin: the takeover does it.
        raise ActionInProgress(stack_name, states.DELETE)
    if not lock_store.steal(session, stack_id, holder, core.engine_id):
        raise ActionInProgress(stack_name, action)


def holder_alive(core: EngineCore, session: Session, stack_id: str) -> str | None:
    """The engine holding the lock if it is alive (this engine included), else None."""
    holder = lock_store.holder(session, stack_id)
    if holder is None:
        return None
    if holder == core.engine_id:
        return holder
    if lock_store.is_alive(session, holder, core.settings.dead_after):
        return holder
    return None
