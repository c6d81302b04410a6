"""A killed engine's stack is continued by another engine; big stacks; engine liveness."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from typing import Any

import pytest

from hearth.common.context import RequestContext
from hearth.engine.engine import Engine
from hearth.engine.plugin_access.plugin_context import EngineResourceContext, StackScope
from hearth.engine.running.records import ResourceRecord
from hearth.engine.running.run_end import RunEnd
from hearth.engine.services.nested import NestedStackService
from hearth.resources.builtin import testing_resource
from hearth.resources.builtin.software.config import SoftwareConfig
from hearth.store import batch
from hearth.store import locks as lock_store
from hearth.store import resources as resource_store
from hearth.store import stacks as stack_store
from tests.integration.engine.conftest import CTX, events, make_engine, resources, wait_state
from tests.integration.engine.test_lifecycle import rsrc, template

CHILD = textwrap.dedent(
    """
    import json, sys, time
    from hearth.common.context import RequestContext
    from tests.integration.engine.conftest import make_engine
    engine = make_engine(sys.argv[1], heartbeat_interval=0.3)
    ctx = RequestContext(project_id="tenant-a", user_id="user-a", username="alice")
    tmpl = json.loads(sys.argv[2])
    identity = engine.create_stack(ctx, "survivor", tmpl)
    print(json.dumps(identity), flush=True)
    time.sleep(600)
    """
)


def steal_lock(engine: Engine, stack_id: str) -> None:
    """Another engine ("other") takes the stack's lock from ``engine``, believing it dead."""
    with engine.core.db.session() as session:
        assert lock_store.steal(session, stack_id, engine.core.engine_id, "other")


def create_stopped_by_takeover(
    engine: Engine, name: str, resource: str, definition: dict[str, Any],
    left: tuple[str, str] = ("CREATE", "IN_PROGRESS"),
) -> dict[str, str]:
    """Create a stack of one resource whose handler finds its stack taken over: the run
    stops with the stack CREATE IN_PROGRESS and the resource as ``left`` (IN_PROGRESS
    unless nothing of its step was committed), no physical id recorded."""
    identity = engine.create_stack(CTX, name, template({resource: definition}))
    assert engine.actions.wait_idle(identity["stack_id"], 30)
    assert wait_state(engine, identity, until=lambda a, s: True)[:2] == (
        "CREATE", "IN_PROGRESS")
    row = resources(engine, identity)[resource]
    assert (row.action, row.status, row.physical_resource_id) == (*left, None)
    return identity


def test_a_killed_engines_stack_is_continued_by_another(engine_url: str) -> None:
    tmpl = template({
        "first": rsrc("a", wait_secs=2),
        "second": {**rsrc("b"), "depends_on": ["first"]},
    })
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, engine_url, json.dumps(tmpl)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.getcwd(),
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    try:
        assert child.stdout is not None
        identity = json.loads(child.stdout.readline())
        observer = make_engine(engine_url, heartbeat_interval=0.3)
        try:
            deadline = time.monotonic() + 20
            while resources(observer, identity)["first"].status != "IN_PROGRESS":
                assert time.monotonic() < deadline
                time.sleep(0.05)
        finally:
            observer.stop()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    # A new engine notices the dead one (missed heartbeats) and carries the create on.
    survivor = make_engine(engine_url, heartbeat_interval=0.3)
    try:
        state = wait_state(survivor, identity, timeout=30)
        assert state == ("CREATE", "COMPLETE", "Stack CREATE completed successfully")
        rows = resources(survivor, identity)
        assert {(r.action, r.status) for r in rows.values()} == {("CREATE", "COMPLETE")}
        # The resource in flight at the kill is continued, not started again: one
        # IN_PROGRESS event each, as without the kill.
        started = [e for e in events(survivor, identity) if e[2] == "IN_PROGRESS"]
        assert sorted(e[0] for e in started if e[0] != "survivor") == ["first", "second"]
        with survivor.core.db.session() as session:
            assert lock_store.holder(session, identity["stack_id"]) is None
    finally:
        survivor.stop()


def test_ten_thousand_resources_create_and_delete(any_db_url: str) -> None:
    engine = make_engine(any_db_url, max_resources_per_stack=-1)
    try:
        tmpl = template({f"r{i}": {"type": "OS::Heat::None"} for i in range(10000)})
        identity = engine.create_stack(CTX, "big", tmpl)
        assert wait_state(engine, identity, timeout=900)[:2] == ("CREATE", "COMPLETE")
        engine.delete_stack(CTX, identity)
        assert wait_state(engine, identity, timeout=900)[:2] == ("DELETE", "COMPLETE")
    finally:
        engine.stop()


def test_engine_registers_and_reports(engine: Engine) -> None:
    services: list[dict[str, Any]] = engine.list_services(RequestContext.admin())
    assert [s["engine_id"] for s in services] == [engine.core.engine_id]
    assert services[0]["status"] == "up"



def test_an_update_whose_engine_died_before_it_began_is_carried_out(
    engine_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = make_engine(engine_url)
    try:
        identity = first.create_stack(CTX, "orphan", template({"a": rsrc("one")}))
        assert wait_state(first, identity)[:2] == ("CREATE", "COMPLETE")
        # The engine dies between storing the update (template, state, lock) and starting it.
        monkeypatch.setattr(first.actions, "launch", lambda *args, **kwargs: None)
        first.update_stack(CTX, identity, template({"a": rsrc("two")}))
    finally:
        first.stop(graceful=False)
    survivor = make_engine(engine_url, heartbeat_interval=0.3)
    try:
        state = wait_state(survivor, identity, timeout=30)
        assert state == ("UPDATE", "COMPLETE", "Stack UPDATE completed successfully")
        # Updated, not skipped as done by the create's traversal.
        assert ("a", "UPDATE", "COMPLETE", "state changed") in events(survivor, identity)
        with survivor.core.db.session() as session:
            value = resource_store.data_all(
                session, resources(survivor, identity)["a"].id, survivor.core.encryptor)
        assert value["value"] == "two"
    finally:
        survivor.stop()


@pytest.mark.parametrize("action", ["CREATE", "DELETE"])
def test_an_end_whose_lock_another_engine_took_writes_nothing(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, action: str
) -> None:
    # Another engine took the stack over (it believed this one dead) just as the run ended:
    # the end's transaction is rolled back whole, and the lock stays the other engine's.
    name = f"taken-{action.lower()}"
    original = RunEnd._write_end

    def taken_over_first(run: RunEnd, *args: Any) -> Any:
        if run.stack_name == name and run.action == action:
            steal_lock(engine, run.stack_id)
        return original(run, *args)

    monkeypatch.setattr(RunEnd, "_write_end", taken_over_first)
    identity = engine.create_stack(CTX, name, template({"a": rsrc("a")}))
    if action == "DELETE":
        assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
        engine.delete_stack(CTX, identity)
    assert engine.actions.wait_idle(identity["stack_id"], 30)
    state = wait_state(engine, identity, until=lambda a, s: True)
    assert state[:2] == (action, "IN_PROGRESS")
    assert resources(engine, identity)["a"].action == action  # its resource did finish
    with engine.core.db.session() as session:
        assert lock_store.holder(session, identity["stack_id"]) == "other"
    assert [e[2] for e in events(engine, identity) if e[0] == name and e[1] == action] == [
        "IN_PROGRESS"]


def test_a_handlers_write_after_another_engine_took_the_stack_writes_nothing(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An update's handler runs in a worker and writes its resource data at once. Another
    # engine took the stack over (it believed this one dead) while the handler ran: that
    # write is refused, and this engine's run stops there, leaving the stack to the other.
    original = testing_resource.TestResource.handle_update

    def taken_over_first(plugin: testing_resource.TestResource, *args: Any) -> Any:
        steal_lock(engine, plugin.context.stack_id)
        return original(plugin, *args)

    identity = engine.create_stack(CTX, "taken-in-handler", template({"a": rsrc("first")}))
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    monkeypatch.setattr(testing_resource.TestResource, "handle_update", taken_over_first)
    engine.update_stack(CTX, identity, template({"a": rsrc("second")}))
    assert engine.actions.wait_idle(identity["stack_id"], 30)
    assert wait_state(engine, identity, until=lambda a, s: True)[:2] == (
        "UPDATE", "IN_PROGRESS")
    row = resources(engine, identity)["a"]
    assert (row.action, row.status) == ("UPDATE", "IN_PROGRESS")
    with engine.core.db.session() as session:
        data = resource_store.data_all(session, row.id, engine.core.encryptor)
        assert data["value"] == "first"
        assert lock_store.holder(session, identity["stack_id"]) == "other"


def test_a_software_config_made_after_another_engine_took_the_stack_is_not_stored(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A SoftwareConfig's handler stores its config row; another engine took the stack over
    # meanwhile (and stores the config itself, as the step's new owner): this engine stores
    # none, which would be left behind with no resource to delete it.
    original = SoftwareConfig.handle_create

    def taken_over_first(plugin: SoftwareConfig) -> None:
        steal_lock(engine, plugin.context.stack_id)
        original(plugin)

    monkeypatch.setattr(SoftwareConfig, "handle_create", taken_over_first)
    config = {"type": "OS::Heat::SoftwareConfig", "properties": {"config": "echo hi"}}
    identity = create_stopped_by_takeover(engine, "taken-before-config", "config", config)
    assert engine.core.software is not None
    assert engine.core.software.list_software_configs(CTX) == []
    with engine.core.db.session() as session:
        assert lock_store.holder(session, identity["stack_id"]) == "other"


def test_a_metadata_merge_after_another_engine_took_the_stack_writes_nothing(
    engine: Engine,
) -> None:
    # A blocking handler merges into its resource's metadata (a scaling group's cooldown,
    # a server's deployments) after another engine took the stack over: refused whole, and
    # the step is cancelled.
    identity = engine.create_stack(CTX, "taken-before-merge", template({"a": rsrc("a")}))
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    with engine.core.db.session() as session:
        record = ResourceRecord.from_row(resource_store.of_stack(session, identity["stack_id"])[0])
    with engine.core.db.session() as session:  # as an action of this engine holds it
        assert lock_store.try_insert(session, identity["stack_id"], engine.core.engine_id)
    fence = batch.LockHeld(identity["stack_id"], engine.core.engine_id)
    context = EngineResourceContext(
        engine.core, record, StackScope("taken-before-merge", CTX.project_id, "UPDATE"),
        fences=lambda: [fence],
    )
    steal_lock(engine, identity["stack_id"])
    with pytest.raises(batch.LockLost):
        context.metadata_merge(lambda old: {**(old or {}), "merged": True})
    assert context.cancelled()
    assert resources(engine, identity)["a"].rsrc_metadata in (None, {})


def test_a_child_stack_after_another_engine_took_its_parent_is_not_stored(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The parent's step makes its child stack; another engine took the parent over meanwhile
    # (and makes the child itself, as the step's new owner): this engine stores none.
    original = NestedStackService.create

    def taken_over_first(service: NestedStackService, parent: Any, *args: Any,
                         **kwargs: Any) -> Any:
        steal_lock(engine, parent.stack_id)
        return original(service, parent, *args, **kwargs)

    monkeypatch.setattr(NestedStackService, "create", taken_over_first)
    child = {"heat_template_version": "2016-10-14", "resources": {"c": rsrc("inner")}}
    nest = {"type": "OS::Heat::Stack", "properties": {"template": json.dumps(child)}}
    # Its IN_PROGRESS was to be committed with the child's store, which the lost lock
    # refused: the resource is left as it was, for the new owner to create.
    identity = create_stopped_by_takeover(engine, "taken-before-child", "nest", nest,
                                          left=("INIT", "COMPLETE"))
    with engine.core.db.session() as session:
        assert stack_store.children(session, identity["stack_id"]) == []
        assert lock_store.holder(session, identity["stack_id"]) == "other"


@pytest.mark.parametrize("action", ["UPDATE", "CHECK"])
def test_a_child_action_after_another_engine_took_its_parent_is_not_begun(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, action: str
) -> None:
    # The parent's step begins an action of its child; another engine took the parent over
    # meanwhile (and carries the step on itself): this engine begins nothing on the child,
    # so an old definition cannot overwrite what its successor gives the child.
    def nest(value: str) -> dict[str, Any]:
        child = {"heat_template_version": "2016-10-14", "resources": {"c": rsrc(value)}}
        return {"type": "OS::Heat::Stack", "properties": {"template": json.dumps(child)}}

    name = f"taken-before-child-{action.lower()}"
    identity = engine.create_stack(CTX, name, template({"nest": nest("one")}))
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    child = {"stack_id": resources(engine, identity)["nest"].physical_resource_id}
    method = "update" if action == "UPDATE" else "act"
    original = getattr(NestedStackService, method)

    def taken_over_first(service: NestedStackService, *args: Any) -> Any:
        steal_lock(engine, identity["stack_id"])
        return original(service, *args)

    monkeypatch.setattr(NestedStackService, method, taken_over_first)
    if action == "UPDATE":
        engine.update_stack(CTX, identity, template({"nest": nest("two")}))
    else:
        engine.stack_check(CTX, identity)
    assert engine.actions.wait_idle(identity["stack_id"], 30)
    assert wait_state(engine, identity, until=lambda a, s: True)[:2] == (
        action, "IN_PROGRESS")
    assert wait_state(engine, child)[:2] == ("CREATE", "COMPLETE")
    inner = resources(engine, child)["c"]
    with engine.core.db.session() as session:
        data = resource_store.data_all(session, inner.id, engine.core.encryptor)
        assert lock_store.holder(session, identity["stack_id"]) == "other"
    assert (inner.action, data["value"]) == ("CREATE", "one")
