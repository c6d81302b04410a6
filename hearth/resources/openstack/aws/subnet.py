"""AWS::EC2::Subnet: a Neutron subnet on the VPC's network, plugged into the VPC's router."""

from __future__ import annotations

from typing import Any

from hearth.clients.errors import is_not_found
from hearth.resources.attributes import AttributeSchema
from hearth.resources.openstack.aws.common import (
    Ec2NeutronResource,
    add_router_interface,
    ignore_not_found,
    remove_router_interface,
    router_for_vpc,
    tags_schema,
)
from hearth.resources.schema import PropertySchema as P


class Subnet(Ec2NeutronResource):
    entity = "subnet"

    properties_schema = {
        "AvailabilityZone": P(P.STRING, "Availability zone in which you want the subnet."),
        "CidrBlock": P(P.STRING, "CIDR block to apply to subnet.", required=True),
        "VpcId": P(
            P.STRING,
            "Ref structure that contains the ID of the VPC on which you want to create the "
            "subnet.",
            required=True,
        ),
        "Tags": tags_schema("List of tags to attach to this resource.", implemented=False),
    }

    attributes_schema = {
        "AvailabilityZone": AttributeSchema(
            "Availability Zone of the subnet.", type=AttributeSchema.STRING
        ),
    }

    def handle_create(self) -> Any:
        network_id = self.properties["VpcId"]
        subnet = self.create_object({
            "network_id": network_id,
            "cidr": self.properties["CidrBlock"],
            "name": self.physical_resource_name(),
            "ip_version": 4,
        })
        router = router_for_vpc(self.api, network_id)
        if router is not None:
            add_router_interface(self.api, str(router["id"]), str(subnet["id"]))
        return None

    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return None
        subnet_id = self.resource_id
        try:
            router = router_for_vpc(self.api, self.properties["VpcId"])
        except Exception as exc:
            if not is_not_found(exc):
                raise
            router = None
        if router is not None:
            ignore_not_found(
                lambda: remove_router_interface(self.api, str(router["id"]), subnet_id))
        ignore_not_found(lambda: self.api("DELETE", f"/subnets/{subnet_id}"))
        return None

    def _resolve_attribute(self, name: str) -> Any:
        if name == "AvailabilityZone":
            return self.properties["AvailabilityZone"]
        return None


def resource_mapping() -> dict[str, type[Ec2NeutronResource]]:
    return {"AWS::EC2::Subnet": Subnet}
