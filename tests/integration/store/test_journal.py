"""Group commit: concurrent steps share transactions, and a bad write fails only its step."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.exc import IntegrityError

from hearth.engine.running.journal import Journal
from hearth.store import batch
from hearth.store.db import Database
from hearth.store.models import Event
from tests.integration.store.conftest import add_stack


def _event(stack_id: str, name: str) -> batch.NewEvent:
    return batch.event(stack_id, resource_name=name, action="CREATE", status="COMPLETE",
                       reason="", physical_resource_id=None, resource_type="T")


def _count(db: Database) -> int:
    with db.session(readonly=True) as session:
        return session.scalar(select(func.count(Event.id))) or 0


def test_steps_that_commit_together_share_a_few_transactions(database: Database) -> None:
    stack_id = add_stack(database)
    commits: list[object] = []
    event.listen(database.engine, "commit", commits.append)

    async def main() -> None:
        journal = Journal(database, asyncio.get_running_loop())
        try:
            await asyncio.gather(
                *(journal.commit([_event(stack_id, f"r{i}")]) for i in range(200))
            )
        finally:
            journal.close()

    asyncio.run(main())
    assert _count(database) == 200
    assert 1 <= len(commits) < 20


def test_a_bad_write_fails_its_own_step_and_the_others_commit(database: Database) -> None:
    stack_id = add_stack(database)

    async def main() -> list[BaseException | None]:
        journal = Journal(database, asyncio.get_running_loop())
        try:
            good = [journal.commit([_event(stack_id, f"r{i}")]) for i in range(5)]
            bad = journal.commit([_event("no-such-stack", "x")])
            outcomes = await asyncio.gather(*good, bad, return_exceptions=True)
            # The journal goes on after a failure.
            await journal.commit([_event(stack_id, "after")])
            return list(outcomes)
        finally:
            journal.close()

    outcomes = asyncio.run(main())
    assert outcomes[:5] == [None] * 5
    assert isinstance(outcomes[5], IntegrityError)
    assert _count(database) == 6


def test_a_cancelled_step_does_not_break_the_journal(database: Database) -> None:
    stack_id = add_stack(database)

    async def main() -> None:
        journal = Journal(database, asyncio.get_running_loop())
        try:
            waiter = asyncio.ensure_future(journal.commit([_event(stack_id, "a")]))
            await asyncio.sleep(0)
            waiter.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiter
            await journal.commit([_event(stack_id, "b")])
        finally:
            journal.close()

    asyncio.run(main())
    # What a step handed in is written even if the step stopped waiting for it.
    assert _count(database) == 2
