"""The client through Keystone: password auth from the OS_* variables or the options, the
endpoint from the catalog. The seed of ``start-keystone.sh`` registers orchestration at
``http://127.0.0.1:8004/v1/{project_id}``, so the keystone-mode server listens there (the
test is skipped when something else already does)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth.cli.serve import RunningServer, serving
from tests.integration.api.keystone_fixtures import (  # noqa: F401 (fixtures used by name)
    DEMO,
    KEYSTONE_URL,
    keystone,
    keystone_server_conf,
    keystone_users,
)
from tests.integration.cli.conftest import Hearth

CATALOG_PORT = 8004


def _port_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.fixture(scope="module")
def catalog_server(request: pytest.FixtureRequest,
                   tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    if not _port_free(CATALOG_PORT):
        pytest.skip(f"port {CATALOG_PORT} (the catalog's orchestration endpoint) is in use")
    request.getfixturevalue("keystone_users")  # a running Keystone with the test users
    conf = keystone_server_conf(tmp_path_factory.mktemp("hearth-catalog"))
    conf.set_override("bind_port", CATALOG_PORT, group="api")
    with serving(conf) as running:
        yield running


def test_password_auth_and_the_catalog(catalog_server: RunningServer, hearth: Hearth,
                                       template: str, monkeypatch: pytest.MonkeyPatch,
                                       tmp_path: Path) -> None:
    user, password, project = DEMO
    monkeypatch.setenv("OS_AUTH_URL", KEYSTONE_URL)
    monkeypatch.setenv("OS_USERNAME", user)
    monkeypatch.setenv("OS_PASSWORD", password)
    monkeypatch.setenv("OS_PROJECT_NAME", project)
    monkeypatch.setenv("OS_USER_DOMAIN_NAME", "Default")
    monkeypatch.setenv("OS_PROJECT_DOMAIN_NAME", "Default")
    monkeypatch.setenv("HEARTH_URL", "http://127.0.0.1:9")  # Keystone comes first

    run = hearth("stack", "create", "from-keystone", "-t", template, "--wait")
    assert run.code == 0, run.err
    assert run.lines[-1].startswith("Stack from-keystone CREATE_COMPLETE")
    listed = hearth("stack", "list", "-f", "json").json()
    assert "from-keystone" in {s["stack_name"] for s in listed}

    # the same through the options, with a wrong password: Keystone says no, in one line
    monkeypatch.delenv("OS_PASSWORD")
    refused = hearth("stack", "list", "--os-password", "wrong")
    assert (refused.code, refused.out) == (1, "")
    assert refused.err.startswith("ERROR: Keystone: ") and refused.err.count("\n") == 1

    assert hearth("stack", "delete", "from-keystone", "--os-password", password,
                  "--wait").code == 0
