"""``hearth stack create|update|delete|list|show|preview`` as a user sees them."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.integration.cli.conftest import Hearth

FAILING = """\
heat_template_version: 2021-04-16
resources:
  fine: {type: OS::Heat::None}
  broken:
    type: OS::Heat::TestResource
    properties: {fail: true}
"""


def test_create_wait_prints_each_change_and_a_summary(hearth: Hearth, template: str) -> None:
    run = hearth("stack", "create", "web", "-t", template, "--wait", "--poll", "0.2")
    assert run.code == 0, run.err
    assert run.err == ""
    assert re.search(r"\[web\]: CREATE_IN_PROGRESS  Stack CREATE started$", run.lines[0])
    assert any(line.endswith("[first]: CREATE_COMPLETE  state changed") for line in run.lines)
    assert len(set(run.lines)) == len(run.lines)  # each change once
    assert re.fullmatch(
        r"Stack web CREATE_COMPLETE: Stack CREATE completed successfully "
        r"\(\d+\.\ds; resources: 2 CREATE_COMPLETE\)",
        run.lines[-1],
    )


def test_create_without_wait_shows_the_new_stack(hearth: Hearth, template: str) -> None:
    run = hearth("stack", "create", "quick", "-t", template, "-f", "yaml")
    assert run.code == 0, run.err
    shown = yaml.safe_load(run.out)
    assert shown["stack_name"] == "quick"
    assert shown["stack_status"] in ("CREATE_IN_PROGRESS", "CREATE_COMPLETE")
    assert set(shown) == {"id", "stack_name", "description", "creation_time", "updated_time",
                          "stack_status", "stack_status_reason"}


def test_a_failing_stack_exits_non_zero(hearth: Hearth, tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(FAILING)
    run = hearth("stack", "create", "doomed", "-t", "bad.yaml", "--wait")
    assert run.code == 1
    assert any("[broken]: CREATE_FAILED" in line for line in run.lines)
    assert run.lines[-1].startswith(
        "Stack doomed CREATE_FAILED: Resource CREATE failed: ValueError: "
    )
    assert run.lines[-1].endswith("resources: 1 CREATE_COMPLETE, 1 CREATE_FAILED)")


def test_a_rolled_back_create_exits_non_zero(hearth: Hearth, tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(FAILING)
    run = hearth("stack", "create", "undone", "-t", "bad.yaml", "--enable-rollback", "--wait")
    assert run.code == 1
    assert any("[undone]: ROLLBACK_IN_PROGRESS" in line for line in run.lines)
    assert run.lines[-1].startswith("Stack undone ROLLBACK_COMPLETE: ")


def test_list_and_show_as_table_json_and_yaml(hearth: Hearth, template: str) -> None:
    assert hearth("stack", "create", "listed", "-t", template, "--wait").code == 0

    table = hearth("stack", "list")
    assert table.code == 0
    header = next(line for line in table.lines if "Stack Name" in line)
    assert all(title in header for title in ("ID", "Stack Status", "Creation Time"))
    row = next(line for line in table.lines if " listed " in line)
    assert "CREATE_COMPLETE" in row

    listed = {s["stack_name"]: s for s in hearth("stack", "list", "-f", "json").json()}
    assert listed["listed"]["stack_status"] == "CREATE_COMPLETE"
    assert set(listed["listed"]) == {"id", "stack_name", "stack_status", "creation_time",
                                     "updated_time"}
    as_yaml = yaml.safe_load(hearth("stack", "list", "--format", "yaml").out)
    assert {s["id"] for s in as_yaml} == {s["id"] for s in listed.values()}

    shown = hearth("stack", "show", "listed")
    assert shown.code == 0
    assert re.search(r"stack_status\s+│ CREATE_COMPLETE", shown.out)
    assert re.search(r"│ v: one", shown.out)  # parameters, as YAML in the cell
    doc = hearth("stack", "show", "listed", "-f", "json").json()
    assert doc["outputs"] == [{"output_key": "value", "description": "what second stores",
                               "output_value": "one"}]
    assert yaml.safe_load(hearth("stack", "show", listed["listed"]["id"], "-f", "yaml").out)[
        "stack_name"] == "listed"


def test_update_existing_with_a_parameter(hearth: Hearth, template: str) -> None:
    assert hearth("stack", "create", "patched", "-t", template, "--wait").code == 0

    preview = hearth("stack", "update", "patched", "--existing", "--parameter", "v=two",
                     "--dry-run")
    assert preview.code == 0
    assert re.search(r"│ updated\s+│ first\s+│ OS::Heat::TestResource", preview.out)
    assert hearth("output", "show", "patched", "value", "--value").out == "one\n"

    run = hearth("stack", "update", "patched", "--existing", "--parameter", "v=two", "--wait")
    assert run.code == 0, run.err
    assert run.lines[0].endswith("[patched]: UPDATE_IN_PROGRESS  Stack UPDATE started")
    assert run.lines[-1].startswith(
        "Stack patched UPDATE_COMPLETE: Stack UPDATE completed successfully")
    assert hearth("output", "show", "patched", "value", "--value").out == "two\n"
    # the template was kept: both resources are still there
    shown = hearth("stack", "show", "patched", "-f", "json").json()
    assert shown["parameters"]["v"] == "two"


def test_update_with_a_new_template(hearth: Hearth, template: str, tmp_path: Path) -> None:
    assert hearth("stack", "create", "grown", "-t", template, "--wait").code == 0
    bigger = yaml.safe_load((tmp_path / template).read_text())
    bigger["resources"]["third"] = {"type": "OS::Heat::None"}
    (tmp_path / "bigger.yaml").write_text(yaml.safe_dump(bigger))
    run = hearth("stack", "update", "grown", "-t", "bigger.yaml", "--wait")
    assert run.code == 0, run.out
    assert "[third]: CREATE_COMPLETE" in run.out
    # unchanged resources keep their state
    assert run.lines[-1].startswith("Stack grown UPDATE_COMPLETE: ")
    assert run.lines[-1].endswith("resources: 3 CREATE_COMPLETE)")


def test_preview(hearth: Hearth, template: str) -> None:
    run = hearth("stack", "preview", "planned", "-t", template)
    assert run.code == 0, run.err
    assert re.search(r"│ first\s+│ OS::Heat::TestResource\s+│ - second", run.out)
    doc = hearth("stack", "preview", "planned", "-t", template, "-f", "json").json()
    assert sorted(r["resource_name"] for r in doc["resources"]) == ["first", "second"]
    assert "planned" not in hearth("stack", "list").out


def test_delete_wait_and_without(hearth: Hearth, template: str) -> None:
    for name in ("gone", "going"):
        assert hearth("stack", "create", name, "-t", template, "--wait").code == 0
    run = hearth("stack", "delete", "gone", "--wait")
    assert run.code == 0, run.err
    assert run.lines[-1].startswith("Stack gone DELETE_COMPLETE")
    quiet = hearth("stack", "delete", "going", "--yes")
    assert quiet.code == 0
    assert quiet.out.startswith("Delete of stack going (")
    assert quiet.out.endswith(") requested.\n")
    missing = hearth("stack", "show", "gone")
    assert (missing.code, missing.out) == (1, "")
    assert missing.err == "ERROR: The Stack (gone) could not be found.\n"


def test_unknown_stack_is_one_error_line(hearth: Hearth) -> None:
    for args in (("stack", "show", "nowhere"), ("stack", "update", "nowhere", "--existing"),
                 ("resource", "list", "nowhere"), ("event", "list", "nowhere"),
                 ("stack", "delete", "nowhere", "--wait")):
        run = hearth(*args)
        assert run.code == 1, args
        assert run.out == ""
        assert run.err == "ERROR: The Stack (nowhere) could not be found.\n", args


def test_missing_template_file_is_one_error_line(hearth: Hearth, tmp_path: Path) -> None:
    run = hearth("stack", "create", "x", "-t", "absent.yaml")
    assert run.code == 1
    assert run.err == f"ERROR: No such file or directory: {tmp_path / 'absent.yaml'}\n"
