"""The ``hearth`` client commands against a real noauth ``hearth serve`` (API + engine)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hearth.cli.main import main
from hearth.cli.serve import RunningServer, serving
from tests.integration.api.conftest import server_conf

PROJECT = "demo"
# Variables that would point the client elsewhere or change how rich draws.
FOREIGN_ENV = (
    "OS_AUTH_URL", "OS_TOKEN", "OS_USERNAME", "OS_PASSWORD", "OS_PROJECT_NAME",
    "OS_PROJECT_ID", "OS_REGION_NAME", "OS_CLOUD", "HEARTH_URL", "HEARTH_PROJECT",
    "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES", "NO_COLOR",
)

TEMPLATE = """\
heat_template_version: 2021-04-16
parameters:
  v: {type: string, default: one}
resources:
  first:
    type: OS::Heat::TestResource
    properties: {value: {get_param: v}}
  second:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [first, output]}}
outputs:
  value:
    description: what second stores
    value: {get_attr: [second, output]}
"""


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()

    def json(self) -> Any:
        return json.loads(self.out)


Hearth = Callable[..., Run]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with serving(server_conf(tmp_path_factory.mktemp("hearth"))) as running:
        yield running


@pytest.fixture()
def endpoint(server: RunningServer) -> str:
    return f"{server.url}/v1/{PROJECT}"


@pytest.fixture()
def hearth(server: RunningServer, capsys: pytest.CaptureFixture[str],
           monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Hearth:
    """Runs ``hearth ARGS...`` in this process (files relative to ``tmp_path``), pointed at
    the test server through HEARTH_URL/HEARTH_PROJECT, and returns what the user saw."""
    for name in FOREIGN_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HEARTH_URL", server.url)
    monkeypatch.setenv("HEARTH_PROJECT", PROJECT)
    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> Run:
        capsys.readouterr()
        code = main(list(args))
        seen = capsys.readouterr()
        assert "Traceback" not in seen.err
        return Run(code, seen.out, seen.err)

    return run


@pytest.fixture()
def template(tmp_path: Path) -> str:
    (tmp_path / "stack.yaml").write_text(TEMPLATE)
    return "stack.yaml"


def wait_until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)
