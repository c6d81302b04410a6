"""The cloud benchmark's own project and user in the devcloud (made as admin, quotas lifted),
what the project holds, and the removal of everything in it, the project and the user.

Both engines act as that user in that project, one after the other: the benchmark can then
prove after each delete that the project is empty again, whatever other tests do meanwhile.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import openstack.config
import yaml
from openstack.connection import Connection
from openstack.identity.v3._proxy import Proxy as IdentityV3

HOME = Path.home() / ".cache" / "hearth-devcloud"
CLOUDS_FILE = HOME / "clouds.yaml"
ADMIN_CLOUD = "devcloud-admin"
# The service user Heat's trusts delegate to (the devcloud's README).
HEAT_TRUSTEE = {"username": "heat", "password": "heatpass", "user_domain_name": "Default"}

QUOTAS_NETWORK = {"network": -1, "subnet": -1, "port": -1, "router": -1, "floatingip": -1,
                  "security_group": -1, "security_group_rule": -1}
QUOTAS_COMPUTE = {"instances": -1, "cores": -1, "ram": -1}
QUOTAS_VOLUME = {"volumes": -1, "gigabytes": -1}

# The kinds of objects a stack of bench.cloud_template makes (the project's default security
# group, which Neutron makes by itself, is not one of them).
KINDS = ("servers", "volumes", "floating_ips", "routers", "ports", "subnets", "networks")


def identity(admin: Connection) -> IdentityV3:
    # the devcloud's Keystone is v3 (clouds.yaml says so)
    return cast(IdentityV3, admin.identity)


def connect(cloud: str, clouds_file: Path = CLOUDS_FILE) -> Connection:
    loader = openstack.config.OpenStackConfig(config_files=[str(clouds_file)],
                                              load_envvars=False)
    # The devcloud's services close idle keep-alive connections: a call that meets one
    # closing is sent again rather than failing.
    return Connection(config=loader.get_one(cloud=cloud, connect_retries=3))


@dataclass(frozen=True)
class BenchProject:
    name: str
    project_id: str
    user_id: str
    password: str
    auth_url: str
    region_name: str

    @property
    def cloud_name(self) -> str:
        return self.name

    def auth(self) -> dict[str, str]:
        return {"auth_url": self.auth_url, "username": self.name, "password": self.password,
                "project_name": self.name, "user_domain_name": "Default",
                "project_domain_name": "Default", "region_name": self.region_name}

    def write_clouds_file(self, path: Path) -> Path:
        auth = self.auth()
        region = auth.pop("region_name")
        cloud = {"region_name": region, "identity_api_version": 3, "auth": auth}
        path.write_text(yaml.safe_dump({"clouds": {self.cloud_name: cloud}}))
        path.chmod(0o600)
        return path


def create_project(admin: Connection, prefix: str = "hearth-bench") -> BenchProject:
    name = f"{prefix}-{secrets.token_hex(4)}"
    password = secrets.token_urlsafe(16)
    keystone = identity(admin)
    project = keystone.create_project(name=name, domain_id="default",
                                      description=f"{prefix} (temporary)")
    user = keystone.create_user(name=name, password=password, domain_id="default",
                                      default_project_id=project.id)
    member = keystone.find_role("member", ignore_missing=False)
    keystone.assign_project_role_to_user(project, user, member)
    admin.set_network_quotas(project.id, **QUOTAS_NETWORK)
    admin.set_compute_quotas(project.id, **QUOTAS_COMPUTE)
    admin.set_volume_quotas(project.id, **QUOTAS_VOLUME)
    auth_url = str(admin.config.get_auth_args()["auth_url"])
    return BenchProject(name=name, project_id=project.id, user_id=user.id, password=password,
                        auth_url=auth_url, region_name=admin.config.get_region_name() or
                        "RegionOne")


def listings(admin: Connection, project_id: str) -> dict[str, Callable[[], Iterator[Any]]]:
    net = admin.network
    return {
        "servers": lambda: admin.compute.servers(all_projects=True, project_id=project_id),
        "volumes": lambda: admin.block_storage.volumes(all_projects=True,
                                                       project_id=project_id),
        "floating_ips": lambda: net.ips(project_id=project_id),
        "routers": lambda: net.routers(project_id=project_id),
        "ports": lambda: net.ports(project_id=project_id),
        "subnets": lambda: net.subnets(project_id=project_id),
        "networks": lambda: net.networks(project_id=project_id),
    }


def inventory(admin: Connection, project_id: str) -> dict[str, list[str]]:
    """The ids of every object of KINDS the project holds now."""
    return {kind: sorted(o.id for o in list_all())
            for kind, list_all in listings(admin, project_id).items()}


def leftovers(admin: Connection, project_id: str) -> dict[str, list[str]]:
    return {kind: ids for kind, ids in inventory(admin, project_id).items() if ids}


def _wait_gone(list_now: Callable[[], Iterator[Any]], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while list(list_now()) and time.monotonic() < deadline:
        time.sleep(1)


def purge(admin: Connection, project_id: str, timeout: float = 300.0) -> None:
    """Delete whatever the project still holds (after a failed run), dependants first."""
    lists = listings(admin, project_id)
    for server in lists["servers"]():
        admin.compute.delete_server(server, ignore_missing=True)
    _wait_gone(lists["servers"], timeout)
    for volume in lists["volumes"]():
        admin.block_storage.delete_volume(volume, ignore_missing=True, force=True)
    _wait_gone(lists["volumes"], timeout)
    net = admin.network
    for ip in lists["floating_ips"]():
        net.delete_ip(ip, ignore_missing=True)
    for router in lists["routers"]():
        for port in net.ports(device_id=router.id, device_owner="network:router_interface"):
            for fixed in port.fixed_ips:
                net.remove_interface_from_router(router, subnet=fixed["subnet_id"])
        if router.external_gateway_info:
            net.update_router(router, external_gateway_info={})
        net.delete_router(router, ignore_missing=True)
    for port in lists["ports"]():
        net.delete_port(port, ignore_missing=True)
    for subnet in lists["subnets"]():
        net.delete_subnet(subnet, ignore_missing=True)
    for network in lists["networks"]():
        net.delete_network(network, ignore_missing=True)


def delete_project(admin: Connection, project: BenchProject) -> dict[str, list[str]]:
    """Empty the project, remove its quotas, security groups, user and the project itself;
    returns what could not be removed (empty: nothing is left)."""
    purge(admin, project.project_id)
    left = leftovers(admin, project.project_id)
    if left:  # keep the project: its objects are still there to look at
        return left
    for group in admin.network.security_groups(project_id=project.project_id):
        admin.network.delete_security_group(group, ignore_missing=True)
    admin.delete_network_quotas(project.project_id)
    admin.delete_compute_quotas(project.project_id)
    admin.delete_volume_quotas(project.project_id)
    for trust in identity(admin).trusts(trustor_user_id=project.user_id):
        identity(admin).delete_trust(trust, ignore_missing=True)
    identity(admin).delete_user(project.user_id, ignore_missing=True)
    identity(admin).delete_project(project.project_id, ignore_missing=True)
    gone = identity(admin).find_project(project.project_id) is None
    return {} if gone else {"project": [project.project_id]}


@contextmanager
def bench_project(admin: Connection, prefix: str = "hearth-bench") -> Iterator[BenchProject]:
    """A project and user for one benchmark run (or test module), removed with all they hold
    at the end, also when the run fails."""
    project = create_project(admin, prefix)
    try:
        yield project
    finally:
        left = delete_project(admin, project)
        if left:
            raise RuntimeError(f"project {project.name} ({project.project_id}) still holds "
                               f"{left}")
