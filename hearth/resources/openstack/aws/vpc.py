"""AWS::EC2::VPC: a Neutron network and a router of the same name (how Heat finds the
router again: ``common.router_for_vpc``)."""

from __future__ import annotations

from typing import Any

from hearth.clients.errors import is_not_found
from hearth.resources.openstack.aws.common import (
    Ec2NeutronResource,
    ignore_not_found,
    router_for_vpc,
    tags_schema,
)
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import AllowedValues


class VPC(Ec2NeutronResource):
    entity = "network"

    properties_schema = {
        "CidrBlock": P(P.STRING, "CIDR block to apply to the VPC."),
        "InstanceTenancy": P(
            P.STRING,
            "Allowed tenancy of instances launched in the VPC. default - any tenancy; "
            "dedicated - instance will be dedicated, regardless of the tenancy option "
            "specified at instance launch.",
            default="default",
            constraints=[AllowedValues(["default", "dedicated"])],
            implemented=False,
        ),
        "Tags": tags_schema("List of tags to attach to the instance.", implemented=False),
    }

    def handle_create(self) -> Any:
        name = self.physical_resource_name()
        network = self.create_object({"name": name})
        router = self.api("POST", "/routers", {"router": {"name": name}})["router"]
        # Both usually answer ACTIVE at once: then there is nothing to poll.
        return None if self.is_built(network) and self.is_built(router) else True

    def check_create_complete(self, cookie: Any) -> bool:
        if cookie is None:
            return True
        if not self.is_built(self.refresh()):
            return self.poll_later()
        router = router_for_vpc(self.api, str(self.resource_id))
        if router is not None and not self.is_built(router):
            return self.poll_later()
        return True

    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return None
        try:
            router = router_for_vpc(self.api, self.resource_id)
        except Exception as exc:
            if not is_not_found(exc):
                raise
            router = None
        if router is not None:
            ignore_not_found(lambda: self.api("DELETE", f"/routers/{router['id']}"))
        ignore_not_found(lambda: self.api("DELETE", f"/networks/{self.resource_id}"))
        return None


def resource_mapping() -> dict[str, type[Ec2NeutronResource]]:
    return {"AWS::EC2::VPC": VPC}
