"""A real ``hearth serve`` (API + engine, waitress on a free port) for the API tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from heatclient import client as heat_client

from hearth.cli.serve import RunningServer, serving
from hearth.common.config import load_config

NOAUTH_PROJECT = "demo"


def server_conf(data_dir: Path, **extra: Any) -> Any:
    """A config for a test server: its own data dir, any free port, abandon/adopt on."""
    overrides: list[tuple[str, str | None, object]] = [
        ("data_dir", None, str(data_dir)),
        ("bind_port", "api", 0),
        ("bind", "cfn_api", "127.0.0.1:0"),
        ("heartbeat_interval", None, 0.5),
        ("enable_stack_abandon", None, True),
        ("enable_stack_adopt", None, True),
        ("hidden_stack_tags", None, ["hidden"]),
    ]
    for key, value in extra.items():
        group, _, name = key.rpartition("__")
        overrides.append((name, group or None, value))
    return load_config(overrides=overrides)


@pytest.fixture(scope="module")
def noauth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with serving(server_conf(tmp_path_factory.mktemp("hearth"))) as running:
        yield running


@pytest.fixture()
def heat(noauth_server: RunningServer) -> Any:
    """python-heatclient pointed at the noauth server, project ``demo``."""
    return heat_client.Client(
        "1", endpoint=f"{noauth_server.url}/v1/{NOAUTH_PROJECT}", token="unused"
    )
