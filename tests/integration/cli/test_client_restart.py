"""``--wait`` follows a stack through a server restart, and tells lost contact from FAILED."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.cli.conftest import FOREIGN_ENV
from tests.integration.conftest import DatabaseFactory
from tests.integration.serve_process import REPO, ServeProcess

SLOW = """\
heat_template_version: 2021-04-16
resources:
  slow:
    type: OS::Heat::TestResource
    properties: {value: v, action_wait_secs: {create: 4}}
"""


@pytest.fixture
def server(tmp_path: Path, database_factory: DatabaseFactory) -> Iterator[ServeProcess]:
    process = ServeProcess(tmp_path / "hearth", database_factory.new("sqlite"))
    process.start()
    yield process
    process.close()


def start_create(server: ServeProcess, tmp_path: Path, *extra: str) -> subprocess.Popen[str]:
    """``hearth stack create slow --wait`` as a user runs it, left running."""
    (tmp_path / "slow.yaml").write_text(SLOW)
    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENV}
    env["PYTHONPATH"] = str(REPO)
    return subprocess.Popen(
        [sys.executable, "-m", "hearth.cli.main", "stack", "create", "slow", "-t", "slow.yaml",
         "--wait", "--poll", "0.5", "--os-endpoint", server.endpoint, *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env,
    )


def wait_for_line(proc: subprocess.Popen[str], fragment: str) -> None:
    """Read the client's output until a line holding ``fragment`` (it is following)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if fragment in line:
            return
        assert line, f"the client ended before {fragment!r}"
    raise AssertionError(f"no {fragment!r} in the client's output")


def test_wait_follows_the_stack_through_a_server_restart(
    server: ServeProcess, tmp_path: Path
) -> None:
    client = start_create(server, tmp_path)
    wait_for_line(client, "[slow]: CREATE_IN_PROGRESS")
    server.kill()
    time.sleep(1)
    server.start()
    out, err = client.communicate(timeout=120)
    assert client.returncode == 0, (out, err)
    lines = out.splitlines()
    assert "Lost contact with the server" in out
    assert any(line.startswith("In contact again after ") for line in lines), out
    assert lines[-1].startswith(
        "Stack slow CREATE_COMPLETE: Stack CREATE completed successfully"), out
    assert "Traceback" not in err


def test_wait_says_lost_contact_with_its_own_exit_status(
    server: ServeProcess, tmp_path: Path
) -> None:
    client = start_create(server, tmp_path, "--lost-after", "2")
    wait_for_line(client, "[slow]: CREATE_IN_PROGRESS")
    server.kill()
    out, err = client.communicate(timeout=60)
    assert client.returncode == 3, (out, err)
    assert out.splitlines()[-1].startswith(
        "Stack slow: lost contact with the server for 2s; it was CREATE_IN_PROGRESS when "
        "last seen and may still be going on"), out
    assert "FAILED" not in out
    assert err == ""
