"""The cloud benchmark's stack: networks with subnets, ports, routers with an interface and a
floating IP each, and servers on their own ports with a volume attached, sized by counts.

Stdlib only: Heat's venv imports this module too (both engines get the very same template).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

PUBLIC_NETWORK = "public"
FLAVOR = "m1.tiny"
IMAGE = "cirros"


@dataclass(frozen=True)
class CloudShape:
    networks: int
    ports: int
    routers: int
    servers: int

    def __post_init__(self) -> None:
        if self.networks < 1:
            raise ValueError("at least one network")
        if min(self.ports, self.routers, self.servers) < 0:
            raise ValueError("counts cannot be negative")
        if self.ports < self.routers:
            raise ValueError("each router's floating IP needs a port: ports >= routers")
        if self.subnets > 250:
            raise ValueError("at most 250 subnets")

    @property
    def subnets(self) -> int:
        # A subnet's gateway address can be one router's interface only: routers beyond the
        # networks get a further subnet on a network of their own.
        return max(self.networks, self.routers)

    @property
    def resources(self) -> int:
        return (self.networks + self.subnets + self.ports + 3 * self.routers
                + 4 * self.servers)

    def as_dict(self) -> dict[str, int]:
        return {**asdict(self), "subnets": self.subnets, "resources": self.resources}


SMALL = CloudShape(networks=2, ports=10, routers=2, servers=2)
FULL = CloudShape(networks=10, ports=200, routers=20, servers=20)


def _ref(name: str) -> dict[str, str]:
    return {"get_resource": name}


def build_template(shape: CloudShape) -> dict[str, Any]:
    """The HOT template (a dict) of ``shape``. Names in the cloud come from the stack name
    (both engines name unnamed objects ``<stack>-<resource>-<random>``), so two runs never
    collide."""
    res: dict[str, Any] = {}
    for n in range(shape.networks):
        res[f"net{n}"] = {"type": "OS::Neutron::Net"}
    for s in range(shape.subnets):
        res[f"subnet{s}"] = {
            "type": "OS::Neutron::Subnet",
            "properties": {
                "network": _ref(f"net{s % shape.networks}"),
                "cidr": f"10.{s // 256}.{s % 256}.0/24",
                "enable_dhcp": False,
            },
        }
    for p in range(shape.ports):
        props: dict[str, Any] = {"network": _ref(f"net{p % shape.networks}")}
        if p < shape.routers:
            # the port of router p's floating IP, on the subnet of its interface
            props = {"network": _ref(f"net{p % shape.networks}"),
                     "fixed_ips": [{"subnet": _ref(f"subnet{p}")}]}
        res[f"port{p}"] = {"type": "OS::Neutron::Port", "properties": props}
    for r in range(shape.routers):
        res[f"router{r}"] = {
            "type": "OS::Neutron::Router",
            "properties": {"external_gateway_info": {"network": PUBLIC_NETWORK}},
        }
        res[f"router{r}_interface"] = {
            "type": "OS::Neutron::RouterInterface",
            "properties": {"router": _ref(f"router{r}"), "subnet": _ref(f"subnet{r}")},
        }
        res[f"fip{r}"] = {
            "type": "OS::Neutron::FloatingIP",
            # the interface makes the port's subnet reachable from public
            "depends_on": [f"router{r}_interface"],
            "properties": {"floating_network": PUBLIC_NETWORK, "port_id": _ref(f"port{r}")},
        }
    for v in range(shape.servers):
        res[f"server{v}_port"] = {
            "type": "OS::Neutron::Port",
            "properties": {"network": _ref(f"net{v % shape.networks}")},
        }
        res[f"server{v}"] = {
            "type": "OS::Nova::Server",
            "properties": {
                "flavor": FLAVOR,
                "image": IMAGE,
                # no cfn-tools user data: that needs Heat's CFN API, absent here
                "user_data_format": "RAW",
                "networks": [{"port": _ref(f"server{v}_port")}],
            },
        }
        res[f"server{v}_volume"] = {"type": "OS::Cinder::Volume", "properties": {"size": 1}}
        res[f"server{v}_attachment"] = {
            "type": "OS::Cinder::VolumeAttachment",
            "properties": {"instance_uuid": _ref(f"server{v}"),
                           "volume_id": _ref(f"server{v}_volume")},
        }
    return {
        "heat_template_version": "2021-04-16",
        "description": "Hearth cloud benchmark: " + ", ".join(
            f"{k} {v}" for k, v in shape.as_dict().items()),
        "resources": res,
    }
