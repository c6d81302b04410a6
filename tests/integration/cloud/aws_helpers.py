"""What the AWS::EC2 tests share: CFN snippets, the rules of a group as Neutron has them,
and the check that a deleted stack left nothing (other tests use the demo project at the
same time, so a plain before/after inventory of the project would count their objects)."""

from __future__ import annotations

import time
from typing import Any

from openstack.connection import Connection

INGRESS_SSH = {"IpProtocol": "tcp", "FromPort": "22", "ToPort": "22", "CidrIp": "10.0.0.0/8"}
INGRESS_HTTP = {"IpProtocol": "tcp", "FromPort": "80", "ToPort": "80", "CidrIp": "0.0.0.0/0"}


def ref(name: str) -> dict[str, str]:
    return {"Ref": name}


def rules_of(conn: Connection, group_id: str) -> set[tuple[Any, ...]]:
    return {
        (r.direction, r.protocol, r.port_range_min, r.port_range_max, r.remote_ip_prefix)
        for r in conn.network.security_group_rules(security_group_id=group_id)
    }


def left_of(conn: Connection, prefix: str, networks: set[str],
            floating_ips: set[str]) -> dict[str, list[str]]:
    """What the stack made and the cloud still has: objects named after the stack, ports on
    its networks, its floating IPs."""
    net, project = conn.network, conn.current_project_id

    def named(objects: Any) -> list[str]:
        return sorted(o.id for o in objects if (o.name or "").startswith(prefix))

    found = {
        "networks": named(net.networks(project_id=project)),
        "subnets": named(net.subnets(project_id=project)),
        "ports": sorted(p.id for p in net.ports(project_id=project)
                        if p.network_id in networks or (p.name or "").startswith(prefix)),
        "routers": named(net.routers(project_id=project)),
        "floatingips": sorted(f.id for f in net.ips(project_id=project)
                              if f.id in floating_ips),
        "security_groups": named(net.security_groups(project_id=project)),
        "servers": named(conn.compute.servers()),
        "volumes": named(conn.block_storage.volumes()),
    }
    return {kind: ids for kind, ids in found.items() if ids}


def assert_stack_left_nothing(conn: Connection, stack: dict[str, str], networks: set[str],
                              floating_ips: set[str], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    prefix = f"{stack['stack_name']}-"
    while (left := left_of(conn, prefix, networks, floating_ips)) and (
            time.monotonic() < deadline):
        time.sleep(1.0)
    assert left == {}, f"left in the cloud after delete: {left}"
