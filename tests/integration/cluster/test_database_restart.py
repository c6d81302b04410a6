"""PostgreSQL stopped hard (every backend killed, as a crash would) and started again while a
cluster creates stacks: the stacks in flight end as they end left alone, the API answers
during the outage with an error rather than hanging, and afterwards every engine works again
without a restart of its own.

The server is one of the test's own (``private_postgres``): the machine's PostgreSQL is used by
other tests at the same time.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import sqlalchemy as sa

from tests.integration.cluster.cluster_process import START_TIMEOUT, Cluster, require_rabbitmq
from tests.integration.cluster.test_cluster_kills import (
    ACTION_TIMEOUT,
    SHAPES,
    WAIT,
    check_records,
    held_in_progress,
    last_event_id,
    outcome,
)
from tests.integration.private_postgres import PrivatePostgres, private_postgres
from tests.integration.serve_process import StackApi

ENGINES = 2
# How long the database stays down: longer than a few heartbeats (0.3 s each), so that
# every engine misses some and finds the others' beats stale when it comes back.
DATABASE_DOWN = 4.0
RPC_TIMEOUT = 15


@pytest.fixture
def server() -> Iterator[PrivatePostgres]:
    with private_postgres() as running:
        yield running


@pytest.fixture
def cluster(tmp_path: Path, server: PrivatePostgres) -> Iterator[Cluster]:
    require_rabbitmq()
    running = Cluster(tmp_path / "cluster", server.url, engines=ENGINES, api_workers=1,
                      options={"template_workers": 0, "rpc_response_timeout": RPC_TIMEOUT,
                               # Every step offered to every engine: the outage also
                               # strikes steps an engine runs for another's stack.
                               "spread_steps_after": 0})
    running.start()
    try:
        yield running
    finally:
        running.close()


def test_database_restart_during_creates(server: PrivatePostgres, cluster: Cluster) -> None:
    db = sa.create_engine(server.url, pool_pre_ping=True)
    try:
        _restart_during_creates(server, cluster, db)
    finally:
        db.dispose()


def _restart_during_creates(server: PrivatePostgres, cluster: Cluster, db: sa.Engine) -> None:
    api = StackApi(cluster.endpoint, timeout=ACTION_TIMEOUT)
    mark = last_event_id(db)
    in_flight = {f"pg-{shape}": api.create(f"pg-{shape}", template, params)
                 for shape, (template, params, _) in SHAPES.items()}
    deadline = time.monotonic() + START_TIMEOUT
    while not all(stack_id in held_in_progress(db) for stack_id in in_flight.values()):
        assert time.monotonic() < deadline, "the creates did not start"
        time.sleep(0.05)
    # Inside the resources' waits (WAIT s each, three in a row for the chain).
    time.sleep(WAIT / 2)
    db.dispose()

    server.stop("immediate")
    try:
        # A call that needs the database is answered at once: unavailable, try again.
        started = time.monotonic()
        resp = requests.get(f"{cluster.endpoint}/stacks", timeout=RPC_TIMEOUT + 30)
        took = time.monotonic() - started
        assert resp.status_code == 503, resp.text
        assert resp.json()["error"]["type"] == "DBConnectionError", resp.text
        assert "database is unavailable" in resp.json()["error"]["message"], resp.text
        assert took < 10, f"answered after {took:.1f} s"
        time.sleep(max(0.0, DATABASE_DOWN - took))
    finally:
        server.start()
    server.wait_ready()

    for name, stack_id in in_flight.items():
        seen = outcome(api, name, stack_id)
        assert seen["status"] == "CREATE_COMPLETE", (seen, cluster.logs())
        check_records(db, stack_id, mark, f"{name} CREATE")
    assert len(cluster.engines_up()) == ENGINES, cluster.logs()
    # Each engine takes work again: a stack per engine, its steps run and written.
    after = [api.create(f"after-{i}", *SHAPES["chain"][:2]) for i in range(ENGINES * 2)]
    for i, stack_id in enumerate(after):
        assert api.wait(stack_id)[0] == "CREATE_COMPLETE", cluster.logs()
        check_records(db, stack_id, mark, f"after-{i} CREATE")
