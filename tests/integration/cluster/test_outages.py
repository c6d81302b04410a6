"""The cluster's database or message broker goes away while stacks are being created, and comes
back: the stacks in flight end as they end left alone (their rows final, no resource twice,
their events in order), a call in the outage is answered 503 rather than held, and afterwards
every engine takes work again without a restart of its own.

- PostgreSQL stopped hard (``pg_ctl -m immediate``: every backend killed, as a crash would)
  and started again.
- RabbitMQ killed with SIGKILL (no goodbye to its clients, its non-durable queues gone) and
  started again. (``test_cluster_kills`` restarts the machine's broker with ``stop_app``.)

Both servers are the test's own (``private_postgres``, ``private_rabbitmq``): the machine's
serve the devcloud and other tests at the same time. Every step is offered to every engine
(``spread_steps_after = 0``), so the outage also strikes steps an engine runs for another
engine's stack, and offers and reports in flight.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import sqlalchemy as sa

from tests.integration.cluster.cluster_process import (
    START_TIMEOUT,
    Cluster,
    fresh_cluster,
    require_rabbitmq,
)
from tests.integration.cluster.test_cluster_kills import (
    ACTION_TIMEOUT,
    SHAPES,
    WAIT,
    check_records,
    held_in_progress,
    last_event_id,
    outcome,
)
from tests.integration.conftest import DatabaseFactory
from tests.integration.private_postgres import PrivatePostgres, private_postgres
from tests.integration.private_rabbitmq import PrivateRabbit, private_rabbitmq
from tests.integration.serve_process import StackApi

ENGINES = 2
# Down for longer than a few heartbeats (0.3 s each): every engine misses some and finds the
# others' beats stale when the database is back.
DOWN = 4.0
RPC_TIMEOUT = 15
OPTIONS = {"template_workers": 0, "rpc_response_timeout": RPC_TIMEOUT,
           "spread_steps_after": 0}


@pytest.fixture
def postgres() -> Iterator[PrivatePostgres]:
    with private_postgres() as server:
        yield server


@pytest.fixture
def rabbit() -> Iterator[PrivateRabbit]:
    with private_rabbitmq() as node:
        yield node


def test_database_stopped_hard_during_creates(tmp_path: Path,
                                              postgres: PrivatePostgres) -> None:
    require_rabbitmq()
    cluster = Cluster(tmp_path / "cluster", postgres.url, engines=ENGINES, api_workers=1,
                      options=OPTIONS)
    cluster.start()
    db = sa.create_engine(postgres.url, pool_pre_ping=True)
    try:
        api = StackApi(cluster.endpoint, timeout=ACTION_TIMEOUT)
        mark, in_flight = creates_in_flight(api, db, "pg")
        db.dispose()
        postgres.stop("immediate")
        try:
            # Answered at once: unavailable, nothing changed, try again.
            resp, took = timed_list(cluster)
            assert resp.status_code == 503, resp.text
            assert resp.json()["error"]["type"] == "DBConnectionError", resp.text
            assert "database is unavailable" in resp.json()["error"]["message"], resp.text
            assert took < 10, f"answered after {took:.1f} s"
            time.sleep(max(0.0, DOWN - took))
        finally:
            postgres.start()
        postgres.wait_ready()
        check_completed(api, db, cluster, mark, in_flight)
        check_new_work(api, db, cluster)
    finally:
        db.dispose()
        cluster.close()


def test_broker_killed_during_creates(tmp_path: Path, rabbit: PrivateRabbit,
                                      database_factory: DatabaseFactory) -> None:
    with fresh_cluster(tmp_path / "cluster", database_factory, engines=ENGINES,
                       api_workers=1, transport_url=rabbit.url, options=OPTIONS) as cluster:
        db = sa.create_engine(cluster.db_url)
        try:
            api = StackApi(cluster.endpoint, timeout=ACTION_TIMEOUT)
            mark, in_flight = creates_in_flight(api, db, "kill")
            rabbit.kill()
            try:
                # Answered once the API gave up reaching the broker ([DEFAULT]
                # rpc_send_retries), not held until it is back.
                resp, took = timed_list(cluster)
                assert resp.status_code == 503, resp.text
                assert resp.json()["error"]["type"] == "MessageDeliveryFailure", resp.text
                assert took < 30, f"answered after {took:.1f} s"
                time.sleep(max(0.0, DOWN - took))
            finally:
                rabbit.start()
            # Until every process has declared its queues again, a call may be lost, as in
            # Heat (they are not durable): the checks below go through the API.
            check_consuming(rabbit, cluster)
            check_completed(api, db, cluster, mark, in_flight)
            check_new_work(api, db, cluster)
        finally:
            db.dispose()


def timed_list(cluster: Cluster) -> tuple[requests.Response, float]:
    started = time.monotonic()
    resp = requests.get(f"{cluster.endpoint}/stacks", timeout=120)
    return resp, time.monotonic() - started


def creates_in_flight(api: StackApi, db: sa.Engine, prefix: str) -> tuple[int, dict[str, str]]:
    """(last event id before, stack name -> id) of a chain and a group being created, inside
    their resources' waits on return."""
    mark = last_event_id(db)
    in_flight = {f"{prefix}-{shape}": api.create(f"{prefix}-{shape}", template, params)
                 for shape, (template, params, _) in SHAPES.items()}
    deadline = time.monotonic() + START_TIMEOUT
    while not all(stack_id in held_in_progress(db) for stack_id in in_flight.values()):
        assert time.monotonic() < deadline, "the creates did not start"
        time.sleep(0.05)
    time.sleep(WAIT / 2)
    return mark, in_flight


def check_completed(api: StackApi, db: sa.Engine, cluster: Cluster, mark: int,
                    in_flight: dict[str, str]) -> None:
    for name, stack_id in in_flight.items():
        seen = outcome(api, name, stack_id)
        assert seen["status"] == "CREATE_COMPLETE", (seen, cluster.logs())
        check_records(db, stack_id, mark, f"{name} CREATE")


def check_consuming(rabbit: PrivateRabbit, cluster: Cluster) -> None:
    """Every engine consumes again (the shared topic, its own queue and the steps' topic),
    and so does the API (its reply queue)."""
    engines = cluster.engines_up()
    assert len(engines) == ENGINES, cluster.logs()
    wanted = {cluster.topic: ENGINES, f"{cluster.topic}-steps": ENGINES,
              **{f"{cluster.topic}.{engine_id}": 1 for engine_id in engines}}
    deadline = time.monotonic() + 60
    while True:
        found = rabbit.consumers(cluster.topic)
        replies = rabbit.consumers("reply_")
        if (all(found.get(queue, 0) >= n for queue, n in wanted.items())
                and any(replies.values())):
            return
        assert time.monotonic() < deadline, f"queues and consumers after the kill: {found}"
        time.sleep(0.5)


def check_new_work(api: StackApi, db: sa.Engine, cluster: Cluster) -> None:
    """Every engine is up, and new stacks are created, their steps run and written."""
    assert len(cluster.engines_up()) == ENGINES, cluster.logs()
    mark = last_event_id(db)
    after = [api.create(f"after-{i}", *SHAPES["chain"][:2]) for i in range(ENGINES * 2)]
    for i, stack_id in enumerate(after):
        assert api.wait(stack_id)[0] == "CREATE_COMPLETE", cluster.logs()
        check_records(db, stack_id, mark, f"after-{i} CREATE")
