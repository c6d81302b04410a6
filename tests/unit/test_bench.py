"""The benchmark runner's pure parts: templates, waiting, figures, tables, the Heat anchor's
command line and output. Nothing here starts an engine or a server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy

from bench import cli, heat, instructions, machine, results
from bench.engine_run import bench_overrides
from bench.lifecycle import BenchTimeout, split_status, state_name, wait_settled
from bench.statements import StatementCounter
from bench.templates import (
    GROUP_TYPE,
    NESTED_DEPTH,
    SHAPES,
    TREE_DEPTH,
    Case,
    build_case,
    nested_file,
)
from hearth.resources.registry import PluginRegistry
from hearth.template.validate import validate_template


def depends(template: dict[str, Any]) -> dict[str, list[str]]:
    return {
        name: list(defn.get("depends_on", []))
        for name, defn in template["resources"].items()
    }


# --- templates -------------------------------------------------------------------------------


def test_independent_has_n_resources_of_the_type_and_no_edges() -> None:
    case = build_case("independent", 5)
    assert list(case.template["resources"]) == ["r0", "r1", "r2", "r3", "r4"]
    assert {d["type"] for d in case.template["resources"].values()} == {"OS::Heat::None"}
    assert (case.resources, case.stacks, case.edges, case.files) == (5, 1, 0, {})
    assert all(not d for d in depends(case.template).values())


def test_random_kind_uses_random_string() -> None:
    case = build_case("chain", 3, "random")
    assert case.resource_type == "OS::Heat::RandomString"
    assert {d["type"] for d in case.template["resources"].values()} == {
        "OS::Heat::RandomString"
    }


def test_chain_is_the_anchors_template() -> None:
    case = build_case("chain", 4)
    assert depends(case.template) == {"r0": [], "r1": ["r0"], "r2": ["r1"], "r3": ["r2"]}
    assert case.edges == 3
    # bench_heat.py's make_template for the same case, so that Heat runs the very same stack
    assert case.template == {
        "heat_template_version": "2021-04-16",
        "resources": {
            "r0": {"type": "OS::Heat::None"},
            **{f"r{i}": {"type": "OS::Heat::None", "depends_on": [f"r{i - 1}"]}
               for i in range(1, 4)},
        },
    }


def test_tree_fans_in_over_four_levels() -> None:
    case = build_case("tree", 3)
    deps = depends(case.template)
    assert case.resources == len(deps) == 1 + 3 + 9 + 27
    assert deps["t0_0"] == ["t1_0", "t1_1", "t1_2"]
    assert deps["t1_2"] == ["t2_6", "t2_7", "t2_8"]
    leaves = [name for name, d in deps.items() if not d]
    assert len(leaves) == 3 ** (TREE_DEPTH - 1)
    assert case.edges == sum(len(d) for d in deps.values()) == case.resources - 1
    # every resource but the root is needed by exactly one parent
    needed = [child for d in deps.values() for child in d]
    assert sorted(needed) == sorted(n for n in deps if n != "t0_0")


def test_group_is_one_resource_group_of_n_members() -> None:
    case = build_case("group", 7, "random")
    assert case.template["resources"] == {
        "group": {
            "type": GROUP_TYPE,
            "properties": {"count": 7, "resource_def": {"type": "OS::Heat::RandomString"}},
        }
    }
    assert (case.resources, case.stacks, case.requires) == (8, 2, (GROUP_TYPE,))


def test_nested_is_a_tree_of_provider_templates_of_depth_five() -> None:
    case = build_case("nested", 2)
    assert sorted(case.files) == [nested_file(k) for k in range(1, NESTED_DEPTH + 1)]
    assert {d["type"] for d in case.template["resources"].values()} == {nested_file(1)}
    for level in range(1, NESTED_DEPTH):
        body = json.loads(case.files[nested_file(level)])["resources"]
        assert {d["type"] for d in body.values()} == {nested_file(level + 1)}
        assert len(body) == 2
    leaf = json.loads(case.files[nested_file(NESTED_DEPTH)])["resources"]
    assert leaf == {"r0": {"type": "OS::Heat::None"}, "r1": {"type": "OS::Heat::None"}}
    assert case.stacks == 63
    assert case.resources == 126


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", ["none", "random"])
def test_every_case_is_a_valid_template(shape: str, kind: str) -> None:
    plugins = PluginRegistry.load()
    case = build_case(shape, 2, kind)
    validate_template(
        case.template, files=case.files, global_env=plugins.global_environment(),
        type_checker=plugins.type_checker,
    )


def test_build_case_defaults_and_errors() -> None:
    assert build_case("tree").n == 10
    assert build_case("tree").resources == 1111
    with pytest.raises(ValueError, match="unknown shape"):
        build_case("star", 3)
    with pytest.raises(ValueError, match="unknown type"):
        build_case("chain", 3, "server")
    with pytest.raises(ValueError, match="at least 1"):
        build_case("chain", 0)


# --- waiting ---------------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_wait_settled_returns_the_first_settled_state_of_the_action() -> None:
    clock = FakeClock()
    states = iter([
        ("CREATE", "IN_PROGRESS", ""),
        ("CREATE", "IN_PROGRESS", ""),
        ("CREATE", "COMPLETE", "done"),
    ])
    state, when = wait_settled(lambda: next(states), "CREATE", poll=0.5, timeout=10,
                               clock=clock, sleep=clock.sleep)
    assert state == ("CREATE", "COMPLETE", "done")
    assert when == 1.0


def test_wait_settled_waits_past_another_action_and_times_out() -> None:
    clock = FakeClock()
    with pytest.raises(BenchTimeout, match="CREATE_COMPLETE after 2s"):
        wait_settled(lambda: ("CREATE", "COMPLETE", ""), "DELETE", poll=0.5, timeout=2,
                     clock=clock, sleep=clock.sleep)


def test_split_status() -> None:
    assert split_status("CREATE_IN_PROGRESS") == ("CREATE", "IN_PROGRESS")
    assert split_status("DELETE_COMPLETE") == ("DELETE", "COMPLETE")
    assert split_status("ROLLBACK_FAILED") == ("ROLLBACK", "FAILED")
    assert split_status("INIT_COMPLETE") == ("INIT", "COMPLETE")
    assert state_name(("CREATE", "FAILED", "why")) == "CREATE_FAILED"
    assert state_name(None) is None


# --- figures and their presentation ---------------------------------------------------------


def measured(**extra: Any) -> dict[str, Any]:
    result: dict[str, Any] = {
        "shape": "independent", "n": 1000, "type_key": "none", "via": "engine",
        "resources": 1000, "stacks": 1, "edges": 0,
        "create_s": 0.5, "delete_s": 0.25,
        "create_state": "CREATE_COMPLETE", "delete_state": "DELETE_COMPLETE",
        "peak_rss_bytes": 150 * results.MB, "rss_after_create_bytes": 140 * results.MB,
        "db_bytes": 12 * results.MB,
    }
    result.update(extra)
    return cli.finish(result)


def test_rates_ratios_and_verdict() -> None:
    result = measured()
    assert result["create_res_per_s"] == 2000
    assert result["delete_res_per_s"] == 4000
    assert result["ok"] is True
    assert results.rate(10, 0) is None and results.rate(10, None) is None
    assert results.ratio(1.0, 4.0) == 0.25 and results.ratio(1.0, 0.0) is None
    assert cli.finish({"create_state": "CREATE_FAILED"})["ok"] is False
    assert cli.finish({"skipped": "no group type"})["ok"] is True


def test_add_heat_and_its_ratios() -> None:
    result = results.add_heat(measured(), {"create_s": 50.0, "delete_s": 5.0})
    assert result["create_ratio"] == pytest.approx(0.01)
    assert result["delete_ratio"] == pytest.approx(0.05)
    assert result["heat_skipped"] is None
    skipped = results.add_heat(measured(), None, "no anchor")
    assert skipped["heat"] is None and skipped["heat_skipped"] == "no anchor"
    assert skipped["create_ratio"] is None


def test_format_case_with_and_without_heat() -> None:
    text = results.format_case(results.add_heat(
        measured(), {"create_s": 50.0, "delete_s": 5.0, "create_res_per_s": 20.0,
                     "delete_res_per_s": 200.0, "label": "legacy", "peak_rss_bytes": None}))
    assert "independent n=1000 none via engine: 1000 resources" in text
    assert "create: 0.500 s (2,000 res/s) -> CREATE_COMPLETE" in text
    assert "peak RSS 150.0 MB (after create 140.0 MB), database after create 12.0 MB" in text
    assert "Heat 27 (legacy): create 50.000 s (20 res/s)" in text
    assert "create 0.010 (100.0x faster), delete 0.050 (20.0x faster)" in text
    text = results.format_case(results.add_heat(measured(), None, "--no-heat"))
    assert text.endswith("Heat 27: not run (--no-heat)")
    assert results.format_case({"shape": "group", "n": 5, "via": "api",
                                "skipped": "no type"}) == "group n=5 via api: skipped (no type)"


def test_format_case_says_the_sql_sent() -> None:
    text = results.format_case({**measured(), "create_statements": 12596, "create_commits": 2810,
                                "delete_statements": 5000, "delete_commits": 1200})
    assert ("SQL through SQLAlchemy: create 12,596 statements / 2,810 commits, delete "
            "5,000 / 1,200") in text
    assert "SQL through" not in results.format_case(measured())


def test_statement_counter_counts_until_closed() -> None:
    engine = sqlalchemy.create_engine("sqlite://")
    counter = StatementCounter(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t (x INTEGER)")
        conn.exec_driver_sql("INSERT INTO t VALUES (1)")
        conn.execute(sqlalchemy.text("INSERT INTO t VALUES (:x)"), [{"x": 2}, {"x": 3}])
    assert counter.snapshot() == (3, 1)  # an executemany is one statement
    counter.close()
    with engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM t")
    assert counter.snapshot() == (3, 1)
    engine.dispose()


def test_slower_ratio_reads_as_slower() -> None:
    assert results._times(2.0) == "2.000 (2.0x slower)"
    assert results._times(None) == "-"


def test_format_table_is_markdown_with_one_row_per_case() -> None:
    rows = [
        results.add_heat(measured(), {"create_s": 50.0, "delete_s": 5.0}),
        measured(shape="chain", n=100, resources=100, create_state="CREATE_FAILED"),
        {"shape": "group", "n": 10, "via": "engine", "skipped": "not in the registry"},
    ]
    table = results.format_table(rows).splitlines()
    assert len(table) == 5
    assert table[0].startswith("| case ") and "Hearth/Heat create" in table[0]
    assert set(table[1]) <= {"|", "-"}
    assert all(line.count("|") == len(results.TABLE_HEADER) + 1 for line in table)
    assert "50.00 / 5.00" in table[2] and "100.0x faster" in table[2]
    assert "(FAILED)" in table[3]
    assert "skipped: not in the registry" in table[4]


def test_append_results_keeps_earlier_runs(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "runs.json"
    results.append_results(path, {"cases": [1]})
    results.append_results(path, {"cases": [2]})
    assert json.loads(path.read_text()) == [{"cases": [1]}, {"cases": [2]}]


def test_json_line_is_one_line() -> None:
    line = results.json_line(measured(create_reason="a\nb"))
    assert "\n" not in line
    assert json.loads(line)["create_s"] == 0.5


# --- the Heat anchor -------------------------------------------------------------------------


def test_heat_runs_only_what_bench_heat_can() -> None:
    assert heat.unsupported(build_case("independent", 100), 1000) is None
    assert heat.unsupported(build_case("chain", 1000), 1000) is None
    assert "tree" in str(heat.unsupported(build_case("tree", 2), 1000))
    assert "OS::Heat::None" in str(heat.unsupported(build_case("chain", 2, "random"), 1000))
    assert "--heat-max-n" in str(heat.unsupported(build_case("independent", 10000), 1000))


def test_heat_command_uses_a_temporary_sqlite_unless_told_otherwise(tmp_path: Path) -> None:
    case = build_case("chain", 50)
    command = heat.heat_command("py", tmp_path, case, heat.DEFAULT_HEAT_ARGS, tmp_path / "h.db")
    assert command[:7] == ["py", str(tmp_path / "bench_heat.py"), "-n", "50", "--shape",
                           "chain", "--json"]
    assert "--no-sleep" in command
    assert command[-2:] == ["--db", str(tmp_path / "h.db")]
    command = heat.heat_command(
        "py", tmp_path, case, "--mode service --db-url 'mysql+pymysql://root@h/x'",
        tmp_path / "h.db",
    )
    assert "--db" not in command and command[-1] == "mysql+pymysql://root@h/x"


def test_parse_heat_output_counts_validate_and_store_as_create() -> None:
    raw = {"prepare_s": 1.0, "create_s": 9.0, "delete_s": 5.0, "engine": "legacy",
           "mode": "stack", "sleep": False, "create_state": "CREATE_COMPLETE",
           "delete_state": "DELETE_COMPLETE"}
    figures = heat.parse_heat_output("noise\n" + json.dumps(raw) + "\n", 100)
    assert figures["create_s"] == 10.0
    assert figures["create_res_per_s"] == 10.0
    assert figures["delete_res_per_s"] == 20.0
    assert figures["ok"] is True
    assert figures["label"] == "legacy engine, stack mode, sleep off"
    with pytest.raises(ValueError):
        heat.parse_heat_output("Traceback ...\nError: boom\n", 100)


def test_anchor_dir_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEARTH_ANCHOR_DIR", str(tmp_path))
    assert heat.anchor_dir() is None
    (tmp_path / "bench_heat.py").write_text("")
    assert heat.anchor_dir() == tmp_path


# --- machine, configuration, command line --------------------------------------------------


def test_machine_parsers(tmp_path: Path) -> None:
    assert machine.parse_cpu_model("processor: 0\nmodel name\t: AMD EPYC 7B13\n") == (
        "AMD EPYC 7B13"
    )
    assert machine.parse_vm_hwm("Name: x\nVmHWM:\t  2048 kB\nVmRSS: 1 kB\n") == 2048 * 1024
    assert machine.parse_vm_hwm("Name: x\n") is None
    db = tmp_path / "hearth.sqlite"
    db.write_bytes(b"x" * 10)
    (tmp_path / "hearth.sqlite-wal").write_bytes(b"x" * 5)
    (tmp_path / "hearth.sqlite-shm").write_bytes(b"x" * 100)
    assert machine.sqlite_bytes(db) == 15
    assert machine.peak_rss() is not None


def test_bench_overrides_lift_only_size_limits() -> None:
    names = {name: value for name, _, value in bench_overrides()}
    assert names["max_resources_per_stack"] == -1
    assert set(names) == {"auth_encryption_key", "max_resources_per_stack",
                          "max_template_size", "max_json_body_size", "plugin_dirs"}
    # The plugin folder only adds the benchmark's own type; it replaces none of Hearth's.
    from hearth.resources.registry import PluginRegistry

    with_bench = PluginRegistry.load(plugin_dirs=[str(names["plugin_dirs"])])
    assert with_bench.get_class("Bench::Blocking").__name__ == "Blocking"
    assert with_bench.get_class("OS::Heat::None") is PluginRegistry.load().get_class(
        "OS::Heat::None")


def test_config_text() -> None:
    from bench.api_run import config_text

    assert config_text([("a", None, 1), ("b", None, "x")]) == "[DEFAULT]\na = 1\nb = x\n"


def test_suite_is_issue_six_table() -> None:
    cases = {(c.shape, c.n, c.via) for c in cli.SUITE}
    assert {("independent", 100, "engine"), ("independent", 1000, "engine"),
            ("independent", 10000, "engine"), ("chain", 100, "engine"),
            ("chain", 1000, "engine"), ("independent", 1000, "api")} <= cases
    assert {c.shape for c in cli.SUITE} == set(SHAPES)


def test_suite_command_runs_one_case_as_json() -> None:
    args = cli.parser().parse_args(["--suite", "--type", "random"])
    command = cli.suite_command(cli.SuiteCase("chain", 100), args)
    assert command[1:3] == ["-m", "bench"]
    for expected in (["--shape", "chain"], ["-n", "100"], ["--type", "random"],
                     ["--via", "engine"]):
        assert any(command[i:i + 2] == expected for i in range(len(command)))
    assert {"--json", "--no-save", "--no-heat"} <= set(command)


def test_last_json() -> None:
    assert cli.last_json('text\n{"create_s": 1}\n') == {"create_s": 1}
    assert cli.last_json("text\n") is None
    assert cli.last_json("") is None
    assert cli.last_json("[1]") is None


def test_parser_defaults() -> None:
    args = cli.parser().parse_args([])
    assert (args.shape, args.n, args.via, args.kind, args.json) == (
        "independent", None, "engine", "none", False)
    meta = cli.case_meta(build_case("group", 3))
    assert meta == {"shape": "group", "n": 3, "type_key": "none", "type": "OS::Heat::None",
                    "resources": 4, "stacks": 2, "edges": 0}
    assert isinstance(build_case("group", 3), Case)


def test_state_poller_reads_the_stack_row(tmp_path: Path) -> None:
    import sqlite3

    from bench.engine_run import StatePoller

    db = tmp_path / "hearth.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE stack (id TEXT, action TEXT, status TEXT, status_reason TEXT)")
        conn.execute("INSERT INTO stack VALUES ('s1', 'CREATE', 'COMPLETE', 'done')")
    conn.close()
    poller = StatePoller(db)
    try:
        assert poller.read("s1") == ("CREATE", "COMPLETE", "done")
        assert poller.read("nope") == ("", "", "stack row is gone")
    finally:
        poller.close()


def test_checkpointed_size_moves_the_log_into_the_file(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "hearth.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE t (v TEXT)")
    conn.executemany("INSERT INTO t VALUES (?)", [("x" * 100,)] * 200)
    conn.commit()
    assert (tmp_path / "hearth.sqlite-wal").stat().st_size > 0
    size = machine.sqlite_checkpointed_bytes(db)
    conn.close()
    wal = tmp_path / "hearth.sqlite-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    assert size == db.stat().st_size > 200 * 100


def test_instruction_counts_are_read_from_the_dumps_named_after_each_phase() -> None:
    def dump(trigger: str, total: int) -> str:
        return (f"version: 1\ncmd: python\npart: 1\ndesc: I1 cache: \n"
                f"desc: Trigger: {trigger}\nsummary: 0\ntotals: {total}\n")

    counts = instructions.phase_counts([
        dump("dump create", 905_000_000), dump("dump delete", 628_000_000),
        dump("Program termination", 0),
    ])
    assert counts == {"create": 905_000_000, "delete": 628_000_000}
    assert instructions.phase_counts([dump("Program termination", 12)]) == {}
