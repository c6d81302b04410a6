"""What operators' tools read from the API without a token: ``/healthcheck`` (a load balancer
takes a server out while its disable file exists) and ``/metrics`` (Prometheus).

Metrics are counted per process: the tests that compare them read a ``hearth serve`` process
of their own, where no other test's engine runs."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from hearth.cli.serve import RunningServer, serving
from hearth.common.config import load_config
from tests.integration.api.conftest import NOAUTH_PROJECT, server_conf
from tests.integration.serve_process import ServeProcess

NONE_STACK = {
    "heat_template_version": "2018-08-31",
    "resources": {f"r{i}": {"type": "OS::Heat::None"} for i in range(3)},
}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ops")


@pytest.fixture(scope="module")
def server(data_dir: Path) -> Iterator[RunningServer]:
    with serving(server_conf(data_dir)) as running:
        yield running


@pytest.fixture(scope="module")
def own_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    data = tmp_path_factory.mktemp("metrics") / "hearth"
    process = ServeProcess(data, f"sqlite:///{data / 'hearth.sqlite'}")
    process.start()
    try:
        yield process
    finally:
        process.close()


def samples(url: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of ``/metrics`` by (name, labels)."""
    resp = requests.get(f"{url}/metrics", timeout=30)
    assert resp.status_code == 200, resp.text
    assert resp.headers["Content-Type"].startswith("text/plain")
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(resp.text)
        for s in family.samples
    }


def value(found: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str,
          **labels: str) -> float:
    return found.get((name, frozenset(labels.items())), 0.0)


def create_and_wait(url: str, name: str) -> None:
    endpoint = f"{url}/v1/{NOAUTH_PROJECT}"
    resp = requests.post(f"{endpoint}/stacks", json={"stack_name": name, "template": NONE_STACK},
                         timeout=30)
    assert resp.status_code == 201, resp.text
    deadline = time.monotonic() + 60
    status = ""
    while time.monotonic() < deadline:
        status = requests.get(f"{endpoint}/stacks/{name}", timeout=30).json()["stack"][
            "stack_status"]
        if status != "CREATE_IN_PROGRESS":
            break
        time.sleep(0.05)
    assert status == "CREATE_COMPLETE"


def test_healthcheck_is_ok(server: RunningServer) -> None:
    resp = requests.get(f"{server.url}/healthcheck", timeout=30)
    assert (resp.status_code, resp.text) == (200, "OK")


def test_healthcheck_is_503_while_the_disable_file_exists(
    server: RunningServer, data_dir: Path
) -> None:
    # Without [healthcheck] disable_by_file_path, the file is looked for in the data dir.
    disable = data_dir / "healthcheck_disable"
    disable.touch()
    try:
        resp = requests.get(f"{server.url}/healthcheck", timeout=30)
        assert (resp.status_code, resp.text) == (503, "DISABLED BY FILE")
        detailed = requests.get(f"{server.url}/healthcheck", timeout=30,
                                headers={"Accept": "application/json"})
        assert detailed.status_code == 503
        assert detailed.json()["reasons"] == ["DISABLED BY FILE"]
    finally:
        disable.unlink()
    assert requests.get(f"{server.url}/healthcheck", timeout=30).status_code == 200


def test_root_still_sends_browsers_to_the_console_and_clients_the_versions(
    server: RunningServer,
) -> None:
    browser = requests.get(f"{server.url}/", headers={"Accept": "text/html"},
                           allow_redirects=False, timeout=30)
    assert browser.status_code == 302
    assert browser.headers["Location"].endswith("/console")
    client = requests.get(f"{server.url}/", timeout=30)
    assert client.status_code == 300
    assert client.json()["versions"][0]["id"] == "v1.0"


def test_metrics_count_a_stack_create(own_process: ServeProcess) -> None:
    before = samples(own_process.url)
    create_and_wait(own_process.url, "counted")
    after = samples(own_process.url)

    steps = ("hearth_resource_steps_total", {"action": "CREATE", "outcome": "complete"})
    assert value(after, steps[0], **steps[1]) - value(before, steps[0], **steps[1]) == 3
    step_count = "hearth_resource_step_duration_seconds_count"
    assert value(after, step_count, action="CREATE") - value(
        before, step_count, action="CREATE") == 3
    assert value(after, "hearth_resource_step_duration_seconds_sum", action="CREATE") > 0
    created = {"method": "POST", "route": "/v1/{tenant_id}/stacks", "status": "201"}
    assert value(after, "hearth_api_requests_total", **created) - value(
        before, "hearth_api_requests_total", **created) == 1
    assert value(after, "hearth_api_request_duration_seconds_count", method="POST",
                 route="/v1/{tenant_id}/stacks") >= 1
    # The resources' writes went through the group-commit journal.
    assert value(after, "hearth_db_transaction_duration_seconds_count", kind="journal") > value(
        before, "hearth_db_transaction_duration_seconds_count", kind="journal")
    assert value(after, "hearth_db_transaction_duration_seconds_count", kind="session") > 0
    # Nothing waits once the stack is complete.
    assert value(after, "hearth_engine_queue_depth", queue="worker_threads") == 0
    assert value(after, "hearth_engine_queue_depth", queue="service_slots") == 0


def test_request_labels_are_route_templates(own_process: ServeProcess) -> None:
    requests.get(f"{own_process.url}/v1/{NOAUTH_PROJECT}/stacks/no-such-stack", timeout=30)
    requests.get(f"{own_process.url}/no/such/path", timeout=30)
    routes = {dict(labels).get("route") for name, labels in samples(own_process.url)
              if name == "hearth_api_requests_total"}
    assert "/v1/{tenant_id}/stacks/{stack_name}" in routes
    assert "unmatched" in routes
    assert not any("no-such-stack" in r or "/no/such" in r for r in routes if r)


def test_no_token_needed_and_disable_file_from_the_config(tmp_path: Path) -> None:
    # Keystone auth with a Keystone that is nowhere: only what needs no token answers.
    disable = tmp_path / "out-of-rotation"
    conf_file = tmp_path / "hearth.conf"
    conf_file.write_text(
        "[api]\nauth_strategy = keystone\n"
        "[keystone_authtoken]\nwww_authenticate_uri = http://127.0.0.1:9/identity\n"
        f"[healthcheck]\ndisable_by_file_path = {disable}\n")
    conf = load_config([conf_file], [
        ("data_dir", None, str(tmp_path / "data")), ("bind_port", "api", 0),
        ("bind", "cfn_api", "127.0.0.1:0")])
    with serving(conf) as running:
        assert requests.get(f"{running.url}/v1/demo/stacks", timeout=30).status_code == 401
        assert requests.get(f"{running.url}/healthcheck", timeout=30).status_code == 200
        disable.touch()
        assert requests.get(f"{running.url}/healthcheck", timeout=30).status_code == 503
        assert requests.get(f"{running.url}/metrics", timeout=30).status_code == 200


def test_metrics_can_be_switched_off(tmp_path: Path) -> None:
    with serving(server_conf(tmp_path, metrics__enabled=False)) as running:
        assert requests.get(f"{running.url}/metrics", timeout=30).status_code == 404
        assert requests.get(f"{running.url}/healthcheck", timeout=30).status_code == 200
