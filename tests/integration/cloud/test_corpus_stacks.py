"""Real-world templates of upstream heat-templates, created on the devcloud with the real
``openstack stack create`` against ``hearth serve`` (embedded mode, ``[clients] cloud``),
then deleted: each reaches CREATE_COMPLETE, its servers are the cloud's, and nothing it made
is left afterwards.

The module works in a project and user of its own, seeded as the devcloud seeds demo (one
network ``private`` with a router to ``public``): several templates boot a server that names
no network, which Nova allows only while the project has exactly one, so a network another
test (or an interrupted earlier run) left in demo would fail them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from openstack.connection import Connection

from bench.cloud_project import bench_project, connect
from hearth.cli.serve import RunningServer, serving
from tests.integration.api.conftest import server_conf
from tests.integration.cloud.conftest import (
    DevCloud,
    assert_nothing_left,
    inventory,
    unique,
)

CORPUS = Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus" / "heat-templates"
OPENSTACK = Path(sys.executable).parent / "openstack"
KINDS = ("networks", "subnets", "ports", "routers", "floatingips", "security_groups",
         "servers", "volumes")
pytestmark = pytest.mark.skipif(not OPENSTACK.exists(), reason="no openstack entry point")


@dataclass
class Corpus:
    """What the templates' parameters name in the devcloud (made for the test module), and
    the module's own cloud (``cloud`` in ``clouds_file``)."""

    conn: Connection
    cloud: str
    clouds_file: Path
    key_name: str
    private_net_id: str
    private_subnet_id: str
    public_net_id: str
    made_images: list[str] = field(default_factory=list)

    def image_named(self, name: str) -> str:
        """A tiny image of this name in the module's project (for templates'
        allowed_values), made once for the module."""
        if name not in self.made_images:
            self.conn.image.create_image(
                name=name, disk_format="raw", container_format="bare", data=b"\0" * 512,
                visibility="private",
            )
            self.made_images.append(name)
        return name


@pytest.fixture(scope="module")
def corpus(devcloud: DevCloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    admin = devcloud.connect("devcloud-admin")
    # Removed at the end with all it holds (its network and router too).
    with bench_project(admin, prefix="hearth-corpus") as project:
        clouds = project.write_clouds_file(tmp_path_factory.mktemp("corpus") / "clouds.yaml")
        conn = connect(project.cloud_name, clouds)
        net = conn.network
        public = net.find_network("public", ignore_missing=False)
        private = net.create_network(name="private")
        subnet = net.create_subnet(name="private-subnet", network_id=private.id, ip_version=4,
                                   cidr="10.0.0.0/26")
        router = net.create_router(name="router1",
                                   external_gateway_info={"network_id": public.id})
        net.add_interface_to_router(router, subnet=subnet.id)
        key = conn.compute.create_keypair(name=unique("corpus-key"))
        found = Corpus(conn, project.cloud_name, clouds, key.name, private.id, subnet.id,
                       public.id)
        try:
            yield found
        finally:
            conn.compute.delete_keypair(key.name, ignore_missing=True)
            for name in found.made_images:
                for image in conn.image.images(name=name, owner=conn.current_project_id):
                    conn.image.delete_image(image, ignore_missing=True)


@pytest.fixture(scope="module")
def cloud_server(corpus: Corpus,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    conf = server_conf(tmp_path_factory.mktemp("hearth-cloud"),
                       clients__cloud=corpus.cloud, clients__clouds_file=str(corpus.clouds_file),
                       max_resources_per_stack=-1)
    with serving(conf) as running:
        yield running


class Osc:
    """``openstack`` (the real CLI) against the server, without Keystone."""

    def __init__(self, server: RunningServer, workdir: Path) -> None:
        self.endpoint = f"{server.url}/v1/demo"
        self.workdir = workdir
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
        self.env["OS_CLIENT_CONFIG_FILE"] = str(workdir / "no-clouds.yaml")

    def run(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        cmd = [str(OPENSTACK), "--os-auth-type", "none", "--os-endpoint", self.endpoint,
               *args]
        return subprocess.run(cmd, capture_output=True, text=True, env=self.env,
                              cwd=self.workdir, timeout=timeout, check=False)

    def json(self, *args: str) -> Any:
        done = self.run(*args, "-f", "json")
        assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])
        lines = done.stdout.splitlines()
        start = next(i for i, line in enumerate(lines) if line in ("{", "[", "[]", "{}"))
        return json.loads("\n".join(lines[start:]))


def parameters(name: str, c: Corpus) -> dict[str, str]:
    """The parameters each template needs on the devcloud."""
    server = {"key_name": c.key_name, "image": "cirros", "flavor": "m1.tiny"}
    if name == "hot/F18/NovaInstanceWithCinderVolume_Native.yaml":
        return {"key_name": c.key_name, "instance_type": "m1.small",
                "image_id": c.image_named("F18-x86_64-cfntools")}
    return {
        "hot/servers_in_new_neutron_net.yaml": {
            **server, "public_net": "public", "private_net_name": unique("corpus-net"),
            "private_net_cidr": "10.77.0.0/24", "private_net_gateway": "10.77.0.1",
            "private_net_pool_start": "10.77.0.10", "private_net_pool_end": "10.77.0.100",
        },
        "hot/servers_in_existing_neutron_net.yaml": {
            **server, "public_net_id": c.public_net_id, "private_net_id": c.private_net_id,
            "private_subnet_id": c.private_subnet_id,
        },
        "hot/servers_in_existing_neutron_network_no_floating_ips.yaml": {
            **server, "net_id": c.private_net_id, "subnet_id": c.private_subnet_id,
        },
        "hot/vm_with_cinder.yaml": {**server, "network": "private"},
        "hot/server_console.yaml": {"image": "cirros", "flavor": "m1.tiny"},
        "hot/hello_world.yaml": {**server, "admin_pass": "Secret12"},
        "hot/asg_of_servers.yaml": {**server, "network": "private"},
        "hot/F20/WordPress_Native.yaml": {
            "key_name": c.key_name, "instance_type": "m1.tiny", "image_id": "cirros",
        },
        "hot/resource_group/server_with_volumes.yaml": {
            "key_name": c.key_name, "image_id": "cirros", "instance_type": "m1.tiny",
            "num_volumes": "2",
        },
    }[name]


TEMPLATES = (
    "hot/servers_in_new_neutron_net.yaml",
    "hot/servers_in_existing_neutron_net.yaml",
    "hot/servers_in_existing_neutron_network_no_floating_ips.yaml",
    "hot/vm_with_cinder.yaml",
    "hot/server_console.yaml",
    "hot/hello_world.yaml",
    "hot/asg_of_servers.yaml",
    "hot/F18/NovaInstanceWithCinderVolume_Native.yaml",
    "hot/F20/WordPress_Native.yaml",
    "hot/resource_group/server_with_volumes.yaml",
)


@pytest.mark.parametrize("template", TEMPLATES)
def test_corpus_template_creates_and_deletes_cleanly(
    template: str, corpus: Corpus, cloud_server: RunningServer, tmp_path: Path
) -> None:
    osc = Osc(cloud_server, tmp_path)
    before = inventory(corpus.conn, KINDS)
    name = unique(Path(template).stem.replace("_", "-"))
    args = ["stack", "create", "-t", str(CORPUS / template), "--wait", "--poll", "1"]
    for key, value in parameters(template, corpus).items():
        args += ["--parameter", f"{key}={value}"]
    try:
        created = osc.json(*args, name)
        assert created["stack_status"] == "CREATE_COMPLETE", created.get("stack_status_reason")
        listed = osc.json("stack", "resource", "list", "-n", "5", name)
        servers = [r["physical_resource_id"] for r in listed
                   if r["resource_type"] == "OS::Nova::Server"]
        assert servers, "the template makes at least one server"
        for server_id in servers:
            assert corpus.conn.compute.get_server(server_id).status == "ACTIVE"
        outputs = osc.json("stack", "output", "list", name)
        for output in outputs:
            shown = osc.json("stack", "output", "show", name, output["output_key"])
            assert "output_error" not in shown, shown
    finally:
        deleted = osc.run("stack", "delete", "--yes", "--wait", name)
        never_made = "could not be found" in deleted.stderr
        assert deleted.returncode == 0 or never_made, (deleted.stdout[-2000:],
                                                       deleted.stderr[-2000:])
    assert_nothing_left(corpus.conn, before)
