"""Claims on resource steps (``hearth.store.step_claims``) on every backend: one engine runs a
step; a dead engine's or an older traversal's claim is taken over; a step of a traversal the
stack left, or of a coordinator that lost the lock, is not begun; a finished one is not run
again."""

from __future__ import annotations

from datetime import timedelta

import pytest

from hearth.store import locks as lock_store
from hearth.store import resources as resource_store
from hearth.store import step_claims
from hearth.store.db import Database
from hearth.store.models import Service
from hearth.store.step_claims import Claim
from hearth.store.types import utcnow
from tests.integration.store.conftest import add_stack

DEAD_AFTER = timedelta(seconds=15)
COORDINATOR = "coordinator-engine"


@pytest.fixture
def step(database: Database) -> tuple[str, int]:
    stack_id = add_stack(database, current_traversal="t1")
    with database.session() as session:
        assert lock_store.try_insert(session, stack_id, COORDINATOR)
        for engine, seen in (("a", utcnow()), ("b", utcnow()), (COORDINATOR, utcnow()),
                             ("dead", utcnow() - timedelta(minutes=5))):
            lock_store.register_service(session, engine, "h", "h", 5)
            session.flush()
            session.query(Service).filter(Service.engine_id == engine).update(
                {"updated_at": seen})
        row = resource_store.add(session, name="r", stack_id=stack_id, action="INIT",
                                 status="COMPLETE", requires=[])
        return stack_id, row.id


def _claim(db: Database, step: tuple[str, int], engine: str, *, traversal: str = "t1",
           action: str = "CREATE") -> Claim:
    stack_id, resource_id = step
    with db.session() as session:
        return step_claims.claim(
            session, resource_id=resource_id, stack_id=stack_id, traversal_id=traversal,
            coordinator=COORDINATOR, engine_id=engine, action=action, dead_after=DEAD_AFTER)


def _set(db: Database, resource_id: int, **fields: object) -> None:
    with db.session() as session:
        resource_store.set_fields(session, resource_id, **fields)


def test_one_engine_claims_a_step_until_it_releases_it(
        database: Database, step: tuple[str, int]) -> None:
    _, resource_id = step
    assert _claim(database, step, "a") is Claim.TAKEN
    assert _claim(database, step, "b") is Claim.BUSY
    assert _claim(database, step, "a") is Claim.BUSY  # an offer that came twice runs once
    with database.session() as session:
        row = step_claims.rows(session, [resource_id])[resource_id]
        step_claims.release(session, resource_id, "b")  # not b's to release
    assert (row.engine_id, row.traversal_id) == ("a", "t1")
    assert _claim(database, step, "b") is Claim.BUSY
    with database.session() as session:
        step_claims.release(session, resource_id, "a")
    assert _claim(database, step, "b") is Claim.TAKEN


def test_an_engine_ends_its_claims_on_a_stack_at_once(
        database: Database, step: tuple[str, int]) -> None:
    # Its run of the stack stopped when the database went away (``Liveness.resume_left``).
    stack_id, resource_id = step
    another_stack = add_stack(database)
    with database.session() as session:
        other = resource_store.add(session, name="s", stack_id=stack_id, action="INIT",
                                   status="COMPLETE", requires=[]).id
        elsewhere = resource_store.add(session, name="r", stack_id=another_stack,
                                       action="INIT", status="COMPLETE", requires=[]).id
    _set(database, resource_id, engine_id="a", traversal_id="t1")
    _set(database, other, engine_id="b", traversal_id="t1")
    _set(database, elsewhere, engine_id="a", traversal_id="t1")
    with database.session() as session:
        assert step_claims.release_stack(session, stack_id, "a") == 1
    with database.session() as session:
        found = step_claims.rows(session, [resource_id, other, elsewhere])
    assert {rid: row.engine_id for rid, row in found.items()} == {
        resource_id: None, other: "b", elsewhere: "a"}


def test_a_dead_engines_or_an_older_traversals_claim_is_taken_over(
        database: Database, step: tuple[str, int]) -> None:
    _, resource_id = step
    _set(database, resource_id, engine_id="dead", traversal_id="t1")
    assert _claim(database, step, "a") is Claim.TAKEN
    _set(database, resource_id, engine_id="b", traversal_id="t0")
    assert _claim(database, step, "a") is Claim.TAKEN
    with database.session() as session:
        assert step_claims.dead(session, {"a", "b", "dead", "unknown"}, DEAD_AFTER) == {
            "dead", "unknown"}


def test_a_step_finished_in_its_traversal_is_not_run_again(
        database: Database, step: tuple[str, int]) -> None:
    _, resource_id = step
    _set(database, resource_id, traversal_id="t1", action="CREATE", status="COMPLETE")
    assert _claim(database, step, "a") is Claim.FINISHED
    # The same row finished another action, or in another traversal: still to run.
    assert _claim(database, step, "a", action="DELETE") is Claim.TAKEN
    with database.session() as session:
        row = step_claims.rows(session, [resource_id])[resource_id]
    assert not row.finished_in("t1", "DELETE")


def test_no_step_begins_once_the_stack_left_its_traversal_or_lock(
        database: Database, step: tuple[str, int]) -> None:
    stack_id, resource_id = step
    assert _claim(database, step, "a", traversal="t0") is Claim.STALE
    with database.session() as session:
        assert lock_store.steal(session, stack_id, COORDINATOR, "b")
    assert _claim(database, step, "a") is Claim.STALE
    with database.session() as session:
        assert step_claims.rows(session, [resource_id])[resource_id].engine_id is None


def test_offered_together_each_step_is_claimed_once(
        database: Database, step: tuple[str, int]) -> None:
    stack_id, first = step
    with database.session() as session:
        others = [resource_store.add(session, name=f"r{i}", stack_id=stack_id, action="INIT",
                                     status="COMPLETE", requires=[]).id for i in range(3)]
    ids = [first, *others]
    _set(database, others[0], engine_id="b", traversal_id="t1")  # b runs it
    _set(database, others[1], traversal_id="t1", action="CREATE", status="COMPLETE")

    def claim_all(engine: str) -> dict[int, Claim]:
        with database.session() as session:
            claims, taken = step_claims.claim_many(
                session, resource_ids=ids, stack_id=stack_id, traversal_id="t1",
                coordinator=COORDINATOR, engine_id=engine, action="CREATE",
                dead_after=DEAD_AFTER)
            assert set(taken) == {rid for rid, c in claims.items() if c is Claim.TAKEN}
            return claims

    assert claim_all("a") == {first: Claim.TAKEN, others[0]: Claim.BUSY,
                              others[1]: Claim.FINISHED, others[2]: Claim.TAKEN}
    # The same offer again, to a or to another engine: nothing is taken twice.
    assert claim_all("a") == {first: Claim.BUSY, others[0]: Claim.BUSY,
                              others[1]: Claim.FINISHED, others[2]: Claim.BUSY}
    with database.session() as session:
        held = step_claims.rows(session, ids)
    assert [held[rid].engine_id for rid in ids] == ["a", "b", None, "a"]
