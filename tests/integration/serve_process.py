"""A real ``hearth serve`` process that tests can kill, stop and start again on one address.

Crash and restart tests need the server as users run it: its own process, so that a SIGKILL
loses what a crash loses and a SIGTERM takes the path an operator's stop takes.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import requests

REPO = Path(__file__).resolve().parents[2]
PROJECT = "demo"
START_TIMEOUT = 60.0
# Quick heartbeats: a killed engine is known dead (three missed) within a second.
HEARTBEAT = 0.3


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LoggedProcess:
    """One ``hearth`` server command in its own process, its output appended to a log."""

    def __init__(self, args: list[str], log_path: Path) -> None:
        self.args = args
        self.log_path = log_path
        self._log: IO[str] | None = None
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        assert not self.running, "already running"
        self._log = self.log_path.open("a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hearth.cli.main", *self.args],
            stdout=self._log, stderr=subprocess.STDOUT, text=True, cwd=REPO,
        )

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: nothing is written on the way out."""
        self.signal(signal.SIGKILL)

    def terminate(self) -> int:
        """SIGTERM, as an operator stops the server; returns its exit code."""
        return self.signal(signal.SIGTERM)

    def signal(self, signum: int) -> int:
        assert self.proc is not None
        self.proc.send_signal(signum)
        code = self.proc.wait(timeout=60)
        if self._log is not None:
            self._log.close()
            self._log = None
        return code

    def close(self) -> None:
        if self.running:
            self.kill()

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""


class ServeProcess(LoggedProcess):
    """``hearth serve`` on a fixed port, a data dir and a database, restartable."""

    def __init__(self, data_dir: Path, db_url: str, **options: Any) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.config = data_dir / "hearth.conf"
        settings = {"heartbeat_interval": HEARTBEAT, **options}
        lines = ["[DEFAULT]", *(f"{k} = {v}" for k, v in settings.items()),
                 "[database]", f"connection = {db_url}"]
        data_dir.mkdir(parents=True, exist_ok=True)
        self.config.write_text("\n".join(lines) + "\n")
        super().__init__(
            ["serve", "--bind", f"127.0.0.1:{self.port}", "--cfn-bind", "127.0.0.1:0",
             "--data-dir", str(data_dir), "--config-file", str(self.config)],
            data_dir / "serve.log",
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def endpoint(self) -> str:
        return f"{self.url}/v1/{PROJECT}"

    def start(self) -> None:
        """Start the server and wait until its API answers (engine started, takeovers
        begun: the engine starts before the API listens)."""
        super().start()
        assert self.proc is not None
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"hearth serve exited {self.proc.returncode}:\n{self.log()}")
            try:
                requests.get(f"{self.endpoint}/stacks", timeout=2)
                return
            except requests.RequestException:
                # Not listening yet, or it died while answering (the next turn says so).
                if time.monotonic() > deadline:
                    raise AssertionError(f"hearth serve did not answer:\n{self.log()}") from None
                time.sleep(0.05)

    def restart_while_dying(
        self, done: Callable[[], bool], *, most: int, alive_for: float = 2.0,
        within: float = 180.0,
    ) -> int:
        """Start the server again each time it dies, until it has stayed up ``alive_for``
        seconds and ``done()`` holds; how many times it died (at most ``most``)."""
        deaths = 0
        deadline = time.monotonic() + within
        while True:
            assert self.proc is not None
            try:
                self.proc.wait(timeout=alive_for)
            except subprocess.TimeoutExpired:
                if done():
                    return deaths
                continue
            deaths += 1
            assert deaths <= most, f"the engine died {deaths} times:\n{self.log()}"
            assert time.monotonic() < deadline
            # A new engine takes its stacks over as it starts, before its API answers: it
            # may die again before start() sees it up.
            with contextlib.suppress(AssertionError):
                self.start()


class StackApi:
    """The few Orchestration API calls crash tests make, on a server's fixed address."""

    def __init__(self, endpoint: str, timeout: float = 120.0, poll: float = 0.1) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        # Seconds between looks at a stack that is still in progress.
        self.poll = poll

    def create(self, name: str, template: dict[str, Any], params: dict[str, Any]) -> str:
        body = {"stack_name": name, "template": template, "parameters": params}
        resp = requests.post(f"{self.endpoint}/stacks", json=body, timeout=30)
        assert resp.status_code == 201, resp.text
        return str(resp.json()["stack"]["id"])

    def update(self, name: str, stack_id: str, template: dict[str, Any],
               params: dict[str, Any]) -> None:
        body = {"template": template, "parameters": params}
        resp = requests.put(f"{self.endpoint}/stacks/{name}/{stack_id}", json=body, timeout=30)
        assert resp.status_code == 202, resp.text

    def delete(self, name: str, stack_id: str) -> None:
        resp = requests.delete(f"{self.endpoint}/stacks/{name}/{stack_id}", timeout=30)
        assert resp.status_code == 204, resp.text

    def all_stacks(self) -> list[dict[str, Any]]:
        """Every live stack, nested ones included."""
        resp = requests.get(f"{self.endpoint}/stacks", params={"show_nested": "true"},
                            timeout=30)
        resp.raise_for_status()
        return list(resp.json()["stacks"])

    def status(self, stack_id: str) -> tuple[str, str]:
        """(stack_status, reason); DELETE_COMPLETE once the stack is gone."""
        listed = next((s for s in self.all_stacks() if s["id"] == stack_id), None)
        if listed is None:
            return ("DELETE_COMPLETE", "")
        return listed["stack_status"], listed["stack_status_reason"]

    def wait(self, stack_id: str) -> tuple[str, str]:
        """The stack's state once it is no longer IN_PROGRESS."""
        deadline = time.monotonic() + self.timeout
        while True:
            state = self.status(stack_id)
            if not state[0].endswith("IN_PROGRESS"):
                return state
            assert time.monotonic() < deadline, f"still {state} after {self.timeout}s"
            time.sleep(self.poll)

    def show(self, name: str, stack_id: str) -> dict[str, Any]:
        resp = requests.get(f"{self.endpoint}/stacks/{name}/{stack_id}", timeout=30)
        resp.raise_for_status()
        return dict(resp.json()["stack"])

    def resources(self, name: str, stack_id: str, nested_depth: int = 0) -> list[dict[str, Any]]:
        resp = requests.get(f"{self.endpoint}/stacks/{name}/{stack_id}/resources",
                            params={"nested_depth": nested_depth}, timeout=30)
        resp.raise_for_status()
        return list(resp.json()["resources"])

    def events(self, name: str, stack_id: str, nested_depth: int = 0) -> list[dict[str, Any]]:
        resp = requests.get(f"{self.endpoint}/stacks/{name}/{stack_id}/events",
                            params={"nested_depth": nested_depth, "sort_dir": "asc"},
                            timeout=30)
        resp.raise_for_status()
        return list(resp.json()["events"])
