"""``hearth api`` + two ``hearth engine`` processes over RabbitMQ and PostgreSQL: calls and
errors cross the bus, stacks are spread over the engines, and a killed engine's stack is
finished by the other."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import sqlalchemy as sa
from heatclient import client as heat_client
from heatclient import exc as heat_exc

from tests.integration.cluster.cluster_process import Cluster, fresh_cluster
from tests.integration.conftest import DatabaseFactory
from tests.integration.serve_process import StackApi

# With the other tests on the machine's RabbitMQ (test_cluster_kills restarts it).
pytestmark = pytest.mark.xdist_group("rabbitmq")

SLOW = {
    "heat_template_version": "2018-08-31",
    "parameters": {"wait": {"type": "number", "default": 1}},
    "resources": {
        f"r{i}": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": f"v{i}", "action_wait_secs": {"create": {"get_param": "wait"},
                                                                  "delete": 0}},
            **({"depends_on": [f"r{i - 1}"]} if i else {}),
        }
        for i in range(6)
    },
    "outputs": {"last": {"value": {"get_attr": ["r5", "output"]}}},
}


# Waiting steps each engine runs itself before it offers further ones to the others.
SPREAD_AFTER = 4


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory,
            database_factory: DatabaseFactory) -> Iterator[Cluster]:
    with fresh_cluster(tmp_path_factory.mktemp("cluster"), database_factory,
                       options={"spread_steps_after": SPREAD_AFTER,
                                "spread_nested_steps": True}) as running:
        yield running


@pytest.fixture()
def heat(cluster: Cluster) -> Any:
    return heat_client.Client("1", endpoint=cluster.endpoint, token="unused")


def _lock_holders(db_url: str) -> dict[str, str]:
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT stack_id, engine_id FROM stack_lock"))
            return {str(r.stack_id): str(r.engine_id) for r in rows}
    finally:
        engine.dispose()


def test_calls_answers_and_errors_cross_the_bus(cluster: Cluster, heat: Any) -> None:
    template = {"heat_template_version": "2018-08-31",
                "resources": {"word": {"type": "OS::Heat::RandomString",
                                       "properties": {"length": 12}}},
                "outputs": {"word": {"value": {"get_attr": ["word", "value"]}}}}
    created = heat.stacks.create(stack_name="bus-one", template=template)
    api = StackApi(cluster.endpoint)
    assert api.wait(created["stack"]["id"]) == ("CREATE_COMPLETE", "Stack CREATE completed "
                                                "successfully")
    stack = heat.stacks.get("bus-one")
    assert len(stack.outputs[0]["output_value"]) == 12

    # The engine's error keeps its type, message and status across the wire.
    with pytest.raises(heat_exc.HTTPConflict) as conflict:
        heat.stacks.create(stack_name="bus-one", template=template)
    assert "The Stack (bus-one) already exists" in str(conflict.value)
    missing = requests.get(f"{cluster.endpoint}/stacks/nothing-here", timeout=30)
    assert missing.status_code == 404
    assert missing.json()["error"]["type"] == "EntityNotFound"
    bad = requests.post(f"{cluster.endpoint}/validate", timeout=30, json={"template": {
        "heat_template_version": "2018-08-31",
        "resources": {"x": {"type": "OS::Heat::None", "depends_on": ["nowhere"]}}}})
    assert bad.status_code == 400
    assert bad.json()["error"]["type"] == "InvalidTemplateReference"
    assert "nowhere" in bad.json()["error"]["message"]

    # Every engine is listed, up, with its heartbeat.
    services = requests.get(f"{cluster.endpoint}/services", timeout=30)
    assert services.status_code == 200, services.text
    listed = {s["engine_id"]: s for s in services.json()["services"]}
    assert set(cluster.engine_ids()) <= set(listed)
    for engine_id in cluster.engine_ids():
        assert listed[engine_id]["status"] == "up"
        assert listed[engine_id]["binary"] == "hearth-engine"
        assert listed[engine_id]["updated_at"] is not None
    # The API's two worker processes report themselves through the engines.
    apis = [s for s in listed.values() if s["binary"] == "hearth-api" and s["status"] == "up"]
    assert len(apis) == 2


def test_service_list_command_shows_every_engine(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hearth.cli.main import main

    for name in ("OS_AUTH_URL", "OS_CLOUD", "OS_TOKEN", "HEARTH_URL", "HEARTH_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HEARTH_URL", cluster.endpoint.rsplit("/v1/", 1)[0])
    monkeypatch.setenv("HEARTH_PROJECT", "demo")
    capsys.readouterr()
    assert main(["service", "list", "-f", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    up = {row["engine_id"] for row in listed if row["status"] == "up"}
    assert set(cluster.engine_ids()) <= up
    assert {row["binary"] for row in listed} == {"hearth-engine", "hearth-api"}


def test_metrics_of_the_api_workers_and_each_engine(cluster: Cluster) -> None:
    api = StackApi(cluster.endpoint)
    stack_id = api.create("counted", SLOW, {"wait": 0})
    assert api.wait(stack_id)[0] == "CREATE_COMPLETE"
    # Any API worker answers with the totals of both.
    text = requests.get(f"{cluster.endpoint.split('/v1/')[0]}/metrics", timeout=30).text
    assert 'hearth_api_requests_total{method="POST"' in text
    urls = cluster.engine_metrics_urls()
    assert len(urls) == len(cluster.engines)
    steps = 0.0
    for url in urls:
        for line in requests.get(url, timeout=30).text.splitlines():
            if line.startswith("hearth_resource_steps_total{") and 'outcome="complete"' in line:
                steps += float(line.rsplit(" ", 1)[1])
    assert steps >= 6  # the stack's six resources, counted by the engine that ran them
    assert requests.get(f"{cluster.endpoint.split('/v1/')[0]}/healthcheck",
                        timeout=30).text == "OK"


def test_second_update_supersedes_the_first_across_the_cluster(cluster: Cluster) -> None:
    api = StackApi(cluster.endpoint)
    stack_id = api.create("superseded", SLOW, {"wait": 0})
    assert api.wait(stack_id)[0] == "CREATE_COMPLETE"
    slow_update = {**SLOW, "resources": {
        name: {**body, "properties": {**body["properties"], "value": f"{name}-first",
                                      "action_wait_secs": {"update": 1}}}
        for name, body in SLOW["resources"].items()}}
    api.update("superseded", stack_id, slow_update, {})
    time.sleep(1.5)  # the first update is under way
    newest = {**SLOW, "resources": {
        name: {**body, "properties": {**body["properties"], "value": f"{name}-newest"}}
        for name, body in SLOW["resources"].items()}}
    api.update("superseded", stack_id, newest, {})  # 202, not 409
    assert api.wait(stack_id) == ("UPDATE_COMPLETE", "Stack UPDATE completed successfully")
    shown = requests.get(f"{cluster.endpoint}/stacks/superseded/{stack_id}",
                         timeout=30).json()["stack"]
    assert shown["outputs"][0]["output_value"] == "r5-newest"
    resources = requests.get(f"{cluster.endpoint}/stacks/superseded/{stack_id}/resources",
                             timeout=30).json()["resources"]
    assert {r["resource_status"] for r in resources} == {"UPDATE_COMPLETE"}


def test_stacks_are_spread_over_the_engines(cluster: Cluster, heat: Any) -> None:
    api = StackApi(cluster.endpoint)
    ids = [api.create(f"spread-{i}", SLOW, {"wait": 2}) for i in range(6)]
    holders = _lock_holders(cluster.db_url)
    running_on = {holders[i] for i in ids if i in holders}
    assert running_on <= set(cluster.engine_ids())
    assert len(running_on) == 2, f"stacks ran on {running_on}"
    for stack_id in ids:
        assert api.wait(stack_id)[0] == "CREATE_COMPLETE"


# Independent resources that each wait in create and delete: one stack's steps to spread
# (more of them than an engine keeps for itself).
WIDE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        f"w{i}": {"type": "OS::Heat::TestResource",
                  "properties": {"value": f"v{i}",
                                 "action_wait_secs": {"create": 2, "delete": 1}}}
        for i in range(12)
    },
    "outputs": {"values": {"value": [{"get_attr": [f"w{i}", "output"]} for i in range(12)]}},
}


def _engines_until_done(db_url: str, api: StackApi, stack_id: str, seen_query: str
                        ) -> tuple[tuple[str, str], set[str]]:
    """The stack's end, and every engine ``seen_query`` (given the stack's id as ``s``)
    names meanwhile."""
    engine = sa.create_engine(db_url)
    seen: set[str] = set()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with engine.connect() as conn:
                seen |= {str(r[0]) for r in conn.execute(sa.text(seen_query), {"s": stack_id})}
            shown = api.status(stack_id)
            if not shown[0].endswith("IN_PROGRESS"):
                return shown, seen
            time.sleep(0.1)
    finally:
        engine.dispose()
    raise AssertionError(f"stack {stack_id} still in progress")


def _claims_until_done(db_url: str, api: StackApi, stack_id: str
                       ) -> tuple[tuple[str, str], set[str]]:
    """The stack's end, and every engine seen running one of its steps meanwhile (the
    claim on a resource row while its step runs)."""
    return _engines_until_done(
        db_url, api, stack_id,
        "SELECT DISTINCT engine_id FROM resource WHERE stack_id = :s "
        "AND engine_id IS NOT NULL")


def _check_created(cluster: Cluster, name: str, stack_id: str, prefix: str, n: int) -> None:
    """The ``values`` output lists v0..v<n-1>, and each resource <prefix>i has one
    CREATE_IN_PROGRESS and one CREATE_COMPLETE event."""
    outputs = requests.get(f"{cluster.endpoint}/stacks/{name}/{stack_id}/outputs/values",
                           timeout=30).json()["output"]["output_value"]
    assert outputs == [f"v{i}" for i in range(n)]
    events = requests.get(f"{cluster.endpoint}/stacks/{name}/{stack_id}/events",
                          params={"sort_dir": "asc"}, timeout=30).json()["events"]
    per_resource = Counter((e["resource_name"], e["resource_status"]) for e in events
                           if e["resource_name"] != name)
    assert per_resource == Counter({(f"{prefix}{i}", status): 1 for i in range(n)
                                    for status in ("CREATE_IN_PROGRESS", "CREATE_COMPLETE")})


def test_one_stacks_steps_run_on_every_engine(cluster: Cluster) -> None:
    api = StackApi(cluster.endpoint)
    stack_id = api.create("wide", WIDE, {})
    end, ran_on = _claims_until_done(cluster.db_url, api, stack_id)
    assert end == ("CREATE_COMPLETE", "Stack CREATE completed successfully")
    assert ran_on == set(cluster.engine_ids()), ran_on
    _check_created(cluster, "wide", stack_id, "w", 12)

    api.delete("wide", stack_id)
    end, ran_on = _claims_until_done(cluster.db_url, api, stack_id)
    assert end[0] == "DELETE_COMPLETE"
    assert ran_on == set(cluster.engine_ids()), ran_on
    with sa.create_engine(cluster.db_url).connect() as conn:
        claimed = conn.execute(sa.text(
            "SELECT count(*) FROM resource WHERE stack_id = :s AND engine_id IS NOT NULL"),
            {"s": stack_id}).scalar()
    assert claimed == 0  # every claim released


# Child stacks (more of them than an engine keeps for itself), each a resource that waits:
# a tree of stacks to spread.
CHILD = {
    "heat_template_version": "2018-08-31",
    "parameters": {"value": {"type": "string"}},
    "resources": {"t": {"type": "OS::Heat::TestResource",
                        "properties": {"value": {"get_param": "value"},
                                       "action_wait_secs": {"create": 2, "delete": 1}}}},
    "outputs": {"value": {"value": {"get_attr": ["t", "output"]}}},
}
TREE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        f"c{i}": {"type": "OS::Heat::Stack",
                  "properties": {"template": json.dumps(CHILD),
                                 "parameters": {"value": f"v{i}"}}}
        for i in range(10)
    },
    "outputs": {"values": {"value": [{"get_attr": [f"c{i}", "outputs", "value"]}
                                     for i in range(10)]}},
}


def _child_lock_holders_until_done(db_url: str, api: StackApi, stack_id: str
                                   ) -> tuple[tuple[str, str], set[str]]:
    """The stack's end, and every engine seen holding the lock of one of its child stacks
    (the engine running the child's action)."""
    return _engines_until_done(
        db_url, api, stack_id,
        "SELECT DISTINCT l.engine_id FROM stack_lock l JOIN stack s ON s.id = l.stack_id "
        "WHERE s.owner_id = :s")


def test_one_stacks_child_stacks_run_on_every_engine(cluster: Cluster) -> None:
    api = StackApi(cluster.endpoint)
    stack_id = api.create("tree", TREE, {})
    end, ran_on = _child_lock_holders_until_done(cluster.db_url, api, stack_id)
    assert end == ("CREATE_COMPLETE", "Stack CREATE completed successfully")
    assert ran_on == set(cluster.engine_ids()), ran_on
    _check_created(cluster, "tree", stack_id, "c", 10)
    children = [s for s in api.all_stacks() if s.get("parent") == stack_id]
    assert len(children) == 10
    assert {s["stack_status"] for s in children} == {"CREATE_COMPLETE"}

    api.delete("tree", stack_id)
    end, ran_on = _child_lock_holders_until_done(cluster.db_url, api, stack_id)
    assert end[0] == "DELETE_COMPLETE"
    assert ran_on == set(cluster.engine_ids()), ran_on
    assert not [s for s in api.all_stacks() if s.get("parent") == stack_id]
    with sa.create_engine(cluster.db_url).connect() as conn:
        left = conn.execute(sa.text(
            "SELECT count(*) FROM stack WHERE owner_id = :s AND deleted_at IS NULL"),
            {"s": stack_id}).scalar()
    assert left == 0


def test_steps_of_a_killed_engine_are_carried_on_by_the_stacks_engine(
    tmp_path: Path, database_factory: DatabaseFactory
) -> None:
    slow = json.loads(json.dumps(WIDE).replace('"create": 2', '"create": 4'))
    with fresh_cluster(tmp_path, database_factory, api_workers=1,
                       options={"spread_steps_after": 0}) as cluster:
        api = StackApi(cluster.endpoint)
        stack_id = api.create("wide", slow, {})
        engine = sa.create_engine(cluster.db_url)
        deadline = time.monotonic() + 30
        other: str | None = None
        while other is None:
            assert time.monotonic() < deadline, "no step ran on the other engine"
            with engine.connect() as conn:
                holder = conn.execute(sa.text(
                    "SELECT engine_id FROM stack_lock WHERE stack_id = :s"),
                    {"s": stack_id}).scalar()
                # A step whose handler has run there (its cookie stored): it is waiting.
                claims = {str(r[0]) for r in conn.execute(sa.text(
                    "SELECT engine_id FROM resource WHERE stack_id = :s "
                    "AND engine_id IS NOT NULL AND step_cookie IS NOT NULL"),
                    {"s": stack_id})}
            other = next((c for c in claims if holder is not None and c != holder), None)
            time.sleep(0.05)
        engine.dispose()
        cluster.engine_ids()[other].kill()

        assert api.wait(stack_id) == ("CREATE_COMPLETE", "Stack CREATE completed successfully")
        resources = api.resources("wide", stack_id)
        assert {r["resource_status"] for r in resources} == {"CREATE_COMPLETE"}
        physical = [r["physical_resource_id"] for r in resources]
        assert len(physical) == 12 and len(set(physical)) == 12
        # What a step of the killed engine had stored (its handler's data) is what the
        # stack's engine carried on from: each resource's attribute is its own value.
        outputs = {o["output_key"]: o["output_value"]
                   for o in api.show("wide", stack_id)["outputs"]}
        assert outputs["values"] == [f"v{i}" for i in range(12)]
        events = api.events("wide", stack_id)
        per_resource = Counter((e["resource_name"], e["resource_status"]) for e in events
                               if e["resource_name"] != "wide")
        assert per_resource == Counter({(f"w{i}", status): 1 for i in range(12)
                                        for status in ("CREATE_IN_PROGRESS", "CREATE_COMPLETE")})
        api.delete("wide", stack_id)
        assert api.wait(stack_id)[0] == "DELETE_COMPLETE"


def test_killed_engine_stack_is_finished_by_the_other(
    tmp_path: Path, database_factory: DatabaseFactory
) -> None:
    with fresh_cluster(tmp_path, database_factory, api_workers=1) as cluster:
        api = StackApi(cluster.endpoint)
        stack_id = api.create("crash", SLOW, {"wait": 1})
        deadline = time.monotonic() + 30
        while stack_id not in _lock_holders(cluster.db_url):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(1.5)  # two of the six resources are done by now, the third in progress
        holder = _lock_holders(cluster.db_url)[stack_id]
        victim = cluster.engine_ids()[holder]
        victim.kill()

        assert api.wait(stack_id) == ("CREATE_COMPLETE",
                                      "Stack CREATE completed successfully")
        survivor = _lock_holders(cluster.db_url).get(stack_id)
        assert survivor is None  # released by the engine that finished it
        resources = requests.get(f"{cluster.endpoint}/stacks/crash/{stack_id}/resources",
                                 timeout=30).json()["resources"]
        assert sorted(r["resource_name"] for r in resources) == [f"r{i}" for i in range(6)]
        assert {r["resource_status"] for r in resources} == {"CREATE_COMPLETE"}
        events = requests.get(f"{cluster.endpoint}/stacks/crash/{stack_id}/events",
                              params={"sort_dir": "asc"}, timeout=30).json()["events"]
        times = [e["event_time"] for e in events]
        assert times == sorted(times)
        finished = [e["resource_name"] for e in events
                    if e["resource_status"] == "CREATE_COMPLETE" and e["resource_name"] != "crash"]
        assert sorted(finished) == [f"r{i}" for i in range(6)]  # each finished once

        api.delete("crash", stack_id)
        assert api.wait(stack_id)[0] == "DELETE_COMPLETE"


def test_a_killed_api_worker_is_replaced(cluster: Cluster) -> None:
    import psutil

    assert cluster.api.proc is not None
    parent = psutil.Process(cluster.api.proc.pid)
    workers = parent.children()
    assert len(workers) == 2
    workers[0].kill()
    workers[0].wait(10)
    # The other worker answers meanwhile; the parent starts a new one.
    assert requests.get(f"{cluster.endpoint}/stacks", timeout=30).status_code == 200
    deadline = time.monotonic() + 30
    while len([c for c in parent.children() if c.is_running()]) < 2:
        assert time.monotonic() < deadline, "no new API worker"
        time.sleep(0.2)
    for _ in range(10):
        assert requests.get(f"{cluster.endpoint}/stacks", timeout=30).status_code == 200
