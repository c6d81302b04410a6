"""After a replacement that failed: which row an update starts from, as Heat's convergence
engine chooses it (upstream test_stack_update_replace_manual_rollback).

The old row stays, marked replaced, next to its failed replacement. An update back to the
old definition keeps the old row (same physical id) and only deletes the failed one; any
other update replaces the old row again; a rollback brings the old row back (the plugin's
``restore_prev_rsrc`` told the replacement's id) and deletes the replacement.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import select

from hearth.engine.engine import Engine
from hearth.store import queries
from hearth.store import resources as resource_store
from hearth.store.models import RawTemplate
from tests.integration.engine.conftest import CTX, engine_with_plugin, events, stack_row, wait_state
from tests.integration.engine.test_lifecycle import template

Event = tuple[str, str, str, str]


def one(replace_value: str, **props: Any) -> dict[str, Any]:
    return {
        "type": "OS::Heat::TestResource",
        "properties": {"value": "Test1", "update_replace_value": replace_value, **props},
    }


def dependant() -> dict[str, Any]:
    return {"type": "OS::Heat::TestResource",
            "properties": {"value": {"get_resource": "test1"}}}


def rows(engine: Engine, identity: dict[str, str]) -> list[Any]:
    """Every resource row of the stack, replaced and failed ones too."""
    with engine.core.db.session() as session:
        return resource_store.of_stack(session, identity["stack_id"])


def row_of(engine: Engine, identity: dict[str, str], name: str) -> Any:
    found = [r for r in rows(engine, identity) if r.name == name]
    assert len(found) == 1, [(r.id, r.action, r.status, r.replaced_by) for r in found]
    return found[0]


def update(engine: Engine, identity: dict[str, str], tmpl: dict[str, Any],
           rollback: bool = False) -> tuple[str, str]:
    engine.update_stack(CTX, identity, tmpl, args={"disable_rollback": not rollback})
    return wait_state(engine, identity)[:2]


def events_since(engine: Engine, identity: dict[str, str], count: int) -> list[Event]:
    return events(engine, identity)[count:]


def failed_replacement(
    engine: Engine, extra: dict[str, Any] | None = None, rollback: bool = False
) -> tuple[dict[str, str], Any]:
    """A stack whose test1 failed to be replaced; returns it and test1's original row."""
    identity = engine.create_stack(CTX, "s", template({"test1": one("1"), **(extra or {})}))
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    original = row_of(engine, identity, "test1")
    state = update(engine, identity, template({"test1": one("2", fail=True),
                                               **(extra or {})}), rollback=rollback)
    if not rollback:
        assert state == ("UPDATE", "FAILED")
        both = [r for r in rows(engine, identity) if r.name == "test1"]
        assert [(r.id, r.action, r.status, r.replaced_by) for r in both] == [
            (original.id, "UPDATE", "COMPLETE", both[1].id),
            (both[1].id, "CREATE", "FAILED", None),
        ]
    return identity, original


def stored_templates(engine: Engine) -> int:
    with engine.core.db.session() as session:
        return len(list(session.scalars(select(RawTemplate.id))))


def physical_ids_of_events(engine: Engine, identity: dict[str, str], count: int,
                           name: str) -> list[str]:
    with engine.core.db.session() as session:
        found = queries.list_events(session, stack_ids=[identity["stack_id"]], sort_dir="asc")
        return [e.physical_resource_id for e in found[count:] if e.resource_name == name]


def test_update_back_to_the_old_definition_keeps_the_old_resource(engine: Engine) -> None:
    identity, original = failed_replacement(engine)
    seen = len(events(engine, identity))
    assert update(engine, identity, template({"test1": one("1")})) == ("UPDATE", "COMPLETE")
    kept = row_of(engine, identity, "test1")
    assert kept.id == original.id
    assert kept.physical_resource_id == original.physical_resource_id
    assert (kept.action, kept.status, kept.replaced_by) == ("UPDATE", "COMPLETE", None)
    # Now on the stack's template, as Heat records an unchanged resource.
    assert kept.current_template_id == stack_row(engine, identity).raw_template_id
    # Only the failed replacement was acted on: deleted (it never got a physical id).
    assert events_since(engine, identity, seen) == [
        ("s", "UPDATE", "IN_PROGRESS", "Stack UPDATE started"),
        ("test1", "DELETE", "IN_PROGRESS", "state changed"),
        ("test1", "DELETE", "COMPLETE", "state changed"),
        ("s", "UPDATE", "COMPLETE", "Stack UPDATE completed successfully"),
    ]
    assert physical_ids_of_events(engine, identity, seen, "test1") == ["", ""]
    # The stack's template is the only one left (the failed one and the first are unused).
    assert stored_templates(engine) == 1
    # And the next update starts from it as from any resource.
    seen = len(events(engine, identity))
    assert update(engine, identity, template({"test1": one("1", value="Test2")})) == (
        "UPDATE", "COMPLETE")
    assert row_of(engine, identity, "test1").id == original.id
    assert [e[:3] for e in events_since(engine, identity, seen) if e[0] == "test1"] == [
        ("test1", "UPDATE", "IN_PROGRESS"), ("test1", "UPDATE", "COMPLETE"),
    ]


def test_another_update_after_a_failed_replacement_replaces_again(engine: Engine) -> None:
    identity, original = failed_replacement(engine)
    failed = next(r for r in rows(engine, identity) if r.replaces == original.id)
    seen = len(events(engine, identity))
    assert update(engine, identity, template({"test1": one("3")})) == ("UPDATE", "COMPLETE")
    new = row_of(engine, identity, "test1")
    # A new row (SQLite may give it the failed row's id again once that row is deleted:
    # its ids are max + 1, so the physical id and state tell the rows apart).
    assert new.id != original.id
    assert failed.physical_resource_id is None
    assert new.physical_resource_id not in (original.physical_resource_id, None)
    assert (new.action, new.status, new.replaced_by) == ("CREATE", "COMPLETE", None)
    # The original is what was replaced (the failed row is only deleted).
    assert new.replaces == original.id
    got = events_since(engine, identity, seen)
    assert got[0] == ("s", "UPDATE", "IN_PROGRESS", "Stack UPDATE started")
    assert got[-1] == ("s", "UPDATE", "COMPLETE", "Stack UPDATE completed successfully")
    # (How a replacement is announced is not what this test is about.)
    assert sorted(e[1:] for e in got[1:-1] if e[1:3] != ("UPDATE", "IN_PROGRESS")) == sorted([
        ("UPDATE", "COMPLETE", "The Resource test1 requires replacement."),
        ("CREATE", "IN_PROGRESS", "state changed"),
        ("CREATE", "COMPLETE", "state changed"),
        # The failed replacement, then the original.
        ("DELETE", "IN_PROGRESS", "state changed"),
        ("DELETE", "COMPLETE", "state changed"),
        ("DELETE", "IN_PROGRESS", "state changed"),
        ("DELETE", "COMPLETE", "state changed"),
    ])
    # The original goes last, after its replacement exists.
    deleted = physical_ids_of_events(engine, identity, seen, "test1")
    assert deleted[-1] == original.physical_resource_id
    assert stored_templates(engine) == 1


def test_update_back_with_a_dependant_leaves_both_alone(engine: Engine) -> None:
    identity, original = failed_replacement(engine, {"dep": dependant()})
    dep = row_of(engine, identity, "dep")
    seen = len(events(engine, identity))
    assert update(engine, identity, template({"test1": one("1"), "dep": dependant()})) == (
        "UPDATE", "COMPLETE")
    assert row_of(engine, identity, "test1").physical_resource_id == (
        original.physical_resource_id)
    after = row_of(engine, identity, "dep")
    assert (after.id, after.action, after.status) == (dep.id, "CREATE", "COMPLETE")
    assert {e[0] for e in events_since(engine, identity, seen)} == {"s", "test1"}


def test_another_update_with_a_dependant_replaces_and_updates_it(engine: Engine) -> None:
    identity, original = failed_replacement(engine, {"dep": dependant()})
    dep = row_of(engine, identity, "dep")
    seen = len(events(engine, identity))
    assert update(engine, identity, template({"test1": one("3"), "dep": dependant()})) == (
        "UPDATE", "COMPLETE")
    new = row_of(engine, identity, "test1")
    assert new.physical_resource_id != original.physical_resource_id
    after = row_of(engine, identity, "dep")
    assert (after.id, after.action, after.status) == (dep.id, "UPDATE", "COMPLETE")
    assert after.requires == [new.id]
    got = [e for e in events_since(engine, identity, seen) if e[0] != "s"]
    # The original is deleted only after its dependant moved to the replacement.
    dep_done = got.index(("dep", "UPDATE", "COMPLETE", "state changed"))
    last_delete = max(i for i, e in enumerate(got) if e[:3] == ("test1", "DELETE", "COMPLETE"))
    assert dep_done < last_delete
    assert len(rows(engine, identity)) == 2


def test_rollback_of_a_failed_replacement_keeps_the_old_resource(engine: Engine) -> None:
    identity, original = failed_replacement(engine, rollback=True)
    assert wait_state(engine, identity)[:2] == ("ROLLBACK", "COMPLETE")
    kept = row_of(engine, identity, "test1")
    assert (kept.id, kept.physical_resource_id, kept.replaced_by) == (
        original.id, original.physical_resource_id, None)
    # Untouched by the rollback: still what the replacement left it.
    assert (kept.action, kept.status, kept.status_reason) == (
        "UPDATE", "COMPLETE", "The Resource test1 requires replacement.")
    failure = "ValueError: resources.test1: Test Resource failed test1"
    assert events(engine, identity)[-7:] == [
        ("test1", "CREATE", "IN_PROGRESS", "state changed"),
        ("test1", "CREATE", "FAILED", failure),
        ("s", "UPDATE", "FAILED", f"Resource CREATE failed: {failure}"),
        ("s", "ROLLBACK", "IN_PROGRESS", "Stack ROLLBACK started"),
        ("test1", "DELETE", "IN_PROGRESS", "state changed"),
        ("test1", "DELETE", "COMPLETE", "state changed"),
        ("s", "ROLLBACK", "COMPLETE", "Stack ROLLBACK completed successfully"),
    ]


def test_rollback_after_a_replacement_that_worked_brings_the_old_one_back(
    engine: Engine,
) -> None:
    # The replacement was made, something else failed: the rollback keeps the original.
    identity = engine.create_stack(CTX, "s", template({"test1": one("1")}))
    wait_state(engine, identity)
    original = row_of(engine, identity, "test1")
    bad = {"type": "OS::Heat::TestResource", "properties": {"fail": True},
           "depends_on": ["test1"]}
    assert update(engine, identity, template({"test1": one("2"), "bad": bad}),
                  rollback=True) == ("ROLLBACK", "COMPLETE")
    kept = row_of(engine, identity, "test1")
    assert (kept.id, kept.physical_resource_id, kept.replaced_by) == (
        original.id, original.physical_resource_id, None)
    assert {r.name for r in rows(engine, identity)} == {"test1"}
    rolled = events(engine, identity)
    rolled = rolled[rolled.index(("s", "ROLLBACK", "IN_PROGRESS", "Stack ROLLBACK started")):]
    assert sorted(e[:3] for e in rolled[1:-1]) == sorted([
        ("bad", "DELETE", "IN_PROGRESS"), ("bad", "DELETE", "COMPLETE"),
        ("test1", "DELETE", "IN_PROGRESS"), ("test1", "DELETE", "COMPLETE"),
    ])


PLUGIN = '''
from hearth.resources.base import Resource
from hearth.resources.schema import PropertySchema

LOG = []


class Addressed(Resource):
    """Gives its address up to a replacement, and takes it back on a rollback."""

    properties_schema = {
        "size": PropertySchema(PropertySchema.STRING, "replaces on change"),
        "fail": PropertySchema(PropertySchema.BOOLEAN, "fail the create", default=False,
                               update_allowed=True),
    }

    def handle_create(self):
        if self.properties["fail"]:
            self.resource_id_set(f"obj-{self.properties['size']}")
            raise ValueError("no room")
        self.resource_id_set(f"obj-{self.properties['size']}")

    def handle_delete(self):
        LOG.append(("delete", self.resource_id))

    def prepare_for_replace(self):
        LOG.append(("prepare", self.resource_id))

    def restore_prev_rsrc(self, replacement_id):
        LOG.append(("restore", self.resource_id, replacement_id))


def resource_mapping():
    return {"Test::Addressed": Addressed}
'''


def addressed(size: str, fail: bool = False) -> dict[str, Any]:
    return template({"a": {"type": "Test::Addressed",
                           "properties": {"size": size, "fail": fail}}})


def plugin_engine(factory: Callable[..., Engine], tmp_path: Path) -> tuple[Engine, Any]:
    engine, module = engine_with_plugin(factory, tmp_path, "addressed_types", PLUGIN)
    module.LOG.clear()
    return engine, module


def test_a_rollback_lets_the_plugin_restore_what_the_replacement_took(
    engine_factory: Callable[..., Engine], tmp_path: Path,
) -> None:
    engine, module = plugin_engine(engine_factory, tmp_path)
    identity = engine.create_stack(CTX, "s", addressed("1"))
    wait_state(engine, identity)
    assert update(engine, identity, addressed("2", fail=True), rollback=True) == (
        "ROLLBACK", "COMPLETE")
    assert module.LOG == [
        ("prepare", "obj-1"), ("restore", "obj-1", "obj-2"), ("delete", "obj-2"),
    ]
    assert row_of(engine, identity, "a").physical_resource_id == "obj-1"


def test_an_update_back_by_hand_restores_nothing(
    engine_factory: Callable[..., Engine], tmp_path: Path,
) -> None:
    # Heat asks the plugin to restore only in a rollback.
    engine, module = plugin_engine(engine_factory, tmp_path)
    identity = engine.create_stack(CTX, "s", addressed("1"))
    wait_state(engine, identity)
    assert update(engine, identity, addressed("2", fail=True)) == ("UPDATE", "FAILED")
    assert update(engine, identity, addressed("1")) == ("UPDATE", "COMPLETE")
    assert module.LOG == [("prepare", "obj-1"), ("delete", "obj-2")]
    assert row_of(engine, identity, "a").physical_resource_id == "obj-1"
