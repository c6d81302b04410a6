"""``hearth resource ...``, ``hearth event ...`` and ``hearth output ...``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from tests.integration.cli.conftest import Hearth, wait_until

HOOK_ENV = """\
resource_registry:
  resources:
    first: {hooks: pre-create}
"""
SLOW = """\
heat_template_version: 2021-04-16
resources:
  pause:
    type: OS::Heat::TestResource
    properties: {wait_secs: 0.6}
  after:
    type: OS::Heat::None
    depends_on: pause
"""


def test_resource_list_and_show(hearth: Hearth, template: str) -> None:
    assert hearth("stack", "create", "things", "-t", template, "--wait").code == 0
    table = hearth("resource", "list", "things")
    assert table.code == 0
    assert re.search(r"│ first\s+│ things-first-\w+\s+│ OS::Heat::TestResource\s+│ CREATE_COMPLETE",
                     table.out)
    rows = hearth("resource", "list", "things", "-f", "json").json()
    assert sorted(r["resource_name"] for r in rows) == ["first", "second"]
    assert set(rows[0]) == {"resource_name", "physical_resource_id", "resource_type",
                            "resource_status", "updated_time"}
    only = yaml.safe_load(hearth("resource", "list", "things", "--filter", "name=second",
                                 "-f", "yaml").out)
    assert [r["resource_name"] for r in only] == ["second"]

    shown = hearth("resource", "show", "things", "second", "--with-attr", "output")
    assert shown.code == 0
    assert re.search(r"│ required_by\s+│ \[\]", shown.out)
    doc = hearth("resource", "show", "things", "first", "-f", "json",
                 "--with-attr", "output").json()
    assert doc["required_by"] == ["second"]
    assert doc["attributes"]["output"] == "one"
    missing = hearth("resource", "show", "things", "third")
    assert missing.code == 1
    assert missing.err.startswith("ERROR: ") and "third" in missing.err
    assert hearth("resource", "metadata", "things", "first").json() == {}


def test_mark_unhealthy_and_back(hearth: Hearth, template: str) -> None:
    assert hearth("stack", "create", "ailing", "-t", template, "--wait").code == 0
    run = hearth("resource", "mark-unhealthy", "ailing", "second", "disk on fire")
    assert (run.code, run.out) == (0, "Resource second of stack ailing marked unhealthy.\n")
    doc = hearth("resource", "show", "ailing", "second", "-f", "json").json()
    assert (doc["resource_status"], doc["resource_status_reason"]) == (
        "CHECK_FAILED", "disk on fire")

    back = hearth("resource", "mark-unhealthy", "ailing", "second", "--reset")
    assert back.out == "Resource second of stack ailing marked healthy again.\n"
    doc = hearth("resource", "show", "ailing", "second", "-f", "json").json()
    assert doc["resource_status"] == "CHECK_COMPLETE"


def test_signal_clears_a_hook_and_follow_sees_the_rest(hearth: Hearth, template: str,
                                                        tmp_path: Path) -> None:
    (tmp_path / "hook.yaml").write_text(HOOK_ENV)
    assert hearth("stack", "create", "hooked", "-t", template, "-e", "hook.yaml").code == 0

    def paused() -> bool:
        events = hearth("event", "list", "hooked", "-f", "json").json()
        return any(e["resource_status_reason"] == "CREATE paused until Hook pre-create is "
                   "cleared" for e in events)

    wait_until(paused)
    states = {r["resource_name"]: r["resource_status"]
              for r in hearth("resource", "list", "hooked", "-f", "json").json()}
    assert states == {"first": "INIT_COMPLETE", "second": "INIT_COMPLETE"}

    run = hearth("resource", "signal", "hooked", "first", "--data",
                 '{"unset_hook": "pre-create"}')
    assert (run.code, run.out) == (0, "Signalled resource first of stack hooked.\n")

    followed = hearth("event", "list", "hooked", "--follow", "--poll", "0.1")
    assert followed.code == 0
    assert followed.lines[0].endswith("[hooked]: CREATE_IN_PROGRESS  Stack CREATE started")
    assert any(line.endswith("[first]: INIT_COMPLETE  Hook pre-create is cleared")
               for line in followed.lines)
    assert followed.lines[-1].endswith(
        "[hooked]: CREATE_COMPLETE  Stack CREATE completed successfully")

    bad = hearth("resource", "signal", "hooked", "first", "--data", "{not json")
    assert bad.code == 1
    assert bad.err.startswith("ERROR: the signal data is not JSON")
    refused = hearth("resource", "signal", "hooked", "second")
    assert (refused.code, refused.out) == (1, "")
    assert refused.err == "ERROR: signal is not supported for resource.\n"


def test_event_list_formats(hearth: Hearth, template: str) -> None:
    assert hearth("stack", "create", "noisy", "-t", template, "--wait").code == 0
    table = hearth("event", "list", "noisy")
    assert table.code == 0
    header = next(line for line in table.lines if "Time" in line)
    assert all(title in header for title in ("Resource", "Status", "Reason"))
    assert re.search(r"│ noisy\s+│ CREATE_COMPLETE\s+│ Stack CREATE completed successfully",
                     table.out)

    events = hearth("event", "list", "noisy", "-f", "json").json()
    assert [(e["resource_name"], e["resource_status"]) for e in events] == [
        ("noisy", "CREATE_IN_PROGRESS"),
        ("first", "CREATE_IN_PROGRESS"), ("first", "CREATE_COMPLETE"),
        ("second", "CREATE_IN_PROGRESS"), ("second", "CREATE_COMPLETE"),
        ("noisy", "CREATE_COMPLETE"),
    ]
    newest = yaml.safe_load(hearth("event", "list", "noisy", "--sort-dir", "desc",
                                   "--limit", "1", "-f", "yaml").out)
    assert [e["resource_status"] for e in newest] == ["CREATE_COMPLETE"]
    of_first = hearth("event", "list", "noisy", "--resource", "first", "-f", "json").json()
    assert {e["resource_name"] for e in of_first} == {"first"}

    one = events[2]
    shown = hearth("event", "show", "noisy", "first", one["id"], "-f", "json").json()
    assert shown["resource_status"] == "CREATE_COMPLETE"
    assert shown["resource_type"] == "OS::Heat::TestResource"


def test_event_follow_of_a_running_create(hearth: Hearth, tmp_path: Path) -> None:
    (tmp_path / "slow.yaml").write_text(SLOW)
    assert hearth("stack", "create", "slowpoke", "-t", "slow.yaml").code == 0
    run = hearth("event", "list", "slowpoke", "--follow", "--poll", "0.1", "-f", "json")
    assert run.code == 0
    events = [json.loads(line) for line in run.lines]
    assert events[0]["resource_status"] == "CREATE_IN_PROGRESS"
    assert [e["resource_name"] for e in events if e["resource_status"] == "CREATE_COMPLETE"
            ] == ["pause", "after", "slowpoke"]
    # a stack no longer IN_PROGRESS: --follow prints what there is and ends
    again = hearth("event", "list", "slowpoke", "--follow", "-f", "yaml")
    assert len(yaml.safe_load(again.out)) == len(events)


def test_outputs(hearth: Hearth, template: str) -> None:
    assert hearth("stack", "create", "outward", "-t", template, "--parameter", "v=given",
                  "--wait").code == 0
    table = hearth("output", "list", "outward")
    assert re.search(r"│ value\s+│ what second stores", table.out)
    assert hearth("output", "list", "outward", "-f", "json").json() == [
        {"output_key": "value", "description": "what second stores"}]

    shown = hearth("output", "show", "outward", "value")
    assert re.search(r"│ output_value\s+│ given", shown.out)
    assert hearth("output", "show", "outward", "value", "-f", "yaml").out == (
        "output_key: value\noutput_value: given\ndescription: what second stores\n")
    assert hearth("output", "show", "outward", "value", "--value").out == "given\n"
    missing = hearth("output", "show", "outward", "nothing")
    assert missing.code == 1
    assert missing.err.startswith("ERROR: ") and "nothing" in missing.err
