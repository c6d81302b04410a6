"""AWS::EC2::EIP (a Neutron floating IP on the external network, optionally on a server) and
AWS::EC2::EIPAssociation (a floating IP, by address or by id, put on a server or a port)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common.errors import NotFound, StackValidationFailed
from hearth.resources.attributes import AttributeSchema
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.aws import floating_ips
from hearth.resources.openstack.aws.common import (
    Ec2NeutronResource,
    external_network_id,
    ignore_not_found,
    router_for_vpc,
    set_router_gateway,
)
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.resources.support import DEPRECATED, SupportStatus
from hearth.template.constraints import AllowedValues, CustomConstraint

# Resource data: the address, so the reference (the address) costs no call.
ADDRESS = "floating_ip_address"


class ElasticIp(Ec2NeutronResource):
    entity = "floatingip"
    default_client_name = "nova"

    properties_schema = {
        "Domain": P(
            P.STRING,
            'Set to "vpc" to have IP address allocation associated to your VPC.',
            constraints=[AllowedValues(["vpc"])],
            support_status=SupportStatus(
                status=DEPRECATED, version="9.0.0",
                message="Now we only allow vpc here, so no need to set up this tag anymore.",
            ),
        ),
        "InstanceId": P(
            P.STRING, "Instance ID to associate with EIP.", update_allowed=True,
            constraints=[CustomConstraint("nova.server")],
        ),
    }

    attributes_schema = {
        "AllocationId": AttributeSchema(
            "ID that AWS assigns to represent the allocation of the address for use with "
            "Amazon VPC. Returned only for VPC elastic IP addresses.",
            type=AttributeSchema.STRING,
        ),
    }

    def handle_create(self) -> Any:
        network_id = external_network_id(self.api)
        created = self.create_object({"floating_network_id": network_id})
        self.data_set(ADDRESS, str(created["floating_ip_address"]))
        server = self.properties["InstanceId"]
        if server:
            floating_ips.associate(self.cloud, self.api, server, str(self.resource_id))
        return None

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> Any:
        if "InstanceId" in prop_diff:
            server = prop_diff["InstanceId"]
            if server:
                floating_ips.associate(self.cloud, self.api, server, str(self.resource_id))
            else:
                floating_ips.dissociate(self.api, str(self.resource_id))
        return None

    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return None
        floatingip_id = self.resource_id
        if self.properties["InstanceId"]:
            # The association may never have been made: nothing to undo then.
            ignore_not_found(lambda: floating_ips.dissociate(self.api, floatingip_id))
        ignore_not_found(lambda: self.api("DELETE", f"/floatingips/{floatingip_id}"))
        return None

    def _address(self) -> str:
        if self.resource_id is None:
            return ""
        stored = self.data().get(ADDRESS)
        if stored:
            return stored
        found = self.fetch_or_none()
        return str(found["floating_ip_address"]) if found else ""

    def get_reference_id(self) -> str | None:
        return self._address() or self.name

    def _resolve_attribute(self, name: str) -> Any:
        if name == "AllocationId":
            return str(self.resource_id)
        return None


def _given(properties: Properties, key: str) -> bool:
    """Set in the template (a reference counts before its value is known)."""
    return key in properties.unresolved or bool(properties.get(key))


class ElasticIpAssociation(Ec2NeutronResource):
    default_client_name = "nova"

    properties_schema = {
        "InstanceId": P(
            P.STRING, "Instance ID to associate with EIP specified by EIP property.",
            update_allowed=True, constraints=[CustomConstraint("nova.server")],
        ),
        "EIP": P(
            P.STRING, "EIP address to associate with instance.", update_allowed=True,
            constraints=[CustomConstraint("ip_addr")],
        ),
        "AllocationId": P(P.STRING, "Allocation ID for VPC EIP address.", update_allowed=True),
        "NetworkInterfaceId": P(
            P.STRING, "Network interface ID to associate with EIP.", update_allowed=True
        ),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        eip, allocation = _given(properties, "EIP"), _given(properties, "AllocationId")
        if eip == allocation:
            raise StackValidationFailed("Either 'EIP' or 'AllocationId' must be provided.")
        instance = _given(properties, "InstanceId")
        if eip and not instance:
            raise StackValidationFailed("Must specify 'InstanceId' if you specify 'EIP'.")
        if not instance and not _given(properties, "NetworkInterfaceId"):
            raise StackValidationFailed(
                "At least one of the following properties must be specified: InstanceId, "
                "NetworkInterfaceId."
            )

    @classmethod
    def needs_replace_with_prop_diff(
        cls, changed: frozenset[str], after: Properties, before: Properties
    ) -> bool:
        # A new address and a new target at once: Heat makes a new association.
        if "AllocationId" not in changed and "EIP" not in changed:
            return False
        instance = after.get("InstanceId") if "InstanceId" in changed else None
        port = after.get("NetworkInterfaceId") if "NetworkInterfaceId" in changed else None
        return bool(instance or port)

    def get_reference_id(self) -> str | None:
        return self.physical_resource_name()

    # --- Neutron steps -------------------------------------------------------------------

    def _port(self, port_id: str | None, server_id: str | None) -> dict[str, Any] | None:
        """The port given, or else the server's first port."""
        if port_id:
            ports = self.api("GET", "/ports", params={"id": port_id})["ports"]
        elif server_id:
            ports = self.api("GET", "/ports", params={"device_id": server_id})["ports"]
        else:
            return None
        return dict(ports[0]) if ports else None

    def _vpc_gateway(self, floatingip_id: str, network_id: str) -> None:
        """The port's VPC router reaches the floating IP's network (Heat does this here)."""
        router = router_for_vpc(self.api, network_id)
        if router is not None:
            found = self.api("GET", f"/floatingips/{floatingip_id}")["floatingip"]
            set_router_gateway(self.api, str(router["id"]), str(found["floating_network_id"]))

    def _put_on_port(self, floatingip_id: str, port_id: str | None,
                     ignore_missing: bool = False) -> None:
        def put() -> None:
            self.api("PUT", f"/floatingips/{floatingip_id}",
                     {"floatingip": {"port_id": port_id}})

        if ignore_missing:
            ignore_not_found(put)
        else:
            put()

    def _associate_by_id(self, floatingip_id: str, port_id: str | None,
                         server_id: str | None) -> bool:
        port = self._port(port_id, server_id)
        if port is None:
            return False
        self._vpc_gateway(floatingip_id, str(port["network_id"]))
        self._put_on_port(floatingip_id, str(port["id"]))
        return True

    def _associate_address(self, server_id: str, address: str) -> None:
        floatingip_id = floating_ips.by_address(self.api, address)
        floating_ips.associate(self.cloud, self.api, server_id, floatingip_id)

    def _detach(self, props: Properties, ignore_missing: bool = False) -> None:
        """Take the current floating IP off whatever it is on."""
        eip, allocation = props["EIP"], props["AllocationId"]
        if eip:
            def by_address() -> None:
                floating_ips.dissociate(self.api, floating_ips.by_address(self.api, eip))

            if ignore_missing:
                try:
                    ignore_not_found(by_address)
                except floating_ips.EntityMatchNotFound:
                    pass
            else:
                by_address()
        elif allocation:
            self._put_on_port(allocation, None, ignore_missing)

    # --- lifecycle -----------------------------------------------------------------------

    def handle_create(self) -> Any:
        props = self.properties
        if props["EIP"]:
            self._associate_address(props["InstanceId"], props["EIP"])
            self.resource_id_set(props["EIP"])
        elif props["AllocationId"]:
            if self._associate_by_id(props["AllocationId"], props["NetworkInterfaceId"],
                                     props["InstanceId"]):
                self.resource_id_set(props["AllocationId"])
        return None

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> Any:
        if not prop_diff:
            return None
        props = self.properties
        if prop_diff.get("EIP") or prop_diff.get("AllocationId"):
            self._detach(props)
            if prop_diff.get("EIP"):
                self._associate_address(props["InstanceId"], prop_diff["EIP"])
                self.resource_id_set(prop_diff["EIP"])
            else:
                allocation = prop_diff["AllocationId"]
                if not self._associate_by_id(allocation, props["NetworkInterfaceId"],
                                             props["InstanceId"]):
                    raise NotFound("Failed to update, can not found port info.")
                self.resource_id_set(allocation)
        elif "EIP" in prop_diff or "AllocationId" in prop_diff:
            # An address removed without a new one: Heat changes nothing.
            pass
        elif "InstanceId" in prop_diff or "NetworkInterfaceId" in prop_diff:
            server, port = prop_diff.get("InstanceId"), prop_diff.get("NetworkInterfaceId")
            if props["EIP"]:
                self._associate_address(str(server), props["EIP"])
            elif not self._associate_by_id(props["AllocationId"], port, server):
                raise NotFound("Failed to update, can not found port info.")
        return None

    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return None
        self._detach(self.properties, ignore_missing=True)
        return None


def resource_mapping() -> dict[str, type[Ec2NeutronResource]]:
    return {
        "AWS::EC2::EIP": ElasticIp,
        "AWS::EC2::EIPAssociation": ElasticIpAssociation,
    }
