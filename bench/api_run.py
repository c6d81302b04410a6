"""A case through the API: ``hearth serve`` as a subprocess, driven with python-heatclient."""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from bench import machine
from bench.engine_run import bench_overrides
from bench.lifecycle import State, split_status, state_name, wait_settled
from bench.profiling import maybe_recording
from bench.results import Result
from bench.templates import Case

PROJECT = "bench"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def config_text(overrides: list[tuple[str, str | None, object]]) -> str:
    """An oslo.config file of ``[DEFAULT]`` options."""
    lines = ["[DEFAULT]"]
    for name, group, value in overrides:
        assert group is None
        lines.append(f"{name} = {value}")
    return "\n".join(lines) + "\n"


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    url: str
    data_dir: Path
    log: Path

    @property
    def endpoint(self) -> str:
        return f"{self.url}/v1/{PROJECT}"

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def wait_ready(server: Server, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if server.process.poll() is not None:
            raise RuntimeError(f"hearth serve exited early:\n{server.log_tail()}")
        try:
            if requests.get(server.url + "/", timeout=2).status_code < 500:
                return
        except requests.RequestException:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"hearth serve did not answer in {timeout:.0f}s")
        time.sleep(0.05)


@contextmanager
def serving(data_dir: Path, *, start_timeout: float = 60.0) -> Iterator[Server]:
    conf = data_dir / "hearth.conf"
    conf.write_text(config_text(bench_overrides()))
    port = free_port()
    log = data_dir / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "hearth.cli.main", "serve",
             "--bind", f"127.0.0.1:{port}", "--cfn-bind", "127.0.0.1:0",
             "--data-dir", str(data_dir),
             "--config", str(conf)],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            cwd=str(machine.REPO),
        )
    server = Server(process, f"http://127.0.0.1:{port}", data_dir, log)
    try:
        wait_ready(server, start_timeout)
        yield server
    finally:
        machine.stop_process(process)


def _server(data_dir: Path, engines: int, spread: bool = True,
            spread_nested: bool = False) -> Any:
    if not engines:
        return serving(data_dir)
    from bench.cluster_run import cluster_serving

    return cluster_serving(data_dir, engines, spread=spread, spread_nested=spread_nested)


def heat_client(endpoint: str) -> Any:
    from heatclient import client

    return client.Client("1", endpoint=endpoint, token="unused")


def run_api(
    case: Case, *, poll: float = 0.05, timeout: float = 3600.0, profile: Path | None = None,
    profile_gil: bool = False, engines: int = 0, spread: bool = True,
    spread_nested: bool = False,
) -> Result:
    """Create then delete ``case`` through ``hearth serve`` with python-heatclient, or with
    ``engines`` > 0 through ``hearth api`` and that many ``hearth engine`` processes."""
    result: Result = {"via": "cluster" if engines else "api"}
    if engines:
        result["engines"] = engines
    with tempfile.TemporaryDirectory(prefix="hearth-bench-api-") as tmp, _server(
        Path(tmp), engines, spread, spread_nested
    ) as server:
        heat = heat_client(server.endpoint)
        if case.requires:
            known = {t.resource_type for t in heat.resource_types.list()}
            missing = [t for t in case.requires if t not in known]
            if missing:
                result["skipped"] = f"{', '.join(missing)} is not in the registry yet"
                return result

        def read(stack_id: str) -> State:
            stack = heat.stacks.get(stack_id, resolve_outputs=False)
            action, status = split_status(str(stack.stack_status))
            return (action, status, str(stack.stack_status_reason or ""))

        # The server's memory; a cluster's engines are other processes (not measured here).
        measure_rss = not engines
        if measure_rss:
            result["rss_start_bytes"] = machine.current_rss(server.process.pid)
        name = f"bench-{uuid.uuid4().hex[:8]}"
        pid = server.process.pid
        with maybe_recording(pid, profile, "create", gil=profile_gil):
            started = time.perf_counter()
            created_body = heat.stacks.create(
                stack_name=name, template=case.template, files=case.files,
                disable_rollback=True, timeout_mins=max(1, int(timeout // 60)),
            )
            stack_id = created_body["stack"]["id"]
            created, done = wait_settled(
                lambda: read(stack_id), "CREATE", poll=poll, timeout=timeout
            )
        result["create_s"] = done - started
        result["create_state"] = state_name(created)
        result["create_reason"] = created[2]
        if measure_rss:
            result["rss_after_create_bytes"] = machine.current_rss(server.process.pid)
        db = server.data_dir / "hearth.sqlite"
        if not engines:
            result["db_disk_bytes"] = machine.sqlite_bytes(db)
            result["db_bytes"] = machine.sqlite_checkpointed_bytes(db)
        with maybe_recording(pid, profile, "delete", gil=profile_gil):
            started = time.perf_counter()
            heat.stacks.delete(stack_id)
            deleted, done = wait_settled(
                lambda: read(stack_id), "DELETE", poll=poll, timeout=timeout
            )
        result["delete_s"] = done - started
        result["delete_state"] = state_name(deleted)
        if not engines:
            result["db_bytes_after_delete"] = machine.sqlite_checkpointed_bytes(db)
        if measure_rss:
            result["peak_rss_bytes"] = machine.peak_rss(server.process.pid)
    return result
