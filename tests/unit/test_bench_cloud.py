"""The cloud benchmark's pieces that need no cloud: the template's shape, the counting of API
calls (services, methods, polls) and the report."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from keystoneauth1 import session as ks_session

from bench.api_calls import CallCounter, install, path_pattern, service_of
from bench.cloud_report import format_report
from bench.cloud_template import FULL, SMALL, CloudShape, build_template
from bench.cloud_timeline import format_timeline, timeline


def types_of(template: dict[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for res in template["resources"].values():
        counts[res["type"]] = counts.get(res["type"], 0) + 1
    return counts


def test_full_shape_is_the_issue_s_stack() -> None:
    template = build_template(FULL)
    assert types_of(template) == {
        "OS::Neutron::Net": 10,
        "OS::Neutron::Subnet": 20,  # one per router interface
        "OS::Neutron::Port": 220,  # 200 + one per server
        "OS::Neutron::Router": 20,
        "OS::Neutron::RouterInterface": 20,
        "OS::Neutron::FloatingIP": 20,
        "OS::Nova::Server": 20,
        "OS::Cinder::Volume": 20,
        "OS::Cinder::VolumeAttachment": 20,
    }
    assert len(template["resources"]) == FULL.resources == 370


def test_each_floating_ip_sits_on_a_port_of_its_router_s_subnet() -> None:
    res = build_template(SMALL)["resources"]
    for r in range(SMALL.routers):
        fip = res[f"fip{r}"]
        port = res[fip["properties"]["port_id"]["get_resource"]]
        subnet = port["properties"]["fixed_ips"][0]["subnet"]["get_resource"]
        assert res[f"router{r}_interface"]["properties"]["subnet"] == {"get_resource": subnet}
        assert fip["depends_on"] == [f"router{r}_interface"]
        assert fip["properties"]["floating_network"] == "public"


def test_subnets_have_distinct_cidrs() -> None:
    res = build_template(CloudShape(networks=3, ports=40, routers=30, servers=0))["resources"]
    cidrs = [r["properties"]["cidr"] for r in res.values() if r["type"] == "OS::Neutron::Subnet"]
    assert len(cidrs) == len(set(cidrs)) == 30


def test_a_shape_without_ports_for_its_floating_ips_is_refused() -> None:
    with pytest.raises(ValueError, match="ports >= routers"):
        CloudShape(networks=1, ports=1, routers=2, servers=0)


def test_services_by_port_or_catalog_type() -> None:
    assert service_of("http://127.0.0.1:9696/v2.0/ports") == "neutron"
    assert service_of("/servers/x", "compute") == "nova"
    assert service_of("volumes/x", "volumev3") == "cinder"
    assert service_of("http://10.0.0.1:1234/x") == "10.0.0.1:1234"


def test_paths_group_by_kind_of_request() -> None:
    assert path_pattern("/v2.1/servers/0e6bd8f1-79f4-4d1a-9f2a-1d2e3f4a5b6c/os-interface") == (
        "/v2.1/servers/*/os-interface")
    assert path_pattern("/v2.0/ports?network_id=a&fields=id") == "/v2.0/ports?fields&network_id"


def test_a_repeated_get_of_one_object_is_a_poll_per_phase() -> None:
    counter = CallCounter()
    counter.phase("create")
    for _ in range(3):
        counter.record("nova", "GET", "/servers/1", single_get=True, seconds=0.5)
    counter.record("neutron", "GET", "/v2.0/ports?id=1", single_get=False)
    counter.record("neutron", "GET", "/v2.0/ports?id=1", single_get=False)
    counter.record("neutron", "POST", "/v2.0/ports", single_get=False)
    counter.phase("delete")
    counter.record("nova", "GET", "/servers/1", single_get=True)  # first read of this phase
    create = counter.summary("create")
    assert (create["total"], create["polls"]) == (6, 2)
    assert create["by_service"]["nova"] == {"total": 3, "polls": 2, "by_method": {"GET": 3},
                                            "call_seconds": 1.5}
    assert create["call_seconds"] == 1.5
    assert create["by_service"]["neutron"]["polls"] == 0
    assert create["by_method"] == {"GET": 5, "POST": 1}
    assert counter.summary("delete")["polls"] == 0


def test_install_counts_every_session_request_and_uninstalls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[str] = []

    def fake_request(self: Any, url: str, method: str, **kwargs: Any) -> str:
        seen.append(url)
        return "answer"

    monkeypatch.setattr(ks_session.Session, "request", fake_request)
    counter = CallCounter()
    uninstall = install(counter)
    counter.phase("create")
    sess = ks_session.Session()
    assert sess.request("/servers/1", "GET", endpoint_filter={"service_type": "compute"}) == (
        "answer")
    sess.request("/servers/1", "GET", endpoint_filter={"service_type": "compute"})
    sess.request("http://127.0.0.1:9696/v2.0/networks", "GET", params={"name": "public"})
    sess.request("http://127.0.0.1:9696/v2.0/networks", "GET", params={"name": "public"})
    uninstall()
    sess.request("/servers/1", "GET", endpoint_filter={"service_type": "compute"})
    summary = counter.summary("create")
    assert summary["total"] == 4 and summary["polls"] == 1  # a repeated lookup is no poll
    assert summary["by_service"]["neutron"]["total"] == 2
    assert "neutron GET /v2.0/networks?name" in summary["by_request"]
    assert len(seen) == 5


def test_report_compares_times_and_calls() -> None:
    def engine(create_s: float, total: int, polls: int) -> dict[str, Any]:
        calls = {"total": total, "polls": polls, "by_method": {"GET": total},
                 "by_service": {"nova": {"total": total, "polls": polls,
                                         "by_method": {"GET": total}}}}
        return {"create_s": create_s, "delete_s": 1.0, "create_state": "CREATE_COMPLETE",
                "delete_state": "DELETE_COMPLETE", "calls": {"create": calls, "delete": calls}}

    text = format_report(
        {"shape": SMALL.as_dict(), "project": "p", "hearth": engine(10.0, 50, 5),
         "heat": {"sleep on": engine(40.0, 100, 20)}},
        {"load_avg": [1.0, 1.0, 1.0]},
    )
    assert "create time 0.250 (4.0x faster)" in text
    assert "API calls 100 vs 200 (0.50); polls 10 vs 40" in text
    assert "| Hearth " in text and "| 50 (5) " in text


def test_timeline_spans_per_type_from_the_engine_s_events(tmp_path: Path) -> None:
    db = tmp_path / "events.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE event (id INTEGER PRIMARY KEY, stack_id TEXT, resource_action "
                 "TEXT, resource_status TEXT, resource_name TEXT, resource_type TEXT, "
                 "created_at TEXT)")
    rows = [
        ("s", "CREATE", "IN_PROGRESS", "port0", "OS::Neutron::Port", "2026-01-01 00:00:00"),
        ("s", "CREATE", "IN_PROGRESS", "server0", "OS::Nova::Server", "2026-01-01 00:00:01"),
        ("s", "CREATE", "COMPLETE", "port0", "OS::Neutron::Port", "2026-01-01 00:00:02"),
        ("s", "CREATE", "COMPLETE", "server0", "OS::Nova::Server", "2026-01-01 00:00:11.5"),
        ("s", "DELETE", "IN_PROGRESS", "port0", "OS::Neutron::Port", "2026-01-01 00:01:00"),
        ("other", "CREATE", "IN_PROGRESS", "x", "OS::Heat::None", "2026-01-01 00:00:00"),
    ]
    conn.executemany("INSERT INTO event (stack_id, resource_action, resource_status, "
                     "resource_name, resource_type, created_at) VALUES (?, ?, ?, ?, ?, ?)", rows)
    conn.commit()
    conn.close()
    found = timeline(db, "s", "CREATE")
    assert found["OS::Nova::Server"] == {"count": 1, "mean_s": 10.5, "max_s": 10.5,
                                         "first_start_s": 1.0, "last_end_s": 11.5}
    assert found["OS::Neutron::Port"]["last_end_s"] == 2.0
    assert timeline(db, "s", "DELETE") == {}  # nothing finished
    assert "OS::Nova::Server" in "\n".join(format_timeline("create", found))


def test_cpu_of_each_phase_is_counted_per_service_and_for_the_engine(
        monkeypatch: pytest.MonkeyPatch) -> None:
    readings = iter([
        ({"neutron": 10.0, "nova-api": 5.0}, 1.0),  # the counter starts
        ({"neutron": 10.0, "nova-api": 5.0}, 1.0),  # create begins
        ({"neutron": 40.0, "nova-api": 7.5}, 3.0),  # delete begins
        ({"neutron": 45.0, "nova-api": 7.5}, 3.5),  # delete's figures are read
    ])  # create's need no reading of their own: create has ended
    monkeypatch.setattr(CallCounter, "_cpu_reading", staticmethod(lambda: next(readings)))
    counter = CallCounter()
    counter.phase("create")
    counter.phase("delete")
    assert counter.cpu("create") == {"cloud_s": {"neutron": 30.0, "nova-api": 2.5},
                                     "cloud_total_s": 32.5, "engine_s": 2.0}
    assert counter.cpu("delete") == {"cloud_s": {"neutron": 5.0, "nova-api": 0.0},
                                     "cloud_total_s": 5.0, "engine_s": 0.5}


def test_cloud_cpu_reads_the_services_processes_from_proc() -> None:
    import subprocess
    import sys

    from bench.cloud_cpu import cloud_cpu_seconds, own_cpu_seconds

    # a child whose command line names a service, as the devcloud's do: it burns half a
    # second of its own CPU, says so, and waits
    busy = subprocess.Popen([sys.executable, "-c", "import sys, time\n"
                             "while time.process_time() < 0.5: pass\n"
                             "print('done', flush=True)\ntime.sleep(60)", "glance-api"],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert busy.stdout is not None and busy.stdout.readline() == "done\n"
        # /proc counts in clock ticks: allow one or two
        assert cloud_cpu_seconds().get("glance", 0.0) >= 0.45
    finally:
        busy.kill()
        busy.wait()
    assert own_cpu_seconds() > 0
