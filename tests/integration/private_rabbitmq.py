"""A RabbitMQ node of a test's own, from the machine's RabbitMQ package, on free ports: a test
may kill it with SIGKILL and start it again without touching the machine's broker, which the
devcloud and other tests use at the same time."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.integration.serve_process import free_port

SERVER = Path("/usr/lib/rabbitmq/bin/rabbitmq-server")
CTL = Path("/usr/lib/rabbitmq/bin/rabbitmqctl")
START_TIMEOUT = 90.0


class PrivateRabbit:
    """One node: its own name, AMQP and distribution ports, database, logs and cookie."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.node = f"hearth-{secrets.token_hex(4)}@localhost"
        self.port = free_port()
        (home / "enabled_plugins").write_text("[].\n")
        self._env = {
            **os.environ,
            # The Erlang cookie lives in $HOME: this node's and its rabbitmqctl's own.
            "HOME": str(home),
            "RABBITMQ_NODENAME": self.node,
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_DIST_PORT": str(free_port()),
            "RABBITMQ_MNESIA_BASE": str(home / "mnesia"),
            "RABBITMQ_LOG_BASE": str(home / "log"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(home / "enabled_plugins"),
            "RABBITMQ_PID_FILE": str(home / "rabbit.pid"),
            "RABBITMQ_CONFIG_FILE": str(home / "rabbitmq"),
        }
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"rabbit://guest:guest@127.0.0.1:{self.port}/"

    def ctl(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(CTL), "-n", self.node, *args], env=self._env,
                              capture_output=True, text=True, timeout=timeout)

    def start(self) -> None:
        with (self.home / "server.log").open("ab") as log:
            self._proc = subprocess.Popen([str(SERVER)], env=self._env, stdout=log,
                                          stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT
        while self.ctl("-q", "await_startup", timeout=START_TIMEOUT).returncode != 0:
            assert self._proc.poll() is None, self.log()
            assert time.monotonic() < deadline, self.log()
            time.sleep(0.5)

    def kill(self) -> None:
        """SIGKILL to the node's Erlang VM (as a crash or an OOM kill would), nothing said to
        its clients; its ports close with it."""
        pid = int((self.home / "rabbit.pid").read_text().strip())
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while _alive(pid):
            assert time.monotonic() < deadline, f"rabbit {pid} did not die"
            time.sleep(0.05)
        if self._proc is not None:
            self._proc.wait(30)

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self.ctl("stop", timeout=60)
            try:
                self._proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self._proc.pid, signal.SIGKILL)

    def consumers(self, prefix: str) -> dict[str, int]:
        """Queue name -> consumers, of the queues whose names start with ``prefix``."""
        listed = self.ctl("-q", "list_queues", "name", "consumers")
        assert listed.returncode == 0, listed.stderr
        return queue_consumers(listed.stdout, prefix)

    def log(self) -> str:
        path = self.home / "server.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""


def queue_consumers(listing: str, prefix: str) -> dict[str, int]:
    """Queue name -> consumers, from ``rabbitmqctl list_queues name consumers``, of the
    queues whose names start with ``prefix``."""
    found = {}
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].startswith(prefix) and parts[1].isdigit():
            found[parts[0]] = int(parts[1])
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie until its parent (the server script) reaps it.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@contextmanager
def private_rabbitmq() -> Iterator[PrivateRabbit]:
    """A started node; stopped and its files removed afterwards."""
    if not (SERVER.exists() and CTL.exists()):
        reason = f"a private RabbitMQ node cannot be started: no {SERVER} (Debian's package)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    home = Path(tempfile.mkdtemp(prefix="hearth-rabbit-"))
    node = PrivateRabbit(home)
    try:
        node.start()
        yield node
    finally:
        try:
            node.stop()
        finally:
            shutil.rmtree(home, ignore_errors=True)
