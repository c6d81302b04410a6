"""Batched resource writes on every backend: what ``batch.apply`` leaves in the database."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from hearth.store import batch
from hearth.store import resources as resource_store
from hearth.store.db import Database
from hearth.store.models import Event, Resource, ResourceData, ResourcePropertiesData, Stack
from tests.integration.store.conftest import add_stack


def _resources(db: Database, stack_id: str, count: int) -> list[int]:
    with db.session() as session:
        rows = [
            resource_store.add(session, name=f"r{i}", stack_id=stack_id, action="INIT",
                               status="COMPLETE", requires=[])
            for i in range(count)
        ]
        return [r.id for r in rows]


def test_a_batch_writes_properties_fields_data_and_events_in_order(database: Database) -> None:
    stack_id = add_stack(database)
    first, second = _resources(database, stack_id, 2)
    props = batch.PropsRow({"size": 3}, encrypted=False)
    told: list[int] = []
    props.on_id = told.append
    writes: list[batch.Write] = [
        props,
        batch.ResourceChange(first, {"action": "CREATE", "status": "IN_PROGRESS",
                                     "rsrc_prop_data_id": props}),
        batch.event(stack_id, resource_name="r0", action="CREATE", status="IN_PROGRESS",
                    reason="state changed", physical_resource_id=None,
                    resource_type="OS::Heat::None", rsrc_prop_data_id=props),
        batch.DataChange(first, "k", "one"),
        batch.DataChange(second, "gone", "soon"),
        # Later changes of the same row and key win; each state change advances the version.
        batch.ResourceChange(first, {"status": "COMPLETE", "definition": {"type": "X"}}),
        batch.DataChange(first, "k", "two"),
        batch.DataChange(second, "gone", None),
        batch.ResourceChange(second, {"physical_resource_id": "p-1"}, bump=False),
        batch.event(stack_id, resource_name="r0", action="CREATE", status="COMPLETE",
                    reason="state changed", physical_resource_id="p-0",
                    resource_type="OS::Heat::None"),
    ]
    with database.engine.begin() as conn:
        batch.apply(conn, writes)

    assert props.id is not None and told == [props.id]
    with database.session() as session:
        one = session.get(Resource, first)
        two = session.get(Resource, second)
        assert one is not None and two is not None
        assert (one.action, one.status, one.rsrc_prop_data_id) == (
            "CREATE", "COMPLETE", props.id
        )
        assert one.definition == {"type": "X"} and one.atomic_key == 2
        assert two.physical_resource_id == "p-1" and two.atomic_key == 0
        stored = session.get(ResourcePropertiesData, props.id)
        assert stored is not None and stored.data == {"size": 3}
        data = {(d.resource_id, d.key): d.value for d in session.scalars(select(ResourceData))}
        assert data == {(first, "k"): "two"}
        events = list(session.scalars(select(Event).order_by(Event.id)))
        assert [e.resource_status for e in events] == ["IN_PROGRESS", "COMPLETE"]
        assert [e.rsrc_prop_data_id for e in events] == [props.id, None]
        assert events[1].physical_resource_id == "p-0"
        assert len({e.uuid for e in events}) == 2


def test_many_rows_take_the_same_few_statements(database: Database) -> None:
    stack_id = add_stack(database)
    ids = _resources(database, stack_id, 300)
    writes: list[batch.Write] = []
    for i, rid in enumerate(ids):
        props = batch.PropsRow({"i": i}, encrypted=False)
        writes += [
            props,
            batch.ResourceChange(rid, {"status": "COMPLETE", "rsrc_prop_data_id": props,
                                       "attr_data": {"attrs": {"i": i}}}),
            batch.event(stack_id, resource_name=f"r{i}", action="CREATE", status="COMPLETE",
                        reason="x" * 400, physical_resource_id=f"p{i}", resource_type="T",
                        rsrc_prop_data_id=props),
        ]
    with database.engine.begin() as conn:
        batch.apply(conn, writes)
    with database.session() as session:
        rows = {r.id: r for r in session.scalars(select(Resource))}
        for i, rid in enumerate(ids):
            stored = session.get(ResourcePropertiesData, rows[rid].rsrc_prop_data_id)
            assert stored is not None and stored.data == {"i": i}
            assert rows[rid].attr_data == {"attrs": {"i": i}}
        events = session.scalars(select(Event))
        reasons = {e.resource_name: e.resource_status_reason for e in events}
        # Status reasons are cut to what an event keeps.
        assert len(reasons) == 300 and {len(r or "") for r in reasons.values()} == {255}


def test_a_failing_write_leaves_nothing_of_its_batch(database: Database) -> None:
    stack_id = add_stack(database)
    (rid,) = _resources(database, stack_id, 1)
    writes: list[batch.Write] = [
        batch.ResourceChange(rid, {"action": "CREATE", "status": "IN_PROGRESS"}),
        batch.event(stack_id, resource_name="r0", action="CREATE", status="IN_PROGRESS",
                    reason="", physical_resource_id=None, resource_type="T"),
        # No such properties row: the database refuses the reference.
        batch.ResourceChange(rid, {"rsrc_prop_data_id": 987654}),
    ]
    with pytest.raises(IntegrityError), database.engine.begin() as conn:
        batch.apply(conn, writes)
    with database.session() as session:
        row = session.get(Resource, rid)
        assert row is not None
        assert (row.action, row.status, row.atomic_key) == ("INIT", "COMPLETE", 0)
        assert list(session.scalars(select(Event))) == []


def test_stack_changes_merge_per_stack_and_store_json(database: Database) -> None:
    first, second = add_stack(database), add_stack(database)
    deps = {"spec": {"action": "CREATE"}, "nodes": [["u", "r0", []]]}
    with database.engine.begin() as conn:
        batch.apply(conn, [
            batch.StackChange(first, {"current_traversal": "t-1", "current_deps": deps}),
            batch.StackChange(second, {"status_reason": "second"}),
            # A later change of the same stack wins over the earlier one.
            batch.StackChange(first, {"current_traversal": "t-2"}),
        ])
    with database.session() as session:
        one, two = session.get(Stack, first), session.get(Stack, second)
        assert one is not None and two is not None
        assert (one.current_traversal, one.current_deps) == ("t-2", deps)
        assert two.status_reason == "second" and two.current_traversal != "t-2"


def test_a_step_whose_claim_was_taken_writes_nothing(database: Database) -> None:
    """An engine believed dead (a long pause) wakes after another engine took its step and
    ended it: the step's next writes are refused whole, and the ended row stays as it is."""
    stack_id = add_stack(database)
    (rid,) = _resources(database, stack_id, 1)
    mine = batch.ClaimHeld(rid, "paused-engine")
    with database.engine.begin() as conn:  # claimed, then written while the claim is its own
        batch.apply(conn, [batch.ResourceChange(rid, {"engine_id": "paused-engine"})])
        batch.apply(conn, [batch.ResourceChange(rid, {"action": "CREATE",
                                                      "status": "IN_PROGRESS"}), mine])
    # The step taken back and ended by another engine (the end ends the claim too).
    with database.engine.begin() as conn:
        batch.apply(conn, [batch.ResourceChange(rid, {"engine_id": "other-engine"})])
        batch.apply(conn, [batch.ResourceChange(rid, {"status": "COMPLETE",
                                                      "engine_id": None})])
    late = [
        batch.ResourceChange(rid, {"status": "IN_PROGRESS", "step_cookie": {"late": True}}),
        batch.event(stack_id, resource_name="r0", action="CREATE", status="IN_PROGRESS",
                    reason="late", physical_resource_id=None, resource_type="T"),
        batch.DataChange(rid, "value", "late"),
        mine,
    ]
    with pytest.raises(batch.ClaimLost), database.engine.begin() as conn:
        batch.apply(conn, late)
    with database.session() as session:
        row = session.get(Resource, rid)
        assert row is not None
        assert (row.action, row.status, row.step_cookie, row.engine_id) == (
            "CREATE", "COMPLETE", None, None)
        assert list(session.scalars(select(Event))) == []
        assert list(session.scalars(select(ResourceData))) == []

