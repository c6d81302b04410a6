"""The real agent (os-collect-config, heat-config, its script hook, heat-config-notify) as the
servers of OS::Heat::DeployedServer resources, against ``hearth serve`` in embedded mode: the
agent polls Hearth's metadata URL (POLL_TEMP_URL) and signals Hearth's signal URL
(TEMP_URL_SIGNAL); no Keystone, no Swift."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from heatclient import client as heat_client

from hearth.cli.serve import RunningServer, serving
from tests.integration.agent.harness import Agent, AgentTools
from tests.integration.api.conftest import server_conf

SCRIPT = """#!/bin/sh
echo "hello $foo"
echo "to stderr" >&2
printf '%s-done' "$foo" > "$heat_outputs_path.result"
"""
FAILING = """#!/bin/sh
echo "about to fail"
echo "the disk is on fire" >&2
exit 3
"""


def template(script: str, servers: int = 1, group: bool = False) -> dict[str, Any]:
    resources: dict[str, Any] = {
        f"server{i}": {"type": "OS::Heat::DeployedServer",
                       "properties": {"software_config_transport": "POLL_TEMP_URL"}}
        for i in range(servers)
    }
    resources["config"] = {
        "type": "OS::Heat::SoftwareConfig",
        "properties": {"group": "script", "inputs": [{"name": "foo"}],
                       "outputs": [{"name": "result"}], "config": script},
    }
    shared = {"config": {"get_resource": "config"}, "signal_transport": "TEMP_URL_SIGNAL",
              "input_values": {"foo": {"get_param": "foo"}}}
    if group:
        resources["deployments"] = {
            "type": "OS::Heat::SoftwareDeploymentGroup",
            "properties": {**shared, "servers": {
                f"s{i}": {"get_resource": f"server{i}"} for i in range(servers)}},
        }
        outputs = {"stdouts": {"value": {"get_attr": ["deployments", "deploy_stdouts"]}},
                   "results": {"value": {"get_attr": ["deployments", "result"]}}}
    else:
        resources["deployment"] = {
            "type": "OS::Heat::SoftwareDeployment",
            "properties": {**shared, "server": {"get_resource": "server0"}},
        }
        outputs = {"stdout": {"value": {"get_attr": ["deployment", "deploy_stdout"]}},
                   "status_code": {"value": {"get_attr": ["deployment", "deploy_status_code"]}},
                   "result": {"value": {"get_attr": ["deployment", "result"]}}}
    return {"heat_template_version": "2018-08-31",
            "parameters": {"foo": {"type": "string"}},
            "resources": resources, "outputs": outputs}


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with serving(server_conf(tmp_path_factory.mktemp("hearth-agent"))) as running:
        yield running


@pytest.fixture()
def heat(embedded: RunningServer) -> Any:
    return heat_client.Client("1", endpoint=f"{embedded.url}/v1/demo", token="unused")


def wait_for(check: Callable[[], Any], what: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def settled(heat: Any, name: str, action: str) -> Any:
    def done() -> Any:
        stack = heat.stacks.get(name)
        return stack if stack.stack_status != f"{action}_IN_PROGRESS" else None
    return wait_for(done, f"{name} to finish {action}", 120)


def agents_for(heat: Any, name: str, tools: AgentTools, root: Path, count: int) -> list[Agent]:
    """One configured agent per DeployedServer, from what Hearth says the agent needs."""
    agents = []
    for i in range(count):
        stack = heat.stacks.get(name)
        occ = wait_for(lambda i=i: heat.resources.get(name, f"server{i}").attributes.get(
            "os_collect_config"), f"server{i}'s agent settings (stack {stack.stack_status}: "
            f"{stack.stack_status_reason})")
        agent = Agent(tools, root / f"server{i}")
        agent.configure(occ)
        agents.append(agent)
    return agents


def wait_deployments(heat: Any, name: str, count: int, server: str = "server0") -> None:
    wait_for(lambda: len(heat.resources.metadata(name, server).get("deployments") or [])
             >= count, "the deployment in the server's metadata")


def delete(heat: Any, name: str) -> None:
    heat.stacks.delete(name)
    wait_for(lambda: not [s for s in heat.stacks.list() if s.stack_name == name],
             f"{name} to be deleted")


def outputs(stack: Any) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in stack.outputs}


def test_deployment_runs_on_the_agent_and_reruns_on_update(
    heat: Any, agent_tools: AgentTools, tmp_path: Path
) -> None:
    heat.stacks.create(stack_name="agent-one", template=template(SCRIPT),
                       parameters={"foo": "one"})
    (agent,) = agents_for(heat, "agent-one", agent_tools, tmp_path, 1)
    wait_deployments(heat, "agent-one", 1)
    assert heat.stacks.get("agent-one").stack_status == "CREATE_IN_PROGRESS"

    run = agent.run_once().check()
    assert len(run.deployed_ids()) == 1
    stack = settled(heat, "agent-one", "CREATE")
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    got = outputs(stack)
    assert got["stdout"] == "hello one\n"
    assert str(got["status_code"]) == "0"
    assert got["result"] == "one-done"

    # New inputs: a new derived config, which the agent runs again.
    heat.stacks.update("agent-one", template=template(SCRIPT), parameters={"foo": "two"})
    wait_for(lambda: any(i["name"] == "foo" and i["value"] == "two"
                         for d in heat.resources.metadata("agent-one", "server0")["deployments"]
                         for i in d["inputs"]), "the updated deployment")
    run = agent.run_once().check()
    assert len(run.deployed_ids()) == 2
    stack = settled(heat, "agent-one", "UPDATE")
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    assert outputs(stack)["stdout"] == "hello two\n"
    assert outputs(stack)["result"] == "two-done"

    # Nothing new: the agent runs nothing again.
    before = run.deployed_ids()
    assert agent.run_once().check().deployed_ids() == before

    delete(heat, "agent-one")
    assert heat.software_deployments.list() == []
    assert heat.software_configs.list() == []


def test_failing_script_fails_the_deployment_with_its_stderr(
    heat: Any, agent_tools: AgentTools, tmp_path: Path
) -> None:
    heat.stacks.create(stack_name="agent-fail", template=template(FAILING),
                       parameters={"foo": "x"})
    (agent,) = agents_for(heat, "agent-fail", agent_tools, tmp_path, 1)
    wait_deployments(heat, "agent-fail", 1)
    agent.run_once().check()
    stack = settled(heat, "agent-fail", "CREATE")
    assert stack.stack_status == "CREATE_FAILED"
    reason = stack.stack_status_reason
    assert "Deployment to server failed" in reason
    assert "non-zero status code: 3" in reason
    assert "the disk is on fire" in reason
    deployment = heat.resources.get("agent-fail", "deployment")
    assert deployment.resource_status == "CREATE_FAILED"
    delete(heat, "agent-fail")


def test_group_deployment_over_three_servers(
    heat: Any, agent_tools: AgentTools, tmp_path: Path
) -> None:
    heat.stacks.create(stack_name="agent-group", template=template(SCRIPT, 3, group=True),
                       parameters={"foo": "many"})
    agents = agents_for(heat, "agent-group", agent_tools, tmp_path, 3)
    for i, agent in enumerate(agents):
        wait_deployments(heat, "agent-group", 1, f"server{i}")
        agent.run_once().check()
    stack = settled(heat, "agent-group", "CREATE")
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    got = outputs(stack)
    assert got["stdouts"] == {f"s{i}": "hello many\n" for i in range(3)}
    assert got["results"] == {f"s{i}": "many-done" for i in range(3)}
    delete(heat, "agent-group")
    assert heat.software_deployments.list() == []
