"""``hearth api`` + two ``hearth engine`` processes over RabbitMQ and PostgreSQL: calls and
errors cross the bus, stacks are spread over the engines, and a killed engine's stack is
finished by the other."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import sqlalchemy as sa
from heatclient import client as heat_client
from heatclient import exc as heat_exc

from tests.integration.cluster.cluster_process import Cluster, require_rabbitmq
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


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory,
            database_factory: DatabaseFactory) -> Iterator[Cluster]:
    require_rabbitmq()
    url = database_factory.new("postgresql")
    running = Cluster(tmp_path_factory.mktemp("cluster"), url)
    running.start()
    try:
        yield running
    finally:
        running.close()
        database_factory.discard(url)


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


def test_stacks_are_spread_over_the_engines(cluster: Cluster, heat: Any) -> None:
    api = StackApi(cluster.endpoint)
    ids = [api.create(f"spread-{i}", SLOW, {"wait": 2}) for i in range(6)]
    holders = _lock_holders(cluster.db_url)
    running_on = {holders[i] for i in ids if i in holders}
    assert running_on <= set(cluster.engine_ids())
    assert len(running_on) == 2, f"stacks ran on {running_on}"
    for stack_id in ids:
        assert api.wait(stack_id)[0] == "CREATE_COMPLETE"


def test_killed_engine_stack_is_finished_by_the_other(
    tmp_path: Path, database_factory: DatabaseFactory
) -> None:
    require_rabbitmq()
    url = database_factory.new("postgresql")
    cluster = Cluster(tmp_path, url, api_workers=1)
    cluster.start()
    try:
        api = StackApi(cluster.endpoint)
        stack_id = api.create("crash", SLOW, {"wait": 1})
        deadline = time.monotonic() + 30
        while stack_id not in _lock_holders(url):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(1.5)  # two of the six resources are done by now, the third in progress
        holder = _lock_holders(url)[stack_id]
        victim = cluster.engine_ids()[holder]
        victim.kill()

        assert api.wait(stack_id) == ("CREATE_COMPLETE",
                                      "Stack CREATE completed successfully")
        survivor = _lock_holders(url).get(stack_id)
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
    finally:
        cluster.close()
        database_factory.discard(url)


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
