"""AWS::EC2::InternetGateway (nothing in the cloud: the external network stands for it) and
AWS::EC2::VPCGatewayAttachment (the external network as gateway of the VPC's route tables).

Heat finds the route tables among the stack's resources. A plugin here sees its stack only
one named resource at a time (``context.peer``), so the attachment lists the project's
routers named after the stack (``<stack>-<resource>-<short id>``) and keeps those that are
route tables of the same VPC in this stack.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from hearth.resources.base import Resource
from hearth.resources.openstack.aws.common import (
    Ec2NeutronResource,
    clear_router_gateway,
    external_network_id,
    ignore_not_found,
    set_router_gateway,
    tags_schema,
)
from hearth.resources.schema import PropertySchema as P

if TYPE_CHECKING:
    from hearth.resources.dependencies import ResourceShape

ROUTE_TABLE = "AWS::EC2::RouteTable"
# "-" and the 12 characters of the short id that end a physical resource name.
SHORT_ID_TAIL = 13


class InternetGateway(Resource):
    properties_schema = {"Tags": tags_schema(implemented=False)}
    handlers_block = False

    def handle_create(self) -> Any:
        self.resource_id_set(self.physical_resource_name())
        return None

    def handle_delete(self) -> Any:
        return None


class VPCGatewayAttachment(Ec2NeutronResource):
    properties_schema = {
        "VpcId": P(P.STRING, "VPC ID for this gateway association.", required=True),
        "InternetGatewayId": P(P.STRING, "ID of the InternetGateway."),
        "VpnGatewayId": P(
            P.STRING, "ID of the VPNGateway to attach to the VPC.", implemented=False
        ),
    }

    @classmethod
    def implicit_dependencies(
        cls, name: str, shapes: Mapping[str, ResourceShape]
    ) -> Iterable[str]:
        """Heat's add_dependencies: every route table of the same VPC exists first (the
        gateway goes onto their routers)."""
        vpc = shapes[name].properties.get("VpcId")
        return sorted(
            other for other, shape in shapes.items()
            if shape.type == ROUTE_TABLE and shape.properties.get("VpcId") == vpc
        )

    def _vpc_route_tables(self) -> Iterator[str]:
        """The router ids of this stack's route tables in the same VPC."""
        prefix = f"{self.context.stack_name.rstrip('*')}-"
        found = self.api("GET", "/routers", params={
            "project_id": self.conn.current_project_id, "fields": ["id", "name"],
        })
        for router in found["routers"]:
            name = str(router.get("name") or "")
            if not name.startswith(prefix) or len(name) <= len(prefix) + SHORT_ID_TAIL:
                continue
            peer = self.context.peer(name[len(prefix):-SHORT_ID_TAIL])
            if (peer is not None and peer.type_name == ROUTE_TABLE
                    and peer.resource_id == router["id"]
                    and peer.properties.get("VpcId") == self.properties["VpcId"]):
                yield str(router["id"])

    def handle_create(self) -> Any:
        network_id = external_network_id(self.api)
        for router_id in self._vpc_route_tables():
            set_router_gateway(self.api, router_id, network_id)
        return None

    def handle_delete(self) -> Any:
        for router_id in self._vpc_route_tables():
            ignore_not_found(lambda: clear_router_gateway(self.api, router_id))  # noqa: B023
        return None


def resource_mapping() -> dict[str, type[Resource]]:
    return {
        "AWS::EC2::InternetGateway": InternetGateway,
        "AWS::EC2::VPCGatewayAttachment": VPCGatewayAttachment,
    }
