"""AWS::EC2::RouteTable (a Neutron router of its own) and
AWS::EC2::SubnetRouteTableAssociation (moves a subnet's router interface from the VPC's
router to the route table's, and back on delete)."""

from __future__ import annotations

from typing import Any

from hearth.resources.openstack.aws.common import (
    Ec2NeutronResource,
    add_router_interface,
    ignore_not_found,
    network_of_subnet,
    remove_router_interface,
    router_for_vpc,
    set_router_gateway,
    tags_schema,
)
from hearth.resources.openstack.base import since
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint


class RouteTable(Ec2NeutronResource):
    entity = "router"
    support_status = since("2014.1")

    properties_schema = {
        "VpcId": P(P.STRING, "VPC ID for where the route table is created.", required=True),
        "Tags": tags_schema("List of tags to be attached to this resource.", implemented=False),
    }

    def handle_create(self) -> Any:
        self.create_object({"name": self.physical_resource_name()})
        return True

    def check_create_complete(self, cookie: Any) -> bool:
        if not self.is_built(self.obj):
            self._obj = None
            return self.poll_later()
        # The VPC's own router already reaches the outside: so does this one.
        default = router_for_vpc(self.api, self.properties["VpcId"])
        gateway = (default or {}).get("external_gateway_info")
        if gateway:
            set_router_gateway(self.api, str(self.resource_id), str(gateway["network_id"]))
        return True

    def handle_delete(self) -> Any:
        if self.resource_id is not None:
            # Neutron takes the gateway away with the router.
            ignore_not_found(lambda: self.api("DELETE", f"/routers/{self.resource_id}"))
        return None


class SubnetRouteTableAssociation(Ec2NeutronResource):
    properties_schema = {
        "RouteTableId": P(P.STRING, "Route table ID.", required=True),
        "SubnetId": P(
            P.STRING, "Subnet ID.", required=True,
            constraints=[CustomConstraint("neutron.subnet")],
        ),
    }

    def _default_router(self, subnet_id: str) -> dict[str, Any] | None:
        return router_for_vpc(self.api, network_of_subnet(self.api, subnet_id))

    def handle_create(self) -> Any:
        subnet_id = str(self.properties["SubnetId"])
        router_id = str(self.properties["RouteTableId"])

        def leave_default_router() -> None:
            previous = self._default_router(subnet_id)
            if previous is not None:
                remove_router_interface(self.api, str(previous["id"]), subnet_id)

        ignore_not_found(leave_default_router)
        add_router_interface(self.api, router_id, subnet_id)
        # Heat records no physical id for an association.
        return None

    def handle_delete(self) -> Any:
        subnet_id = str(self.properties["SubnetId"])
        router_id = str(self.properties["RouteTableId"])
        ignore_not_found(lambda: remove_router_interface(self.api, router_id, subnet_id))

        def back_to_default_router() -> None:
            default = self._default_router(subnet_id)
            if default is not None:
                add_router_interface(self.api, str(default["id"]), subnet_id)

        ignore_not_found(back_to_default_router)
        return None


def resource_mapping() -> dict[str, type[Ec2NeutronResource]]:
    return {
        "AWS::EC2::RouteTable": RouteTable,
        "AWS::EC2::SubnetRouteTableAssociation": SubnetRouteTableAssociation,
    }
