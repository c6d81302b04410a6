"""Metrics as a scrape shows them: recorded values, queue depths, the engine's own metrics
server, and API worker processes that share their totals (multiprocess mode)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import requests
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from hearth.common import metrics
from hearth.common.config import load_config
from hearth.common.metrics_server import (
    parse_engine_bind,
    registry,
    serve_metrics,
    start_engine_metrics,
)
from hearth.engine.running.service_slots import ServiceSlots


def scraped(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def current() -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return scraped(generate_latest(registry()).decode())


def test_a_recorded_step_shows_in_the_counter_and_the_histogram() -> None:
    key = ("hearth_resource_steps_total",
           frozenset({"action": "TEST_ACTION", "outcome": "failed"}.items()))
    before = current().get(key, 0.0)
    metrics.resource_step("TEST_ACTION", "failed", 0.2)
    after = current()
    assert after[key] == before + 1
    bucket = ("hearth_resource_step_duration_seconds_bucket",
              frozenset({"action": "TEST_ACTION", "le": "0.25"}.items()))
    assert after[bucket] >= 1


class Queues:
    def __init__(self, depths: dict[str, int]) -> None:
        self.depths = depths

    def queue_depths(self) -> dict[str, int]:
        return self.depths


def test_queue_depths_are_summed_over_live_engines_only() -> None:
    # A queue of their own: engines of other tests in this process report none of it.
    one, two = Queues({"test_queue": 3}), Queues({"test_queue": 4, "test_other": 1})
    metrics.watch_queues(one)
    metrics.watch_queues(two)
    key = ("hearth_engine_queue_depth", frozenset({"queue": "test_queue"}.items()))
    assert current()[key] == 7
    del two
    assert current()[key] == 3
    del one
    assert key not in current()


def test_steps_waiting_for_a_service_slot_are_counted() -> None:
    async def main() -> list[int]:
        slots = ServiceSlots(1)
        seen = []
        release = asyncio.Event()

        async def step() -> None:
            async with slots:
                await release.wait()

        tasks = [asyncio.ensure_future(step()) for _ in range(3)]
        await asyncio.sleep(0)
        seen.append(slots.waiting)
        release.set()
        await asyncio.gather(*tasks)
        seen.append(slots.waiting)
        return seen

    assert asyncio.run(main()) == [2, 0]


def test_an_engine_process_serves_its_metrics_on_its_own_port() -> None:
    metrics.resource_step("CHECK", "complete", 0.01)
    server = serve_metrics("127.0.0.1", 0)
    try:
        resp = requests.get(server.url, timeout=30)
        assert resp.status_code == 200
        assert 'hearth_resource_steps_total{action="CHECK",outcome="complete"}' in resp.text
    finally:
        server.close()


def test_engine_bind_is_off_unless_set() -> None:
    assert start_engine_metrics(load_config()) is None
    assert parse_engine_bind("") is None
    assert parse_engine_bind("[::1]:9464") == ("::1", 9464)
    with pytest.raises(ValueError, match="HOST:PORT"):
        parse_engine_bind("9464")
    conf = load_config(overrides=[("engine_bind", "metrics", "127.0.0.1:0")])
    server = start_engine_metrics(conf)
    assert server is not None
    try:
        assert server.port > 0
        assert requests.get(server.url, timeout=30).status_code == 200
    finally:
        server.close()


def two_free_ports() -> int:
    """A port p such that p and p + 1 are both free (now)."""
    for _ in range(20):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port + 1))
                return port
            except OSError:
                continue
    pytest.skip("no two consecutive free ports")


def test_each_engine_worker_has_a_port_of_its_own() -> None:
    port = two_free_ports()
    conf = load_config(overrides=[("engine_bind", "metrics", f"127.0.0.1:{port}")])
    first, second = start_engine_metrics(conf, 0), start_engine_metrics(conf, 1)
    assert first is not None and second is not None
    try:
        assert (first.port, second.port) == (port, port + 1)
        for server in (first, second):
            assert requests.get(server.url, timeout=30).status_code == 200
    finally:
        first.close()
        second.close()


# Run in a process of its own: the multiprocess mode changes prometheus_client for good.
FORKED_WORKERS = """
import os, sys
from hearth.common import metrics
from hearth.common.metrics_server import metrics_app, prepare_multiprocess, process_exited

scrape = metrics_app()  # an app built before the switch follows it
prepare_multiprocess(sys.argv[1])
pids = []
for n in range(3):
    pid = os.fork()
    if pid == 0:
        metrics.api_request("GET", "/v1/{tenant_id}/stacks", 200, 0.01 * (n + 1))
        os._exit(0)
    pids.append(pid)
for pid in pids:
    os.waitpid(pid, 0)
    process_exited(pid)
environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/metrics", "QUERY_STRING": ""}
body = b"".join(scrape(environ, lambda status, headers: None))
sys.stdout.write(body.decode())
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_forked_api_workers_add_up_in_one_scrape(tmp_path: Path) -> None:
    stale = tmp_path / "counter_1.db"
    stale.write_bytes(b"left by an earlier run")
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(FORKED_WORKERS), str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    found = scraped(done.stdout)
    labels = {"method": "GET", "route": "/v1/{tenant_id}/stacks", "status": "200"}
    assert found[("hearth_api_requests_total", frozenset(labels.items()))] == 3
    seconds = ("hearth_api_request_duration_seconds_sum",
               frozenset({"method": "GET", "route": "/v1/{tenant_id}/stacks"}.items()))
    assert found[seconds] == pytest.approx(0.06)
    assert not stale.exists()
