"""Software deployments through the API, with the agent's side played by plain HTTP: what a
server's metadata holds, the secret URLs, the actions that trigger a deployment, structured
configs, and bad input refused with clear errors that change nothing. (The real agent runs in
tests/integration/agent.)"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
import requests
from heatclient import exc as heat_exc


def stack(resources: dict[str, Any], outputs: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": resources,
            "outputs": outputs or {}}


SERVER = {"type": "OS::Heat::DeployedServer",
          "properties": {"software_config_transport": "POLL_TEMP_URL"}}


def config(group: str = "script", **extra: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::SoftwareConfig",
            "properties": {"group": group, "config": "#!/bin/sh\necho hi", **extra}}


def deployment(**props: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::SoftwareDeployment",
            "properties": {"config": {"get_resource": "config"},
                           "server": {"get_resource": "server"},
                           "signal_transport": "TEMP_URL_SIGNAL", **props}}


def wait_for(check: Callable[[], Any], what: str, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def status(heat: Any, name: str) -> str:
    return str(heat.stacks.get(name).stack_status)


def settled(heat: Any, name: str) -> Any:
    wait_for(lambda: not status(heat, name).endswith("IN_PROGRESS"), f"{name} to settle")
    return heat.stacks.get(name)


def gone(heat: Any, name: str) -> None:
    heat.stacks.delete(name)
    wait_for(lambda: not [s for s in heat.stacks.list() if s.stack_name == name],
             f"{name} to be deleted")


def inputs_of(entry: dict[str, Any]) -> dict[str, Any]:
    return {i["name"]: i["value"] for i in entry["inputs"]}


def deployments(heat: Any, name: str, server: str = "server") -> list[dict[str, Any]]:
    return list(heat.resources.metadata(name, server).get("deployments") or [])


def signal(url: str, body: dict[str, Any], verb: str = "PUT") -> requests.Response:
    return requests.request(verb, url, json=body, timeout=10)


def test_server_metadata_lists_deployments_and_urls_are_secret(heat: Any) -> None:
    heat.stacks.create(stack_name="sd-meta", template=stack({
        "server": SERVER, "config": config(),
        "b": deployment(name="20-b"), "a": deployment(name="10-a", signal_transport="CFN_SIGNAL"),
    }))
    listed = wait_for(lambda: len(deployments(heat, "sd-meta")) == 2 and
                      deployments(heat, "sd-meta"), "two deployments")
    # Sorted by the derived config's name, as the agent applies them.
    assert [d["name"] for d in listed] == ["10-a", "20-b"]
    by_name = {d["name"]: inputs_of(d) for d in listed}
    assert by_name["10-a"]["deploy_signal_verb"] == "POST"
    assert by_name["20-b"]["deploy_signal_verb"] == "PUT"
    assert by_name["20-b"]["deploy_resource_name"] == "b"
    assert by_name["20-b"]["deploy_action"] == "CREATE"

    occ = heat.resources.metadata("sd-meta", "server")["os-collect-config"]
    assert occ["collectors"] == ["request", "local"]
    url = occ["request"]["metadata_url"]
    assert requests.get(url, timeout=10).json()["deployments"] == listed
    head = requests.head(url, timeout=10)
    assert head.status_code == 200 and head.content == b""
    assert requests.get(url + "x", timeout=10).status_code == 403

    # A wrong secret changes nothing; the right one completes the deployment.
    wrong = by_name["20-b"]["deploy_signal_id"][:-3] + "xyz"
    assert signal(wrong, {"deploy_status_code": 0}).status_code == 403
    assert heat.resources.get("sd-meta", "b").resource_status == "CREATE_IN_PROGRESS"
    for entry in by_name.values():
        verb = entry["deploy_signal_verb"]
        assert signal(entry["deploy_signal_id"], {"deploy_stdout": "ok"}, verb).ok
    assert settled(heat, "sd-meta").stack_status == "CREATE_COMPLETE"
    assert heat.resources.get("sd-meta", "b").attributes["deploy_stdout"] == "ok"

    gone(heat, "sd-meta")
    # The secret URLs died with the stack.
    assert requests.get(url, timeout=10).status_code == 403
    assert signal(by_name["20-b"]["deploy_signal_id"], {}).status_code == 403
    assert heat.software_deployments.list() == []


def test_delete_and_suspend_actions_wait_for_the_agent(heat: Any) -> None:
    heat.stacks.create(stack_name="sd-actions", template=stack({
        "server": SERVER, "config": config(),
        "dep": deployment(actions=["SUSPEND", "RESUME", "DELETE"]),
    }))
    # Not triggered on CREATE: nothing to wait for.
    assert settled(heat, "sd-actions").stack_status == "CREATE_COMPLETE"
    assert deployments(heat, "sd-actions") == []

    heat.actions.suspend("sd-actions")
    entry = wait_for(lambda: deployments(heat, "sd-actions"), "the SUSPEND deployment")[0]
    assert inputs_of(entry)["deploy_action"] == "SUSPEND"
    assert status(heat, "sd-actions") == "SUSPEND_IN_PROGRESS"
    signal(inputs_of(entry)["deploy_signal_id"], {"deploy_status_code": 0})
    assert settled(heat, "sd-actions").stack_status == "SUSPEND_COMPLETE"

    heat.stacks.delete("sd-actions")
    entry = wait_for(lambda: [d for d in deployments(heat, "sd-actions")
                              if inputs_of(d)["deploy_action"] == "DELETE"],
                     "the DELETE deployment")[0]
    time.sleep(0.5)
    assert status(heat, "sd-actions") == "DELETE_IN_PROGRESS"
    signal(inputs_of(entry)["deploy_signal_id"], {"deploy_status_code": 0})
    wait_for(lambda: not [s for s in heat.stacks.list() if s.stack_name == "sd-actions"],
             "the stack to go")


def test_structured_deployment_substitutes_inputs(heat: Any) -> None:
    heat.stacks.create(stack_name="sd-structured", template=stack({
        "server": SERVER,
        "config": {"type": "OS::Heat::StructuredConfig",
                   "properties": {"group": "json-file",
                                  "config": {"/etc/x.json": {"port": {"get_input": "port"},
                                                             "keep": {"raw": 1}}}}},
        "dep": {"type": "OS::Heat::StructuredDeployment",
                "properties": {"config": {"get_resource": "config"},
                               "server": {"get_resource": "server"},
                               "signal_transport": "NO_SIGNAL",
                               "input_values": {"port": 8080}}},
    }))
    assert settled(heat, "sd-structured").stack_status == "CREATE_COMPLETE"
    (entry,) = deployments(heat, "sd-structured")
    assert entry["config"] == {"/etc/x.json": {"port": 8080, "keep": {"raw": 1}}}
    gone(heat, "sd-structured")


def test_deployment_to_a_server_hearth_does_not_know_waits_for_an_api_signal(heat: Any) -> None:
    # As in Heat: any server id is taken (the server may be outside Hearth); only a signal
    # completes the deployment, and deleting it while it waits leaves nothing.
    heat.stacks.create(stack_name="sd-noserver", template=stack({
        "config": config(),
        "dep": {"type": "OS::Heat::SoftwareDeployment",
                "properties": {"config": {"get_resource": "config"}, "server": "dummy0",
                               "signal_transport": "TEMP_URL_SIGNAL"}},
    }))
    wait_for(lambda: heat.software_deployments.list(), "the deployment")
    time.sleep(0.5)
    assert status(heat, "sd-noserver") == "CREATE_IN_PROGRESS"
    gone(heat, "sd-noserver")
    assert heat.software_deployments.list() == []
    assert heat.software_configs.list() == []

    heat.stacks.create(stack_name="sd-noserver2", template=stack({
        "config": config(),
        "dep": {"type": "OS::Heat::SoftwareDeployment",
                "properties": {"config": {"get_resource": "config"}, "server": "dummy1",
                               "signal_transport": "TEMP_URL_SIGNAL"}},
    }))
    wait_for(lambda: heat.software_deployments.list(), "the deployment")
    heat.resources.signal("sd-noserver2", "dep", data={"deploy_stdout": "via the API"})
    assert settled(heat, "sd-noserver2").stack_status == "CREATE_COMPLETE"
    assert heat.resources.get("sd-noserver2", "dep").attributes["deploy_stdout"] == "via the API"
    gone(heat, "sd-noserver2")


def test_unknown_config_group_fails_unless_nothing_waits(heat: Any) -> None:
    heat.stacks.create(stack_name="sd-group", template=stack({
        "server": SERVER, "config": config(group="no-such-tool"), "dep": deployment()}))
    found = settled(heat, "sd-group")
    assert found.stack_status == "CREATE_FAILED"
    assert "'no-such-tool' has no hook" in found.stack_status_reason
    assert heat.software_deployments.list() == []
    gone(heat, "sd-group")
    heat.stacks.create(stack_name="sd-group2", template=stack({
        "server": SERVER, "config": config(group="no-such-tool"),
        "dep": deployment(signal_transport="NO_SIGNAL")}))
    assert settled(heat, "sd-group2").stack_status == "CREATE_COMPLETE"
    gone(heat, "sd-group2")


@pytest.mark.parametrize("resources, message", [
    ({"server": SERVER, "config": config(), "dep": deployment(signal_transport="ZAQAR_SIGNAL")},
     "ZAQAR_SIGNAL needs the Zaqar messaging service"),
    ({"server": {"type": "OS::Heat::DeployedServer",
                 "properties": {"software_config_transport": "ZAQAR_MESSAGE"}}},
     "ZAQAR_MESSAGE needs the Zaqar messaging service"),
    ({"server": {"type": "OS::Heat::DeployedServer",
                 "properties": {"deployment_swift_data": {"container": "c", "object": "o"}}}},
     "deployment_swift_data needs Swift"),
])
def test_transports_hearth_cannot_serve_are_refused(
    heat: Any, resources: dict[str, Any], message: str
) -> None:
    with pytest.raises(heat_exc.HTTPBadRequest) as err:
        heat.stacks.create(stack_name="sd-refused", template=stack(resources))
    assert message in str(err.value)
    assert [s for s in heat.stacks.list() if s.stack_name == "sd-refused"] == []



def test_old_deployments_type_becomes_the_group_in_place(heat: Any) -> None:
    def with_type(type_name: str) -> dict[str, Any]:
        return stack({"server": SERVER, "config": config(),
                      "dep": {"type": type_name, "properties": {
                          "config": {"get_resource": "config"},
                          "servers": {"0": {"get_resource": "server"}},
                          "signal_transport": "NO_SIGNAL"}}})

    heat.stacks.create(stack_name="sd-plural", template=with_type("OS::Heat::SoftwareDeployments"))
    assert settled(heat, "sd-plural").stack_status == "CREATE_COMPLETE"
    before = heat.resources.get("sd-plural", "dep").physical_resource_id
    heat.stacks.update("sd-plural", template=with_type("OS::Heat::SoftwareDeploymentGroup"))
    wait_for(lambda: status(heat, "sd-plural") != "CREATE_COMPLETE", "the update to start")
    assert settled(heat, "sd-plural").stack_status == "UPDATE_COMPLETE"
    after = heat.resources.get("sd-plural", "dep")
    assert after.resource_type == "OS::Heat::SoftwareDeploymentGroup"
    assert after.physical_resource_id == before
    gone(heat, "sd-plural")


def test_provider_template_may_take_a_resource_of_its_parent(heat: Any) -> None:
    # The child's required ``server`` comes from a parent resource made in the same create:
    # validation before anything exists must not refuse it (Heat's bug 1407100).
    provider = {"heat_template_version": "2014-10-16",
                "parameters": {"server": {"type": "string"}},
                "resources": {"config": config(),
                              "deployment": {"type": "OS::Heat::SoftwareDeployment",
                                             "properties": {
                                                 "config": {"get_resource": "config"},
                                                 "server": {"get_param": "server"},
                                                 "signal_transport": "NO_SIGNAL"}}}}
    heat.stacks.create(
        stack_name="sd-provider",
        template=stack({"config": {"type": "My::Config",
                                   "properties": {"server": {"get_resource": "server"}}},
                        "server": SERVER}),
        files={"provider.yaml": json.dumps(provider)},
        environment={"resource_registry": {"My::Config": "provider.yaml"}},
    )
    assert settled(heat, "sd-provider").stack_status == "CREATE_COMPLETE"
    assert len(deployments(heat, "sd-provider")) == 1
    gone(heat, "sd-provider")
