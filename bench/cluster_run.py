"""A case through a cluster: ``hearth api`` in front of K ``hearth engine`` processes, on the
machine's RabbitMQ and a fresh PostgreSQL database, driven with python-heatclient."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import psycopg
import requests

from bench import machine
from bench.api_run import Server, config_text, free_port, wait_ready
from bench.engine_run import bench_overrides

TRANSPORT_URL = os.environ.get("HEARTH_BENCH_TRANSPORT_URL",
                               "rabbit://guest:guest@127.0.0.1:5672/")
PG_ADMIN = os.environ.get("HEARTH_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")


@contextmanager
def fresh_database() -> Iterator[str]:
    """A new PostgreSQL database, dropped afterwards."""
    name = f"hearth_bench_{secrets.token_hex(4)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://{PG_ADMIN.split('://', 1)[1].rsplit('/', 1)[0]}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _start(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "hearth.cli.main", *args],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            cwd=str(machine.REPO),
        )


@contextmanager
def cluster_serving(data_dir: Path, engines: int, *, spread: bool = True,
                    spread_nested: bool = False, start_timeout: float = 60.0
                    ) -> Iterator[Server]:
    """The API (one process) and ``engines`` engine processes, one worker each."""
    with ExitStack() as stack:
        db_url = stack.enter_context(fresh_database())
        port = free_port()
        conf = data_dir / "hearth.conf"
        conf.write_text(
            config_text(bench_overrides(transport_url=TRANSPORT_URL,
                                        engine_topic=f"hearth-bench-{secrets.token_hex(4)}",
                                        spread_steps=spread,
                                        spread_nested_steps=spread_nested))
            + f"[database]\nconnection = {db_url}\n"
            + f"[api]\nbind_host = 127.0.0.1\nbind_port = {port}\nworkers = 1\n"
            + "[cfn_api]\nenabled = false\n"
        )
        common = ["--config-file", str(conf), "--data-dir", str(data_dir)]
        for i in range(engines):
            process = _start(["engine", "--workers", "1", *common], data_dir / f"engine{i}.log")
            stack.callback(machine.stop_process, process)
        api = _start(["api", *common], data_dir / "api.log")
        stack.callback(machine.stop_process, api)
        server = Server(api, f"http://127.0.0.1:{port}", data_dir, data_dir / "api.log")
        wait_ready(server, start_timeout)
        _wait_for_engines(server, start_timeout)
        yield server


def _wait_for_engines(server: Server, timeout: float) -> None:
    """Until an engine answers a call (a message sent before any engine listens is lost)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if requests.get(f"{server.endpoint}/stacks", timeout=5).status_code == 200:
                return
        except requests.RequestException:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"no engine answered in {timeout:.0f}s:\n{server.log_tail()}")
        time.sleep(0.2)
