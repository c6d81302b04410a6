"""Purging deleted stacks and resetting stuck ones, on every backend."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from hearth.common.errors import EntityNotFound
from hearth.store.db import Database
from hearth.store.maintenance import RESET_REASON, purge_deleted, reset_stack_state
from hearth.store.models import (
    Base,
    Event,
    RawTemplate,
    RawTemplateFiles,
    Resource,
    ResourceData,
    ResourcePropertiesData,
    ResourceSnapshot,
    Service,
    Snapshot,
    Stack,
    StackLock,
    StackTag,
    UserCreds,
)
from hearth.store.types import utcnow
from tests.integration.store.conftest import add_stack

LONG_AGO = utcnow() - timedelta(days=30)
WEEK = timedelta(days=7)


def _populate(db: Database, stack_id: str) -> None:
    """Give a stack everything that hangs off it."""
    with db.session() as session:
        stack = session.get_one(Stack, stack_id)
        files = RawTemplateFiles(files={"f": "x"})
        creds = UserCreds(username="u", password="sealed")
        session.add_all([files, creds])
        session.flush()
        session.get_one(RawTemplate, stack.raw_template_id).files_id = files.id
        stack.user_creds_id = creds.id
        previous = RawTemplate(template={}, files_id=files.id)
        props, event_props = ResourcePropertiesData(data={}), ResourcePropertiesData(data={})
        session.add_all([previous, props, event_props])
        session.flush()
        stack.prev_raw_template_id = previous.id
        resource = Resource(name="r", stack_id=stack_id, rsrc_prop_data_id=props.id,
                            current_template_id=previous.id)
        snapshot = Snapshot(stack_id=stack_id, tenant="project-a")
        session.add_all([resource, snapshot, StackTag(stack_id=stack_id, tag="t"),
                         StackLock(stack_id=stack_id, engine_id="dead-engine")])
        session.flush()
        session.add_all([
            ResourceData(resource_id=resource.id, key="k", value="v"),
            Event(stack_id=stack_id, resource_name="r", rsrc_prop_data_id=event_props.id),
            ResourceSnapshot(snapshot_id=snapshot.id, resource_name="r", data={}),
        ])


def _counts(db: Database) -> dict[str, int]:
    with db.session(readonly=True) as session:
        return {
            mapper.class_.__tablename__: session.scalar(
                select(func.count()).select_from(mapper.class_)
            ) or 0
            for mapper in Base.registry.mappers
        }


def test_purges_old_deleted_stacks_with_everything_of_theirs(database: Database) -> None:
    old = add_stack(database, name="old", deleted_at=LONG_AGO, action="DELETE",
                    status="COMPLETE")
    _populate(database, old)
    nested = add_stack(database, name="old-child", owner_id=old, root_stack_id=old)
    grandchild = add_stack(database, name="old-grandchild", owner_id=nested, root_stack_id=old)
    _populate(database, grandchild)
    with database.session() as session:
        session.add(Service(engine_id="e", host="h", hostname="h", binary="hearth-engine",
                            topic="engine", report_interval=5, deleted_at=LONG_AGO))

    assert purge_deleted(database, WEEK) == 3

    assert all(count == 0 for count in _counts(database).values()), _counts(database)


def test_keeps_recent_deleted_and_live_stacks_and_what_they_use(database: Database) -> None:
    recent = add_stack(database, name="recent", deleted_at=utcnow() - timedelta(days=1))
    live = add_stack(database, name="live")
    _populate(database, live)
    before = _counts(database)
    old = add_stack(database, name="old", deleted_at=LONG_AGO)
    with database.session() as session:
        # The old stack's template is also the live stack's previous one: it must stay.
        old_template = session.get_one(Stack, old).raw_template_id
        session.get_one(Stack, live).prev_raw_template_id = old_template

    assert purge_deleted(database, WEEK) == 1

    after = _counts(database)
    assert after == {**before, "raw_template": before["raw_template"] + 1}
    with database.session(readonly=True) as session:
        assert set(session.scalars(select(Stack.id))) == {recent, live}
        assert session.get(RawTemplate, old_template) is not None


def test_purge_by_project_and_in_batches(database: Database) -> None:
    mine = [add_stack(database, name=f"m{i}", tenant="mine", deleted_at=LONG_AGO)
            for i in range(5)]
    theirs = add_stack(database, name="t", tenant="theirs", deleted_at=LONG_AGO)

    assert purge_deleted(database, WEEK, project_id="mine", batch_size=2) == len(mine)

    with database.session(readonly=True) as session:
        assert session.scalars(select(Stack.id)).all() == [theirs]


def test_age_granularity_is_respected(database: Database) -> None:
    add_stack(database, deleted_at=utcnow() - timedelta(seconds=30))
    assert purge_deleted(database, timedelta(minutes=1)) == 0
    assert purge_deleted(database, timedelta(seconds=10)) == 1


def test_reset_fails_what_is_in_progress_and_unlocks(database: Database) -> None:
    stack_id = add_stack(database, action="UPDATE", status="IN_PROGRESS")
    child = add_stack(database, name="child", owner_id=stack_id, action="UPDATE",
                      status="IN_PROGRESS")
    with database.session() as session:
        session.add_all([
            Resource(name="busy", stack_id=stack_id, action="UPDATE", status="IN_PROGRESS",
                     engine_id="dead"),
            Resource(name="done", stack_id=stack_id, action="UPDATE", status="COMPLETE",
                     status_reason="ok"),
            Resource(name="nested-busy", stack_id=child, action="CREATE",
                     status="IN_PROGRESS", engine_id="dead"),
            StackLock(stack_id=stack_id, engine_id="dead"),
            StackLock(stack_id=child, engine_id="dead"),
        ])

    assert reset_stack_state(database, stack_id) is True

    with database.session(readonly=True) as session:
        for sid in (stack_id, child):
            stack = session.get_one(Stack, sid)
            assert (stack.action, stack.status, stack.status_reason) == (
                "UPDATE", "FAILED", RESET_REASON
            )
        states = {r.name: (r.status, r.status_reason, r.engine_id)
                  for r in session.scalars(select(Resource))}
        assert states == {
            "busy": ("FAILED", RESET_REASON, None),
            "done": ("COMPLETE", "ok", None),
            "nested-busy": ("FAILED", RESET_REASON, None),
        }
        assert session.scalar(select(func.count()).select_from(StackLock)) == 0


def test_reset_leaves_a_stack_that_is_not_in_progress(database: Database) -> None:
    stack_id = add_stack(database, action="CREATE", status="FAILED", status_reason="bad")
    with database.session() as session:
        session.add(StackLock(stack_id=stack_id, engine_id="e"))
    assert reset_stack_state(database, stack_id) is False
    with database.session(readonly=True) as session:
        assert session.get_one(Stack, stack_id).status_reason == "bad"
        assert session.get(StackLock, stack_id) is not None


def test_reset_of_an_unknown_stack(database: Database) -> None:
    with pytest.raises(EntityNotFound, match=r"The Stack \(nope\) could not be found") as info:
        reset_stack_state(database, "nope")
    assert info.value.http_status == 404
