"""``hearth stack snapshot|restore|abandon|adopt|suspend|resume|check|cancel``."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.integration.cli.conftest import Hearth, Run, wait_until

SLOW_UPDATE = """\
heat_template_version: 2021-04-16
parameters:
  v: {type: string, default: one}
resources:
  slow:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: v}
      action_wait_secs: {update: 15}
"""


def _summary(lines: list[str]) -> str:
    return lines[-1]


def _updating(hearth: Hearth, stack: str) -> Run:
    """Start a slow update and wait until its resource works on it."""
    started = hearth("stack", "update", stack, "--existing", "--parameter", "v=two",
                     "-f", "json")
    wait_until(lambda: hearth("resource", "show", stack, "slow", "-f", "json").json()[
        "resource_status"] == "UPDATE_IN_PROGRESS")
    return started


def test_snapshot_then_restore(hearth: Hearth, template: str) -> None:
    assert hearth("stack", "create", "kept", "-t", template, "--wait").code == 0

    snap = hearth("stack", "snapshot", "create", "kept", "--name", "before", "--wait")
    assert snap.code == 0, snap.err
    assert any(line.startswith("Stack kept SNAPSHOT_COMPLETE") for line in snap.lines)
    assert re.search(r"│ name\s+│ before", snap.out)
    assert re.search(r"│ status\s+│ COMPLETE", snap.out)

    listed = hearth("stack", "snapshot", "list", "kept", "-f", "json").json()
    assert [(s["name"], s["status"]) for s in listed] == [("before", "COMPLETE")]
    snapshot_id = listed[0]["id"]
    assert snapshot_id in hearth("stack", "snapshot", "list", "kept").out
    shown = hearth("stack", "snapshot", "show", "kept", snapshot_id, "-f", "json").json()
    assert shown["data"]["resources"].keys() == {"first", "second"}

    changed = hearth("stack", "update", "kept", "--existing", "--parameter", "v=two", "--wait")
    assert changed.code == 0
    assert hearth("output", "show", "kept", "value", "--value").out == "two\n"

    run = hearth("stack", "restore", "kept", snapshot_id, "--wait")
    assert run.code == 0, run.out
    assert run.lines[0].endswith("[kept]: RESTORE_IN_PROGRESS  Stack RESTORE started")
    assert _summary(run.lines).startswith(
        "Stack kept RESTORE_COMPLETE: Stack RESTORE completed successfully")
    assert hearth("output", "show", "kept", "value", "--value").out == "one\n"

    deleted = hearth("stack", "snapshot", "delete", "kept", snapshot_id)
    assert deleted.out == f"Snapshot {snapshot_id} of stack kept deleted.\n"
    assert hearth("stack", "snapshot", "list", "kept", "-f", "json").json() == []


def test_abandon_then_adopt_from_the_saved_file(hearth: Hearth, template: str,
                                               tmp_path: Path) -> None:
    assert hearth("stack", "create", "orphan", "-t", template, "--wait").code == 0
    physical = {r["resource_name"]: r["physical_resource_id"]
                for r in hearth("resource", "list", "orphan", "-f", "json").json()}

    run = hearth("stack", "abandon", "orphan", "--output-file", "orphan.json")
    assert run.code == 0, run.err
    assert run.out.startswith("Abandoned stack orphan: its data is in orphan.json")
    data = json.loads((tmp_path / "orphan.json").read_text())
    assert data["name"] == "orphan"
    # abandon deletes the stack's record (not its resources) in the background
    wait_until(lambda: hearth("stack", "show", "orphan").code == 1)

    adopted = hearth("stack", "adopt", "foster", "--adopt-file", "orphan.json", "--wait")
    assert adopted.code == 0, adopted.out + adopted.err
    assert _summary(adopted.lines).startswith(
        "Stack foster ADOPT_COMPLETE: Stack ADOPT completed successfully")
    assert _summary(adopted.lines).endswith("resources: 2 ADOPT_COMPLETE)")
    resources = hearth("resource", "list", "foster", "-f", "json").json()
    assert {r["resource_name"]: r["physical_resource_id"] for r in resources} == physical
    assert hearth("output", "show", "foster", "value", "--value").out == "one\n"


def test_abandon_prints_the_data_without_a_file(hearth: Hearth, template: str) -> None:
    assert hearth("stack", "create", "printed", "-t", template, "--wait").code == 0
    data = hearth("stack", "abandon", "printed").json()
    assert data["name"] == "printed"
    assert set(data["resources"]) == {"first", "second"}


def test_suspend_resume_check(hearth: Hearth, template: str) -> None:
    assert hearth("stack", "create", "napping", "-t", template, "--wait").code == 0
    for action in ("suspend", "resume", "check"):
        run = hearth("stack", action, "napping", "--wait")
        state = f"{action.upper()}_COMPLETE"
        assert run.code == 0, run.out
        assert _summary(run.lines) == (
            f"Stack napping {state}: Stack {action.upper()} completed successfully "
            f"({_summary(run.lines).split('(')[1].split(';')[0]}; resources: 2 {state})"
        )
        assert f"[first]: {state}" in run.out
    quiet = hearth("stack", "check", "napping")
    assert quiet.out == "Check of stack napping requested.\n"


def test_cancel_a_running_update(hearth: Hearth, tmp_path: Path) -> None:
    (tmp_path / "slow.yaml").write_text(SLOW_UPDATE)
    assert hearth("stack", "create", "stuck", "-t", "slow.yaml", "--wait").code == 0
    started = _updating(hearth, "stuck")
    assert started.json()["stack_status"] == "UPDATE_IN_PROGRESS"

    run = hearth("stack", "cancel", "stuck", "--wait")
    assert run.code == 0, run.out
    assert "[stuck]: UPDATE_FAILED  Stack UPDATE cancelled" in run.out
    assert _summary(run.lines).startswith(
        "Stack stuck ROLLBACK_COMPLETE: Stack ROLLBACK completed successfully")
    assert hearth("output", "show", "stuck", "value", "--value").code == 1  # no such output


def test_cancel_without_rollback(hearth: Hearth, tmp_path: Path) -> None:
    (tmp_path / "slow.yaml").write_text(SLOW_UPDATE)
    assert hearth("stack", "create", "halted", "-t", "slow.yaml", "--wait").code == 0
    _updating(hearth, "halted")
    run = hearth("stack", "cancel", "halted", "--no-rollback", "--wait")
    assert run.code == 0, run.out
    assert _summary(run.lines).startswith("Stack halted UPDATE_FAILED: Stack UPDATE cancelled")
    quiet = hearth("stack", "cancel", "halted")
    assert quiet.code == 1
    assert quiet.err.startswith("ERROR: ")
