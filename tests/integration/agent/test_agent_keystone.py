"""The real agent against ``hearth serve`` with Keystone: the server's agent authenticates as
its stack user (Heat's stack user domain, a project per stack), reads its metadata with the
``heat`` collector (POLL_SERVER_HEAT) and signals through the resource-signal API
(HEAT_SIGNAL). The users and their project go with the stack.

The agent finds Hearth through the catalog: the test adds a region of its own with an
orchestration endpoint at the test server, and removes both at the end.
"""

from __future__ import annotations

import configparser
import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from heatclient import client as heat_client
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3

from hearth.cli.serve import RunningServer, serving
from hearth.common.config import load_config
from tests.integration.agent.harness import AgentTools
from tests.integration.agent.test_agent_embedded import (
    SCRIPT,
    agents_for,
    delete,
    outputs,
    settled,
    wait_deployments,
    wait_for,
)
from tests.integration.api.keystone_fixtures import (
    AUTHTOKEN_CONF,
    DEMO,
    KEYSTONE_URL,
    SERVICE,
    Keystone,
    keystone,  # noqa: F401 - the fixture
    own_region,
    password_session,
)

KEYSTONE_HOME = Path(os.environ.get("KEYSTONE_HOME") or
                     Path.home() / ".cache" / "hearth-devcloud" / "keystone")


def stack_domain_options() -> dict[str, str]:
    found = KEYSTONE_HOME / "stack_domain.conf"
    if not found.is_file():
        reason = f"no {found}: start-keystone.sh writes the stack user domain's options there"
        if os.environ.get("CI") == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    parser = configparser.ConfigParser()
    parser.read(found)
    return dict(parser["DEFAULT"])


@pytest.fixture(scope="module")
def region(keystone: Keystone) -> Iterator[str]:  # noqa: F811
    with own_region(keystone, "hearth-agent") as name:
        yield name


@pytest.fixture(scope="module")
def served(keystone: Keystone, region: str,  # noqa: F811
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    tmp = tmp_path_factory.mktemp("hearth-agent-keystone")
    conf_file = tmp / "hearth.conf"
    options = "\n".join(f"{k} = {v}" for k, v in stack_domain_options().items())
    conf_file.write_text(
        f"[DEFAULT]\n{options}\nregion_name_for_services = {region}\n"
        f"auth_encryption_key = agent-tests-key-of-enough-length\n\n"
        f"[trustee]\nauth_url = {KEYSTONE_URL}\nusername = {SERVICE[0]}\n"
        f"password = {SERVICE[1]}\n\n" + AUTHTOKEN_CONF
    )
    conf = load_config([conf_file], [("data_dir", None, str(tmp / "data")),
                                     ("bind_port", "api", 0),
                                     ("bind", "cfn_api", "127.0.0.1:0")])
    with serving(conf) as running:
        service = keystone.get("/services", "services", type="orchestration")[0]
        keystone._call("POST", "/endpoints", json={"endpoint": {
            "service_id": service["id"], "interface": "public", "region_id": region,
            "url": f"{running.url}/v1/%(tenant_id)s"}})
        yield running


@pytest.fixture()
def heat(served: RunningServer, region: str) -> Any:
    session = password_session(*DEMO)
    project = session.get_project_id()
    return heat_client.Client("1", endpoint=f"{served.url}/v1/{project}",
                              token=session.get_token())


def users_of(keystone: Keystone, project_id: str) -> list[str]:  # noqa: F811
    return [u["name"] for u in keystone.get("/users", "users")
            if u.get("default_project_id") == project_id]


# Heat's two Keystone pairs: the Orchestration API, or the CFN API with an EC2 keypair.
TRANSPORTS = {"heat": ("POLL_SERVER_HEAT", "HEAT_SIGNAL"), "cfn": ("POLL_SERVER_CFN", "CFN_SIGNAL")}


def template(collector: str = "heat") -> dict[str, Any]:
    config_transport, signal_transport = TRANSPORTS[collector]
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {"foo": {"type": "string"}},
        "resources": {
            "server0": {"type": "OS::Heat::DeployedServer",
                        "properties": {"software_config_transport": config_transport}},
            "config": {"type": "OS::Heat::SoftwareConfig",
                       "properties": {"group": "script", "inputs": [{"name": "foo"}],
                                      "outputs": [{"name": "result"}], "config": SCRIPT}},
            "deployment": {"type": "OS::Heat::SoftwareDeployment",
                           "properties": {"config": {"get_resource": "config"},
                                          "server": {"get_resource": "server0"},
                                          "signal_transport": signal_transport,
                                          "input_values": {"foo": {"get_param": "foo"}}}},
        },
        "outputs": {"stdout": {"value": {"get_attr": ["deployment", "deploy_stdout"]}},
                    "result": {"value": {"get_attr": ["deployment", "result"]}}},
    }


@pytest.mark.parametrize("collector", sorted(TRANSPORTS))
def test_agent_acts_as_its_stack_user(
    heat: Any, keystone: Keystone, served: RunningServer,  # noqa: F811
    agent_tools: AgentTools, tmp_path: Path, collector: str,
) -> None:
    name = f"agent-ks-{uuid.uuid4().hex[:6]}"
    heat.stacks.create(stack_name=name, template=template(collector), parameters={"foo": "ks"})
    try:
        check_agent_and_access(heat, keystone, served, agent_tools, tmp_path, name, collector)
    finally:
        # Whatever happened, the stack (and with it its Keystone users) goes.
        project_id = heat.stacks.get(name).to_dict().get("stack_user_project_id")
        delete(heat, name)
    assert project_id
    assert users_of(keystone, project_id) == []
    gone = keystone._call("GET", f"/projects/{project_id}", raise_exc=False)
    assert gone.status_code == 404


def check_agent_and_access(heat: Any, keystone: Keystone,  # noqa: F811
                           served: RunningServer, agent_tools: AgentTools, tmp_path: Path,
                           name: str, collector: str) -> None:
    (agent,) = agents_for(heat, name, agent_tools, tmp_path, 1)
    occ = heat.resources.get(name, "server0").attributes["os_collect_config"]
    assert occ["collectors"] == [collector, "local"]
    project_id = heat.stacks.get(name).to_dict()["stack_user_project_id"]
    # The server's user and the deployment's, in the stack's own project.
    assert len(users_of(keystone, project_id)) == 2
    wait_deployments(heat, name, 1, "server0")

    agent.run_once().check()
    stack = settled(heat, name, "CREATE")
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    assert outputs(stack) == {"stdout": "hello ks\n", "result": "ks-done"}

    # New inputs: the agent (still as its stack user) runs the new derived config.
    heat.stacks.update(name, template=template(collector), parameters={"foo": "again"})
    wait_for(lambda: any(i["name"] == "foo" and i["value"] == "again"
                         for d in heat.resources.metadata(name, "server0")["deployments"]
                         for i in d["inputs"]), "the updated deployment")
    assert len(agent.run_once().check().deployed_ids()) == 2
    stack = settled(heat, name, "UPDATE")
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    assert outputs(stack) == {"stdout": "hello again\n", "result": "again-done"}

    if collector == "cfn":
        check_cfn_access(served, occ["cfn"], name)
        return
    # The stack user may read its server's metadata, and nothing else of the project's.
    creds = occ["heat"]
    auth = v3.Password(auth_url=creds["auth_url"], user_id=creds["user_id"],
                       password=creds["password"], project_id=creds["project_id"])
    token = ks_session.Session(auth=auth).get_token()
    base = f"{served.url}/v1/{creds['project_id']}"
    metadata = requests.get(f"{base}/stacks/{creds['stack_id']}/resources/server0/metadata",
                            headers={"X-Auth-Token": token}, timeout=10)
    assert metadata.status_code == 200
    assert metadata.json()["metadata"]["deployments"]
    listing = requests.get(f"{base}/stacks", headers={"X-Auth-Token": token}, timeout=10)
    assert listing.status_code == 403


def check_cfn_access(served: RunningServer, creds: dict[str, Any], name: str) -> None:
    """The server's keypair reads its server's metadata through the CFN API, nothing else."""
    import boto3
    from botocore.exceptions import ClientError

    assert creds["metadata_url"] == f"{served.cfn_url}/v1/"
    assert creds["stack_name"] == name and creds["path"] == "server0.Metadata"
    cfn = boto3.client("cloudformation", endpoint_url=creds["metadata_url"],
                       region_name="RegionOne", aws_access_key_id=creds["access_key_id"],
                       aws_secret_access_key=creds["secret_access_key"])
    detail = cfn.describe_stack_resource(StackName=name, LogicalResourceId="server0")
    deployments = json.loads(detail["StackResourceDetail"]["Metadata"])["deployments"]
    # The agent signalled through the CFN API, at a URL signed with the deployment's keypair.
    signal_ids = {i["value"] for d in deployments for i in d["inputs"]
                  if i["name"] == "deploy_signal_id"}
    assert signal_ids and all(u.startswith(f"{served.cfn_url}/v1/signal/arn%3Aopenstack")
                              for u in signal_ids), signal_ids
    for refused in (lambda: cfn.describe_stack_resource(StackName=name,
                                                        LogicalResourceId="deployment"),
                    lambda: cfn.describe_stacks(StackName=name)):
        with pytest.raises(ClientError) as caught:
            refused()
        assert caught.value.response["Error"]["Code"] == "AccessDenied"

