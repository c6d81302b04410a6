"""The real ``openstack stack ...`` command (python-openstackclient + heatclient's plugin).

Without Keystone, OSC talks to the server through keystoneauth's ``none`` auth plugin:
``openstack --os-auth-type none --os-endpoint http://host:port/v1/<project> stack ...``.
Every call runs the installed ``openstack`` entry point in a subprocess, as a user would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from hearth.cli.serve import RunningServer
from tests.integration.api.util import TEMPLATE, base, unique, wait_for_status, wait_until

OPENSTACK = Path(sys.executable).parent / "openstack"
pytestmark = pytest.mark.skipif(not OPENSTACK.exists(), reason="no openstack entry point")


class Osc:
    def __init__(self, server: RunningServer, workdir: Path) -> None:
        self.endpoint = base(server.url)
        self.workdir = workdir
        # No cloud config, credentials or project from the caller's environment.
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
        self.env["OS_CLIENT_CONFIG_FILE"] = str(workdir / "no-clouds.yaml")

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = [str(OPENSTACK), "--os-auth-type", "none", "--os-endpoint", self.endpoint,
               *args]
        done = subprocess.run(cmd, capture_output=True, text=True, env=self.env,
                              cwd=self.workdir, timeout=120, check=False)
        if check:
            assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done

    def json(self, *args: str) -> Any:
        lines = self.run(*args, "-f", "json").stdout.splitlines()
        # --wait prints the event log before the JSON document
        start = next(i for i, line in enumerate(lines) if line in ("{", "[", "[]", "{}"))
        return json.loads("\n".join(lines[start:]))


@pytest.fixture()
def osc(noauth_server: RunningServer, tmp_path: Path) -> Osc:
    return Osc(noauth_server, tmp_path)


@pytest.fixture()
def template_file(tmp_path: Path) -> Path:
    path = tmp_path / "stack.yaml"
    path.write_text(yaml.safe_dump(TEMPLATE))
    return path


def test_create_inspect_update_delete(osc: Osc, template_file: Path, heat: Any) -> None:
    name = unique("osc")
    created = osc.json("stack", "create", "-t", str(template_file), "--parameter", "value=one",
                       "--tags", "osc,cli", "--wait", "--poll", "1", name)
    assert created["stack_name"] == name
    assert created["stack_status"] == "CREATE_COMPLETE"
    stack_id = created["id"]

    listed = osc.json("stack", "list", "--tags", "osc,cli")
    assert [(s["Stack Name"], s["Stack Status"]) for s in listed if s["ID"] == stack_id] == [
        (name, "CREATE_COMPLETE")]

    shown = osc.json("stack", "show", name)
    assert shown["id"] == stack_id
    assert shown["parameters"]["value"] == "one"
    assert shown["parameters"]["secret"] == "******"
    assert shown["outputs"] == [{"output_key": "stored", "output_value": "one",
                                 "description": "What the store holds"}]
    assert shown["tags"] == ["osc", "cli"]

    output = osc.json("stack", "output", "show", name, "stored")
    assert output["output_value"] == "one"
    missing = osc.run("stack", "output", "show", name, "missing", check=False)
    assert missing.returncode == 1
    assert f"Stack {name} or output missing not found." in missing.stderr

    resources = osc.json("stack", "resource", "list", name)
    assert {(r["resource_name"], r["resource_type"], r["resource_status"])
            for r in resources} == {("store", "OS::Heat::TestResource", "CREATE_COMPLETE"),
                                    ("nothing", "OS::Heat::None", "CREATE_COMPLETE")}

    events = osc.json("stack", "event", "list", name)
    assert {(e["resource_name"], e["resource_status"]) for e in events} >= {
        (name, "CREATE_IN_PROGRESS"), ("store", "CREATE_COMPLETE"), (name, "CREATE_COMPLETE")}

    updated = osc.json("stack", "update", "--existing", "--parameter", "value=two", name)
    assert updated["stack_status"] in ("UPDATE_IN_PROGRESS", "UPDATE_COMPLETE")
    wait_for_status(heat, stack_id, "UPDATE_COMPLETE")
    assert heat.stacks.get(stack_id).outputs[0]["output_value"] == "two"

    # (its event log may be empty: the stack can be gone before the first poll)
    osc.run("stack", "delete", "--wait", "--yes", name)
    assert heat.stacks.get(stack_id).stack_status == "DELETE_COMPLETE"
    gone = osc.run("stack", "show", name, check=False)
    assert gone.returncode == 1
    assert f"Stack not found: {name}" in gone.stderr


def test_actions_snapshot_abandon_adopt(osc: Osc, heat: Any, tmp_path: Path) -> None:
    name = unique("osc")
    body = heat.stacks.create(stack_name=name, template=TEMPLATE, parameters={"value": "one"})
    stack_id = body["stack"]["id"]
    wait_for_status(heat, stack_id, "CREATE_COMPLETE")

    # (--wait here polls every 5 s; heatclient polls instead)
    for action, status in (("suspend", "SUSPEND"), ("resume", "RESUME"), ("check", "CHECK")):
        result = osc.json("stack", action, name)
        assert [(r["Stack Name"], r["Stack Status"].split("_")[0]) for r in result] == [
            (name, status)]
        wait_for_status(heat, stack_id, f"{status}_COMPLETE")

    snap = osc.json("stack", "snapshot", "create", name, "--name", "before")
    assert snap["name"] == "before"
    snap_id = snap["ID"]
    wait_until(lambda: heat.stacks.snapshot_show(stack_id, snap_id)["snapshot"]["status"]
               == "COMPLETE", what="the snapshot")
    snaps = osc.json("stack", "snapshot", "list", name)
    assert [(s["id"], s["name"], s["status"]) for s in snaps] == [(snap_id, "before",
                                                                   "COMPLETE")]
    heat.stacks.update(stack_id, existing=True, parameters={"value": "two"})
    wait_for_status(heat, stack_id, "UPDATE_COMPLETE")
    osc.run("stack", "snapshot", "restore", name, snap_id)
    restored = wait_for_status(heat, stack_id, "RESTORE_COMPLETE")
    assert restored.outputs[0]["output_value"] == "one"

    abandon_file = tmp_path / "abandoned.json"
    osc.run("stack", "abandon", name, "--output-file", str(abandon_file))
    abandoned = json.loads(abandon_file.read_text())
    assert abandoned["name"] == name and set(abandoned["resources"]) == {"store", "nothing"}
    wait_for_status(heat, stack_id, "DELETE_COMPLETE")

    adopted_name = unique("adopted")
    adopted = osc.json("stack", "adopt", "--adopt-file", str(abandon_file), "--wait",
                       adopted_name)
    assert adopted["stack_status"] == "ADOPT_COMPLETE"
    assert adopted["stack_name"] == adopted_name
    assert heat.stacks.get(adopted["id"]).outputs[0]["output_value"] == "one"
    store = heat.resources.get(adopted["id"], "store")
    assert store.physical_resource_id == abandoned["resources"]["store"]["resource_id"]
