"""The web console in headless Chromium against a real ``hearth serve`` (noauth): what a user
does on its pages and what they see. Each test leaves a screenshot in test-artifacts/console/.
"""

from __future__ import annotations

import json
from pathlib import Path

from selenium.webdriver.support.select import Select

from hearth.cli.serve import RunningServer
from tests.integration.api.conftest import NOAUTH_PROJECT
from tests.integration.console.browser import Console
from tests.integration.console.stacks import CHAIN, NESTED_FAILS, NESTED_FILES, StackApi

PATH_SEP = " \u203a "  # how the failure tab joins the path to the root cause


def api(server: RunningServer) -> StackApi:
    return StackApi(server.url, NOAUTH_PROJECT)


def statuses(console: Console) -> dict[str, str]:
    return {el.get_attribute("data-name") or "": el.get_attribute("data-status") or ""
            for el in console.all("#topology-svg .node")}


def test_launch_form_shows_a_constraint_violation_inline_then_the_topology_goes_live(
    console: Console, console_server: RunningServer,
) -> None:
    console.go("/launch")
    console.set_value("#template-text", CHAIN)
    console.wait_for("#template-error", "Template is valid")
    console.wait_for("label.param", "Word size")
    console.type("#stack-name", "launched")
    console.type("#param-size", "2")
    console.wait_for("#param-error-size", "the size must be between 4 and 32")
    assert not console.find("#launch-submit").is_enabled()
    console.screenshot("launch-invalid")
    console.type("#param-size", "12")
    console.wait(lambda: console.find("#param-error-size").text == "", "the error to go")
    console.wait(lambda: console.find("#launch-submit").is_enabled(), "Launch to be enabled")
    console.driver.execute_script("window.sameDocument = true")
    console.find("#launch-submit").click()

    console.wait(lambda: any(s.endswith("_IN_PROGRESS") for s in statuses(console).values()),
                 "a resource shown in progress")
    console.screenshot("topology-in-progress")
    console.wait(lambda: statuses(console) == dict.fromkeys(
        ("word", "first", "second", "third"), "CREATE_COMPLETE"), "every resource complete")
    console.wait_for("#stack-status", "CREATE_COMPLETE")
    assert console.driver.execute_script("return window.sameDocument") is True, "page reloaded"
    console.screenshot("topology")

    console.find("#tab-link-timeline").click()
    console.wait(lambda: len(console.all("#timeline-chart .gantt-row")) == 4, "four spans")
    assert console.find("#critical-path").text == "word → first → second → third"
    critical = {el.get_attribute("data-name") for el in console.all(".gantt-row.critical")}
    assert critical == {"word", "first", "second", "third"}
    console.screenshot("timeline")

    assert api(console_server).show("launched")["parameters"]["size"] == "12"


def test_launch_takes_the_template_and_environment_from_files(
    console: Console, console_server: RunningServer, tmp_path: Path,
) -> None:
    (tmp_path / "chain.yaml").write_text(CHAIN)
    (tmp_path / "smaller.yaml").write_text("parameter_defaults:\n  size: 5\n")
    console.go("/launch")
    console.find("#template-file").send_keys(str(tmp_path / "chain.yaml"))
    console.wait_for("#param-size")
    console.find("#environment-files").send_keys(str(tmp_path / "smaller.yaml"))
    console.wait(lambda: console.find("#param-size").get_attribute("value") == "5",
                 "the environment's default in the form")
    console.type("#stack-name", "from-files")
    console.wait(lambda: console.find("#launch-submit").is_enabled(), "Launch to be enabled")
    console.find("#launch-submit").click()
    console.wait_for("#stack-status", "CREATE_COMPLETE")
    assert api(console_server).show("from-files")["parameters"]["size"] == "5"


def stack_page(console: Console, server: RunningServer, name: str, template: str,
               status: str, tab: str, files: dict[str, str] | None = None) -> StackApi:
    """Create a stack through the API, wait for ``status``, open its page at ``tab``."""
    stacks = api(server)
    stack_id = stacks.create(name, template, files)
    stacks.wait(name, status)
    console.go(f"/stack/{name}/{stack_id}/{tab}")
    console.wait_for(f"#tab-{tab}")
    return stacks


def test_update_shows_its_preview_before_it_runs(
    console: Console, console_server: RunningServer,
) -> None:
    stacks = stack_page(console, console_server, "to-update", CHAIN, "CREATE_COMPLETE", "update")
    console.wait_for("#template-error", "Template is valid")
    console.wait_for("#param-size")
    console.type("#param-size", "16")
    console.wait(lambda: console.find("#preview-update").is_enabled(), "Preview to be enabled")
    console.find("#preview-update").click()
    result = console.wait_for("#preview-result")

    def names(kind: str) -> set[str]:
        section = result.find_element("css selector", f"[data-kind={kind}]")
        return {li.text for li in section.find_elements("css selector", "li")}

    assert "word" in names("replaced") | names("updated")
    assert {"first", "third"} <= names("unchanged") | names("updated")
    assert names("added") == names("deleted") == set()
    assert stacks.show("to-update")["parameters"]["size"] == "8", "a preview changed the stack"
    console.screenshot("update-preview")

    console.find("#launch-submit").click()
    console.wait_for("#stack-status", "UPDATE_COMPLETE")
    assert stacks.show("to-update")["parameters"]["size"] == "16"


def test_a_failed_nested_stack_shows_its_root_cause_first(
    console: Console, console_server: RunningServer,
) -> None:
    stack_page(console, console_server, "broken", NESTED_FAILS, "CREATE_FAILED", "failure",
               NESTED_FILES)
    console.wait_for("#root-cause")
    assert console.find("#root-cause-path").text == PATH_SEP.join(
        ["broken", "app", "db", "volume"])
    assert console.find("#root-cause-resource").text == "volume"
    assert "Test Resource failed volume" in console.find("#root-cause-reason").text
    console.screenshot("failure")

    # The nested stack it failed in, opened from there, shows the same root cause.
    console.find("#root-cause a").click()
    console.wait_for("#stack-status", "CREATE_FAILED")
    console.find("#tab-link-failure").click()
    console.wait_for("#root-cause-resource", "volume")
    assert console.find("#root-cause-path").text.endswith(f"{PATH_SEP}volume")
    # Up to its parent (the stack of resource app), found by id alone.
    console.find("#parent-link").click()
    console.wait_for("#stack-reason", "resources.db.resources.volume")
    assert console.find(".stack-head h1").text.startswith("broken-app-")


def test_nested_stacks_expand_in_place_in_the_topology(
    console: Console, console_server: RunningServer,
) -> None:
    stack_page(console, console_server, "expandable", NESTED_FAILS, "CREATE_FAILED", "topology",
               NESTED_FILES)
    console.wait(lambda: set(statuses(console)) == {"network", "app"}, "the top resources")
    console.find('#topology-svg .node[data-name="app"]').click()
    console.wait(lambda: set(statuses(console)) == {"network", "app/db", "app/cache"},
                 "app's nested resources in its place")
    console.find('#topology-svg .node[data-name="app/db"]').click()
    console.wait(lambda: statuses(console).get("app/db/volume") == "CREATE_FAILED",
                 "db's nested resources")
    assert statuses(console)["app/db/fine"] == "CREATE_COMPLETE"
    console.screenshot("topology-nested")
    console.type("#topology-search", "fine")
    console.wait_for("#topology-found", "1 found")
    assert len(console.all("#topology-svg .node.match")) == 1
    assert len(console.all("#topology-svg .node.dim")) == 3
    console.screenshot("topology-search")


def test_stacks_list_filters_sorts_and_hides_nested_stacks(
    console: Console, console_server: RunningServer,
) -> None:
    stacks = api(console_server)
    stacks.create("listed-nested", NESTED_FAILS, NESTED_FILES)
    stacks.wait("listed-nested", "CREATE_FAILED")
    console.go("/stacks")
    row = console.wait_for('#stacks-body tr[data-stack="listed-nested"]')
    assert "CREATE_FAILED" in row.text
    assert not [r for r in console.all("#stacks-body tr") if "listed-nested-app" in r.text]
    console.find("#stacks-nested").click()
    console.wait(lambda: [r for r in console.all("#stacks-body tr")
                          if "listed-nested-app" in r.text], "nested stacks listed")
    console.type("#stacks-filter", "listed-nested")
    console.wait(lambda: all("listed-nested" in r.text for r in console.all("#stacks-body tr")),
                 "only matching stacks")
    Select(console.find("#stacks-sort")).select_by_value("name")
    names = [r.get_attribute("data-stack") for r in console.all("#stacks-body tr")]
    assert len(names) == 3 and names == sorted(names), names
    console.screenshot("stacks")
    # Live: a stack created elsewhere appears without a reload.
    console.type("#stacks-filter", "appears")
    stacks.create("appears-live", CHAIN)
    console.wait_for('#stacks-body tr[data-stack="appears-live"]')


def test_an_api_error_is_shown_as_its_message(console: Console) -> None:
    console.go("/stack/no-such-stack/00000000-0000-0000-0000-000000000000/overview")
    console.wait_for(".error", "The Stack (no-such-stack) could not be found.")
    console.go("/launch")
    console.set_value("#template-text", "heat_template_version: 2018-08-31\n"
                      "resources: {a: {type: OS::No::Such}}")
    console.wait_for("#template-error .error", "The Resource Type (OS::No::Such) could not")
    console.screenshot("launch-error")


def test_stack_actions_and_the_other_tabs(
    console: Console, console_server: RunningServer,
) -> None:
    stack_page(console, console_server, "acted-on", CHAIN, "CREATE_COMPLETE", "overview")
    console.wait_for("#outputs", "word")
    console.screenshot("overview")
    # An action the API refuses shows the API's message.
    console.find("button[data-action=cancel_update]").click()
    console.wait_for("#action-notice .error",
                     "Cancel update: Cancelling update when stack is CREATE_COMPLETE")
    console.find("button[data-action=suspend]").click()
    console.wait_for("#stack-status", "SUSPEND_COMPLETE")
    console.find("button[data-action=resume]").click()
    console.wait_for("#stack-status", "RESUME_COMPLETE")
    console.find("button[data-action=check]").click()
    console.wait_for("#stack-status", "CHECK_COMPLETE")
    console.find("button[data-action=snapshot]").click()
    console.type("#snapshot-name", "before")
    console.find("#snapshot-form button").click()
    console.wait_for("#snapshots li", "before")
    console.wait_for("#snapshots li", "COMPLETE")
    console.find("#snapshots li button").click()
    console.wait_for("#stack-status", "RESTORE_COMPLETE")

    for tab, expect in (("resources", "OS::Heat::RandomString"), ("events", "CREATE_COMPLETE"),
                        ("template", "heat_template_version"), ("outputs", "word")):
        console.find(f"#tab-link-{tab}").click()
        console.wait_for(f"#tab-{tab}", expect)
        console.screenshot(tab)
    assert "the random word" in console.find("#outputs dt").get_attribute("title")

    # The events tab is a live tail: a new check's events arrive without a reload.
    console.find("#tab-link-events").click()
    console.wait_for("#events-body", "RESTORE_COMPLETE")

    def checks() -> int:
        return sum("CHECK_COMPLETE" in row.text for row in console.all("#events-body tr"))

    before = console.wait(checks, "the first check's events")
    console.find("button[data-action=check]").click()
    console.wait(lambda: checks() > before, "the new check's events")

    console.find("#delete-stack").click()
    console.find("#confirm-delete").click()
    console.wait_for("#stack-gone")
    console.go("/stacks")
    console.wait_for("#stacks-body")
    console.wait(lambda: not console.all('#stacks-body tr[data-stack="acted-on"]'),
                 "the deleted stack gone from the list")


def test_critical_path_root_cause_and_layout_in_the_browser(console: Console) -> None:
    """The console's pure functions, run in Chromium on made-up data."""
    got = console.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        Promise.all([import("/console/static/js/timeline.js"),
                     import("/console/static/js/layout.js")]).then(([t, l]) => {
          // b waits for a (slow) and c (quick); d waits for b: the path is a, b, d.
          const spans = [{name: "a", start: 0, end: 50}, {name: "c", start: 0, end: 5},
                         {name: "b", start: 50, end: 60}, {name: "d", start: 60, end: 90},
                         {name: "e", start: 0, end: 20}];
          const path = t.criticalPath(spans, {a: ["b"], c: ["b"], b: ["d"], e: []});
          const nodes = Array.from({length: 1000}, (_, i) => `n${i}`);
          const edges = nodes.slice(10).map((n, i) => [`n${Math.floor(i / 3)}`, n]);
          const t0 = performance.now();
          const placed = l.layout(nodes, edges);
          const ms = performance.now() - t0;
          const boxes = new Set(nodes.map((n) => `${placed.at.get(n).x},${placed.at.get(n).y}`));
          const forward = edges.every(([a, b]) => placed.at.get(a).x < placed.at.get(b).x);
          done(JSON.stringify({path, placed: placed.at.size, distinct: boxes.size, forward, ms}));
        }).catch((err) => done(JSON.stringify({error: String(err)})));
    """)
    result = json.loads(got)
    assert result["path"] == ["a", "b", "d"]
    assert result["placed"] == result["distinct"] == 1000, "nodes lost or overlapping"
    assert result["forward"], "an edge points backwards"
