"""Real ``hearth api`` and ``hearth engine`` processes on the machine's RabbitMQ and a fresh
PostgreSQL database, for tests that kill them as a crash would."""

from __future__ import annotations

import os
import re
import secrets
import socket
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil
import pytest
import requests

from tests.integration.conftest import DatabaseFactory
from tests.integration.serve_process import PROJECT, LoggedProcess, free_port

RABBIT_URL = os.environ.get("HEARTH_TEST_TRANSPORT_URL",
                            "rabbit://guest:guest@127.0.0.1:5672/")
START_TIMEOUT = 60.0
# Quick heartbeats: a killed engine is known dead (three missed) within about a second.
HEARTBEAT = 0.3
ENGINE_STARTED = re.compile(r"Engine (\S+) \(pid (\d+)\) takes calls")
METRICS_AT = re.compile(r"Metrics on (http://\S+)")


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def require_rabbitmq() -> None:
    """Skip (fail under CI=true) when the broker does not answer on its port."""
    match = re.match(r"rabbit://(?:[^@]*@)?([^:/]+):(\d+)", RABBIT_URL)
    host, port = (match.group(1), int(match.group(2))) if match else ("127.0.0.1", 5672)
    try:
        with socket.create_connection((host, port), timeout=3):
            return
    except OSError as exc:
        reason = f"RabbitMQ is not reachable at {host}:{port}: {exc}"
        if os.environ.get("CI") == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)


class Cluster:
    """``hearth api`` (N workers) in front of K ``hearth engine`` processes."""

    def __init__(self, data_dir: Path, db_url: str, *, engines: int = 2,
                 api_workers: int = 2, engine_workers: int = 1,
                 options: dict[str, object] | None = None,
                 transport_url: str = RABBIT_URL) -> None:
        self.data_dir = data_dir
        self.db_url = db_url
        self.transport_url = transport_url
        self.engine_workers = engine_workers
        self.port = free_port()
        data_dir.mkdir(parents=True, exist_ok=True)
        # Its own topic: other test runs may share the broker.
        self.topic = f"hearth-test-{secrets.token_hex(6)}"
        # (kept: a failing test reads the sealed values it stored)
        self.encryption_key = secrets.token_urlsafe(32)
        self.config = data_dir / "hearth.conf"
        self.config.write_text("\n".join([
            "[DEFAULT]",
            f"transport_url = {transport_url}",
            f"engine_topic = {self.topic}",
            f"heartbeat_interval = {HEARTBEAT}",
            f"auth_encryption_key = {self.encryption_key}",
            *(f"{key} = {value}" for key, value in (options or {}).items()),
            "[database]", f"connection = {db_url}",
            "[api]", "bind_host = 127.0.0.1", f"bind_port = {self.port}",
            # The service list is an admin's call.
            "noauth_roles = member,reader,admin",
            f"workers = {api_workers}",
            "[cfn_api]", "enabled = false",
            # Each engine's own metrics server, on a free port it logs.
            "[metrics]", "engine_bind = 127.0.0.1:0",
        ]) + "\n")
        common = ["--config-file", str(self.config), "--data-dir", str(data_dir)]
        self.api = LoggedProcess(["api", *common], data_dir / "api.log")
        self.engines = [
            LoggedProcess(["engine", "--workers", str(engine_workers), *common],
                          data_dir / f"engine{i}.log")
            for i in range(engines)
        ]

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/{PROJECT}"

    def start(self) -> None:
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    def _start(self) -> None:
        for engine in self.engines:
            engine.start()
        self.api.start()
        deadline = time.monotonic() + START_TIMEOUT
        while len(self.engines_up()) < len(self.engines) * self.engine_workers:
            self._check_alive(deadline, "engines did not start")
            time.sleep(0.1)
        while True:
            self._check_alive(deadline, "the API did not answer")
            try:
                requests.get(f"{self.endpoint}/stacks", timeout=5).raise_for_status()
                return
            except requests.RequestException:
                time.sleep(0.1)

    def _check_alive(self, deadline: float, what: str) -> None:
        for proc in (self.api, *self.engines):
            if proc.proc is not None and proc.proc.poll() is not None:
                raise AssertionError(f"{proc.args[0]} exited {proc.proc.returncode}:\n"
                                     f"{proc.log()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}:\n{self.logs()}")

    def engine_ids(self) -> dict[str, LoggedProcess]:
        """Engine id -> its process, read from what each engine logged at its start."""
        found: dict[str, LoggedProcess] = {}
        for engine in self.engines:
            for match in ENGINE_STARTED.finditer(engine.log()):
                found[match.group(1)] = engine
        return found

    def engine_metrics_urls(self) -> list[str]:
        """The metrics addresses the engines logged at their start."""
        return [url for engine in self.engines
                for url in METRICS_AT.findall(engine.log())]

    def engines_up(self) -> dict[str, int]:
        """Engine id -> pid of every engine taking calls now: each one, a ``hearth engine``
        process or one of its workers (which it starts again when one dies), logs both when
        it starts."""
        up: dict[str, int] = {}
        for engine in self.engines:
            if engine.running:
                for match in ENGINE_STARTED.finditer(engine.log()):
                    if _alive(int(match.group(2))):
                        up[match.group(1)] = int(match.group(2))
        return up

    def logs(self) -> str:
        return "\n".join(f"--- {p.log_path.name}\n{p.log()[-4000:]}"
                         for p in (self.api, *self.engines))

    def close(self) -> None:
        for proc in (self.api, *self.engines):
            if proc.running:
                proc.terminate()
        delete_queues(self.topic, self.engine_ids(), self.transport_url)


def delete_queues(topic: str, engine_ids: Iterable[str], transport_url: str = RABBIT_URL) -> None:
    """The broker as the test found it: the topic's queue and each engine's own (a killed
    engine cannot remove its queue; a queue nobody reads would stay on the broker)."""
    import kombu

    # kombu names the scheme amqp; oslo.messaging rabbit.
    url = transport_url.replace("rabbit://", "amqp://", 1)
    with kombu.Connection(url, connect_timeout=5) as connection:
        channel = connection.channel()
        # The engine calls' topic and the resource steps' (``hearth.rpc.step_bus``).
        for each in (topic, f"{topic}-steps"):
            for name in (each, *(f"{each}.{engine_id}" for engine_id in engine_ids)):
                channel.queue_delete(name)


@contextmanager
def fresh_cluster(data_dir: Path, database_factory: DatabaseFactory,
                  **options: Any) -> Iterator[Cluster]:
    """A started ``Cluster`` (``options`` as ``Cluster`` takes them) on a new PostgreSQL
    database, stopped and its database dropped afterwards."""
    require_rabbitmq()
    url = database_factory.new("postgresql")
    running = Cluster(data_dir, url, **options)
    try:
        running.start()
        yield running
    finally:
        running.close()
        database_factory.discard(url)
