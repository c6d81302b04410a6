"""OS::Neutron::ProviderNet: a network with an explicit physical realisation (admin only).

It behaves as OS::Neutron::Net (same create, update, delete, attributes); what differs is the
schema and the body: ``network_type``, ``physical_network`` and ``segmentation_id`` travel as
Neutron's ``provider:*`` fields and ``router_external`` as ``router:external``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.attributes import AttributeSchema
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.base import since, to_plain
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.openstack.neutron.net import Net
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import AllowedValues, CustomConstraint

NETWORK_TYPES = ("local", "vlan", "vxlan", "gre", "geneve", "flat")
# Schema name -> Neutron's field name.
NEUTRON_FIELDS = {
    "network_type": "provider:network_type",
    "physical_network": "provider:physical_network",
    "segmentation_id": "provider:segmentation_id",
    "router_external": "router:external",
}


class ProviderNet(Net):
    """A resource for managing Neutron provider networks.

    Provider networks specify details of physical realisation of the existing
    network.

    The default policy usage of this resource is limited to
    administrators only.
    """

    required_service_extension = "provider"
    support_status = since("2014.1")

    properties_schema = {
        "name": Net.properties_schema["name"],
        "network_type": P(
            P.STRING,
            "A string specifying the provider network type for the network.",
            update_allowed=True,
            required=True,
            constraints=[AllowedValues(list(NETWORK_TYPES))],
        ),
        "physical_network": P(
            P.STRING,
            "A string specifying physical network mapping for the network.",
            update_allowed=True,
        ),
        "segmentation_id": P(
            P.STRING,
            "A string specifying the segmentation id for the network.",
            update_allowed=True,
        ),
        "admin_state_up": Net.properties_schema["admin_state_up"],
        "shared": P(
            P.BOOLEAN,
            "Whether this network should be shared across all tenants.",
            default=True,
            update_allowed=True,
        ),
        "port_security_enabled": P(
            P.BOOLEAN,
            "Flag to enable/disable port security on the network. It provides the default "
            "value for the attribute of the ports created on this network.",
            update_allowed=True,
            support_status=since("8.0.0"),
        ),
        "router_external": P(
            P.BOOLEAN,
            "Whether the network contains an external router.",
            default=False,
            update_allowed=True,
            support_status=since("6.0.0"),
        ),
        "tags": P(
            P.LIST,
            "The tags to be added to the provider network.",
            schema=P(P.STRING),
            update_allowed=True,
            support_status=since("12.0.0"),
        ),
        "dns_domain": P(
            P.STRING,
            "DNS domain associated with this network.",
            constraints=[CustomConstraint("dns_domain")],
            update_allowed=True,
            support_status=since("15.0.0"),
        ),
        "availability_zone_hints": P(
            P.LIST,
            "Availability zone candidates for the network. It requires the "
            "availability_zone extension to be available.",
            update_allowed=True,
            support_status=since("19.0.0"),
        ),
        "tenant_id": P(
            P.STRING,
            "The ID of the tenant which will own the provider network. Only administrative "
            "users can set the tenant identifier; this cannot be changed using authorization "
            "policies.",
            support_status=since("24.0.0"),
        ),
    }

    attributes_schema = {
        "status": Net.attributes_schema["status"],
        "subnets": Net.attributes_schema["subnets"],
        "segments": AttributeSchema(
            "The segments of this network.", type=AttributeSchema.LIST,
            support_status=since("16.0.0"),
        ),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        super().validate(properties, scope)
        network_type = properties["network_type"]
        if properties["segmentation_id"] and network_type in ("local", "flat"):
            raise StackValidationFailed(
                "segmentation_id not allowed for network types: local, flat"
            )
        if properties["physical_network"] and network_type in ("vxlan", "gre", "geneve",
                                                                "local"):
            # Heat's wording (which names flat where it means local).
            raise StackValidationFailed(
                "physical_network not allowed for network types: vxlan, gre, geneve, flat"
            )

    def create_body(self, props: dict[str, Any]) -> dict[str, Any]:
        return _neutron_names(props)

    def update_body(self, diff: dict[str, Any]) -> dict[str, Any]:
        return _neutron_names(diff)

    def get_live_state(self) -> dict[str, Any]:
        found = self.fetch_or_none()
        if found is None:
            return {}
        plain = to_plain(found)
        state = {name: plain.get(field) for name, field in NEUTRON_FIELDS.items()}
        for name in self.properties_schema:
            if name not in state and name != "shared" and name in plain:
                state[name] = plain[name]
        return state


def _neutron_names(props: Mapping[str, Any]) -> dict[str, Any]:
    """The body with the provider and router fields under Neutron's names."""
    return {NEUTRON_FIELDS.get(key, key): value for key, value in props.items()}


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {"OS::Neutron::ProviderNet": ProviderNet}
