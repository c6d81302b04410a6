"""The models against real databases: values come back as stored, dependents cascade."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from hearth.store.db import Database
from hearth.store.models import (
    Event,
    RawTemplate,
    RawTemplateFiles,
    Resource,
    ResourceData,
    ResourceSnapshot,
    Snapshot,
    Stack,
    StackLock,
    StackTag,
)
from tests.integration.store.conftest import add_stack

BIG = "x" * 300_000  # beyond MariaDB's 64 KiB TEXT


def test_stack_with_tags_resources_and_events_round_trips(database: Database) -> None:
    with database.session() as session:
        files = RawTemplateFiles(files={"big.sh": BIG, "ünï.yaml": "a: ✓"})
        session.add(files)
        session.flush()
        template = RawTemplate(
            template={"resources": {"r": {"type": "OS::Heat::None"}}},
            files_id=files.id,
            environment={"parameters": {}},
        )
        session.add(template)
        session.flush()
        stack = Stack(
            name="strange ✓ name",
            raw_template_id=template.id,
            tenant="p",
            disable_rollback=False,
            action="CREATE",
            status="IN_PROGRESS",
            current_deps={"edges": [[[1, True], [2, True]]]},
            tags=[StackTag(tag="a"), StackTag(tag="b")],
        )
        session.add(stack)
        session.flush()
        session.add_all(
            [
                Resource(
                    name="r",
                    stack_id=stack.id,
                    resource_type="OS::Heat::None",
                    requires=[3, 4],
                    definition={"type": "OS::Heat::None", "properties": {"v": BIG}},
                    step_cookie=None,
                    attr_data={"value": [1, None, {"k": False}]},
                ),
                Event(stack_id=stack.id, resource_name="r", resource_status_reason="R" * 1000),
                Event(stack_id=stack.id, resource_name="r2"),
            ]
        )
        stack_id = stack.id

    with database.session(readonly=True) as session:
        stack = session.get_one(Stack, stack_id)
        assert len(stack_id) == 36
        assert stack.name == "strange ✓ name"
        assert sorted(t.tag for t in stack.tags) == ["a", "b"]
        assert stack.current_deps == {"edges": [[[1, True], [2, True]]]}
        assert stack.outputs is None
        assert (stack.backup, stack.nested_depth, stack.convergence) == (False, 0, False)
        assert isinstance(stack.created_at, datetime) and stack.created_at.tzinfo is None
        # Set by the engine when an update is asked for, not on every write.
        assert stack.updated_at is None
        template = session.get_one(RawTemplate, stack.raw_template_id)
        assert session.get_one(RawTemplateFiles, template.files_id).files == {
            "big.sh": BIG,
            "ünï.yaml": "a: ✓",
        }
        resource = session.scalars(select(Resource).where(Resource.stack_id == stack_id)).one()
        assert resource.requires == [3, 4]
        assert resource.definition == {"type": "OS::Heat::None", "properties": {"v": BIG}}
        assert resource.attr_data == {"value": [1, None, {"k": False}]}
        assert resource.step_cookie is None and resource.rsrc_metadata is None
        assert resource.atomic_key == 0 and len(resource.uuid) == 36
        events = session.scalars(
            select(Event).where(Event.stack_id == stack_id).order_by(Event.id)
        ).all()
        assert [e.resource_name for e in events] == ["r", "r2"]
        assert events[0].resource_status_reason == "R" * 255
        # JSON None is SQL NULL, so that IS NULL queries find it.
        null_outputs = select(func.count()).where(Stack.id == stack_id, Stack.outputs.is_(None))
        assert session.scalar(null_outputs) == 1


def test_updated_at_follows_writes_except_where_the_engine_sets_it(database: Database) -> None:
    stack_id = add_stack(database)
    with database.session() as session:
        template = session.get_one(RawTemplate, session.get_one(Stack, stack_id).raw_template_id)
        assert template.updated_at is None
        template.environment = {"parameters": {"x": 1}}
        session.get_one(Stack, stack_id).status = "COMPLETE"
    with database.session() as session:
        stack = session.get_one(Stack, stack_id)
        assert session.get_one(RawTemplate, stack.raw_template_id).updated_at is not None
        assert stack.updated_at is None


def test_timestamps_keep_microseconds(database: Database) -> None:
    moment = datetime(2024, 5, 6, 7, 8, 9, 123456)
    stack_id = add_stack(database, deleted_at=moment)
    with database.session() as session:
        assert session.get_one(Stack, stack_id).deleted_at == moment


def test_names_compare_case_sensitively_on_every_backend(database: Database) -> None:
    add_stack(database, name="Web")
    add_stack(database, name="web")
    with database.session() as session:
        assert session.scalars(select(Stack.name).where(Stack.name == "web")).all() == ["web"]


def test_resource_data_key_is_unique_per_resource(database: Database) -> None:
    stack_id = add_stack(database)
    with database.session() as session:
        resource = Resource(name="r", stack_id=stack_id)
        session.add(resource)
        session.flush()
        resource_id = resource.id
        session.add(ResourceData(resource_id=resource_id, key="k", value=BIG, redact=True))
    with pytest.raises(IntegrityError), database.session() as session:
        session.add(ResourceData(resource_id=resource_id, key="k", value="again"))
    with database.session() as session:
        stored = session.scalars(select(ResourceData)).one()
        assert (stored.value, stored.redact) == (BIG, True)


def test_deleting_a_stack_row_removes_its_dependents(database: Database) -> None:
    stack_id = add_stack(database, tags=[StackTag(tag="t")])
    with database.session() as session:
        resource = Resource(name="r", stack_id=stack_id)
        snapshot = Snapshot(stack_id=stack_id, tenant="project-a", name="snap")
        session.add_all([resource, snapshot, StackLock(stack_id=stack_id, engine_id="e1")])
        session.flush()
        session.add_all(
            [
                ResourceData(resource_id=resource.id, key="k", value="v"),
                Event(stack_id=stack_id, resource_name="r"),
                ResourceSnapshot(snapshot_id=snapshot.id, resource_name="r", data={}),
            ]
        )
    with database.session() as session:
        session.delete(session.get_one(Stack, stack_id))
    with database.session() as session:
        for model in (
            Stack, StackTag, StackLock, Resource, ResourceData, Event, Snapshot, ResourceSnapshot
        ):
            assert session.scalar(select(func.count()).select_from(model)) == 0, model
        # The template is the stack's parent, not its dependent: purging handles it.
        assert session.scalar(select(func.count()).select_from(RawTemplate)) == 1


def test_a_stack_needs_an_existing_template(database: Database) -> None:
    with pytest.raises(IntegrityError), database.session() as session:
        session.add(Stack(name="s", raw_template_id=12345, disable_rollback=True))
