"""Where the client connects, the remote mode of ``template validate``, the live view on a
terminal, and the command as a separate process."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hearth.cli.client.connection import target
from tests.integration.cli.conftest import FOREIGN_ENV, TEMPLATE, Hearth

REPO = Path(__file__).resolve().parents[3]


def _args(**given: str) -> argparse.Namespace:
    return argparse.Namespace(**{"os_endpoint": None, "os_auth_url": None, **given})


def test_connection_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in FOREIGN_ENV:
        monkeypatch.delenv(name, raising=False)
    assert target(_args()).endpoint == "http://127.0.0.1:8004/v1/admin"
    monkeypatch.setenv("HEARTH_URL", "http://h:1/")
    assert target(_args()).endpoint == "http://h:1/v1/admin"
    monkeypatch.setenv("HEARTH_PROJECT", "p")
    assert target(_args()).endpoint == "http://h:1/v1/p"
    monkeypatch.setenv("OS_AUTH_URL", "http://keystone/v3")
    assert target(_args()).keystone
    assert target(_args(os_endpoint="http://e/v1/x/")).endpoint == "http://e/v1/x"


def test_keystone_without_credentials_or_reachable_keystone(hearth: Hearth,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.setenv("OS_AUTH_URL", "http://127.0.0.1:9/v3")
    run = hearth("stack", "list")
    assert (run.code, run.out) == (1, "")
    assert run.err == ("ERROR: Keystone at http://127.0.0.1:9/v3 needs a password "
                       "(--os-password or OS_PASSWORD) or a token (--os-token or OS_TOKEN)\n")
    run = hearth("stack", "list", "--os-username", "u", "--os-password", "p",
                 "--os-project-name", "p")
    assert run.code == 1
    assert run.err.startswith("ERROR: Keystone: ") and run.err.count("\n") == 1


def test_an_endpoint_nobody_listens_on(hearth: Hearth) -> None:
    run = hearth("stack", "list", "--os-endpoint", "http://127.0.0.1:9/v1/demo")
    assert (run.code, run.out) == (1, "")
    assert run.err == (
        "ERROR: No orchestration server answers at http://127.0.0.1:9/v1/demo (connection "
        "refused). Start one with `hearth serve`, or point the client elsewhere "
        "(--os-endpoint, OS_* variables or HEARTH_URL).\n")


def test_explicit_endpoint_wins(hearth: Hearth, endpoint: str, template: str,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEARTH_URL", "http://127.0.0.1:9")
    assert hearth("stack", "create", "direct", "-t", template, "--os-endpoint", endpoint,
                  "--wait").code == 0
    listed = hearth("stack", "list", "--os-endpoint", endpoint, "-f", "json").json()
    assert "direct" in {s["stack_name"] for s in listed}
    # another project of the same server sees none of it
    other = endpoint.rsplit("/", 1)[0] + "/elsewhere"
    assert hearth("stack", "list", "--os-endpoint", other, "-f", "json").json() == []


def test_validate_remote_answers_as_the_local_validator(hearth: Hearth, endpoint: str,
                                                        template: str) -> None:
    local = hearth("template", "validate", template, "-P", "v=x", "--format", "json")
    assert local.code == 0
    remote = hearth("template", "validate", template, "-P", "v=x", "--format", "json",
                    "--remote")
    assert remote.code == 0, remote.err
    assert remote.json() == local.json()
    assert remote.json()["Parameters"]["v"]["Value"] == "x"
    # --os-endpoint alone means remote too; yaml is the default format as before
    by_endpoint = hearth("template", "validate", template, "--os-endpoint", endpoint)
    assert yaml.safe_load(by_endpoint.out)["Parameters"]["v"]["Default"] == "one"


def test_validate_remote_errors(hearth: Hearth, tmp_path: Path) -> None:
    (tmp_path / "nova.yaml").write_text(
        "heat_template_version: 2021-04-16\n"
        "resources:\n  vm: {type: OS::Nova::Server}\n"
    )
    run = hearth("template", "validate", "nova.yaml", "--remote")
    assert (run.code, run.out) == (1, "")
    assert run.err.startswith("ERROR: HEAT-E99001 Service nova is not available")
    ignored = hearth("template", "validate", "nova.yaml", "--remote", "--ignore-errors",
                     "99001")
    assert ignored.code == 0
    (tmp_path / "broken.yaml").write_text("heat_template_version: 2021-04-16\nresources: [\n")
    run = hearth("template", "validate", "broken.yaml", "--remote")
    assert run.code == 1
    assert run.err.startswith("ERROR: Error parsing template ")


def test_live_view_on_a_terminal(hearth: Hearth, template: str,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich then treats the output as a terminal
    monkeypatch.setenv("COLUMNS", "150")
    run = hearth("stack", "create", "shiny", "-t", template, "--wait")
    assert run.code == 0
    assert "\x1b[" in run.out  # drawn with styles
    plain = run.out.replace("\x1b[0m", "")
    assert "Resource" in plain and "OS::Heat::TestResource" in plain
    assert "[shiny]:" not in plain  # no log lines: the table instead
    assert "Stack shiny CREATE_COMPLETE: Stack CREATE completed successfully" in plain


def test_the_command_as_a_process(endpoint: str, tmp_path: Path) -> None:
    (tmp_path / "stack.yaml").write_text(TEMPLATE)
    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENV}

    def hearth(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "hearth.cli.main", *args, "--os-endpoint", endpoint],
            capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60,
        )

    created = hearth("stack", "create", "proc", "-t", "stack.yaml", "--wait")
    assert created.returncode == 0, created.stderr
    assert created.stdout.splitlines()[-1].startswith(
        "Stack proc CREATE_COMPLETE: Stack CREATE completed successfully")
    missing = hearth("stack", "show", "absent")
    assert missing.returncode == 1
    assert missing.stdout == ""
    assert missing.stderr == "ERROR: The Stack (absent) could not be found.\n"
