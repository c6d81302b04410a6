"""The agent harness end to end without Hearth: a little HTTP server stands in for the cloud,
serving a server's metadata (os-collect-config's ``request`` collector) and taking the
deployment signals (heat-config-notify with ``deploy_signal_id``)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.integration.agent.harness import Agent

HELLO = "#!/bin/sh\necho hello $foo; echo -n bar > $heat_outputs_path.result\n"
FAILING = "#!/bin/sh\necho about to fail; echo it went wrong >&2; exit 3\n"


@dataclass
class Signal:
    verb: str
    path: str
    content_type: str | None
    body: Any


@dataclass
class FakeCloud:
    """Serves ``metadata`` at /metadata and records what is sent to /signals/<name>."""

    url: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    signals: list[Signal] = field(default_factory=list)
    gets: int = 0

    def signal_url(self, name: str) -> str:
        return f"{self.url}/signals/{name}"

    def handler(self) -> type[BaseHTTPRequestHandler]:
        cloud = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _metadata(self, with_body: bool) -> None:
                if self.path != "/metadata":
                    self.send_error(404)
                    return
                body = json.dumps(cloud.metadata).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if with_body:
                    cloud.gets += 1
                    self.wfile.write(body)

            def do_HEAD(self) -> None:
                self._metadata(with_body=False)

            def do_GET(self) -> None:
                self._metadata(with_body=True)

            def _signal(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                cloud.signals.append(Signal(self.command, self.path,
                                            self.headers.get("Content-Type"), json.loads(raw)))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_PUT = do_POST = _signal

        return Handler


@pytest.fixture()
def cloud() -> Iterator[FakeCloud]:
    fake = FakeCloud()
    server = ThreadingHTTPServer(("127.0.0.1", 0), fake.handler())
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield fake
    server.shutdown()
    server.server_close()
    thread.join()


def script_config(cloud: FakeCloud, config_id: str, script: str, **inputs: str) -> dict[str, Any]:
    """A deployment as Heat lists it in a server's ``deployments`` metadata (a derived config
    of group ``script`` with the deploy_* inputs a TEMP_URL_SIGNAL deployment gets)."""
    deploy = {
        "deploy_server_id": "5d3b9c1e-0000-4000-8000-000000000001",
        "deploy_action": "CREATE",
        "deploy_stack_id": "st/0f6c2e4a-0000-4000-8000-000000000002",
        "deploy_resource_name": f"deployment_{config_id}",
        "deploy_signal_transport": "TEMP_URL_SIGNAL",
        "deploy_signal_id": cloud.signal_url(config_id),
        "deploy_signal_verb": "PUT",
    }
    return {
        "id": config_id,
        "name": f"config_{config_id}",
        "group": "script",
        "creation_time": "2024-05-01T12:00:00Z",
        "config": script,
        "options": {},
        "inputs": [{"name": k, "type": "String", "value": v, "description": f"the {k}"}
                   for k, v in {**inputs, **deploy}.items()],
        "outputs": [{"name": "result", "type": "String", "error_output": False}],
    }


def configure(agent: Agent, cloud: FakeCloud) -> None:
    agent.configure({"collectors": ["request"], "polling_interval": 30,
                     "request": {"metadata_url": f"{cloud.url}/metadata"}})


def test_configure_renders_heat_agents_template(agent: Agent) -> None:
    conf = agent.configure({
        "collectors": ["ec2", "heat", "request", "local"],
        "polling_interval": 30,
        "heat": {"auth_url": "http://127.0.0.1:5000/v3", "user_id": "u1", "password": "pw",
                 "project_id": "p1", "stack_id": "st/1234", "resource_name": "server",
                 "region_name": "RegionOne"},
        "request": {"metadata_url": "http://127.0.0.1:1/metadata"},
    })
    lines = conf.read_text().splitlines()
    assert [ln for ln in lines if ln.startswith("collectors")] == [
        "collectors = heat", "collectors = request", "collectors = local"]  # no ec2 here
    assert "command = os-refresh-config" in lines
    assert "polling_interval = 30" in lines
    heat = lines[lines.index("[heat]"):]
    for expected in ("auth_url = http://127.0.0.1:5000/v3", "user_id = u1", "password = pw",
                     "project_id = p1", "stack_id = st/1234", "resource_name = server",
                     "region_name = RegionOne"):
        assert expected in heat
    assert lines[lines.index("[request]") + 1] == "metadata_url = http://127.0.0.1:1/metadata"


def test_deploys_a_script_config_and_signals_its_outputs(agent: Agent, cloud: FakeCloud) -> None:
    cloud.metadata = {"deployments": [script_config(cloud, "c1", HELLO, foo="world")]}
    configure(agent, cloud)

    run = agent.run_once().check()

    assert run.command_ran
    assert run.deployed_ids() == ["c1"]
    [signal] = cloud.signals
    assert (signal.verb, signal.path) == ("PUT", "/signals/c1")
    assert signal.content_type == "application/json"
    assert signal.body == run.notify_data("c1")
    assert "hello world" in signal.body["deploy_stdout"]
    assert signal.body["deploy_status_code"] == 0
    assert signal.body["result"] == "bar"
    rendered = json.loads(agent.heat_config_path.read_text())
    assert [c["id"] for c in rendered] == ["c1"]


def test_does_not_deploy_a_config_twice(agent: Agent, cloud: FakeCloud) -> None:
    first = script_config(cloud, "c1", HELLO, foo="one")
    cloud.metadata = {"deployments": [first]}
    configure(agent, cloud)
    agent.run_once().check()
    assert len(cloud.signals) == 1

    again = agent.run_once().check()  # same metadata: os-collect-config runs nothing
    assert not again.command_ran
    forced = agent.run_once(force=True).check()  # 55-heat-config sees c1 is deployed
    assert forced.command_ran
    assert "Skipping config c1, already deployed" in forced.log
    assert len(cloud.signals) == 1

    cloud.metadata = {"deployments": [first, script_config(cloud, "c2", HELLO, foo="two")]}
    run = agent.run_once().check()
    assert run.deployed_ids() == ["c1", "c2"]
    assert [s.path for s in cloud.signals] == ["/signals/c1", "/signals/c2"]
    assert "hello two" in cloud.signals[1].body["deploy_stdout"]


def test_failing_script_signals_its_status_code(agent: Agent, cloud: FakeCloud) -> None:
    cloud.metadata = {"deployments": [script_config(cloud, "bad", FAILING)]}
    configure(agent, cloud)

    run = agent.run_once().check()  # the agent itself succeeds: the failure is signalled

    [signal] = cloud.signals
    assert signal.body["deploy_status_code"] == 3
    assert "it went wrong" in signal.body["deploy_stderr"]
    assert "about to fail" in signal.body["deploy_stdout"]
    assert "result" not in signal.body
    assert run.deployed_ids() == ["bad"]
