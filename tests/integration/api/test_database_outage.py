"""``hearth serve`` on PostgreSQL while the server is stopped hard and started again: calls in
the outage are answered 503 at once (nothing changed, try again), and a stack in flight ends
as it ends left alone, carried on by the same process once the database answers."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from hearth.cli.serve import RunningServer, serving
from tests.integration.api.conftest import NOAUTH_PROJECT, server_conf
from tests.integration.private_postgres import PrivatePostgres, private_postgres

WAIT = 1  # seconds each resource waits in its create

TEMPLATE = {
    "heat_template_version": "2021-04-16",
    "resources": {
        name: {"type": "OS::Heat::TestResource",
               "properties": {"value": name, "action_wait_secs": {"create": WAIT}},
               **({"depends_on": [prev]} if prev else {})}
        for name, prev in (("a", None), ("b", "a"), ("c", "b"))
    },
    "outputs": {"last": {"value": {"get_attr": ["c", "output"]}}},
}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[PrivatePostgres, RunningServer]]:
    with private_postgres() as database, serving(
        server_conf(tmp_path, database__connection=database.url, template_workers=0)
    ) as running:
        yield database, running


def test_an_outage_answers_503_and_the_stack_in_flight_completes(
        served: tuple[PrivatePostgres, RunningServer]) -> None:
    database, running = served
    api = f"{running.url}/v1/{NOAUTH_PROJECT}"
    created = requests.post(f"{api}/stacks", json={"stack_name": "outage",
                                                   "template": TEMPLATE}, timeout=30)
    assert created.status_code == 201, created.text
    stack_id = created.json()["stack"]["id"]
    time.sleep(WAIT * 1.5)  # b is waiting
    database.stop("immediate")
    try:
        started = time.monotonic()
        listed = requests.get(f"{api}/stacks", timeout=60)
        assert time.monotonic() - started < 10
        assert listed.status_code == 503, listed.text
        assert listed.json()["error"]["type"] == "DBConnectionError"
        refused = requests.post(f"{api}/stacks", json={"stack_name": "during",
                                                       "template": TEMPLATE}, timeout=60)
        assert refused.status_code == 503, refused.text
        time.sleep(WAIT * 2)  # b's wait ends in the outage
    finally:
        database.start()
    database.wait_ready()

    deadline = time.monotonic() + 60
    while True:
        shown = requests.get(f"{api}/stacks/outage/{stack_id}", timeout=30)
        status = shown.json()["stack"]["stack_status"] if shown.ok else "unknown"
        if status not in ("CREATE_IN_PROGRESS", "unknown"):
            break
        assert time.monotonic() < deadline, shown.text
        time.sleep(0.3)
    stack = shown.json()["stack"]
    assert stack["stack_status"] == "CREATE_COMPLETE", stack
    assert stack["outputs"][0]["output_value"] == "c"
    events = requests.get(f"{api}/stacks/outage/{stack_id}/events", params={"sort_dir": "asc"},
                          timeout=30).json()["events"]
    by_resource: dict[str, list[str]] = {}
    for event in events:
        by_resource.setdefault(event["resource_name"], []).append(event["resource_status"])
    for name in "abc":
        assert by_resource[name] == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"], by_resource
    # The create refused in the outage left nothing.
    names = [s["stack_name"] for s in requests.get(f"{api}/stacks", timeout=30).json()["stacks"]]
    assert names == ["outage"]
