"""OS::Neutron::Net: a Neutron network."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.resources.attributes import AttributeSchema
from hearth.resources.openstack.base import since
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint


class Net(NeutronResource):
    """A resource for managing Neutron net.

    A network is a virtual isolated layer-2 broadcast domain which is typically
    reserved to the tenant who created it, unless the network has been
    explicitly configured to be shared.
    """

    entity = "network"

    properties_schema = {
        "name": P(
            P.STRING,
            "A string specifying a symbolic name for the network, which is not required to "
            "be unique.",
            update_allowed=True,
        ),
        "value_specs": P(
            P.MAP,
            "Extra parameters to include in the request. Parameters are often specific to "
            "installed hardware or extensions.",
            default={},
            update_allowed=True,
        ),
        "admin_state_up": P(
            P.BOOLEAN,
            "A boolean value specifying the administrative status of the network.",
            default=True,
            update_allowed=True,
        ),
        "tenant_id": P(
            P.STRING,
            "The ID of the tenant which will own the network. Only administrative users can "
            "set the tenant identifier; this cannot be changed using authorization policies.",
        ),
        "shared": P(
            P.BOOLEAN,
            "Whether this network should be shared across all tenants. Note that the default "
            "policy setting restricts usage of this attribute to administrative users only.",
            default=False,
            update_allowed=True,
        ),
        "dhcp_agent_ids": P(
            P.LIST,
            "The IDs of the DHCP agent to schedule the network. Note that the default policy "
            "setting in Neutron restricts usage of this property to administrative users "
            "only.",
            update_allowed=True,
        ),
        "port_security_enabled": P(
            P.BOOLEAN,
            "Flag to enable/disable port security on the network. It provides the default "
            "value for the attribute of the ports created on this network.",
            update_allowed=True,
            support_status=since("5.0.0"),
        ),
        "qos_policy": P(
            P.STRING,
            "The name or ID of QoS policy to attach to this network.",
            constraints=[CustomConstraint("neutron.qos_policy")],
            update_allowed=True,
            support_status=since("6.0.0"),
        ),
        "dns_domain": P(
            P.STRING,
            "DNS domain associated with this network.",
            constraints=[CustomConstraint("dns_domain")],
            update_allowed=True,
            support_status=since("7.0.0"),
        ),
        "availability_zone_hints": P(
            P.LIST,
            "Availability zone candidates for the network. It requires the "
            "availability_zone extension to be available.",
            support_status=since("19.0.0"),
        ),
        "tags": P(
            P.LIST,
            "The tags to be added to the network.",
            schema=P(P.STRING),
            update_allowed=True,
            support_status=since("9.0.0"),
        ),
    }

    attributes_schema = {
        "status": AttributeSchema("The status of the network.", type=AttributeSchema.STRING),
        "name": AttributeSchema("The name of the network.", type=AttributeSchema.STRING),
        "subnets": AttributeSchema("Subnets of this network.", type=AttributeSchema.LIST),
        "admin_state_up": AttributeSchema(
            "The administrative status of the network.", type=AttributeSchema.STRING
        ),
        "tenant_id": AttributeSchema(
            "The tenant owning this network.", type=AttributeSchema.STRING
        ),
        "port_security_enabled": AttributeSchema(
            "Port security enabled of the network.", support_status=since("5.0.0"),
            type=AttributeSchema.BOOLEAN,
        ),
        "mtu": AttributeSchema(
            "The maximum transmission unit size(in bytes) for the network.",
            support_status=since("5.0.0"), type=AttributeSchema.INTEGER,
        ),
        "qos_policy_id": AttributeSchema(
            "The QoS policy ID attached to this network.", type=AttributeSchema.STRING,
            support_status=since("6.0.0"),
        ),
        "l2_adjacency": AttributeSchema(
            "A boolean value for L2 adjacency, True means that you can expect L2 "
            "connectivity throughout the Network.",
            type=AttributeSchema.BOOLEAN, support_status=since("9.0.0"),
        ),
        "segments": AttributeSchema(
            "The segments of this network.", type=AttributeSchema.LIST,
            support_status=since("11.0.0"),
        ),
    }

    # Segments are a call of their own: read only when a template asks.
    uncached_attributes = frozenset({"segments"})

    def create_body(self, props: dict[str, Any]) -> dict[str, Any]:
        props.pop("dhcp_agent_ids", None)
        qos = props.pop("qos_policy", None)
        if qos:
            props["qos_policy_id"] = self.find("qos_policy", qos)
        return props

    def after_create(self, props: Mapping[str, Any]) -> None:
        agents = props.get("dhcp_agent_ids")
        if agents:
            self._replace_dhcp_agents(list(agents))

    def update_body(self, diff: dict[str, Any]) -> dict[str, Any]:
        if "dhcp_agent_ids" in diff:
            self._replace_dhcp_agents(list(diff.pop("dhcp_agent_ids") or []))
        if "qos_policy" in diff:
            qos = diff.pop("qos_policy")
            diff["qos_policy_id"] = self.find("qos_policy", qos) if qos else None
        return diff

    def _replace_dhcp_agents(self, wanted: list[str]) -> None:
        path = f"/networks/{self.resource_id}/dhcp-agents"
        current = {a["id"] for a in (self.api("GET", path) or {}).get("agents", [])}
        for agent in set(wanted) - current:
            self.api("POST", f"/agents/{agent}/dhcp-networks", {"network_id": self.resource_id})
        for agent in current - set(wanted):
            self.api("DELETE", f"/agents/{agent}/dhcp-networks/{self.resource_id}")

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == "segments":
            found = self.api("GET", "/segments", params={"network_id": self.resource_id})
            segments = list((found or {}).get("segments", []))
            segments.sort(key=lambda s: s.get("name") is not None)
            return segments
        return self.obj.get(name)

    def get_live_state(self) -> dict[str, Any]:
        state = super().get_live_state()
        state.pop("shared", None)
        if self._obj is not None:
            state["qos_policy"] = self._obj.get("qos_policy_id")
        return state


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {"OS::Neutron::Net": Net}
