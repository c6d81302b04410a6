"""AWS::EC2::NetworkInterface: a Neutron port on a subnet, with its security groups."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.resources.attributes import AttributeSchema
from hearth.resources.openstack.aws.common import (
    Ec2NeutronResource,
    ignore_not_found,
    network_of_subnet,
    security_group_ids,
    tags_schema,
)
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint


class NetworkInterface(Ec2NeutronResource):
    entity = "port"

    properties_schema = {
        "Description": P(P.STRING, "Description for this interface."),
        "GroupSet": P(
            P.LIST, "List of security group IDs associated with this interface.",
            update_allowed=True,
        ),
        "PrivateIpAddress": P(P.STRING),
        "SourceDestCheck": P(
            P.BOOLEAN, "Flag indicating if traffic to or from instance is validated.",
            implemented=False,
        ),
        "SubnetId": P(
            P.STRING, "Subnet ID to associate with this interface.", required=True,
            constraints=[CustomConstraint("neutron.subnet")],
        ),
        "Tags": tags_schema("List of tags associated with this interface.", implemented=False),
    }

    attributes_schema = {
        "PrivateIpAddress": AttributeSchema(
            "Private IP address of the network interface.", type=AttributeSchema.STRING
        ),
    }

    def _group_ids(self, groups: list[str]) -> list[str]:
        return security_group_ids(self.api, self.conn.current_project_id, groups)

    def handle_create(self) -> Any:
        subnet_id = str(self.properties["SubnetId"])
        fixed_ip = {"subnet_id": subnet_id}
        if self.properties["PrivateIpAddress"]:
            fixed_ip["ip_address"] = self.properties["PrivateIpAddress"]
        body: dict[str, Any] = {
            "name": self.physical_resource_name(),
            "admin_state_up": True,
            "network_id": network_of_subnet(self.api, subnet_id),
            "fixed_ips": [fixed_ip],
        }
        # Not given: Neutron's default group; an empty list: no group at all.
        groups = self.properties["GroupSet"]
        if groups is not None:
            body["security_groups"] = self._group_ids(list(groups))
        self.create_object(body)
        return None

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> Any:
        if "GroupSet" in prop_diff:
            # Removed from the template: back to the default group, as at create.
            groups = prop_diff["GroupSet"]
            ids = self._group_ids(list(groups) if groups is not None else ["default"])
            self.update_object({"security_groups": ids})
        return None

    def handle_delete(self) -> Any:
        if self.resource_id is not None:
            ignore_not_found(lambda: self.api("DELETE", f"/ports/{self.resource_id}"))
        return None

    def _resolve_attribute(self, name: str) -> Any:
        if name != "PrivateIpAddress" or self.resource_id is None:
            return None
        fixed_ips = self.obj.get("fixed_ips") or []
        return fixed_ips[0]["ip_address"] if fixed_ips else None


def resource_mapping() -> dict[str, type[Ec2NeutronResource]]:
    return {"AWS::EC2::NetworkInterface": NetworkInterface}
